"""A match driver: joins the rules engine to the participants and turns faults into data.

`run_match` feeds every `Delivery` of a `Match` to its seat's participant, hands the engine
the reply (or `NO_REPLY`), and records each exchange. Whatever a participant does, the match
goes on; whatever happens (end, interrupt, an internal error), every process is stopped and
reaped before `run_match` returns or raises.
"""

from __future__ import annotations

import os
import statistics
import time
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime
from typing import Any

import orjson

from arena.base.config import LimitsSection, Seat
from arena.engine.match import NO_REPLY, Match, MatchSetup, Outcome, Result
from arena.engine.rules import is_pond_number
from arena.seats.replies import Answer, Fault, FaultKind, InProcessParticipant, Participant
from arena.seats.transport import ResourceLimits, SubprocessParticipant, close_all

# The environment a participant gets: these variables of the arena's own, when set, and the
# ARENA_* ones below; nothing else leaks to untrusted code. Config `env` adds to it.
PASSED_ENVIRONMENT = ("PATH", "HOME", "LANG", "LC_ALL", "LC_CTYPE", "TMPDIR", "TZ", "USER", "LOGNAME")


class MatchInterrupted(Exception):
    """The arena was interrupted mid-match; `record` holds what was played (outcome interrupted)."""

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

    def allowed(self, message_type: str) -> float:
        return self.startup if message_type == "init" else self.reply + self.bank

    def limit_text(self, message_type: str) -> str:
        """Which settings make the time a seat has for this message, for a timeout's detail."""
        if message_type == "init":
            return f"limits.startupTimeout ({self.startup:g} s, start-up included)"
        return (f"limits.replyTimeout ({self.reply:g} s) plus what was left of limits.timeBank "
                f"({self.bank:g} s)")

    def charge(self, message_type: str, seconds: float) -> None:
        self.spent.append(seconds)
        if message_type != "init":
            self.bank = max(0.0, self.bank - max(0.0, seconds - self.reply))

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


@dataclass
class MatchRecord:
    """Everything a replay holds about one played match."""

    setup: MatchSetup
    commands: list[list[str]]
    in_process: list[bool] = field(default_factory=list)  # seats played by a built-in bot in-process
    result: Result = field(default_factory=lambda: Result(Outcome.INTERRUPTED, (), ()))
    transcript: list[dict[str, Any]] = field(default_factory=list)
    faults: list[dict[str, Any]] = field(default_factory=list)
    events: list[dict[str, Any]] = field(default_factory=list)
    timings: list[dict[str, Any]] = field(default_factory=list)
    logs: list[str] = field(default_factory=list)
    started_at: str = ""
    seconds: float = 0.0
    kept: list[int] = field(default_factory=list)  # seats left running for reuse, not stopped

    def fault_counts(self) -> list[dict[str, int]]:
        counts: list[Counter[str]] = [Counter() for _ in self.setup.names]
        for fault in self.faults:
            counts[fault["seat"]][fault["kind"]] += 1
        return [dict(c) for c in counts]


def participant_env(seat: int, name: str, extra: Mapping[str, str]) -> dict[str, str]:
    env = {key: os.environ[key] for key in PASSED_ENVIRONMENT if key in os.environ}
    env.update(PYTHONUNBUFFERED="1", ARENA_SEAT=str(seat), ARENA_NAME=name)
    env.update(extra)
    return env


def make_participants(
    seats: Sequence[Seat], limits: LimitsSection, *, in_process_bots: bool = False
) -> list[Participant]:
    """One participant per seat, in seat order (not yet started)."""
    resources = ResourceLimits(
        memory_bytes=limits.memoryMiB * 2**20 if limits.memoryMiB else None,
        cpu_seconds=limits.cpuSeconds,
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
                line_cap=limits.maxLineBytes,
                reply_cap=limits.maxReplyBytes,
                stderr_cap=limits.stderrBytes,
                limits=resources,
            )
        )
    return made


