"""`arena run CONFIG`: the matches of a config played, with the live view a terminal gets (a
progress bar and the live standings), a plain line now and then in a log, and the standings,
faults and replays' folder at the end. `arena sprt` is this run on the config it builds
(`run_loaded`).

    arena run config.toml --games 1000 -j 8
"""

import shlex
import time
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from arena.base import shutdown
from arena.base.errors import ConfigError
from arena.engine.settings import GAMES_LIMIT, SEED_LIMIT
from arena.ui.options import JOBS_LIMIT, NewRun, Quiet, in_range
from arena.ui.say import count, err, fail, out, relative, user_errors, widen_when_piped

# Start-up: imported by `arena --help`; the rooms below are imported by the functions that
# use them (bench/startup.py measures it).
if TYPE_CHECKING:
    from arena.base.config import Config, Entrant
    from arena.tournaments.cluster import Cluster
    from arena.tournaments.executors import MatchExecutor
    from arena.tournaments.runner import MatchPlayed
    from arena.tournaments.standings import Standings
    from arena.tournaments.tournament import RunReport, Tournament
    from arena.ui.seat_faults import FirstStops


def run(
    ctx: typer.Context,
    config: Annotated[Path, typer.Argument(metavar="CONFIG", help="The config.toml to run.")],
    seed: Annotated[
        int | None,
        typer.Option(metavar="N", help="Seed of the first match (overrides the config)."),
    ] = None,
    games: Annotated[
        int | None, typer.Option(metavar="N", help="Number of matches (overrides the config).")
    ] = None,
    jobs: Annotated[
        int | None,
        typer.Option(
            "--jobs",
            "-j",
            metavar="N",
            help="Matches played at once, each in a worker process [default: the number of cores].",
        ),
    ] = None,
    resume: Annotated[
        bool,
        typer.Option(
            "--resume",
            help="Continue the last run of this tournament: play only its missing matches.",
        ),
    ] = False,
    new_run: NewRun = False,
    quiet: Quiet = False,
    scheduler: Annotated[
        str | None,
        typer.Option(
            "--scheduler",
            metavar="tcp://HOST:PORT",
            help="Play the matches on the Dask cluster at this address (overrides the config's tournament.scheduler; needs gofish-arena[dask]; see docs/cluster.md).",
        ),
    ] = None,
) -> None:
    """Play the matches of CONFIG and write one replay per match, results.jsonl and standings."""
    from arena.base import config as config_module
    from arena.seats import sandbox

    in_range("--seed", seed, 0, SEED_LIMIT - 1)
    in_range("--games", games, 1, GAMES_LIMIT)
    in_range("--jobs", jobs, 1, JOBS_LIMIT)
    sandbox.probe_soon()  # whether bwrap works here, found while the config is read

    with user_errors():
        settings, seats = config_module.load(config, seed=seed, matches=games)
    run_loaded(
        ctx,
        config,
        settings,
        seats,
        jobs=jobs,
        resume=resume,
        new_run=new_run,
        quiet=quiet,
        scheduler=scheduler,
        again=lambda extra: (
            _command(
                config, {"--seed": seed, "--games": games, "--jobs": jobs, "--scheduler": scheduler}
            )
            + extra
        ),
    )


def _command(config: Path, options: dict[str, object]) -> str:
    """`arena run CONFIG` with the options given (those not None), quoted for a shell."""
    words = ["arena", "run", str(config)]
    for option, value in options.items():
        if value is not None:
            words += [option, str(value)]
    return shlex.join(words)


def _say_stopped(line: str, quiet: bool) -> None:
    """The stop line: on stdout with the rest, or on stderr if stdout is not taking output."""
    from rich.text import Text

    if quiet or shutdown.stdout_lost() is not None:
        err.print(Text(line), soft_wrap=True)
    else:
        out.print(Text(line))


def _check_stdout(config: Path) -> None:
    """Exit 1 if stdout stopped taking output other than by its reader leaving (`| head`)."""
    lost = shutdown.stdout_lost()
    if lost is not None and lost != "closed":
        fail(
            f"cannot write to stdout: {lost}; every match is recorded in the replays folder of {config}",
            1,
        )


