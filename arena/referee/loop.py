"""The match loop: the one function that drives a match.

`play_match` feeds every `Delivery` of a `Match` to its seat's participant, hands the engine
the reply (or `NO_REPLY`), keeps each seat's clock and records each exchange and fault.
Whatever a participant does, the match goes on; whatever happens (end, stop, interrupt, an
internal error), every participant not kept for reuse is stopped and reaped before it returns
or raises.

Everything that runs, replays, checks or watches a match calls it: `arena run` with processes
and in-process bots, `replay verify` with `RecordedParticipant`s, `arena check` with the
checked program beside in-process bots, `arena play` with a `HumanSeat`. They differ in their
participants and in a `MatchObserver`, told of each exchange and each event as it happens.
`should_stop` is polled before every message: when it says stop, the match ends `interrupted`
with the engine's state exactly as the transcript leaves it (`record.unsent` is the message it
was about to send). A participant that waits on a process polls the process's stop token
(`arena.base.shutdown`) as it waits and raises `Stopped`: that exchange is dropped, unrecorded,
and the match ends the same way.
"""

from __future__ import annotations

import statistics
import time
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime
from typing import Any, Protocol

import orjson

from arena.base import shutdown
from arena.base.config import LimitsSection
from arena.engine.events import AskRefused, Event, Judged
from arena.engine.match import Delivery, Match, MatchSetup, Outcome, Result
from arena.engine.rules import shown
from arena.engine.views import Message
from arena.seats.ending import close_all
from arena.seats.recorded import Recording
from arena.seats.replies import (
    Answer,
    Exchange,
    Fault,
    FaultKind,
    Participant,
    SeatFault,
    quit_at_match_end,
)


class MatchInterrupted(KeyboardInterrupt):
    """Ctrl-C (or the signal standing for it) mid-match; `record` holds what was played
    (outcome interrupted). A KeyboardInterrupt still: whoever does not want the record stops
    as for any other."""

    def __init__(self, record: MatchRecord) -> None:
        super().__init__("match interrupted")
        self.record = record


@dataclass
class SeatClock:
    """Per-seat time: the reply timeout, plus a bank spent by replies that run over it."""

    reply: float
    startup: float
    bank: float
    spent: list[float] = field(default_factory=list)
    replies: list[float] = field(default_factory=list)  # each reply's time (`came_back`), not init

    @classmethod
    def of(cls, limits: LimitsSection) -> SeatClock:
        return cls(limits.reply_timeout, limits.startup_timeout, limits.time_bank)

    def allowed(self, message_type: str) -> float:
        return self.startup if message_type == "init" else self.reply + self.bank

    def limit_text(self, message_type: str) -> str:
        """Which settings make the time a seat has for this message, for a timeout's detail."""
        if message_type == "init":
            return f"limits.startupTimeout ({self.startup:g} s, start-up included)"
        return (
            f"limits.replyTimeout ({self.reply:g} s) plus what was left of limits.timeBank "
            f"({self.bank:g} s)"
        )

    def charge(self, message_type: str, seconds: float) -> None:
        self.spent.append(seconds)
        if message_type != "init":
            self.bank = max(0.0, self.bank - max(0.0, seconds - self.reply))

    def note(self, message_type: str, answer: Answer) -> None:
        """Charge a delivered answer's time, and keep it as a reply time when a reply came back
        (start-up, the `init` reply, is a figure of its own)."""
        if not answer.delivered:
            return
        seconds = answer.seconds
        self.spent.append(seconds)
        if message_type == "init":
            return
        if seconds > self.reply:
            self.bank = max(0.0, self.bank - (seconds - self.reply))
        fault = answer.fault
        if fault is None or fault.kind is FaultKind.NOT_JSON:  # `came_back`, inlined: hot
            self.replies.append(seconds)

    def reply_times(self) -> ReplyTimes | None:
        """This seat's reply times against its reply limit; None when it made no reply."""
        return ReplyTimes.of(self.replies, self.reply)

    def summary(self) -> dict[str, Any]:
        if not self.spent:
            return {"replies": 0}
        ordered = sorted(self.spent)
        p95 = ordered[min(len(ordered) - 1, int(0.95 * len(ordered)))]
        return {
            "replies": len(ordered),
            "meanMs": round(statistics.fmean(ordered) * 1000, 3),
            "p95Ms": round(p95 * 1000, 3),
            "maxMs": round(ordered[-1] * 1000, 3),
        }


