"""`arena check`: put one participant through scripted matches and say what it got wrong.

The checked program sits on seat 0 of real matches played by the match loop
(`arena.referee.loop`), as in `arena run`; the other seats are the built-in random bot,
in-process. Each scenario is a fresh process started by `arena.seats.process`. Every reply the
program gives is judged once, where it is played: the transport says what it could not read
(`answer_problems`), and the engine what it refused or reinterpreted (`rule_problems`, from
the match's record; `arena.engine.rules.verify_ask`, `pond_index`); each becomes a `Problem`
with the reason in words: an ask with a rank instead of a card id, an ask of itself, a pond index that
is not a number, a line that is not JSON, silence, a crash, debug prints on stdout.

Nothing here prints or raises because of what the program did: `run_checks` returns a
`CheckReport`; `arena.referee.check_report` puts it in words (rich tables the CLI prints, the
text the league keeps for a submission's owner).
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from enum import StrEnum
from pathlib import Path
from typing import Any, Final

import orjson

from arena.base.config import LimitsSection, named_rules, resolve_program
from arena.base.errors import ConfigError
from arena.bots import BOTS
from arena.engine.cards import new_pack
from arena.engine.events import AskRefused
from arena.engine.match import MatchSetup
from arena.engine.rules import (
    NextPlayer,
    Rules,
    StartingPlayer,
    shown,
)
from arena.engine.views import Message
from arena.referee import silence
from arena.referee.hints import sandbox_hints, stalled_note
from arena.referee.loop import (
    MatchRecord,
    ReplyTimes,
    SeatClock,
    Unobserved,
    came_back,
    play_match,
    rule_fault,
)
from arena.referee.seating import participant_env
from arena.seats.ending import close_all
from arena.seats.in_process import InProcessParticipant
from arena.seats.replies import Answer, FaultKind, Participant, Wrapped, quit_at_match_end
from arena.seats.sandbox import Confinement, Jail
from arena.seats.transport import SubprocessParticipant

CHECKED_SEAT: Final = 0  # the checked program's seat, but at the four-seat table (the last)
YOU: Final = "you"  # the checked program's name at the table
UNKNOWN_MESSAGE: Final = {
    "type": "future-message",
    "note": "a message type this participant does not know",
}
EXIT_GRACE: Final = 0.5  # seconds for the program to exit after its stdin is closed
STDERR_SHOWN: Final = 4000  # characters of stderr kept for a scenario that failed
QUIT_AT_MATCH_END: Final = (
    "ended at match-end without replying (the match was over: no fault); "
    "match-end wants a reply too (null), then exit"
)
SLOW_STARTUP: Final = 0.5  # of the start-up limit: above it, a warning
STDERR_LINES: Final = 15  # of which the last lines shown, stack frames folded
STOPPED: Final = "stopped"  # the outcome of a scenario whose program was gone before the end


# What a program's stderr says when the sandbox stopped it, and what to do instead.
class Verdict(StrEnum):
    PASSED = "passed"
    FAILED = "failed"
    SKIPPED = "skipped"


@dataclass(frozen=True)
class Scenario:
    name: str
    about: str
    setup: MatchSetup
    unknown_message: bool = False  # send UNKNOWN_MESSAGE right after the starting hand

    @property
    def seat(self) -> int:
        """The checked program's seat: the one named "you"."""
        return self.setup.names.index(YOU)


@dataclass(frozen=True)
class Problem:
    """One reply that the arena would count as invalid (or output it would discard)."""

    kind: str
    why: str
    message_type: str
    at: int  # the message's number in its match, from 0 across seats (as `replay show` numbers them)
    reply: str | None = None  # what the program wrote, cut
    notes: str = ""  # what it wrote to stderr while answering (docs/protocol.md, notes)


@dataclass
class ScenarioReport:
    name: str
    about: str
    verdict: Verdict = Verdict.PASSED
    messages: int = 0
    outcome: str = ""
    startup: float | None = None  # spawn to `init` reply, seconds
    latencies: list[float] = field(default_factory=list)
    problems: list[Problem] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    stderr_tail: str = ""
    hints: list[str] = field(default_factory=list)  # what the sandbox stopped, what to do instead
    note: str = ""  # why the outcome is what it is, when it is not `completed`


