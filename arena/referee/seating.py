"""Seating a match: one participant per configured seat, and the environment it runs in.

The match itself is played by `arena.referee.loop.play_match`.
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence

from arena.base.config import Entrant, LimitsSection
from arena.seats import sandbox
from arena.seats.in_process import InProcessParticipant
from arena.seats.replies import Participant
from arena.seats.transport import ResourceLimits, SubprocessParticipant

# The environment a participant gets: these variables of the arena's own, when set, and the
# ARENA_* ones below; nothing else leaks to untrusted code. Config `env` adds to it.
PASSED_ENVIRONMENT = (
    "PATH",
    "HOME",
    "LANG",
    "LC_ALL",
    "LC_CTYPE",
    "TMPDIR",
    "TZ",
    "USER",
    "LOGNAME",
)


def participant_env(seat: int, name: str, extra: Mapping[str, str]) -> dict[str, str]:
    env = {key: os.environ[key] for key in PASSED_ENVIRONMENT if key in os.environ}
    env.update(PYTHONUNBUFFERED="1", ARENA_SEAT=str(seat), ARENA_NAME=name)
    env.update(extra)
    return env


def make_participants(
    seats: Sequence[Entrant], limits: LimitsSection, *, in_process_bots: bool = False
) -> list[Participant]:
    """One participant per seat, in seat order (not yet started).

    `limits.sandbox` should already be decided (`sandbox.decide`, once per run); "auto" is
    decided here, silently, for callers that did not (tests, benchmarks).
    """
    confinement = sandbox.resolved(limits.sandbox)
    resources = ResourceLimits(
        memory_bytes=limits.memory_mib * 2**20 if limits.memory_mib else None,
        cpu_seconds=limits.cpu_seconds,
    )
    made: list[Participant] = []
    for index, seat in enumerate(seats):
        if seat.bot is not None and in_process_bots:
            from arena.bots import BOTS  # stdlib-only; imported late so the engine does not need it

            made.append(InProcessParticipant(BOTS[seat.bot]().handle))
            continue
        made.append(
            SubprocessParticipant(
                seat.command,
                seat.cwd,
                participant_env(index, seat.name, seat.env),
                line_cap=limits.max_line_bytes,
                reply_cap=limits.max_reply_bytes,
                stderr_cap=limits.stderr_bytes,
                limits=resources,
                sandbox=confinement,
                bot=seat.bot is not None,
                read_only=seat.read_only,
                hidden=seat.hidden,
            )
        )
    return made


__all__ = ["PASSED_ENVIRONMENT", "make_participants", "participant_env"]