def run_match(
    setup: MatchSetup,
    participants: Sequence[Participant],
    limits: LimitsSection,
    commands: Sequence[Sequence[str]],
    *,
    reuse: bool = False,
) -> MatchRecord:
    """Play one match to its end; every process is stopped and reaped before this returns.

    With `reuse`, a completed match leaves running the participants that asked for it in
    their `init` reply (`{"reuse": true}`); their seats are in `record.kept`.

    Raises MatchInterrupted on Ctrl-C (or SIGTERM turned into KeyboardInterrupt by the CLI),
    its record holding what was played; any other error propagates, processes stopped too.
    """
    record = MatchRecord(setup, [list(c) for c in commands])
    record.in_process = [isinstance(p, InProcessParticipant) for p in participants]
    record.started_at = datetime.now(UTC).isoformat(timespec="seconds")
    clocks = [SeatClock(limits.replyTimeout, limits.startupTimeout, limits.timeBank) for _ in participants]
    match = Match(setup)
    began = time.monotonic()
    interrupted = False
    try:
        try:
            for participant in participants:  # all start together: their start-up overlaps
                participant.start()  # (a reused one is running already)
                if isinstance(participant, SubprocessParticipant):
                    participant.begin_match()
            for seat, participant in enumerate(participants):
                start_fault = getattr(participant, "start_fault", None)
                if start_fault is not None:
                    record.faults.append({"seat": seat, "at": 0, **start_fault.as_json()})
            record.result = _play(match, participants, clocks, record)
            _note_leftovers(participants, record)
            if reuse:
                record.kept = _reusable(participants, record)
        except KeyboardInterrupt:
            interrupted = True
        finally:
            try:
                if interrupted:
                    record.kept = []
                ending = [p for seat, p in enumerate(participants) if seat not in record.kept]
                close_all(ending, 0.0 if interrupted else limits.closeGrace)
            except KeyboardInterrupt:
                interrupted = True
    finally:
        record.seconds = time.monotonic() - began
        record.events = match.events
        record.timings = [clock.summary() for clock in clocks]
        record.logs = [p.stderr_text() for p in participants]
        if interrupted:
            record.result, record.events = _replayed(setup, record.transcript)
        record.faults = with_rule_faults(record.faults, record.transcript, record.events)
    if interrupted:
        raise MatchInterrupted(record)
    return record


def with_rule_faults(
    faults: Sequence[dict[str, Any]], transcript: Sequence[dict[str, Any]], events: Sequence[dict[str, Any]]
) -> list[dict[str, Any]]:
    """The faults, with every reply that was read but broke a rule: each refused ask and each
    pond index that is not a finite number, in transcript order.

    A reply that could not be read at all is a fault of its own already (timeout, not-json…),
    and a seat that is gone owes nothing more: neither counts twice.
    """
    found = list(faults)
    for event in events:
        if event["event"] == "invalid-ask" and event.get("reason") != "no-reply":
            found.append({"seat": event["seat"], "at": event["at"], "kind": str(FaultKind.REFUSED_ASK),
                          "detail": f"{event.get('reason')}: {event.get('detail', '')}"})
    for at, entry in enumerate(transcript):
        kind = entry["message"]["type"]
        if kind in ("go-fish", "pick-up") and recorded_reply(entry) is not NO_REPLY:
            reply = entry["reply"]
            if not is_pond_number(reply):
                shown = orjson.dumps(reply).decode()[:80] if reply is not None else "null"
                found.append({"seat": entry["seat"], "at": at, "kind": str(FaultKind.BAD_POND_INDEX),
                              "detail": f"a {kind} reply must be a pond index (a number), got {shown}: "
                                        "it counts as 0"})
    return sorted(found, key=lambda fault: fault["at"])  # stable: equal `at` keep their order


def recorded_reply(entry: dict[str, Any]) -> Any:
    """What the engine was handed for a transcript entry: its reply, or NO_REPLY."""
    if "noReply" in entry or entry.get("delivered") is False:
        return NO_REPLY
    return entry.get("reply")


