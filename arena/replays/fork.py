"""Forking a replay: the same match continued from one of its messages, with other participants.

    point = fork_point(document, "turn:7")          # or "57", a transcript index
    forked = fork(document, source, point, {1: SeatSpec.of_text("hard")}, cwd=Path.cwd())

Up to the point the engine is handed the recorded answers, so the match is the one recorded;
every live participant, kept or replaced, is meanwhile sent its seat's messages so that it holds
the knowledge it would have had, and its own replies to them are kept aside (`fork.ignored`).
From the point on the participants play live, on the recorded deck's remaining order. A kept
seat whose participant was stopped before the point (it crashed, timed out…) stays stopped.
The rulings are in the contract (§6.4).

The match is played by the one match loop (`arena.referee.loop.play_match`); this module only
chooses the participants and wraps each in a `ForkedSeat`.
"""

from __future__ import annotations

import hashlib
import re
import shlex
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from arena.base.config import Entrant, LimitsSection, bot_command, resolve_program
from arena.base.errors import ConfigError, ReplayError
from arena.base.files import UnreadableFile, read_capped
from arena.bots import BOTS
from arena.engine.match import NO_REPLY, MatchSetup
from arena.engine.text import shorten
from arena.referee.loop import MatchRecord, play_match
from arena.referee.seating import make_participants
from arena.replays import replay
from arena.replays.replay import RecordedPlayer, Replay
from arena.replays.timeline import build, turn_starts
from arena.seats.replies import (
    GONE,
    Answer,
    Exchange,
    Fault,
    FaultKind,
    Participant,
    Player,
    SeatFault,
    Wrapped,
)

_MESSAGE = re.compile(r"[0-9]{1,18}")  # ASCII digits; more than 18 are past any transcript
_TURN = re.compile(r"turn:([0-9]{1,18})")
_DIGITS = re.compile(r"(turn:)?[0-9]+")


@dataclass(frozen=True)
class ForkPoint:
    """Where a fork leaves the recording: the transcript index of the first live message."""

    index: int
    turn: int | None = None  # the turn it starts, when the point was given as one


@dataclass(frozen=True)
class SeatSpec:
    """Who plays a replaced seat: a built-in level, or a command."""

    bot: str | None = None
    command: tuple[str, ...] = ()

    @classmethod
    def of_text(cls, text: str) -> SeatSpec:
        """`hard` (a built-in level) or a command line, split as a shell would (none runs).
        Raises ConfigError."""
        if text.strip() in BOTS:
            return cls(bot=text.strip())
        try:
            words = tuple(shlex.split(text))
        except ValueError as error:
            raise ConfigError(f"cannot split {text!r}: {error}") from None
        if not words:
            raise ConfigError("the command is empty")
        return cls(command=words)

    def as_json(self) -> dict[str, Any]:
        return {"bot": self.bot} if self.bot is not None else {"command": list(self.command)}


def parse_seat_option(text: str) -> tuple[int, SeatSpec]:
    """`K=LEVEL` or `K=COMMAND…` as `--seat` takes it. Raises ConfigError."""
    number, equals, who = text.partition("=")
    if not equals or not number.strip().isdigit():
        raise ConfigError(
            f"--seat {text!r}: write SEAT=LEVEL or SEAT=COMMAND, e.g. 1=hard or '1=./mybot.py'"
        )
    try:
        return int(number), SeatSpec.of_text(who)
    except ConfigError as error:
        raise ConfigError(f"--seat {text!r}: {error}") from None


def fork_point(document: Replay, text: str, turn_starts: Sequence[int]) -> ForkPoint:
    """The point `text` names: `57` (transcript index 57, as `replay show` numbers messages) or
    `turn:7` (the first ask of turn 7, as `replay show` numbers turns). Raises ReplayError."""
    length = len(document.transcript)
    if _MESSAGE.fullmatch(text):
        index = int(text)
        if index >= length:
            raise ReplayError(f"--at {text}: the replay has messages 0..{length - 1}")
        return ForkPoint(index)
    found = _TURN.fullmatch(text)
    if found is None and _DIGITS.fullmatch(text):  # past the end, however many digits
        if text.startswith("turn:"):
            raise ReplayError(
                f"--at {shorten(text, 25)}: the replay has turns 1..{len(turn_starts)}"
            )
        raise ReplayError(f"--at {shorten(text, 25)}: the replay has messages 0..{length - 1}")
    if found is None:
        raise ReplayError(f"--at {text[:40]!r}: give a message index (57) or a turn (turn:7)")
    turn = int(found.group(1))
    if not 1 <= turn <= len(turn_starts):
        raise ReplayError(f"--at {text}: the replay has turns 1..{len(turn_starts)}")
    return ForkPoint(turn_starts[turn - 1], turn)