def _print_game(played: "MatchPlayed", replay: Path, cwd: Path) -> None:
    from rich.text import Text

    from arena.base.terminal import inert
    from arena.base.words import ordinal

    result = played.line
    line = Text(f"game {played.match}  seed {result.match_seed}  {result.outcome}  ")
    for seat, name in enumerate(played.names):
        line.append_text(inert(name, 24))
        faults = sum(result.faults[seat].values())
        line.append(
            f" {count(result.scores[seat], 'book')} ({ordinal(result.places[seat])}"
            + (f", {count(faults, 'fault')}" if faults else "")
            + ")"
        )
        if seat < len(played.names) - 1:
            line.append("  ")
    out.print(line)
    out.print(Text(f"  replay: {relative(replay, cwd)}", style="dim"))
    if played.faults:
        from arena.ui import seat_faults

        for note in seat_faults.notes(played, replay, lambda path: relative(path, cwd)):
            out.print(note)


def _prepared(
    ctx: typer.Context,
    config: Path,
    settings: "Config",
    seats: "list[Entrant]",
    *,
    jobs: int | None,
    resume: bool,
    new_run: bool = False,
    replace_standings: bool = False,
    scheduler: str | None,
) -> "tuple[Tournament, Cluster | None]":
    """The run's plan (its replays folder locked) and its Dask cluster, if any; exit 2 for a
    bad option or a folder another run is writing. Nothing is written before the checks."""
    from arena.base import config as config_module
    from arena.seats import fingerprint
    from arena.tournaments import tournament

    # Warnings wait until the run is sure to start: nothing is printed before an error.
    warnings = [
        f"warning: {config}: {warning}" for warning in config_module.rule_warnings(settings)
    ]
    with user_errors(arena=None):
        # Matches on a Dask cluster; an empty --scheduler is a mistake, not "play here".
        address = settings.tournament.scheduler if scheduler is None else scheduler
        if address is not None and not address.strip():
            raise ConfigError(
                "--scheduler: an empty address; give tcp://HOST:PORT, or leave it out to play here"
            )
        if address is not None and jobs is not None:
            raise ConfigError(
                "--jobs and --scheduler: give one (a cluster plays as many matches at once as it has worker threads)"
            )
        settings, no_sandbox = _decide_sandbox(config, settings)
    # Matches on a Dask cluster (arena/tournaments/cluster.py, docs/cluster.md).
    cluster = _open_cluster(ctx, address, settings, seats) if address is not None else None
    with user_errors():
        plan = tournament.prepare(
            config,
            settings,
            seats,
            resume=resume,
            new_run=new_run,
            replace_standings=replace_standings,
            fingerprints=fingerprint.of_all(seats),
        )
    for warning in [*warnings, *([no_sandbox] if no_sandbox is not None else [])]:
        err.print(warning, markup=False, highlight=False, soft_wrap=True)
    if plan.replaces is not None:
        err.print(
            f"note: {plan.folder}: this test's standings replace those of the earlier one "
            f"(tournament {plan.replaces}); its replays and results lines stay",
            markup=False,
            soft_wrap=True,
        )
    _warn_skipped(plan)
    return plan, cluster