@dataclass
class CheckReport:
    command: list[str]
    scenarios: list[ScenarioReport]
    sandbox: str = "none"  # how the program was confined: "bwrap" or "none"
    reply_limit: float = 0.0  # limits.replyTimeout (`--timeout`): what the slowest is held to
    startup_limit: float = 0.0  # limits.startupTimeout (`--startup-timeout`): the start-up's
    read_only: list[str] = field(default_factory=list)  # `--read-only`: what else it may read

    @property
    def passed(self) -> bool:
        return all(s.verdict is Verdict.PASSED for s in self.scenarios)

    @property
    def startup(self) -> float | None:
        return next((s.startup for s in self.scenarios if s.startup is not None), None)

    @property
    def latencies(self) -> list[float]:
        return [seconds for s in self.scenarios for seconds in s.latencies]

    @property
    def reply_times(self) -> ReplyTimes | None:
        """Median, slowest and its share of the reply limit, as `arena run` reports them."""
        return ReplyTimes.of(self.latencies, self.reply_limit)


# -- the command ---------------------------------------------------------------------------


def resolve_command(command: Sequence[str], cwd: Path) -> list[str]:
    """The argument list to run: a program with a `/` resolved against `cwd`, a bare one on PATH.

    Raises ConfigError (one line) when there is no command or its program cannot be run.
    """
    if not command or not command[0].strip():
        raise ConfigError("no command given: arena check -- COMMAND [ARGS...]")
    return [resolve_program(command[0], cwd), *command[1:]]


# -- the scenarios -------------------------------------------------------------------------


def scenarios(limits: LimitsSection) -> list[Scenario]:
    """The situations every participant is put through, the normal match first."""
    told = limits.told_to_seats()
    first = StartingPlayer.FIRST_IN_LINE

    def seeded(seed: int, seats: int, rules: Rules, you: int = CHECKED_SEAT) -> MatchSetup:
        names = [YOU if seat == you else f"random-{seat}" for seat in range(seats)]
        return MatchSetup.from_seed(seed, names, rules, limits=told)

    return [
        Scenario("normal match", "2 seats, the default rules", seeded(1, 2, Rules())),
        Scenario(
            "empty pond",
            "the whole pack dealt: every ask sees an empty pond, a miss draws nothing",
            seeded(2, 2, Rules(starting_player=first, starting_hand_size=26)),
        ),
        Scenario(
            "several decks",
            "3 decks, 4 seats, Clockwise, you on the last seat (3): duplicate cards, ids up to "
            "155, three opponents",
            # Not seat 0: a program that reckons its opponent as `1 - seat` or `seat + 1` asks
            # a seat that does not exist here.
            seeded(3, 4, Rules(number_of_decks=3, next_player=NextPlayer.CLOCKWISE), you=3),
        ),
        Scenario(
            "knights", "a 56-card pack with knights (rank 11)", seeded(4, 2, Rules(knights=True))
        ),
        Scenario(
            "empty hands",
            "startingHandSize 0: an empty starting hand, pick-up before the first ask",
            seeded(5, 2, Rules(starting_player=first, starting_hand_size=0)),
        ),
        Scenario(
            "family rules",
            "3 seats, configs/family-table.toml: lucky-draw messages, After asker, "
            "an empty hand draws 5 on its turn",
            # A deal on which an opponent's lucky draw is shown to every seat before seat 0
            # decides anything: every program meets `lucky-draw`, however it plays.
            seeded(530, 3, named_rules("family-table")),
        ),
        Scenario(
            "unknown message",
            f"a {UNKNOWN_MESSAGE['type']!r} message after the starting hand wants a JSON reply",
            seeded(6, 2, Rules()),
            unknown_message=True,
        ),
    ]


# -- judging one reply ---------------------------------------------------------------------


# Message types a bot written from the reference arena's protocol alone has never seen.
NEWER_TYPES: Final = ("lucky-draw", "future-message")


