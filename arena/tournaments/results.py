"""`results.jsonl`: one line per recorded match, written by one run at a time, read back with doubt.

    lock = Lock.take(folder)                 # one writer per folder; exit 2 for a second
    found = read(folder / RESULTS)           # shape-checked lines, and what was skipped
    append(folder / RESULTS, [line])          # flushed and fsynced, never through a link

`ResultLine` is the one summary of a finished match: the worker that played it returns one
(`runner.MatchPlayed.line`), the run writes it, and `--resume`, the live table, the standings,
the report and `arena report` read it; nothing in between is a dict.

Everything read back is untrusted (a participant without a sandbox, or a person, may have
edited the file): a line is checked with `ResultLine`, the model that writes it, and a line
counts for a tournament only when the replay it names is a file the arena wrote for that
tournament, run and match, with the same result (`confirmed`). What fails is skipped and
counted, each with a one-line reason, never believed and never a traceback.
"""

from __future__ import annotations

import errno
import fcntl
import functools
import os
import re
import stat
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from pathlib import Path
from typing import Annotated, Any, ClassVar

import orjson
from pydantic import BaseModel, ConfigDict, Field, TypeAdapter, ValidationError

from arena.base import files
from arena.base.errors import ArenaError, ConfigError, WriteError
from arena.engine.match import Outcome
from arena.referee.loop import ReplyTimes

RESULTS = "results.jsonl"
LOCK = ".results.lock"
MAX_LINE = 1 << 20  # a results line is a few hundred bytes; a longer one is not ours
MAX_REPLAY = 1 << 30  # a replay file larger than this is not read back
REPLAY_NAME = re.compile(r"[A-Za-z0-9._-]{1,250}\.json")

Count = Annotated[int, Field(ge=0)]
NAME_LIMIT = 64  # characters of a participant's name, as a config allows
MOST_SEATS = 64  # seats at one table, as a config allows
MOST_BOOKS = 1000  # a score above this is not a Go Fish score (64 decks with knights: 896 books)
MOST_COUNT = 1 << 40  # a fault count above this is not one a match can have
# A seat's faults, counted by kind: a handful of kinds, never an unbounded table.
FaultCounts = Annotated[
    dict[
        Annotated[str, Field(min_length=1, max_length=40)],
        Annotated[int, Field(ge=0, le=MOST_COUNT)],
    ],
    Field(max_length=32),
]


class LuckAdjusted(BaseModel):
    """A results line's `luckAdjusted` (docs/luck.md): by seat, and V's version."""

    model_config = ConfigDict(extra="forbid", strict=True, frozen=True, allow_inf_nan=False)

    winShare: list[Annotated[float, Field(ge=-1e6, le=1e6)]]  # the file's key
    books: list[Annotated[float, Field(ge=-1e6, le=1e6)]]
    v: Annotated[str, Field(min_length=1, max_length=16)]


class SeatReplyTimes(BaseModel):
    """One seat's entry in a results line's `replyTimes` (`ReplyTimes.as_json`; seconds)."""

    model_config = ConfigDict(extra="forbid", strict=True, frozen=True, allow_inf_nan=False)

    replies: Annotated[int, Field(ge=1, le=MOST_COUNT)]
    median: Annotated[float, Field(ge=0, le=1e6)]
    slowest: Annotated[float, Field(ge=0, le=1e6)]
    limitShare: Annotated[float, Field(ge=0, le=1e9)]  # the file's key

    def times(self) -> ReplyTimes:
        return ReplyTimes(self.replies, self.median, self.slowest, self.limitShare)