def run_loaded(
    ctx: typer.Context,
    config: Path,
    settings: "Config",
    seats: "list[Entrant]",
    *,
    jobs: int | None,
    resume: bool,
    quiet: bool,
    scheduler: str | None,
    again: Callable[[str], str],
    new_run: bool = False,
    replace_standings: bool = False,
    finished: "Callable[[Tournament, bool], None] | None" = None,
) -> None:
    """`arena run` once its config is loaded (`arena sprt` builds one from its options).

    `finished(plan, stopped)` is called once the run ends, before a stopped run exits.
    With `--quiet` nothing of rich is imported (its live view: only at a terminal).
    """
    from arena.seats import programs
    from arena.tournaments.executors import default_jobs, make_executor

    seats = programs.hide_rivals(seats)  # before fingerprints: what each seat's sandbox shows
    plan, cluster = _prepared(
        ctx,
        config,
        settings,
        seats,
        jobs=jobs,
        resume=resume,
        new_run=new_run,
        replace_standings=replace_standings,
        scheduler=scheduler,
    )
    shutdown.install_graceful()  # SIGINT, SIGTERM, SIGHUP: stop the matches, keep every finished one
    missing = plan.matches - len(plan.done)
    workers = max(1, min(jobs or default_jobs(), missing))
    executor: Callable[[], MatchExecutor] = lambda: make_executor(workers)
    if cluster is not None:
        workers, executor = max(1, min(cluster.slots, missing)), cluster.executor
    cwd = Path.cwd()
    hint = again((f" --seed {plan.seed}" if plan.seed_drawn else "") + " --resume")
    if plan.matches == 1:
        _run_single(plan, cwd, quiet, executor if cluster is not None else None, hint, finished)
        _check_stdout(config)
        return
    if not quiet:
        widen_when_piped()
    if not quiet:
        _print_header(plan, workers, missing)
        if cluster is not None:
            from rich.text import Text

            out.print(
                Text(
                    f"  on the Dask cluster at {cluster.address}: {len(cluster.workers)} workers checked, "
                    f"{cluster.slots} threads",
                    style="dim",
                )
            )
    elif plan.seed_drawn:
        err.print(f"seed {plan.seed} (drawn)")
    from arena.ui.report import LiveReport  # report.html beside standings.json

    if not quiet:
        from arena.ui.seat_faults import FirstStops

    page = LiveReport(plan)
    stops = None if quiet else FirstStops(plan.folder)  # told after the standings

    def recorded(played: "MatchPlayed") -> None:
        page.played(played.line, played.document)
        if stops is not None:
            stops.add(played)

    with user_errors():
        report = _run_with_progress(plan, workers, quiet, executor, recorded)
        standings = plan.standings()  # once, for the file and the terminal
        path = plan.write_standings(standings)
        page.finish()
    if not quiet:
        _print_standings(plan, standings, report, path, cwd, stops)
    if finished is not None:
        finished(plan, report.interrupted)
    if report.interrupted:
        _say_stopped(
            f"interrupted: {len(plan.done)} of {plan.matches} matches played; `{hint}` plays the rest",
            quiet,
        )
        raise typer.Exit(shutdown.exit_status())
    _check_stdout(config)


def _run_single(
    plan: "Tournament",
    cwd: Path,
    quiet: bool,
    executor: "Callable[[], MatchExecutor] | None",
    again: str,
    finished: "Callable[[Tournament, bool], None] | None",
) -> None:
    """One match: today's output, a game line and the replay's path."""
    from arena.tournaments import tournament
    from arena.tournaments.executors import InlineExecutor

    shown: list[tuple[MatchPlayed, Path]] = []
    with user_errors():
        report = tournament.run(
            plan,
            executor or InlineExecutor,
            window=1,
            on_played=lambda played: shown.append((played, plan.folder / played.line.replay)),
        )
    for played, path in shown:
        if not quiet:
            _print_game(played, path, cwd)
    if finished is not None:
        finished(plan, report.interrupted)
    if report.interrupted:
        where = (
            "; replay: " + relative(report.interrupted_replays[0], cwd)
            if report.interrupted_replays
            else ""
        )
        _say_stopped(
            f"interrupted: the match in progress was stopped{where}; `{again}` plays it again",
            quiet,
        )
        raise typer.Exit(shutdown.exit_status())


def _decide_sandbox(path: Path, settings: "Config") -> "tuple[Config, str | None]":
    """`[limits] sandbox` decided once for the whole run (every worker, every match), and the
    warning line to print when `auto` finds no sandbox (once the run is sure to start).

    Raises ConfigError when `bwrap` is required and does not work.
    """
    from arena.seats import sandbox

    try:
        mode, warning = sandbox.decide(settings.limits.sandbox)
    except ConfigError as error:
        raise ConfigError(f"{path}: {error}") from None
    return settings.model_copy(
        update={"limits": settings.limits.model_copy(update={"sandbox": mode})}
    ), warning