def came_back(answer: Answer) -> bool:
    """Whether a reply line came back within the time allowed (even one that is not JSON): its
    time is a reply time. A timeout's time is the limit, a crash's is no reply's."""
    return answer.delivered and (answer.fault is None or answer.fault.kind is FaultKind.NOT_JSON)


@dataclass(frozen=True)
class ReplyTimes:
    """How fast a participant replied: the one definition `arena run`'s summary, the standings,
    the report and `arena check` share.

    A reply's time runs from writing the message to reading the reply line (`came_back`);
    `init`'s (start-up) is not one. `limit_share` is the slowest reply over the reply limit
    (`limits.replyTimeout`): above 1, it drew on its time bank. Over many matches (`combined`)
    the median is the median of each match's median, weighted by its replies, and the slowest
    and its share are the largest.
    """

    replies: int
    median: float  # seconds
    slowest: float  # seconds
    limit_share: float  # slowest / the reply limit

    @classmethod
    def of(cls, seconds: Sequence[float], limit: float) -> ReplyTimes | None:
        """The times of one seat's replies, against its reply limit; None for no reply."""
        if not seconds:
            return None
        slowest = max(seconds)
        share = slowest / limit if limit > 0 else 0.0
        return cls(len(seconds), statistics.median(seconds), slowest, share)

    @classmethod
    def combined(cls, parts: Sequence[ReplyTimes]) -> ReplyTimes | None:
        """The figures of many matches (or scenarios) together; None for none."""
        counted = sorted((part for part in parts if part.replies), key=lambda part: part.median)
        if not counted:
            return None
        replies = sum(part.replies for part in counted)
        # The weighted median: the first median at which half the replies are reached.
        reached, median = 0, counted[-1].median
        for part in counted:
            reached += part.replies
            if 2 * reached >= replies:
                median = part.median
                break
        return cls(
            replies,
            median,
            max(part.slowest for part in counted),
            max(part.limit_share for part in counted),
        )

    def as_json(self) -> dict[str, Any]:
        """The figures as a results line and standings.json write them (docs/tournaments.md)."""
        return {
            "replies": self.replies,
            "median": round(self.median, 6),
            "slowest": round(self.slowest, 6),
            "limitShare": round(self.limit_share, 4),
        }


@dataclass
class MatchRecord:
    """Everything a replay holds about one played match."""

    setup: MatchSetup
    commands: list[list[str]]
    in_process: list[bool] = field(default_factory=list)  # seats played by an in-process bot
    # How each seat was confined: "bwrap", "none", "in-process", or "" for a person.
    confinement: list[str] = field(default_factory=list)
    # What else confined each seat's process (uid, seccomp, cgroups; docs/sandbox.md).
    isolation: list[tuple[str, ...]] = field(default_factory=list)
    result: Result = field(default_factory=lambda: Result(Outcome.INTERRUPTED, (), ()))
    transcript: list[Exchange] = field(default_factory=list)
    faults: list[SeatFault] = field(default_factory=list)
    events: list[Event] = field(default_factory=list)
    # The replies the engine refused or reinterpreted (`Match.judged`): each is one fault.
    judged: list[Judged] = field(default_factory=list)
    timings: list[dict[str, Any]] = field(default_factory=list)
    reply_times: list[ReplyTimes | None] = field(default_factory=list)  # by seat
    logs: list[str] = field(default_factory=list)
    started_at: str = ""
    seconds: float = 0.0
    kept: list[int] = field(default_factory=list)  # seats left running for reuse, not stopped
    unsent: Delivery | None = None  # the message the engine was about to send when stopped

    def fault_counts(self) -> list[dict[str, int]]:
        counts: list[Counter[str]] = [Counter() for _ in self.setup.names]
        for fault in self.faults:
            counts[fault.seat][str(fault.kind)] += 1
        return [dict(c) for c in counts]


class MatchObserver(Protocol):
    """Told of a match as it is played; must not raise (it would end the match as a bug)."""

    def sending(self, index: int, seat: int, message: Message) -> None:
        """Message `index` is about to be delivered to `seat`."""
        ...

    def exchanged(self, index: int, exchange: Exchange) -> None:
        """Message `index` was answered (its faults are in `exchange.answer`)."""
        ...

    def happened(self, event: Event) -> None:
        """The engine recorded an event (after the reply that caused it)."""
        ...