def answer_problems(message: dict[str, Any], answer: Answer, at: int) -> list[Problem]:
    """What the transport found wrong with one exchange with the checked seat (whether a reply
    it read breaks a rule is the engine's to say: `rule_problems`)."""
    kind = message["type"]
    found: list[Problem] = []
    if answer.unsolicited is not None:
        found.append(
            Problem(
                str(FaultKind.UNSOLICITED),  # the replay's name for it
                "wrote to stdout before this message was sent (discarded); "
                "replies go to stdout one line per message, logs and debug prints to stderr",
                kind,
                at,
                answer.unsolicited.raw,  # its newline shown as \n: a whole line went
            )
        )
    fault = answer.fault
    if fault is not None:
        why = fault.detail
        if fault.kind is FaultKind.EXITED:
            name = "exited" if fault.exit_code == 0 else "crashed"
            why += " before replying"  # its stderr tail is shown whole below
            if kind == "match-end":
                why += "; match-end wants a reply too (null), then exit"
            elif fault.exit_code == 0 and kind not in NEWER_TYPES:
                why += (
                    "; it left in the middle of the match: read a line, answer it, and go on "
                    "to the next, until match-end or the end of input"
                )
            if kind in NEWER_TYPES:
                why += (
                    f"; `{kind}` may be a message type the program does not know: "
                    "answer null to any type you do not know, and play on"
                )
        else:
            name = str(fault.kind)
        if fault.kind is FaultKind.NOT_JSON:
            why += "; one JSON value per line, debug prints go to stderr"
        if fault.kind is FaultKind.TIMEOUT and fault.raw is None:  # (else: no newline, said)
            every = "very message wants one reply line, even those that need no decision. "
            why += (" E" + every) if why.endswith("?") else ("; e" + every)  # after a question
            why += (
                "`arena check --startup-timeout SECONDS` allows a slower start-up (an "
                "unoptimised build, as a Rust target/debug, starts many times slower)"
                if kind == "init"
                else "`arena check --timeout SECONDS` allows more time "
                "per reply (in a config: limits.replyTimeout, limits.timeBank)"
            )
        found.append(Problem(name, why, kind, at, fault.raw))
        return found
    return found


def rule_problems(record: MatchRecord, seat: int = CHECKED_SEAT) -> list[Problem]:
    """The checked `seat`'s replies that were read but broke a rule, as the engine judged them
    while it played (`MatchRecord.judged`: a refused ask, a pond index that is no number), in
    the match loop's words (`rule_fault`): each reply judged once, by the rules."""
    found = []
    for judged in record.judged:
        if judged.seat != seat:
            continue
        answer = record.transcript[judged.at].answer
        if isinstance(judged, AskRefused):
            kind, why, message = judged.reason, judged.detail, "ask"
        else:
            kind, why, message = (
                str(FaultKind.BAD_POND_INDEX),
                rule_fault(judged).fault.detail,
                judged.message,
            )
        found.append(Problem(kind, why, message, judged.at, shown(answer.value), answer.notes))
    return found


# -- running -------------------------------------------------------------------------------


def run_checks(
    command: Sequence[str],
    cwd: Path,
    limits: LimitsSection,
    sandbox: Confinement = "none",
    read_only: Sequence[str] = (),
) -> CheckReport:
    """Run every scenario with a fresh process of `command` (confined as `sandbox` says, as
    `arena run` would, `read_only` the absolute paths it may read besides its own: a config's
    `readOnly`); the rest are skipped if the first (the normal match) could not be played to
    its end."""
    reports: list[ScenarioReport] = []
    for index, scenario in enumerate(scenarios(limits)):
        if index and reports[0].outcome == STOPPED:
            reports.append(
                ScenarioReport(
                    scenario.name,
                    scenario.about,
                    Verdict.SKIPPED,
                    outcome="the normal match did not finish",
                )
            )
            continue
        reports.append(run_scenario(scenario, command, cwd, limits, sandbox, read_only))
    if reports[0].outcome != STOPPED:
        reused = run_reuse(command, cwd, limits, sandbox, read_only)
        if reused is not None:
            reports.append(reused)
    return CheckReport(
        list(command),
        reports,
        sandbox,
        limits.reply_timeout,
        limits.startup_timeout,
        list(read_only),
    )