def replay_transcript(setup: MatchSetup, transcript: Sequence[dict[str, Any]]) -> tuple[Match, Result]:
    """The engine fed a transcript's recorded replies: the match (its table and events) and
    its result (`interrupted` when the transcript stops before the match ends)."""
    match = Match(setup)
    game = match.play()
    try:
        next(game)
        for entry in transcript:
            game.send(recorded_reply(entry))
    except StopIteration as stop:
        return match, stop.value
    finally:
        game.close()
    return match, match.result(Outcome.INTERRUPTED)


def _replayed(setup: MatchSetup, transcript: list[dict[str, Any]]) -> tuple[Result, list[dict[str, Any]]]:
    """The result and events of the transcript as recorded, played again by the engine.

    An interrupt can land while the engine is between two messages; playing the recorded
    replies again gives the state the replay itself describes, so `replay verify` agrees.
    """
    match, result = replay_transcript(setup, transcript)
    return result, match.events


def _reusable(participants: Sequence[Participant], record: MatchRecord) -> list[int]:
    """Seats still running whose `init` reply asked to be kept for the next match."""
    asked = {
        entry["seat"]
        for entry in record.transcript
        if entry["message"]["type"] == "init"
        and isinstance(entry["reply"], dict)
        and entry["reply"].get("reuse") is True
    }
    return [
        seat
        for seat, participant in enumerate(participants)
        if seat in asked and isinstance(participant, SubprocessParticipant) and participant.alive
    ]


def _note_leftovers(participants: Sequence[Participant], record: MatchRecord) -> None:
    """Output found after the last reply was not asked for either: record it (at the end)."""
    for seat, participant in enumerate(participants):
        if isinstance(participant, SubprocessParticipant) and participant.alive:
            leftover, _ = participant.take_unsolicited()
            if leftover is not None:
                record.faults.append({"seat": seat, "at": len(record.transcript), **leftover.as_json()})


def _play(
    match: Match, participants: Sequence[Participant], clocks: list[SeatClock], record: MatchRecord
) -> Result:
    transcript, faults = record.transcript, record.faults
    game = match.play()
    try:
        delivery = next(game)
        while True:
            seat, message = delivery
            kind = message["type"]
            clock = clocks[seat]
            answer = participants[seat].exchange(orjson.dumps(message, option=orjson.OPT_APPEND_NEWLINE), clock.allowed(kind))
            if answer.fault is not None and answer.fault.kind is FaultKind.TIMEOUT:
                answer = _explained_timeout(answer, kind, clock)
            entry: dict[str, Any] = {"seat": seat, "message": message, "reply": None}
            if answer.delivered:
                clock.charge(kind, answer.seconds)
                if answer.value is not NO_REPLY:
                    entry["reply"] = answer.value
            else:
                entry["delivered"] = False
            _note(entry, faults, seat, len(transcript), answer)
            transcript.append(entry)
            delivery = game.send(answer.value)
    except StopIteration as stop:
        result: Result = stop.value
        return result


def _explained_timeout(answer: Answer, kind: str, clock: SeatClock) -> Answer:
    """A timeout's detail says the time it took and which settings give a seat more time."""
    assert answer.fault is not None
    fault = answer.fault
    detail = (f"{fault.detail} The message was `{kind}`, stopped after {answer.seconds:.2f} s; its "
              f"time is {clock.limit_text(kind)}: raise that in the config if the bot needs longer.")
    return replace(answer, fault=replace(fault, detail=detail))


def _note(entry: dict[str, Any], faults: list[dict[str, Any]], seat: int, at: int, answer: Answer) -> None:
    if answer.unsolicited is not None:
        entry["unsolicited"] = _fault_entry(answer.unsolicited, faults, seat, at)
    if answer.fault is not None:
        entry["noReply"] = _fault_entry(answer.fault, faults, seat, at)


def _fault_entry(fault: Fault, faults: list[dict[str, Any]], seat: int, at: int) -> dict[str, Any]:
    data = fault.as_json()
    faults.append({"seat": seat, "at": at, **data})
    return data


__all__ = ["FaultKind", "MatchInterrupted", "MatchRecord", "make_participants", "run_match"]