def _open_cluster(ctx: typer.Context, address: str, settings: Any, seats: Any) -> "Cluster":
    """Connect to and check the cluster, closed with the command. Exit 2 if it cannot run."""
    from arena.tournaments.cluster import ClusterError, open_cluster

    with user_errors(usage=(ClusterError,), arena=None):
        cluster: Cluster = ctx.with_resource(
            open_cluster(
                address,
                seats,
                in_process_bots=settings.tournament.in_process_bots,
                sandbox=settings.limits.sandbox,
            )
        )
    return cluster


def _warn_skipped(plan: "Tournament") -> None:
    """Results lines read back but not believed: one line, so nobody wonders why they replay."""
    from arena.base.terminal import inert

    if plan.skipped:
        more = f" (and {len(plan.skipped) - 1} more)" if len(plan.skipped) > 1 else ""
        text = f"warning: {plan.results_path}: {len(plan.skipped)} results line(s) not believed, their matches play again: {plan.skipped[0]}{more}"
        err.print(inert(text, 2000), soft_wrap=True)


def _print_header(plan: "Tournament", workers: int, missing: int) -> None:
    from rich.text import Text

    schedule = plan.schedule
    seed_note = " (drawn: pass --seed to play it again)" if plan.seed_drawn else ""
    if plan.config.tournament.title is not None:
        out.print(Text(plan.config.tournament.title))
    out.print(Text(f"tournament {plan.id}  seed {plan.seed}{seed_note}"))
    duplicate = "duplicate deals" if schedule.duplicate else "a fresh deal per match"
    out.print(
        Text(
            (
                f"  up to {plan.matches} matches (the cap: the test stops at its decision)"
                if plan.candidate is not None and plan.candidate.sprt is not None
                else f"  {plan.matches} matches"
            )
            + f" of {schedule.seats} seats over {schedule.seatings} seatings, "
            f"{duplicate}, {workers} {'job' if workers == 1 else 'jobs'}",
            style="dim",
        )
    )
    if plan.resumed:
        out.print(
            Text(
                f"  resuming run {plan.run}: {plan.matches - missing} of {plan.matches} already played",
                style="dim",
            )
        )


PLAIN_PROGRESS_SECONDS = 10.0  # how often a log is told how far a run is


def _plain_progress(
    plan: "Tournament", recorded: "Callable[[MatchPlayed], None]"
) -> "Callable[[MatchPlayed], None]":
    """`recorded`, and a line "played N of M matches (…/s)" at most every 10 s, and at the last
    match: the progress a log shows where no live view can be drawn."""
    start, total = time.monotonic(), plan.matches
    done = [len(plan.done), len(plan.done)]  # now, at the start
    last = [start]

    def on_played(played: "MatchPlayed") -> None:
        recorded(played)
        done[0] += 1
        now = time.monotonic()
        if now - last[0] >= PLAIN_PROGRESS_SECONDS or done[0] == total:
            last[0] = now
            rate = (done[0] - done[1]) / max(now - start, 1e-9)
            test = plan.candidate if plan.candidate is not None and plan.candidate.sprt else None
            if test is not None:  # a sequential test: towards its decision, not the cap
                from arena.ui import sprt_view

                note = sprt_view.progress_note(test)
                out.print(f"played {done[0]} matches ({rate:.1f}/s): {note}", markup=False)
            else:
                out.print(f"played {done[0]} of {total} matches ({rate:.1f}/s)", markup=False)
            out.file.flush()

    return on_played