class ResultLine(BaseModel):
    """One line of `results.jsonl`. Keys other helpers add are kept.

    Read and dumped with the file's keys (`game`, `ranks`, `dealSeed`); the Python names are
    the arena's words (`match`, `places`, `deal_seed`).
    """

    model_config = ConfigDict(
        extra="allow",
        strict=True,
        frozen=True,
        allow_inf_nan=False,
        validate_by_alias=True,
        validate_by_name=False,
        serialize_by_alias=True,
    )

    tournament: Annotated[str, Field(pattern=r"^[0-9a-f]{16}$")]
    run: Annotated[str, Field(pattern=r"^\d{8}-\d{6}-[0-9a-f]{6}$")]
    stamp: Annotated[str, Field(pattern=r"^\d{8}-\d{6}$")]
    seed: int
    match: Annotated[int, Field(ge=0, alias="game")]
    seating: list[Annotated[str, Field(min_length=1, max_length=NAME_LIMIT)]]
    seats: list[Count]
    group: Count
    rotation: Count
    match_seed: Annotated[int, Field(alias="matchSeed")]
    deal_seed: Annotated[int, Field(alias="dealSeed")]
    outcome: Annotated[Outcome, Field(strict=False)]  # read from its JSON string
    scores: list[Annotated[int, Field(ge=0, le=MOST_BOOKS)]]
    places: Annotated[list[Annotated[int, Field(ge=1)]], Field(alias="ranks")]
    faults: list[FaultCounts]
    invalid_asks: Annotated[
        list[Annotated[int, Field(ge=0, le=MOST_COUNT)]], Field(alias="invalidAsks")
    ] = []
    seconds: Annotated[float, Field(ge=0)]
    replay: Annotated[str, Field(pattern=REPLAY_NAME.pattern)]

    @property
    def luck_adjusted(self) -> LuckAdjusted | None:
        """The line's `luckAdjusted` (kept as an extra key, so that a line without one reads
        and dumps as before); None when it has none. Checked by `problem`."""
        luck = (self.model_extra or {}).get("luckAdjusted")
        return None if luck is None else LuckAdjusted.model_validate(luck)

    @property
    def seat_fingerprints(self) -> list[str] | None:
        """What each seat ran (`arena.seats.fingerprint`), when the line records it (the extra
        key `fingerprints`, one string per seat); None when it does not."""
        prints = (self.model_extra or {}).get("fingerprints")
        if (
            isinstance(prints, list)
            and len(prints) == len(self.seating)
            and all(isinstance(digest, str) for digest in prints)
        ):
            return prints
        return None

    @property
    def reply_times(self) -> list[ReplyTimes | None] | None:
        """Each seat's reply times (`ReplyTimes`; None: the seat made no reply), when the line
        records them (the extra key `replyTimes`, kept so that a line without one reads and
        dumps as before); None when it does not. Checked by `problem`."""
        times = (self.model_extra or {}).get("replyTimes")
        if times is None:
            return None
        return [
            None if seat is None else seat.times() for seat in _SEAT_TIMES.validate_python(times)
        ]

    def problem(self) -> str | None:
        """What makes the line inconsistent in itself, or None."""
        seats = len(self.seating)
        if not 2 <= seats <= MOST_SEATS or any(
            len(part) != seats for part in (self.seats, self.scores, self.places)
        ):
            return "seating, seats, scores and ranks must have one entry per seat"
        if len(set(self.seating)) != seats:
            return "a participant sits at two seats"
        if len(self.faults) not in (0, seats) or len(self.invalid_asks) not in (0, seats):
            return "faults and invalidAsks must have one entry per seat"
        if any(place > seats for place in self.places):
            return f"ranks {self.places} go beyond the {seats} seats"
        try:
            luck = self.luck_adjusted
        except ValidationError:
            return "luckAdjusted must be {winShare: [numbers], books: [numbers], v: a version}"
        if luck is not None and not len(luck.winShare) == len(luck.books) == seats:
            return "luckAdjusted must have one entry per seat"
        try:
            times = self.reply_times
        except ValidationError:
            return "replyTimes must be [{replies, median, slowest, limitShare} or null], by seat"
        if times is not None and len(times) != seats:
            return "replyTimes must have one entry per seat"
        places = [1 + sum(other > score for other in self.scores) for score in self.scores]
        if self.outcome is not Outcome.INTERRUPTED and self.places != places:
            return f"ranks {self.places} do not follow from scores {self.scores}"
        return None


_SEAT_TIMES = TypeAdapter(list[SeatReplyTimes | None], config=ConfigDict(strict=True))


def win_share(place: int, places: Sequence[int]) -> Fraction:
    """A seat's part of the win of a match it finished at `place` (`Result.places`): 1/w for
    each of the w seats in first place, else 0. Exact: the sequential test counts outcomes by
    it (`tournaments.candidate`); `win_shares` is every seat's, as floats to add up."""
    best = min(places)
    return _one_in(places.count(best)) if place == best else Fraction(0)


@functools.cache
def _one_in(winners: int) -> Fraction:
    return Fraction(1, winners)


def win_shares(places: Sequence[int]) -> list[float]:
    """Every seat's `win_share`, in seat order, as floats (float(1/w) is 1 / w exactly)."""
    best = min(places)
    share = float(win_share(best, places))
    return [share if place == best else 0.0 for place in places]


