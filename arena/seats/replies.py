"""What comes back from a participant: a reply decoded from its line, or a fault.

The seat's side of the protocol, whatever runs it: `Participant` (the interface the match loop
talks to, with its whole lifecycle), `Answer` (one reply or the reason there is none), `Fault`
and its kinds, `Exchange` (one transcript entry) and `SeatFault`, `Ending` (what to wait for
while a seat ends), `decode_reply` (what counts as one JSON value), `BoundedLog` (a capped
stderr), and two bases for participants: `Player` (one that is no process) and `Wrapped` (one
that changes a part of another). It imports no participant: a built-in bot in the arena is
`arena.seats.in_process`'s, processes are `arena.seats.process`'s, lines
`arena.seats.channel`'s, the end of a match for every seat `arena.seats.ending`'s. These values
become JSON only at the replay boundary: `as_json` here, and `arena.replays.replay.read` back.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from enum import StrEnum
from typing import Any, Final, NamedTuple, Protocol

from arena.base import jsontext
from arena.engine.match import NO_REPLY
from arena.engine.text import shorten

RAW_CUT = 300  # characters of an offending line (or of the stderr tail) kept in a fault
STDERR_TAIL = 2048  # bytes of stderr kept as the tail of a cut log
MAX_DEPTH = 64  # a reply nested deeper than this is refused (no Go Fish reply needs more than 1)


class FaultKind(StrEnum):
    START_FAILED = "start-failed"  # the program could not be started
    TIMEOUT = "timeout"  # no reply line within the time allowed
    EXITED = "exited"  # the process ended or closed its stdout
    NOT_JSON = "not-json"  # a reply line that is not one JSON value
    LINE_TOO_LONG = "line-too-long"  # more than `line_cap` bytes without a newline
    UNSOLICITED = "unsolicited-output"  # output waiting when nothing had been asked
    TOO_MUCH_OUTPUT = "too-much-output"  # replies of one match over `reply_cap` bytes in all
    LOG_FULL = "log-full"  # stderr of one match over `stderr_cap` bytes: the log is cut (plays on)
    CRASHED = "crashed"  # an in-process bot raised
    # Replies that were read but break a rule; the participant goes on playing.
    REFUSED_ASK = "refused-ask"  # an `ask` reply the rules refused (an `invalid-ask` event)
    BAD_POND_INDEX = "bad-pond-index"  # a `go-fish`/`pick-up` reply that is not a finite number

    @property
    def stops(self) -> bool:
        """The participant is gone for the rest of its match; else it plays on and the fault
        is counted."""
        return self in _STOPPING

    @property
    def is_crash(self) -> bool:
        """A crash in the standings: the program ended, raised, or never started."""
        return self in _CRASHES


_STOPPING: Final = frozenset(
    {
        FaultKind.START_FAILED,
        FaultKind.EXITED,
        FaultKind.CRASHED,
        FaultKind.TIMEOUT,
        FaultKind.LINE_TOO_LONG,
        FaultKind.TOO_MUCH_OUTPUT,
    }
)
_CRASHES: Final = frozenset({FaultKind.EXITED, FaultKind.CRASHED, FaultKind.START_FAILED})


@dataclass(frozen=True)
class Fault:
    kind: FaultKind
    detail: str
    raw: str | None = None  # the offending output, cut to RAW_CUT characters
    exit_code: int | None = None  # only when the process ended by itself (negative: a signal)
    stderr_tail: str | None = None  # the end of its stderr when the fault was seen

    def as_json(self) -> dict[str, Any]:
        data: dict[str, Any] = {"kind": str(self.kind), "detail": self.detail}
        if self.raw is not None:
            data["raw"] = self.raw
        if self.exit_code is not None:
            data["exitCode"] = self.exit_code
        if self.stderr_tail:
            data["stderrTail"] = self.stderr_tail
        return data


class Answer(NamedTuple):
    """What came back for one message: a JSON value, or `NO_REPLY` with the reason.

    (A named tuple, like the events, and `Exchange`: one is made for every message, and a
    frozen dataclass costs twice as much to build.)
    """

    value: Any
    seconds: float = 0.0
    fault: Fault | None = None  # why there is no reply
    unsolicited: Fault | None = None  # output found waiting before the message was written
    delivered: bool = True  # False: the participant was already gone; nothing was written
    notes: str = ""  # what it wrote to stderr while the message was outstanding (cut, marked)
    log_full: Fault | None = None  # its stderr log reached its cap for this match meanwhile


GONE = Answer(NO_REPLY, delivered=False)


class Exchange(NamedTuple):
    """One transcript entry: a message sent to a seat and what came back."""

    seat: int
    message: Mapping[str, Any]
    answer: Answer

    @property
    def reply(self) -> Any:
        """What the engine was handed: the reply, or NO_REPLY."""
        return self.answer.value

    @property
    def notes(self) -> str:
        """What the seat wrote to stderr while this message was outstanding ("" for none)."""
        return self.answer.notes

    def as_json(self) -> dict[str, Any]:
        answer = self.answer
        entry: dict[str, Any] = {
            "seat": self.seat,
            "message": self.message,
            "reply": None if answer.value is NO_REPLY else answer.value,
        }
        if not answer.delivered:
            entry["delivered"] = False
        if answer.unsolicited is not None:
            entry["unsolicited"] = answer.unsolicited.as_json()
        if answer.fault is not None:
            entry["noReply"] = answer.fault.as_json()
        if answer.notes:
            entry["notes"] = answer.notes
        return entry


def quit_at_match_end(message_type: str, fault: Fault | None) -> bool:
    """Whether a seat ended cleanly (exit status 0, or stdout closed) when it was told the match
    is over, instead of replying to `match-end`: it played the match to its end, so this is no
    fault (neither counted nor a crash); its transcript entry keeps the reply it did not give."""
    return (
        message_type == "match-end"
        and fault is not None
        and fault.kind is FaultKind.EXITED
        and not fault.exit_code
    )


@dataclass(frozen=True, slots=True)
class SeatFault:
    """A fault of one seat, at the transcript index of the message it concerns."""

    seat: int
    at: int
    fault: Fault

    @property
    def kind(self) -> FaultKind:
        return self.fault.kind

    def as_json(self) -> dict[str, Any]:
        return {"seat": self.seat, "at": self.at, **self.fault.as_json()}


@dataclass(frozen=True)
class Ending:
    """A process to wait for while a match ends: its pid, and its stderr to drain meanwhile."""

    pid: int
    stderr_fd: int | None
    drain: Callable[[], None]


class Participant(Protocol):
    """One seat's player, whatever runs it: a process, a bot in the arena, a person, a record.

    Lifecycle: `start` (a running one, kept from an earlier match, stays as it is), then
    `begin_match`; one `exchange` per message; at the end `leftover`, then either kept for the
    next match (`keepable`) or ended: `end_input`, a grace while `ending` runs, `kill`.
    Nothing here raises because of what the player did: that is a `Fault` in an `Answer`.
    """

    @property
    def alive(self) -> bool:
        """Whether it can still be written to (False once stopped or gone)."""
        ...

    @property
    def start_fault(self) -> Fault | None:
        """Why it could not be started, if it could not."""
        ...

    @property
    def in_process(self) -> bool:
        """Whether it plays inside the arena (a built-in bot) rather than as its own program."""
        ...

    @property
    def confinement(self) -> str:
        """How it is confined, as its replay records: "bwrap" or "none" (a process, sandboxed
        or not), "in-process" (a built-in bot inside the arena), "" (a person)."""
        ...

    @property
    def keepable(self) -> bool:
        """Whether it could be left running for a next match (asked for with `reuse`)."""
        ...

    def start(self) -> None: ...

    def begin_match(self) -> None:
        """A new match starts: per-match budgets count from zero."""
        ...

    def exchange(self, line: bytes, timeout: float) -> Answer:
        """Deliver one message line; its reply within `timeout` seconds, or the fault."""
        ...

    def leftover(self) -> Fault | None:
        """Output it wrote after its last reply (nobody asked for it), taken and described."""
        ...

    def end_input(self) -> None:
        """Tell it the match is over (a process: its stdin is closed)."""
        ...

    def ending(self) -> Ending | None:
        """What to wait for while it exits by itself; None when there is nothing."""
        ...

    def kill(self) -> None:
        """Stop it now and release what it holds (a process: its whole group). Idempotent."""
        ...

    def stderr_text(self) -> str: ...


class Player:
    """Defaults for a participant that is no process: nothing to start, wait for or kill."""

    @property
    def alive(self) -> bool:
        return True

    @property
    def start_fault(self) -> Fault | None:
        return None

    @property
    def in_process(self) -> bool:
        return False

    @property
    def confinement(self) -> str:
        return ""

    @property
    def keepable(self) -> bool:
        return False

    def start(self) -> None:
        pass

    def begin_match(self) -> None:
        pass

    def leftover(self) -> Fault | None:
        return None

    def end_input(self) -> None:
        pass

    def ending(self) -> Ending | None:
        return None

    def kill(self) -> None:
        pass

    def stderr_text(self) -> str:
        return ""


class Wrapped:
    """A participant that does what `inner` does; subclass it to change one part (an exchange)."""

    def __init__(self, inner: Participant) -> None:
        self.inner = inner

    @property
    def alive(self) -> bool:
        return self.inner.alive

    @property
    def start_fault(self) -> Fault | None:
        return self.inner.start_fault

    @property
    def in_process(self) -> bool:
        return self.inner.in_process

    @property
    def confinement(self) -> str:
        return self.inner.confinement

    @property
    def keepable(self) -> bool:
        return self.inner.keepable

    def start(self) -> None:
        self.inner.start()

    def begin_match(self) -> None:
        self.inner.begin_match()

    def exchange(self, line: bytes, timeout: float) -> Answer:
        return self.inner.exchange(line, timeout)

    def leftover(self) -> Fault | None:
        return self.inner.leftover()

    def end_input(self) -> None:
        self.inner.end_input()

    def ending(self) -> Ending | None:
        return self.inner.ending()

    def kill(self) -> None:
        self.inner.kill()

    def stderr_text(self) -> str:
        return self.inner.stderr_text()


def decode_reply(line: bytes) -> Any:
    """One JSON value from a reply line; raises ValueError for anything else.

    The value is the standard module's: it keeps JSON integers exact and reads numbers beyond
    a double's range as infinities; NaN and Infinity literals are not JSON. Surrounding white
    space (a CR before the LF too) is allowed. A value nested deeper than MAX_DEPTH is
    refused: the parser would recurse until it overflows, and the replay could not hold it.

    It is read by `arena.base.jsontext.loads`: at orjson's speed, with the standard module's
    value or error (tests/test_transport.py compares the two over random lines).
    """
    try:
        value = jsontext.loads(line)
    except RecursionError:
        raise ValueError(f"nested deeper than {MAX_DEPTH} levels") from None
    if _depth_over(value, MAX_DEPTH):
        raise ValueError(f"nested deeper than {MAX_DEPTH} levels")
    return value


def _depth_over(value: Any, limit: int) -> bool:
    """Whether containers nest more than `limit` deep (without recursing)."""
    level = [value] if isinstance(value, (list, dict)) else []
    depth = 0
    while level:
        depth += 1
        if depth > limit:
            return True
        level = [
            child
            for container in level
            for child in (container.values() if isinstance(container, dict) else container)
            if isinstance(child, (list, dict))
        ]
    return False


def not_json(line: bytes, error: ValueError) -> str:
    """A not-JSON fault's detail, naming the usual cause when the line shows it."""
    detail = f"reply is not JSON: {error}"
    text = line.strip().decode("utf-8", "replace")
    if text in ("None", "True", "False") or text.startswith(("{'", "['")):
        # print(value) in Python: its repr, not JSON.
        return detail + "; that is how Python prints a value: write json.dumps(value)"
    if text == "undefined":
        return detail + "; JSON has no undefined: write null"
    return detail


