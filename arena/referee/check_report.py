"""A check's report in words: `render` (rich tables and lines, which `arena check` prints) and
`as_text` (the same as plain text: what the league keeps for a submission's owner).

    for part in check_report.render(check.run_checks(command, cwd, limits, confinement)):
        console.print(part)
"""

from __future__ import annotations

from collections import Counter
from typing import Final

from rich.console import Group, RenderableType
from rich.table import Table
from rich.text import Text

from arena.base.terminal import inert
from arena.base.words import seconds_text
from arena.referee.check import (
    SLOW_STARTUP,
    STDERR_LINES,
    STOPPED,
    CheckReport,
    Problem,
    ScenarioReport,
    Verdict,
)
from arena.referee.hints import stderr_tail
from arena.referee.loop import ReplyTimes
from arena.seats.replies import FaultKind


def _ms(seconds: float | None) -> str:
    return "-" if seconds is None else seconds_text(seconds)


_VERDICT_STYLE: Final = {
    Verdict.PASSED: "green",
    Verdict.FAILED: "bold red",
    Verdict.SKIPPED: "yellow",
}


def render(report: CheckReport) -> list[RenderableType]:
    """The report as rich renderables, to be printed in order."""
    confined = (
        "in the sandbox (bwrap), as `arena run` runs it"
        if report.sandbox == "bwrap"
        else "unsandboxed"
    )
    if report.sandbox == "bwrap" and report.read_only:
        confined += "; it may also read " + ", ".join(report.read_only)
    parts: list[RenderableType] = [
        Text("arena check: ")
        .append_text(inert(" ".join(report.command), 200))
        .append(f"  ({confined})")
    ]
    checks = Table(title="checks", title_justify="left")
    for column in ("check", "result", "messages", "median reply", "max reply", "what happened"):
        checks.add_column(
            column,
            justify="right" if column in ("messages", "median reply", "max reply") else "left",
        )
    for scenario in report.scenarios:
        times = ReplyTimes.of(scenario.latencies, report.reply_limit)
        if scenario.verdict is Verdict.SKIPPED:
            happened = Text(f"not run: {scenario.outcome}")
        elif scenario.outcome == STOPPED:
            happened = Text(f"{scenario.about}\nstopped early: {_why_stopped(scenario)}")
        else:
            happened = Text(f"{scenario.about}\noutcome: {scenario.outcome}")
        if scenario.note:
            happened.append(f"\n{scenario.note}", style="yellow")
        if scenario.problems:
            count = len(scenario.problems)
            happened.append(f"\n{count} invalid repl{'y' if count == 1 else 'ies'}", style="red")
        for warning in scenario.warnings:
            happened.append("\nwarning: ", style="yellow").append_text(inert(warning, 400))
        checks.add_row(
            scenario.name,
            Text(str(scenario.verdict), style=_VERDICT_STYLE[scenario.verdict]),
            str(scenario.messages),
            _ms(None if times is None else times.median),
            _ms(None if times is None else times.slowest),
            happened,
        )
    parts.append(checks)
    times = report.reply_times
    replies = 0 if times is None else times.replies
    slowest = (
        "-"
        if times is None
        else f"{_ms(times.slowest)} ({100 * times.limit_share:.0f}% of the "
        f"{report.reply_limit:g} s reply limit)"
    )
    started = report.startup
    share = None if started is None or not report.startup_limit else started / report.startup_limit
    startup = _ms(started) + (
        "" if share is None else f" ({100 * share:.0f}% of the {report.startup_limit:g} s limit)"
    )
    parts.append(
        Text(
            f"start-up (spawn to init reply): {startup}   "
            f"reply latency: median {_ms(None if times is None else times.median)}, slowest "
            f"{slowest} over {replies} repl{'y' if replies == 1 else 'ies'}"
        )
    )
    if share is not None and share > SLOW_STARTUP:
        parts.append(
            Text("warning: ", style="bold yellow").append(
                f"the start-up took {100 * share:.0f}% of its limit: on a busier machine (a "
                "tournament's, several matches at once) it may time out at init. Load less before "
                "replying to init, or build with optimisations (a Rust debug build, target/debug, is many "
                "times slower than `cargo build --release`; C: -O2)"
            )
        )
    problems = _problem_table(report)
    if problems is not None:
        parts.append(problems)
    for scenario in report.scenarios:
        if scenario.stderr_tail.strip():
            parts.append(
                Group(
                    Text(f"stderr of the program, last lines ({scenario.name}):", style="bold"),
                    inert_block("\n".join(stderr_tail(scenario.stderr_tail, STDERR_LINES))),
                )
            )
    for hint in dict.fromkeys(hint for scenario in report.scenarios for hint in scenario.hints):
        parts.append(Text("in the sandbox: ", style="bold yellow").append(hint))
    failed = [s for s in report.scenarios if s.verdict is Verdict.FAILED]
    skipped = [s for s in report.scenarios if s.verdict is Verdict.SKIPPED]
    if failed or skipped:
        not_run = f", {len(skipped)} not run after it" if skipped else ""
        parts.append(
            Text(
                f"FAIL: {len(failed)} of {len(report.scenarios)} checks failed{not_run}; "
                "the arena would count each invalid reply above against this participant",
                style="bold red",
            )
        )
    else:
        parts.append(Text(f"PASS: all {len(report.scenarios)} checks passed", style="bold green"))
    return parts