REUSE_ABOUT: Final = (
    "asked for reuse: a second match (3 seats, 5 cards each, another deal) in the "
    "same process; its messages are numbered from 0 again"
)


def reuse_setups(limits: LimitsSection) -> tuple[MatchSetup, MatchSetup]:
    """The two matches of the reuse check: the second unlike the first, so that anything kept
    from the first (the hand, the seat count, the memory of asks) shows up as invalid replies."""
    told = limits.told_to_seats()
    first = MatchSetup.from_seed(7, (YOU, "random-1"), Rules(), limits=told)
    second = MatchSetup.from_seed(
        8, (YOU, "random-1", "random-2"), Rules(starting_hand_size=5), limits=told
    )
    return first, second


ENDED_AFTER_MATCH_END: Final = (
    'asked for reuse ({"reuse": true}) but ended after match-end: arena run then starts it '
    "afresh for every match (to be kept, read on after match-end until end of input; with the "
    "SDK, set `reuse = True` on the Bot class)"
)


def run_reuse(
    command: Sequence[str],
    cwd: Path,
    limits: LimitsSection,
    sandbox: Confinement = "none",
    read_only: Sequence[str] = (),
) -> ScenarioReport | None:
    """For a program that answers `init` with `{"reuse": true}`: two matches in one process, as
    `arena run` plays them, every reply of both judged. None for a program that does not ask."""
    first, second = reuse_setups(limits)
    report = ScenarioReport("reuse", REUSE_ABOUT)
    process = SubprocessParticipant(
        command,
        cwd,
        participant_env(CHECKED_SEAT, first.names[0], {}),
        sandbox=sandbox,
        read_only=read_only,
    )
    record = _play_checked(
        process, Scenario("reuse", REUSE_ABOUT, first), limits, report, reuse=True
    )
    init = next((e for e in record.transcript if e.seat == CHECKED_SEAT), None)
    asked = init is not None and isinstance(init.reply, dict) and init.reply.get("reuse") is True
    if not asked:
        return None
    if CHECKED_SEAT not in record.kept:
        if record.unsent is None and not report.problems:
            report.warnings.append(ENDED_AFTER_MATCH_END)
        else:
            report.verdict = Verdict.FAILED
        report.outcome = STOPPED if record.unsent is not None else str(record.result.outcome)
        return report
    first_outcome = str(record.result.outcome)
    try:
        record = _play_checked(process, Scenario("reuse", REUSE_ABOUT, second), limits, report)
    finally:
        close_all([process], EXIT_GRACE)  # (the loop has done so already; doing it again is safe)
    if any(
        f.seat == CHECKED_SEAT and f.at == 0 and f.kind is FaultKind.EXITED for f in record.faults
    ):
        # It ended after match-end all the same, only later than the loop could see: found gone
        # at the next `init`. `arena run` then plays that match with a fresh process (as the
        # runner does), so it is the same warning, not a failure.
        report.problems = [p for p in report.problems if (p.at, p.message_type) != (0, "init")]
        report.warnings.append(ENDED_AFTER_MATCH_END)
        report.outcome = first_outcome
        if report.problems:
            report.verdict = Verdict.FAILED
        return report
    report.outcome = STOPPED if record.unsent is not None else str(record.result.outcome)
    if not report.problems and record.unsent is None:
        # The same second match with a fresh process: a program that starts afresh at `init`
        # answers it exactly the same way.
        fresh = SubprocessParticipant(
            command,
            cwd,
            participant_env(CHECKED_SEAT, second.names[0], {}),
            sandbox=sandbox,
            read_only=read_only,
        )
        again = _play_checked(
            fresh,
            Scenario("reuse", REUSE_ABOUT, second),
            limits,
            ScenarioReport("reuse", REUSE_ABOUT),
        )
        kept = _first_difference(record, again)
        if kept is not None:
            report.problems.append(kept)
    if report.problems or record.unsent is not None:
        report.verdict = Verdict.FAILED
        report.stderr_tail = process.log.last(STDERR_SHOWN)
    return report