@dataclass
class ResultsFile:
    """The lines of a results file that have the right shape, and why the others were skipped."""

    lines: list[ResultLine] = field(default_factory=list)
    skipped: list[str] = field(default_factory=list)  # "line N: why", one per skipped line

    def summary(self, path: Path) -> str | None:
        """One line for the terminal, or None when nothing was skipped."""
        if not self.skipped:
            return None
        more = f" (and {len(self.skipped) - 1} more)" if len(self.skipped) > 1 else ""
        return f"{path}: {len(self.skipped)} line(s) skipped, not believed: {self.skipped[0]}{more}"


def read(path: Path) -> ResultsFile:
    """Every line of a results file checked with `ResultLine`. A missing file has no lines.

    Raises ConfigError when it is not a regular file (a folder, a FIFO: a person put it there),
    ArenaError when it cannot be read or is a link.
    """
    found = ResultsFile()
    try:
        handle = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
    except FileNotFoundError:
        return found
    except OSError as error:
        raise ArenaError(f"cannot read {path}: {_why(error)}") from None
    kind = _irregular(handle)  # before fdopen, which raises for a folder
    if kind is not None:
        os.close(handle)
        raise ConfigError(f"{path}: not a regular file (a {kind}); move it out of the way")
    with os.fdopen(handle, "rb") as file:
        for number, raw in enumerate(_lines(file), start=1):
            if not raw.strip():
                continue
            line, why = _parse(raw)
            if line is None:
                found.skipped.append(f"line {number}: {why}")
            else:
                found.lines.append(line)
    return found


def _lines(file: Any) -> Iterator[bytes]:
    """The file's lines, each cut at MAX_LINE bytes (a longer one is then not JSON)."""
    while True:
        raw = file.readline(MAX_LINE + 1)
        if not raw:
            return
        if len(raw) > MAX_LINE and not raw.endswith(b"\n"):
            while (rest := file.readline(MAX_LINE)) and not rest.endswith(b"\n"):
                pass
            yield raw[:MAX_LINE]
            continue
        yield raw


def _parse(raw: bytes) -> tuple[ResultLine | None, str]:
    try:
        data = orjson.loads(raw)
    except orjson.JSONDecodeError:
        return None, "not JSON (cut short by a crash?)"
    return checked(data)


def checked(data: object) -> tuple[ResultLine | None, str]:
    """A parsed line as a `ResultLine` when it is one, else None and why."""
    if not isinstance(data, dict):
        return None, "not a JSON object"
    try:
        line = ResultLine.model_validate(data)
    except ValidationError as error:
        problem = error.errors(include_url=False)[0]
        where = ".".join(str(part) for part in problem["loc"]) or "(line)"
        return None, f"{where}: {problem['msg']}"
    problem_text = line.problem()
    if problem_text is not None:
        return None, problem_text
    return line, ""


# What a replay records of its match (tournament, run, game, seat names, outcome, scores,
# ranks), or why it cannot be read as one.
Recorded = tuple[Any, ...] | str


def confirmed(
    line: ResultLine, folder: Path, seen: dict[str, Recorded] | None = None
) -> str | None:
    """Why the line does not stand for a replay the arena wrote for its tournament, run and
    match with the same result; None when it does. Reads the replay (never through a link),
    once per name when given `seen`: lines that name one replay many times (a hand-edited
    file) do not read it again each time."""
    recorded = seen.get(line.replay) if seen is not None else None
    if recorded is None:
        recorded = _recorded(folder, line.replay)
        if seen is not None:
            seen[line.replay] = recorded
    if isinstance(recorded, str):
        return recorded
    claimed = (
        line.tournament,
        line.run,
        line.match,
        line.seating,
        str(line.outcome),
        line.scores,
        line.places,
    )
    if recorded != claimed:
        return f"its replay {line.replay} records another match or result"
    return None