@dataclass
class Cursor:
    """The recorded transcript and the index of the message being delivered now."""

    recorded: Sequence[Exchange]
    point: int
    next: int = 0
    ignored: list[dict[str, Any]] = field(default_factory=list)

    def take(self) -> int:
        index, self.next = self.next, self.next + 1
        return index

    def recorded_answer(self, index: int) -> Answer:
        return self.recorded[index].answer if index < len(self.recorded) else GONE


class ForkedSeat(Wrapped):
    """A live participant that is sent every message of its seat, but whose replies before the
    point are kept aside: the recorded answer is the one handed on."""

    def __init__(self, inner: Participant, cursor: Cursor, seat: int) -> None:
        super().__init__(inner)
        self.cursor, self.seat = cursor, seat
        # Why the live participant was lost before the point (a program that is not there
        # exits at `init`): told as the seat's fault at its first live message, as `run` would
        # record it, never played as a silent seat.
        self.lost: Fault | None = None

    def exchange(self, line: bytes, timeout: float) -> Answer:
        index = self.cursor.take()
        answer = self.inner.exchange(line, timeout)
        if index >= self.cursor.point:
            if self.lost is not None and answer.fault is None and not answer.delivered:
                answer, self.lost = answer._replace(fault=self.lost), None
            return answer
        if answer.fault is not None and answer.fault.kind.stops and self.lost is None:
            self.lost = answer.fault
        self.cursor.ignored.append(_ignored(index, self.seat, answer))
        return self.cursor.recorded_answer(index)


class StoppedSeat(Player):
    """A seat whose participant was stopped before the point: recorded answers, then gone."""

    def __init__(self, cursor: Cursor, start_fault: Fault | None) -> None:
        self.cursor = cursor
        self._start_fault = start_fault

    @property
    def start_fault(self) -> Fault | None:
        return self._start_fault

    def exchange(self, line: bytes, timeout: float) -> Answer:
        index = self.cursor.take()
        return self.cursor.recorded_answer(index) if index < self.cursor.point else GONE


def stopped_before(
    recorded: Sequence[Exchange], faults: Sequence[SeatFault], seat: int, point: int
) -> bool:
    """Whether the seat's participant was gone before message `point` of the recording."""
    if any(f.seat == seat and f.kind is FaultKind.START_FAILED for f in faults):
        return True
    for exchange in recorded[:point]:
        if exchange.seat != seat:
            continue
        stopping = exchange.answer.fault is not None and exchange.answer.fault.kind.stops
        if stopping or not exchange.answer.delivered:
            return True
    return False


@dataclass(frozen=True)
class Forked:
    """A played fork: its record, and what the replay records of where it came from."""

    record: MatchRecord
    origin: dict[str, Any]
    limits: LimitsSection  # the recorded limits it was played under


def fork(
    document: Replay,
    source: Path,
    point: ForkPoint,
    replaced: Mapping[int, SeatSpec],
    *,
    cwd: Path,
    setup: MatchSetup,
) -> Forked:
    """Play the fork of a verified replay `document` (read from `source`) at `point`.

    Raises ConfigError for a seat out of range or a program that cannot run.
    """
    players = document.players
    for seat in replaced:
        if not 0 <= seat < len(players):
            raise ConfigError(f"--seat {seat}: the replay has seats 0..{len(players) - 1}")
    digest = _digest(source)  # before any participant starts
    limits = LimitsSection.read(document.settings["limits"])
    # How the live seats are confined is this machine's choice, never the file's (anyone may
    # have edited it): a replay that says `sandbox = "none"` does not run its recorded
    # commands unconfined; they run as `auto` would (docs/rulings.md).
    confined = limits.model_copy(update={"sandbox": "auto"}) if limits.sandbox == "none" else limits
    recorded = document.transcript
    faults = document.faults
    cursor = Cursor(recorded, point.index)
    participants: list[Participant] = []
    commands: list[list[str]] = []
    for seat, player in enumerate(players):
        spec = replaced.get(seat)
        if spec is None and stopped_before(recorded, faults, seat, point.index):
            start = next(
                (f.fault for f in faults if f.seat == seat and f.kind is FaultKind.START_FAILED),
                None,
            )
            participants.append(StoppedSeat(cursor, start))
            commands.append(list(player.command))
            continue
        live = _seat(player, spec, cwd)
        (made,) = make_participants([live], confined, in_process_bots=True)
        participants.append(ForkedSeat(made, cursor, seat))
        commands.append(list(live.command))
    record = play_match(setup, participants, limits, commands)
    origin = {
        "source": source.name,
        "sourceSha256": digest,
        "at": point.index,
        **({"turn": point.turn} if point.turn is not None else {}),
        "replaced": [{"seat": seat, **spec.as_json()} for seat, spec in sorted(replaced.items())],
        "ignored": cursor.ignored,
    }
    return Forked(record, origin, limits)