def _why_stopped(scenario: ScenarioReport) -> str:
    """How a scenario's program came to be gone before its match ended, as its problems say:
    never that it ended when the arena stopped it."""
    kinds = [problem.kind for problem in scenario.problems]
    if "start-failed" in kinds:
        return "the program could not start (see below)"
    if str(FaultKind.TIMEOUT) in kinds:
        return "the arena stopped the program after its timeout; it had not ended (see below)"
    if "crashed" in kinds or "exited" in kinds:
        return "the program ended before the match did (see below)"
    return "the program ended or was stopped (see below)"


def _problem_table(report: CheckReport) -> Table | None:
    """Invalid replies, one row per kind with the first example and a count; the same fault (its
    kind, at the same type of message) in several checks is one row naming them all."""
    grouped: dict[tuple[str, str], tuple[list[str], Problem, int]] = {}
    for scenario in report.scenarios:
        counts = Counter(problem.kind for problem in scenario.problems)
        seen: set[str] = set()
        for problem in scenario.problems:
            if problem.kind not in seen:
                seen.add(problem.kind)
                key = (problem.kind, problem.message_type)
                checks, first, count = grouped.get(key, ([], problem, 0))
                grouped[key] = ([*checks, scenario.name], first, count + counts[problem.kind])
    everyone = len(report.scenarios)
    rows = [
        (f"all {everyone} checks" if len(checks) == everyone > 1 else ", ".join(checks), p, n)
        for checks, p, n in grouped.values()
    ]
    if not rows:
        return None
    table = Table(title="invalid replies (first of each kind)", title_justify="left")
    # Names are never cut (one would read as another); a long reply wraps rather than vanish.
    widest = max(len(problem.kind) for _, problem, _ in rows)
    table.add_column("check")
    table.add_column("message", no_wrap=True)
    table.add_column("problem", min_width=widest, no_wrap=True)
    table.add_column("reply", overflow="fold")
    table.add_column("why")
    table.add_column("times", justify="right")
    noted = any(problem.notes for _, problem, _ in rows)
    if noted:
        table.add_column("its notes (stderr meanwhile)", overflow="fold")
    for name, problem, count in rows:
        cells: list[str | Text] = [
            name,
            f"#{problem.at} {problem.message_type}",
            problem.kind,
            inert(problem.reply, 60) if problem.reply is not None else Text("-"),
            inert(problem.why, 400),
            str(count),
        ]
        if noted:
            cells.append(inert(problem.notes.strip(), 200) if problem.notes else Text("-"))
        table.add_row(*cells)
    return table


def inert_block(text: str) -> Text:
    """Untrusted multi-line text (a stderr tail), each line made inert."""
    lines = text.rstrip("\n").splitlines()[-15:]
    block = Text()
    for number, line in enumerate(lines):
        if number:
            block.append("\n")
        block.append_text(inert(line, 200))
    return block


TEXT_WIDTH: Final = 88  # columns of the plain-text report the league keeps


def as_text(report: CheckReport) -> str:
    """The report as `arena check` prints it, in plain text (no colour) at `TEXT_WIDTH` columns."""
    import io

    from rich.console import Console

    console = Console(file=io.StringIO(), width=TEXT_WIDTH, color_system=None, record=True)
    for part in render(report):
        console.print(part)
    return console.export_text()