class Unobserved:
    """An observer that notes nothing; subclass it to hear only some of what happens."""

    def sending(self, index: int, seat: int, message: Message) -> None:
        pass

    def exchanged(self, index: int, exchange: Exchange) -> None:
        pass

    def happened(self, event: Event) -> None:
        pass


UNOBSERVED = Unobserved()


def never() -> bool:
    return False


def play_match(
    setup: MatchSetup,
    participants: Sequence[Participant],
    limits: LimitsSection,
    commands: Sequence[Sequence[str]] = (),
    *,
    observer: MatchObserver = UNOBSERVED,
    should_stop: Callable[[], bool] = never,
    reuse: bool = False,
    close_grace: float | None = None,
    clocks: Sequence[SeatClock] | None = None,
) -> MatchRecord:
    """Play one match to its end, or until `should_stop()`; returns its record.

    Every participant is stopped and reaped before this returns (with `close_grace`, default
    `limits.closeGrace`, to exit by itself; none when stopped), except, with `reuse`, those of
    a completed match that asked for it in their `init` reply (`{"reuse": true}`), whose
    seats are in `record.kept`. `clocks` (default: one per seat from `limits`) may be shared
    with a caller that also talks to a seat.

    Raises MatchInterrupted on KeyboardInterrupt, its record holding what was played (outcome
    interrupted); any other error propagates, every participant stopped too.
    """
    record = MatchRecord(setup, [list(c) for c in commands] or [[] for _ in participants])
    record.in_process = [p.in_process for p in participants]
    record.confinement = [p.confinement for p in participants]
    record.started_at = datetime.now(UTC).isoformat(timespec="seconds")
    clocks = list(clocks) if clocks is not None else [SeatClock.of(limits) for _ in participants]
    match = Match(setup)
    began = time.monotonic()
    interrupted = stopped = False
    try:
        try:
            for participant in participants:  # all start together: their start-up overlaps
                participant.start()  # (a reused one is running already)
                participant.begin_match()
            record.isolation = [getattr(p, "isolation", ()) for p in participants]
            for seat, participant in enumerate(participants):
                if participant.start_fault is not None:
                    record.faults.append(SeatFault(seat, 0, participant.start_fault))
            record.unsent = _exchanges(match, participants, clocks, record, observer, should_stop)
            stopped = record.unsent is not None
            record.result = match.result(Outcome.INTERRUPTED) if stopped else record.result
            _note_leftovers(participants, record)
            if reuse and not stopped:
                record.kept = _reusable(participants, record)
        except KeyboardInterrupt:
            interrupted = True
        finally:
            try:
                if interrupted:
                    record.kept = []
                ending = [p for seat, p in enumerate(participants) if seat not in record.kept]
                grace = limits.close_grace if close_grace is None else close_grace
                close_all(ending, 0.0 if interrupted or stopped else grace)
            except KeyboardInterrupt:
                interrupted = True
    finally:
        record.seconds = time.monotonic() - began
        record.events, record.judged = match.events, match.judged
        record.timings = [clock.summary() for clock in clocks]
        record.reply_times = [clock.reply_times() for clock in clocks]
        record.logs = [p.stderr_text() for p in participants]
    if interrupted:
        # The interrupt may have landed inside the engine, between two messages: the
        # recorded replies played again give the state the transcript itself describes.
        again = replay_transcript(setup, record.transcript)
        record.result, record.events, record.judged = again.result, again.events, again.judged
    # A reply's fault at the message it answered, after what the transport saw there.
    rules = [rule_fault(judged) for judged in record.judged]
    record.faults = sorted([*record.faults, *rules], key=lambda fault: fault.at)
    if interrupted:
        raise MatchInterrupted(record)
    return record


def rule_fault(judged: Judged) -> SeatFault:
    """The fault of a reply that was read but broke a rule, as the engine judged it (a refused
    ask, a pond index that is no number): the one wording of each. A reply that could not be
    read at all is a fault of its own already (timeout, not-json…), and is never judged."""
    if isinstance(judged, AskRefused):
        detail = f"{judged.reason}: {judged.detail}"
        return SeatFault(judged.seat, judged.at, Fault(FaultKind.REFUSED_ASK, detail))
    detail = (
        f"a {judged.message} reply must be a pond index (a number), got {shown(judged.reply)}: "
        "it counts as 0"
    )
    return SeatFault(judged.seat, judged.at, Fault(FaultKind.BAD_POND_INDEX, detail))