def _run_with_progress(
    plan: "Tournament",
    workers: int,
    quiet: bool,
    executor: "Callable[[], MatchExecutor]",
    recorded: "Callable[[MatchPlayed], None]",
) -> "RunReport":
    from arena.tournaments import tournament

    window = 1 if workers == 1 else 2 * workers
    if quiet:
        return tournament.run(plan, executor, window=window, on_played=recorded)
    if not out.is_terminal:  # a log (nohup, CI): a plain line now and then, not a live view
        return tournament.run(
            plan, executor, window=window, on_played=_plain_progress(plan, recorded)
        )
    from rich.console import Group
    from rich.live import Live

    from arena.ui import sprt_view
    from arena.ui.tournament_view import progress_bar, standings_table

    standings = plan.standings()
    progress = progress_bar()
    done = len(plan.done)
    test = (
        plan.candidate if plan.candidate is not None and plan.candidate.sprt is not None else None
    )  # a gauntlet with a [sprt] table
    # A sequential test stops at its decision: its progress counts towards that (the LLR, and
    # about how many groups more), not towards the cap, which is only a ceiling.
    task = progress.add_task(
        "playing",
        total=None if test is not None else plan.matches,
        completed=done,
        start=True,
        start_count=done,
    )
    shown, pause = [0.0], [0.5]

    def view() -> Group:
        return Group(
            progress, standings_table(standings, title="live standings", limit=10, live=True)
        )

    with Live(view(), console=out.console, refresh_per_second=4, transient=True) as live:

        def on_played(played: "MatchPlayed") -> None:
            recorded(played)
            standings.add(played.line)
            progress.advance(task)
            if test is not None:  # the LLR and its bounds on the progress line
                progress.update(task, description=sprt_view.progress_note(test))
            now = time.monotonic()
            if now - shown[0] > pause[0]:
                shown[0] = now
                live.update(view())  # a fit of every match so far: a large one is redrawn
                pause[0] = max(0.5, 10 * (time.monotonic() - now))  # less often (10 % at most)

        return tournament.run(plan, executor, window=window, on_played=on_played)


def _print_standings(
    plan: "Tournament",
    standings: "Standings",
    report: "RunReport",
    path: Path,
    cwd: Path,
    stops: "FirstStops | None" = None,
) -> None:
    from rich.text import Text

    from arena.ui.tournament_view import (
        adjudicated_note,
        faults_table,
        pairwise_table,
        reply_times_table,
        standings_table,
    )

    rate = report.played / report.seconds if report.seconds > 0 else 0.0
    title = f"standings after {standings.matches} of {plan.matches} matches"
    if plan.config.tournament.title is not None:
        out.print(Text(plan.config.tournament.title))
    out.print(standings_table(standings, title=title))
    from arena.engine.match import Outcome

    stalled = any(line.outcome is Outcome.STALLED for line in plan.done.values())
    rules = plan.config.engine_rules if stalled else None  # (only a stall has a note)
    limits = plan.config.limits
    note = adjudicated_note(standings, rules, plan.config.seats_per_match, limits.max_idle_turns)
    if note is not None:
        out.print(note)
    for table in (pairwise_table(standings), faults_table(standings), reply_times_table(standings)):
        if table is not None:
            out.print(table)
    if plan.candidate is not None:  # a gauntlet: the candidate and its test
        _print_candidate(plan, standings, report)
    retried = f", {report.retries} retried after a worker died" if report.retries else ""
    out.print(
        Text(
            f"{report.played} matches played in {report.seconds:.1f} s ({rate:.1f}/s){retried}",
            style="dim",
        )
    )
    out.print(
        Text(
            f"replays and {plan.results_path.name} in {relative(plan.folder, cwd)}; "
            f"standings: {relative(path, cwd)}; report: {relative(path.parent / 'report.html', cwd)}",
            style="dim",
        )
    )
    for note in stops.notes(lambda where: relative(where, cwd)) if stops is not None else ():
        out.print(note)


def _print_candidate(plan: "Tournament", standings: Any, report: "RunReport") -> None:
    from arena.ui import sprt_view

    test = plan.candidate
    assert test is not None
    out.print(sprt_view.candidate_table(standings, test))
    opponents = [seat.name for seat in plan.seats if seat.name != test.name]
    for line in sprt_view.verdict(
        test, opponents, cap=plan.matches, interrupted=report.interrupted
    ):
        out.print(line)