def _first_difference(reused: MatchRecord, fresh: MatchRecord) -> Problem | None:
    """Where the checked seat's replies in a reused process first differ from a fresh one's."""
    for at, (one, other) in enumerate(zip(reused.transcript, fresh.transcript, strict=False)):
        if one.seat != CHECKED_SEAT or one.message != other.message:
            continue
        if shown(one.reply) != shown(other.reply):
            return Problem(
                "kept-state",
                f"in the same process after a first match it answered {shown(one.reply)}, a fresh "
                f"process {shown(other.reply)}: something was kept from the first match (the hand, "
                "a random generator, the memory of asks); start afresh at every `init`",
                str(one.message["type"]),
                at,
                shown(one.reply),
            )
    return None


def _play_checked(
    process: SubprocessParticipant,
    scenario: Scenario,
    limits: LimitsSection,
    report: ScenarioReport,
    *,
    reuse: bool = False,
) -> MatchRecord:
    """One match of `process` on the scenario's seat against in-process random bots (the
    built-in random bot, seeded by its own hand), every reply judged: the problems the transport
    saw as they came, then the rules' (`rule_problems`) among them in message order."""
    setup = scenario.setup
    clocks = [SeatClock.of(limits) for _ in setup.names]
    numbering = _Numbering()
    checked = _Checked(process, scenario, clocks[scenario.seat], report, numbering)
    seats: list[Participant] = [InProcessParticipant(BOTS["random"]().handle) for _ in setup.names]
    seats[scenario.seat] = checked
    before = len(report.problems)
    record = play_match(
        setup,
        seats,
        limits,
        clocks=clocks,
        observer=numbering,
        should_stop=lambda: checked.gone_before_the_end,
        close_grace=EXIT_GRACE,
        reuse=reuse,
    )
    # This match's problems: a stable sort keeps the transport's first at the same message.
    this_match = [*report.problems[before:], *rule_problems(record, scenario.seat)]
    report.problems[before:] = sorted(this_match, key=lambda problem: problem.at)
    return record


def run_scenario(
    scenario: Scenario,
    command: Sequence[str],
    cwd: Path,
    limits: LimitsSection,
    sandbox: Confinement = "none",
    read_only: Sequence[str] = (),
) -> ScenarioReport:
    """Play one scenario with a new process on its seat (the match loop stops and reaps it)."""
    report = ScenarioReport(scenario.name, scenario.about)
    setup = scenario.setup
    env = participant_env(scenario.seat, setup.names[scenario.seat], {})
    process = SubprocessParticipant(command, cwd, env, sandbox=sandbox, read_only=read_only)
    record = _play_checked(process, scenario, limits, report)
    _name_the_silence(report, record, scenario.seat, (command, cwd, env, sandbox, read_only))
    if process.start_fault is not None:
        report.problems.append(Problem("start-failed", process.start_fault.detail, "init", 0))
    if record.unsent is not None:
        report.outcome = STOPPED
    else:
        report.outcome = str(record.result.outcome)
        _note_exit(process, report)
        if report.outcome == "stalled":
            report.note = stalled_note(setup.rules, len(setup.names))
    if report.problems and any(p.kind in ("crashed", "exited", "timeout") for p in report.problems):
        report.stderr_tail = process.log.last(STDERR_SHOWN)
    if sandbox == "bwrap" and (report.problems or report.warnings):
        jail = Jail.of(command, cwd, env, read_only=read_only)
        held = None if jail is None else jail.readable
        report.hints = sandbox_hints(process.log.text(), held, cwd)
    if report.problems or report.outcome == STOPPED:
        report.verdict = Verdict.FAILED
    return report


