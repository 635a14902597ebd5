"""A participant program run as a subprocess: its process and its line channel, together.

`SubprocessParticipant` is the `Participant` the match loop talks to for every program seat.
It is the sum of two parts: `arena.seats.process.ParticipantProcess` (spawn, sandbox, kill,
reap: the only code that touches processes) and `arena.seats.channel.LineChannel` (the
framing: lines, deadlines, caps, unasked output, the stderr log), which talks to the process
through its pipes only.
"""

from __future__ import annotations

import subprocess
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Unpack

from arena.seats.channel import LineChannel
from arena.seats.process import (
    ParticipantProcess,
    ResourceLimits,
    Spawn,
    wait_for_removals,
)
from arena.seats.replies import GONE, Answer, BoundedLog, Ending, Fault


class SubprocessParticipant:
    """A participant program run as a subprocess, speaking JSON lines: the caps are its
    channel's, and `spawn` (`limits`, `sandbox`, `bot`, `read_only`, `hidden`) says how its
    `ParticipantProcess` is started.
    """

    def __init__(
        self,
        command: Sequence[str],
        cwd: Path,
        env: Mapping[str, str],
        *,
        line_cap: int = 1 << 20,
        stderr_cap: int = 1 << 20,
        reply_cap: int = 8 << 20,
        **spawn: Unpack[Spawn],
    ) -> None:
        self.process = ParticipantProcess(command, cwd, env, **spawn)
        self.channel = LineChannel(
            self.process, line_cap=line_cap, stderr_cap=stderr_cap, reply_cap=reply_cap
        )
        self.start_fault: Fault | None = None
        self._started = False

    # -- life cycle ---------------------------------------------------------------------

    def start(self) -> None:
        if self._started:
            return  # already running: kept alive from an earlier match (reuse)
        self._started = True
        self.start_fault = self.process.start()
        if self.start_fault is not None:
            self.channel.stop()

    @property
    def alive(self) -> bool:
        return self._started and self.channel.alive

    @property
    def in_process(self) -> bool:
        return False

    @property
    def confinement(self) -> str:
        return self.process.sandbox

    @property
    def isolation(self) -> tuple[str, ...]:
        return self.process.isolation

    @property
    def keepable(self) -> bool:
        return self.alive and self.proc is not None and not self.has_ended()

    def begin_match(self) -> None:
        self.channel.begin_match()

    def exchange(self, line: bytes, timeout: float) -> Answer:
        """Write one message line and read one reply line within `timeout` seconds.

        Raises shutdown.Stopped when the process is told to stop while it waits.
        """
        if not self._started:
            return GONE
        return self.channel.exchange(line, timeout)

    def leftover(self) -> Fault | None:
        return self.channel.leftover()

    def ending(self) -> Ending | None:
        return self.process.ending(self.channel.drain_stderr)

    def end_input(self) -> None:
        """Close the participant's stdin: its signal that the match is over."""
        self.process.close_input()

    def kill(self) -> None:
        """Kill the whole process group, then reap the process; keep what stderr still holds.
        Safe to call again."""
        self.channel.stop()

    def stderr_text(self) -> str:
        return self.channel.log.text()

    # -- what the process and the channel know ------------------------------------------

    @property
    def log(self) -> BoundedLog:
        return self.channel.log

    @property
    def proc(self) -> subprocess.Popen[bytes] | None:
        return self.process.proc

    @property
    def pid(self) -> int | None:
        return self.process.pid

    @property
    def exit_code(self) -> int | None:
        return self.process.exit_code

    @property
    def ended_by_itself(self) -> bool | None:
        return self.process.ended_by_itself

    @property
    def sandbox_failed(self) -> bool:
        return self.channel.sandbox_failed

    def has_ended(self) -> bool:
        return self.process.has_ended()


__all__ = [
    "ResourceLimits",
    "SubprocessParticipant",
    "wait_for_removals",
]