def _recorded(folder: Path, name: str) -> Recorded:
    path = folder / name
    try:
        handle = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
    except OSError as error:
        return f"its replay {name}: {_why(error)}"
    if _irregular(handle) is not None or os.fstat(handle).st_size > MAX_REPLAY:
        os.close(handle)  # before fdopen, which raises for a folder
        return f"its replay {name} is not a replay file"
    with os.fdopen(handle, "rb") as file:
        try:
            document = orjson.loads(file.read())
        except (orjson.JSONDecodeError, OSError):
            return f"its replay {name} is not JSON"
    if not isinstance(document, dict):
        return f"its replay {name} is not a replay"
    tournament = document.get("tournament")
    result = document.get("result")
    return (
        tournament.get("id") if isinstance(tournament, dict) else None,
        tournament.get("run") if isinstance(tournament, dict) else None,
        document.get("game"),
        [p.get("name") for p in document.get("players") or [] if isinstance(p, dict)],
        result.get("outcome") if isinstance(result, dict) else None,
        result.get("scores") if isinstance(result, dict) else None,
        result.get("ranks") if isinstance(result, dict) else None,
    )


def append(path: Path, lines: Sequence[ResultLine]) -> None:
    """Append lines, flushed and fsynced before this returns (one write); never through a
    symbolic link. Raises WriteError."""
    if not lines:
        return
    data = b"".join(orjson.dumps(line.model_dump(mode="json")) + b"\n" for line in lines)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        handle = os.open(path, os.O_RDWR | os.O_APPEND | os.O_CREAT | os.O_NOFOLLOW, 0o644)
        with os.fdopen(handle, "ab") as file:
            if not _is_regular(file.fileno()):
                raise WriteError(f"cannot write {path}: not a regular file")
            if file.tell() > 0 and not _ends_with_newline(file.fileno()):
                data = b"\n" + data  # after a line cut short by a crash: start afresh
            file.write(data)
            file.flush()
            os.fsync(file.fileno())
    except OSError as error:
        raise WriteError(f"cannot write {path}: {_why(error)}") from None


def _ends_with_newline(fd: int) -> bool:
    size = os.fstat(fd).st_size
    return size == 0 or os.pread(fd, 1, size - 1) == b"\n"


class Lock:
    """One writer per replays folder: a lock the kernel frees when its holder dies, so a killed
    run never blocks `--resume`. Within one process it may be taken again (the process is still
    the one writer); it is freed when every taker has released it, or the process ends."""

    _held: ClassVar[dict[str, list[int]]] = {}  # folder -> [descriptor, takers]

    def __init__(self, key: str) -> None:
        self._key: str | None = key

    @classmethod
    def take(cls, folder: Path) -> Lock:
        """Raises ConfigError (exit 2) naming the holder when another process holds it."""
        key = str(folder.resolve())
        if key in cls._held:
            cls._held[key][1] += 1
            return cls(key)
        path = folder / LOCK
        files.check_replaceable(path)  # a folder or a FIFO in its place: exit 2, naming it
        try:
            folder.mkdir(parents=True, exist_ok=True)
            handle = os.open(path, os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW | os.O_NONBLOCK, 0o644)
        except OSError as error:
            raise WriteError(f"cannot lock {path}: {_why(error)}") from None
        kind = _irregular(handle)  # (one put there since the check)
        if kind is not None:
            os.close(handle)
            raise ConfigError(f"{path}: not a regular file (a {kind}); move it out of the way")
        try:
            fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            holder = os.pread(handle, 32, 0).decode("ascii", "replace").strip()
            os.close(handle)
            who = f"arena process {holder}" if holder.isdigit() else "another arena process"
            raise ConfigError(
                f"{folder}: {who} is writing into this replays folder; wait for it to end, "
                "or give this run another `replays` folder"
            ) from None
        os.ftruncate(handle, 0)
        os.pwrite(handle, f"{os.getpid()}\n".encode(), 0)
        cls._held[key] = [handle, 1]
        return cls(key)

    def release(self) -> None:
        if self._key is None:
            return
        held = self._held[self._key]
        held[1] -= 1
        if held[1] == 0:
            os.close(held[0])  # closing the descriptor frees the lock
            del self._held[self._key]
        self._key = None


def _is_regular(fd: int) -> bool:
    return stat.S_ISREG(os.fstat(fd).st_mode)


def _irregular(fd: int) -> str | None:
    """What the open file is when it is not a regular file (`folder`, `FIFO`…), else None."""
    mode = os.fstat(fd).st_mode
    return None if stat.S_ISREG(mode) else files.kind(mode)


def _why(error: OSError) -> str:
    if error.errno == errno.ELOOP:
        return "is a symbolic link; the arena does not follow it"
    return error.strerror or str(error)


__all__ = [
    "LOCK",
    "RESULTS",
    "Lock",
    "ResultLine",
    "ResultsFile",
    "append",
    "checked",
    "confirmed",
    "read",
    "win_share",
    "win_shares",
]