def _name_the_silence(
    report: ScenarioReport,
    record: MatchRecord,
    seat: int,
    started: tuple[Sequence[str], Path, dict[str, str], Confinement, Sequence[str]],
) -> None:
    """The first timeout's cause, in place of the transport's guesses, where it can be seen:
    from the transcript (an informational message left unanswered), or by starting the
    program again (`arena.referee.silence`: held in a buffer, or read to the end of its input)."""
    timeout = next((p for p in report.problems if p.kind == str(FaultKind.TIMEOUT)), None)
    if timeout is None or timeout.reply is not None:  # (a line without its newline: said)
        return
    answered = sum(
        came_back(exchange.answer)
        for exchange in record.transcript[: timeout.at]
        if exchange.seat == seat
    )
    cause = silence.informational(timeout.message_type, answered)
    if cause is None and answered == 0 and timeout.at < len(record.transcript):
        command, cwd, env, sandbox, read_only = started
        cause = silence.at_the_start(
            command,
            cwd,
            env,
            record.transcript[timeout.at].message,
            {"type": "starting-hand", "hand": [new_pack(1, knights=False)[0]]},
            sandbox=sandbox,
            read_only=read_only,
        )
    if cause is not None:
        waited = timeout.why.split(";")[0]  # "no reply line within 2 s"
        why = f"{waited}, and it was stopped (still running): {cause}"
        report.problems[report.problems.index(timeout)] = replace(timeout, why=why)


class _Numbering(Unobserved):
    """The number of the message being delivered, from 0 across seats: the transcript index."""

    def __init__(self) -> None:
        self.index = 0

    def sending(self, index: int, seat: int, message: Message) -> None:
        self.index = index


class _Checked(Wrapped):
    """The checked program's seat: every answer judged, and the unknown message slipped in."""

    def __init__(
        self,
        inner: SubprocessParticipant,
        scenario: Scenario,
        clock: SeatClock,
        report: ScenarioReport,
        numbering: _Numbering,
    ) -> None:
        super().__init__(inner)
        self.numbering = numbering
        self.scenario = scenario
        self.clock = clock
        self.report = report
        self.spawned = time.monotonic()
        self.ended = False  # it was sent `match-end`: its match is over, whatever it does now

    @property
    def gone_before_the_end(self) -> bool:
        """Whether the program ended or was stopped while its match still had messages for it
        (one that exits at `match-end` without a reply still played the whole match)."""
        return not self.alive and not self.ended

    def start(self) -> None:
        self.spawned = time.monotonic()
        super().start()

    def exchange(self, line: bytes, timeout: float) -> Answer:
        message = orjson.loads(line)
        self.ended = self.ended or message["type"] == "match-end"
        answer = super().exchange(line, timeout)
        self._judge(message, answer)
        if self.scenario.unknown_message and message["type"] == "starting-hand" and self.alive:
            extra = self.clock.allowed(UNKNOWN_MESSAGE["type"])
            unknown = super().exchange(
                orjson.dumps(UNKNOWN_MESSAGE, option=orjson.OPT_APPEND_NEWLINE), extra
            )
            if unknown.delivered:
                self.clock.charge(UNKNOWN_MESSAGE["type"], unknown.seconds)
            self._judge(UNKNOWN_MESSAGE, unknown)
        return answer

    def _judge(self, message: dict[str, Any], answer: Answer) -> None:
        report = self.report
        kind = message["type"]
        report.messages += 1
        if came_back(answer):  # a line came back, even one not JSON: it has started and answers
            if kind == "init":
                report.startup = time.monotonic() - self.spawned
            else:
                report.latencies.append(answer.seconds)
        if quit_at_match_end(kind, answer.fault):  # it played the whole match: a warning only
            if QUIT_AT_MATCH_END not in report.warnings:
                report.warnings.append(QUIT_AT_MATCH_END)
            answer = answer._replace(fault=None)
        problems = answer_problems(message, answer, self.numbering.index)
        report.problems.extend(replace(problem, notes=answer.notes) for problem in problems)


def _note_exit(participant: SubprocessParticipant, report: ScenarioReport) -> None:
    """After the match (stdin closed, a grace to exit, the whole group stopped, as `arena run`
    does): note a program that lingered or exited with an error."""
    if participant.proc is None:
        return
    code = participant.exit_code
    if not participant.ended_by_itself:
        report.warnings.append(
            f"still running {EXIT_GRACE:g} s after its stdin was closed (killed)"
        )
    elif code:
        tail = participant.log.last(200).strip().splitlines()
        last = f": {tail[-1]}" if tail else ""
        report.warnings.append(f"exited with status {code} after its stdin was closed{last}")


# -- the report ----------------------------------------------------------------------------