def replay_transcript(
    setup: MatchSetup,
    transcript: Sequence[Exchange],
    *,
    observer: MatchObserver = UNOBSERVED,
) -> MatchRecord:
    """The match played again from recorded exchanges, by the match loop with a recorded
    participant per seat: its result is `interrupted` when the transcript stops before the
    match ends, and `unsent` is then the message the engine would send next."""
    recording = Recording(transcript)
    seats = [recording.seat(seat) for seat in range(len(setup.names))]
    return play_match(
        setup,
        seats,
        LimitsSection(),
        observer=observer,
        should_stop=lambda: recording.exhausted,
    )


def _exchanges(
    match: Match,
    participants: Sequence[Participant],
    clocks: list[SeatClock],
    record: MatchRecord,
    observer: MatchObserver,
    should_stop: Callable[[], bool],
) -> Delivery | None:
    """Deliver every message; None when the match ended, else the delivery not sent."""
    transcript, faults, events = record.transcript, record.faults, match.events
    observed = observer is not UNOBSERVED  # (`arena run`'s matches: no call that does nothing)
    dumps, newline = orjson.dumps, orjson.OPT_APPEND_NEWLINE
    flow = match.play()
    seen = 0
    try:
        delivery = next(flow)
        while True:
            if should_stop():
                flow.close()
                return delivery
            seat, message = delivery
            kind = message["type"]
            clock = clocks[seat]
            index = len(transcript)
            if observed:
                observer.sending(index, seat, message)
            line = dumps(message, option=newline)
            try:
                answer: Answer = participants[seat].exchange(line, clock.allowed(kind))
            except shutdown.Stopped:  # the process was told to stop while this seat thought
                flow.close()
                return delivery
            if answer.fault is not None and answer.fault.kind is FaultKind.TIMEOUT:
                answer = _explained_timeout(answer, kind, clock)
            clock.note(kind, answer)
            if answer.unsolicited is not None:
                faults.append(SeatFault(seat, index, answer.unsolicited))
            if answer.fault is not None and not quit_at_match_end(kind, answer.fault):
                faults.append(SeatFault(seat, index, answer.fault))
            if answer.log_full is not None:
                faults.append(SeatFault(seat, index, answer.log_full))
            exchange = Exchange(seat, message, answer)
            transcript.append(exchange)
            if not observed:
                delivery = flow.send(answer.value)
                continue
            observer.exchanged(index, exchange)
            try:
                delivery = flow.send(answer.value)
            finally:
                while seen < len(events):
                    observer.happened(events[seen])
                    seen += 1
    except StopIteration as stop:
        record.result = stop.value
        return None


def _explained_timeout(answer: Answer, kind: str, clock: SeatClock) -> Answer:
    """A timeout's detail says the time it took and which settings give a seat more time."""
    assert answer.fault is not None
    fault = answer.fault
    detail = (
        f"{fault.detail} The message was `{kind}`, stopped after {answer.seconds:.2f} s; its "
        f"time is {clock.limit_text(kind)}: raise that in the config if the bot needs longer."
    )
    return answer._replace(fault=replace(fault, detail=detail))


def _reusable(participants: Sequence[Participant], record: MatchRecord) -> list[int]:
    """Seats still running whose `init` reply asked to be kept for the next match."""
    asked = {
        exchange.seat
        for exchange in record.transcript
        if exchange.message["type"] == "init"
        and isinstance(exchange.reply, dict)
        and exchange.reply.get("reuse") is True
    }
    return [seat for seat, p in enumerate(participants) if seat in asked and p.keepable]


def _note_leftovers(participants: Sequence[Participant], record: MatchRecord) -> None:
    """Output found after the last reply was not asked for either: record it (at the end)."""
    for seat, participant in enumerate(participants):
        leftover = participant.leftover()
        if leftover is not None:
            record.faults.append(SeatFault(seat, len(record.transcript), leftover))


__all__ = [
    "MatchInterrupted",
    "MatchObserver",
    "MatchRecord",
    "ReplyTimes",
    "SeatClock",
    "Unobserved",
    "came_back",
    "play_match",
    "replay_transcript",
]