def fork_file(
    source: Path, at: str, seats: Sequence[str], output: Path, *, cwd: Path
) -> tuple[Path, Forked]:
    """`arena replay fork`: read and verify `source`, fork it at `at` with `seats` replaced
    (`K=LEVEL` or `K=COMMAND`), and write the new replay as `output` (or `output-2`… when
    taken: nothing is overwritten), with its stderr logs beside it.

    Raises ReplayError (the source or the point), ConfigError (a seat), WriteError.
    """
    if output.is_dir():  # `-o .` or `-o replays/` would write `.json` or `replays.json` beside it
        raise ConfigError(f"-o {output}: is a folder; give the new replay's file name (OUT.json)")
    # `-o /dev/full` or `-o replays/results.jsonl` would write `/dev/full.json` or
    # `results.jsonl.json`: a name the user did not give, so neither is guessed at.
    if output.suffix != ".json" or output.name == ".json":
        raise ConfigError(f"-o {output}: the new replay's name must end in .json (OUT.json)")
    document = replay.read(source)
    difference = replay.verify(document)
    if difference is not None:
        raise ReplayError(f"{source}: does not verify, so it cannot be forked: {difference}")
    setup, steps = build(document)
    point = fork_point(document, at, turn_starts(steps))
    replaced = dict(parse_seat_option(text) for text in seats)
    forked = fork(document, source, point, replaced, cwd=cwd, setup=setup)
    kept: dict[str, Any] = {
        key: value
        for key, value in (("game", document.match), ("dealSeed", document.deal_seed))
        if value is not None
    }
    built = replay.build(
        forked.record,
        seed=document.seed,
        limits=forked.limits,
        extra={**kept, "fork": forked.origin},
    )
    stem = output.name.removesuffix(".json")  # a taken name gets -2, -3…: nothing is replaced
    path = replay.write(output.parent, stem, replay.dumps(built), forked.record.logs)
    return path, forked


def _digest(source: Path) -> str:
    """The SHA-256 of the source's bytes, read again as `replay.read` reads (capped, never
    blocking: the file may have been swapped for a FIFO since). Raises ReplayError."""
    try:
        return hashlib.sha256(read_capped(source, replay.REPLAY_LIMIT)).hexdigest()
    except (OSError, UnreadableFile) as error:
        raise ReplayError(f"{source}: cannot read it again: {error}") from None


def _seat(player: RecordedPlayer, spec: SeatSpec | None, cwd: Path) -> Entrant:
    """The seat to run: the replacement, or the recorded participant again."""
    name = player.name
    env = {"ARENA_FORK": "1"}
    if spec is None:
        level = _recorded_level(player)
        if level is not None:
            return Entrant(name=name, command=bot_command(level), cwd=cwd, env=env, bot=level)
        command = player.command
        if not command:  # `arena play` records its human seat with no command
            raise ConfigError(
                f"seat {player.seat} ({name}) was played by a person (arena play), who cannot be "
                f"run again: replace it with --seat {player.seat}=LEVEL or "
                f"--seat {player.seat}=COMMAND"
            )
    elif spec.bot is not None:
        return Entrant(name=name, command=bot_command(spec.bot), cwd=cwd, env=env, bot=spec.bot)
    else:
        command = spec.command
    try:
        program = resolve_program(command[0], cwd)
    except ConfigError as error:
        raise ConfigError(f"seat {player.seat} ({name}): {error}") from None
    return Entrant(name=name, command=(program, *command[1:]), cwd=cwd, env=env)


def _recorded_level(player: RecordedPlayer) -> str | None:
    """The built-in level a recorded player ran, when it was one (`… -m arena.bots LEVEL`)."""
    command = list(player.command)
    if len(command) == 4 and command[1:3] == ["-m", "arena.bots"] and command[3] in BOTS:
        return str(command[3])
    return None


def _ignored(index: int, seat: int, answer: Answer) -> dict[str, Any]:
    entry: dict[str, Any] = {
        "at": index,
        "seat": seat,
        "reply": None if answer.value is NO_REPLY else answer.value,
    }
    if not answer.delivered:
        entry["delivered"] = False
    if answer.fault is not None:
        entry["noReply"] = answer.fault.as_json()
    return entry


__all__ = [
    "ForkPoint",
    "Forked",
    "SeatSpec",
    "fork",
    "fork_file",
    "fork_point",
    "parse_seat_option",
]