def cut(data: bytes | str, limit: int = RAW_CUT) -> str:
    """`data` as text for a fault's `raw`: its first `limit` characters, then how many more."""
    text = data.decode("utf-8", "replace") if isinstance(data, bytes) else data
    return shorten(text, limit, count=True)


class BoundedLog:
    """A participant's stderr: the first `cap` bytes, a tail, and a count of what was cut."""

    def __init__(self, cap: int) -> None:
        self.cap = cap
        self.head = bytearray()
        self.tail: deque[bytes] = deque()
        self.tail_size = 0
        self.cut_bytes = 0

    def feed(self, data: bytes) -> None:
        room = self.cap - len(self.head)
        if room > 0:
            self.head += data[:room]
            data = data[room:]
        if data:
            self.cut_bytes += len(data)
            self.tail.append(data)
            self.tail_size += len(data)
            while self.tail_size - len(self.tail[0]) >= STDERR_TAIL:
                self.tail_size -= len(self.tail.popleft())

    def last(self, size: int = STDERR_TAIL) -> str:
        data = bytes(self.head) + b"".join(self.tail)
        return data[-size:].decode("utf-8", "replace")

    def text(self) -> str:
        head = self.head.decode("utf-8", "replace")
        if not self.cut_bytes:
            return head
        tail = b"".join(self.tail)[-STDERR_TAIL:]
        kept = len(tail)
        return (
            f"{head}\n[arena: log cut here at {self.cap} bytes; "
            f"{self.cut_bytes - kept} bytes dropped; the last {kept} follow]\n"
            + tail.decode("utf-8", "replace")
        )
