"""The `arena` command line: it prints what every command says, but the screen `arena play`
draws (`arena.ui.play`) and `arena league`'s lines (`arena.ui.league_command`).

Exit status: 0 when the matches were played (whatever the participants did), 2 for a bad
config or usage, 1 for a failure of the arena itself (e.g. a replay it could not write, or a
stdout that could not take the output), 128 + the signal when stopped by one (130 for Ctrl-C,
143 for SIGTERM, 129 for SIGHUP; see `arena.base.shutdown` and docs/stopping.md).
"""

import math
import os
import shlex
import sys
import time
import typing
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, NoReturn, TypeVar

import typer

from arena.base import shutdown
from arena.base.errors import ArenaError, ConfigError, ReplayError
from arena.engine.settings import (
    GAMES_LIMIT,
    NAME_LENGTH,
    SEED_LIMIT,
    Limits,
    SandboxMode,
    SprtSettings,
    declared,
)

# Start-up: `arena --help` imports typer and nothing else of weight. Rich, pydantic, orjson and
# the rooms below are imported by the commands that use them (bench/startup.py measures it).
if TYPE_CHECKING:
    from rich.console import Console
    from typer._click.core import Context as ClickContext

    from arena.base.config import Config, Seat
    from arena.tournaments.cluster import Cluster
    from arena.tournaments.executors import MatchExecutor
    from arena.tournaments.runner import MatchPlayed
    from arena.tournaments.standings import Standings
    from arena.tournaments.tournament import RunReport, Tournament
    from arena.ui.seat_faults import FirstStops


class _Interrupted(Exception):
    """A KeyboardInterrupt (Ctrl-C, or SIGTERM or SIGHUP standing for it) out of a command,
    carried past typer to `main`: typer would make it a silent exit 130, even for SIGTERM."""


class _ArenaGroup(typer.core.TyperGroup):
    def invoke(self, ctx: "ClickContext") -> Any:
        try:
            return super().invoke(ctx)
        except KeyboardInterrupt:
            raise _Interrupted from None


app = typer.Typer(
    cls=_ArenaGroup,
    add_completion=False,
    # Plain help: rich markup would eat `[dask]` and `[default: …]` from the text, and loading
    # rich for it costs more than the rest of `arena --help`.
    rich_markup_mode=None,
    no_args_is_help=True,
    pretty_exceptions_enable=False,
    help="gofish-arena: run Go Fish matches between bots written in any language.",
)
replay_app = typer.Typer(
    no_args_is_help=True, rich_markup_mode=None, help="Check and look at replay files."
)
app.add_typer(replay_app, name="replay")
# `arena league …` (docs/league.md): needs the `league` extra only when it serves or submits.
from arena.ui.league_command import league_app

app.add_typer(league_app, name="league")


# What several commands take, said once.
ResultsFolder = Annotated[
    Path,
    typer.Argument(
        metavar="FOLDER", help="A tournament's replays folder (the one with results.jsonl)."
    ),
]
TournamentId = Annotated[
    str | None,
    typer.Option(
        "--tournament",
        metavar="ID",
        help="The tournament when the folder holds several [default: the last one written].",
    ),
]
Without = Annotated[
    str | None,
    typer.Option(
        "--without",
        metavar="NAME",
        help="Leave out every match NAME played, as if it had not been played (a disqualified bot).",
    ),
]
NewRun = Annotated[
    bool,
    typer.Option(
        "--new-run",
        help="Start a new run even where --resume finds a participant's program changed, or the folder holds another tournament's standings (replaced).",
    ),
]
Quiet = Annotated[bool, typer.Option("--quiet", "-q", help="No progress or tables; errors only.")]
ReplayFile = Annotated[Path, typer.Argument(metavar="FILE", help="A replay JSON file.")]
ReplyTimeout = Annotated[
    float, typer.Option(metavar="SECONDS", help="Seconds allowed for each reply.")
]
# The defaults of the options that set a config's limits are the config's (one declaration).
LIMITS = Limits()


def _print_version(asked: bool) -> None:
    if asked:
        from arena import __version__

        typer.echo(f"gofish-arena {__version__}")
        raise typer.Exit


@app.callback()
def _arena(
    version: Annotated[
        bool,
        typer.Option(
            "--version", callback=_print_version, is_eager=True, help="Print the version and exit."
        ),
    ] = False,
) -> None:
    """gofish-arena: run Go Fish matches between bots written in any language."""


class _Console:
    """A rich Console made at its first use, so that commands that print nothing rich (and
    `--help`) never import rich."""

    def __init__(self, **options: Any) -> None:
        self._options = options
        self._made: Console | None = None

    @property
    def console(self) -> "Console":
        if self._made is None:
            from rich.console import Console

            self._made = Console(**self._options)
        return self._made

    def __getattr__(self, name: str) -> Any:
        return getattr(self.console, name)


PIPED_WIDTH = 160  # columns of a table printed to a pipe or a file

# soft_wrap: a line longer than the terminal (a path, a command to copy) is never broken.
T = TypeVar("T")
out = _Console(highlight=False, soft_wrap=True)
err = _Console(stderr=True, highlight=False)


def fail(message: str, status: int) -> NoReturn:
    """One line on stderr (for grep and scripts, whatever the terminal width), then exit."""
    if status == 1:  # the arena's own failure: in red
        from arena.ui.terminal import inert

        err.print(inert(message, limit=2000), style="bold red", soft_wrap=True)
    else:  # plain: a mistake in a file or an option is told without loading rich
        _say(message, error=True)
    raise typer.Exit(status)


def renamed(old: str, new: str, value: T | None, given: T | None) -> T | None:
    """An option's value given by its old spelling (kept hidden for one release), with a
    one-line note on stderr; refused beside the new one."""
    if value is None:
        return given
    if given is not None:
        fail(f"{old} and {new}: give {new} alone ({old} is its old name)", 2)
    _say(f"note: {old} is now {new}; the old name goes in the next release", error=True)
    return value


@contextmanager
def user_errors(
    *,
    usage: tuple[type[Exception], ...] = (ConfigError,),
    told: Callable[[str], str] = str,
    arena: Callable[[str], str] | None = "arena error: {}".format,
) -> Iterator[None]:
    """An error out of the block as one line and an exit status (`fail`): one of `usage` (a
    bad config, option or file of the user's) in the words `told(message)`, exit 2; any other
    ArenaError, the arena's own failure, in the words `arena(message)`, exit 1 (`arena=None`:
    it goes on up)."""
    try:
        yield
    except usage as error:
        fail(told(str(error)), 2)
    except ArenaError as error:
        if arena is None:
            raise
        fail(arena(str(error)), 1)


def _cannot_write_schemas(folder: Path) -> Callable[[str], str]:
    def words(message: str) -> str:
        return f"cannot write schemas to {folder}: {message.removeprefix('cannot write ')}"

    return words


def _say(line: str, *, error: bool = False) -> None:
    """One plain line (a file name made printable), without loading rich: verify prints many."""
    from arena.ui.terminal import printable

    stream = sys.stderr if error else sys.stdout
    stream.write(printable(line, limit=2000) + "\n")


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


JOBS_LIMIT = 1024  # matches played at once on one machine


def _in_range(
    option: str, value: float | None, low: float, high: float, *, above: bool = False
) -> None:
    """Exit 2 with one line unless `value` (when given) is finite and within low..high
    (strictly above `low` when `above`): nan, inf and 1e9 seconds are refused, not run."""
    if value is None:
        return
    if not math.isfinite(value) or value > high or value < low or (above and value == low):
        bound = f"above {_plain(low)}" if above else f"from {_plain(low)}"
        fail(f"{option}: {value!r} is not a number {bound} to {_plain(high)}", 2)


def _in_bounds(option: str, value: float, limit: str) -> None:
    """`_in_range` with the bounds the config declares for `limits.<limit>` (`reply_timeout`)."""
    setting = next(setting for name, _, setting in declared(Limits) if name == limit)
    low = setting.gt if setting.gt is not None else setting.ge
    assert low is not None and setting.le is not None  # (a time limit has both)
    _in_range(option, value, low, setting.le, above=setting.gt is not None)


def _plain(bound: float) -> str:
    return str(int(bound)) if float(bound).is_integer() else f"{bound:g}"


def _count(number: int, noun: str) -> str:
    return f"{number} {noun}" + ("" if number == 1 else "s")


def _print_game(played: "MatchPlayed", replay: Path, cwd: Path) -> None:
    from rich.text import Text

    from arena.base.words import ordinal
    from arena.ui.terminal import inert

    result = played.line
    line = Text(f"game {played.match}  seed {result.match_seed}  {result.outcome}  ")
    for seat, name in enumerate(played.names):
        line.append_text(inert(name, 24))
        faults = sum(result.faults[seat].values())
        line.append(
            f" {_count(result.scores[seat], 'book')} ({ordinal(result.places[seat])}"
            + (f", {_count(faults, 'fault')}" if faults else "")
            + ")"
        )
        if seat < len(played.names) - 1:
            line.append("  ")
    out.print(line)
    out.print(Text(f"  replay: {_relative(replay, cwd)}", style="dim"))
    if played.faults:
        from arena.ui import seat_faults

        for note in seat_faults.notes(played, replay, lambda path: _relative(path, cwd)):
            out.print(note)


def _relative(path: Path, cwd: Path) -> str:
    try:
        return str(path.relative_to(cwd))
    except ValueError:
        return str(path)


@app.command()
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

    _in_range("--seed", seed, 0, SEED_LIMIT - 1)
    _in_range("--games", games, 1, GAMES_LIMIT)
    _in_range("--jobs", jobs, 1, JOBS_LIMIT)
    sandbox.probe_soon()  # whether bwrap works here, found while the config is read

    with user_errors():
        settings, seats = config_module.load(config, seed=seed, matches=games)
    _run_loaded(
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


def _prepared(
    ctx: typer.Context,
    config: Path,
    settings: "Config",
    seats: "list[Seat]",
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


def _run_loaded(
    ctx: typer.Context,
    config: Path,
    settings: "Config",
    seats: "list[Seat]",
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
    from arena.tournaments.executors import default_jobs, make_executor

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
    if not quiet and not out.is_terminal and "COLUMNS" not in os.environ:
        out.console.width = PIPED_WIDTH  # a file or a pipe: rich's 80 columns would cut the names
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
        page.played(played.line)
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
            "; replay: " + _relative(report.interrupted_replays[0], cwd)
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
    from arena.ui.terminal import inert

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
            f"replays and {plan.results_path.name} in {_relative(plan.folder, cwd)}; "
            f"standings: {_relative(path, cwd)}; report: {_relative(path.parent / 'report.html', cwd)}",
            style="dim",
        )
    )
    for note in stops.notes(lambda where: _relative(where, cwd)) if stops is not None else ():
        out.print(note)


@app.command()
def report(
    folder: ResultsFolder,
    output: Annotated[
        Path | None,
        typer.Option(
            "--output",
            "-o",
            metavar="OUT.html",
            help="The page to write [default: FOLDER/report.html].",
        ),
    ] = None,
    view: Annotated[
        list[int] | None,
        typer.Option(
            "--view",
            metavar="GAME",
            help="Also build the viewer page of game GAME (as `arena run` numbers them), beside its replay, and link it; repeatable.",
        ),
    ] = None,
    tournament_id: TournamentId = None,
    without: Without = None,
) -> None:
    """One self-contained page of a tournament: standings, plots, every match linked to its replay."""
    from rich.text import Text

    from arena.ui import report as report_module

    for game in view or ():
        _in_range("--view", game, 0, 10**9)  # a game number, as `arena run` numbers them (from 0)
    with user_errors():
        built = report_module.build(
            folder,
            output,
            tournament=tournament_id,
            views=view or (),
            folder_arg=str(folder),
            without=without,
        )
    for page in built.views:
        out.print(Text(f"wrote {page}"))
    if built.pages:
        out.print(
            Text(f"built the viewer pages of {built.pages} more matches beside their replays")
        )
    for why in built.unviewable[:3]:
        err.print(Text(f"no viewer page for {why}"))
    out.print(
        Text(f"wrote {built.path} ({built.matches} {'match' if built.matches == 1 else 'matches'})")
    )
    if without is not None:
        out.print(Text(_dropped(without, built.dropped)))


def _dropped(name: str, count: int) -> str:
    from arena.ui.terminal import inert

    return f"without {inert(name, 64)}: {count} {'match' if count == 1 else 'matches'} dropped"


# One switch for the luck taken out of a score, in every command that has a choice
# (docs/luck.md): `arena sprt` tests luck-adjusted points unless `--raw`; `arena standings`
# ranks by finishing order unless `--luck-adjusted`.
LuckSwitch = typer.Option(
    "--luck-adjusted/--raw",
    help="Luck-adjusted win shares, or raw match points (docs/luck.md).",
)


@app.command()
def standings(
    folder: ResultsFolder,
    json_output: Annotated[
        bool, typer.Option("--json", help="The standings as JSON (standings.json's format).")
    ] = False,
    csv_output: Annotated[
        bool, typer.Option("--csv", help="One CSV line per participant, best first.")
    ] = False,
    tournament_id: TournamentId = None,
    without: Without = None,
    luck_adjusted: Annotated[bool, LuckSwitch] = False,
) -> None:
    """The standings of a results folder (every run of its tournament, merged folders too)."""
    from arena.ui import standings_command

    if json_output and csv_output:
        fail("--json and --csv: give one", 2)
    with user_errors():
        chosen = standings_command.folder_matches(folder, tournament=tournament_id, without=without)
    table = standings_command.standings_of(chosen, adjusted=luck_adjusted)
    if not out.is_terminal and "COLUMNS" not in os.environ:
        out.console.width = PIPED_WIDTH  # a file or a pipe: rich's 80 columns would cut the cells
    if json_output:
        import orjson

        document = standings_command.as_json(chosen, table)
        sys.stdout.write(orjson.dumps(document, option=orjson.OPT_INDENT_2).decode() + "\n")
    elif csv_output:
        sys.stdout.write(standings_command.as_csv(table))
    else:
        _print_folder_standings(chosen, table)
    if without is not None and (json_output or csv_output):
        err.print(_dropped(without, chosen.dropped), markup=False, highlight=False)


def _print_folder_standings(chosen: Any, table: Any) -> None:
    from rich.text import Text

    from arena.ui.tournament_view import (
        faults_table,
        pairwise_table,
        reply_times_table,
        standings_table,
    )

    runs = len({entry.run for entry in chosen.entries})
    title = f"standings of tournament {chosen.tournament}: {table.matches} matches" + (
        f", {runs} runs merged" if runs > 1 else ""
    )
    if table.adjusted:
        title += ", rated on luck-adjusted win shares"
    out.print(standings_table(table, title=title))
    for extra in (pairwise_table(table), faults_table(table), reply_times_table(table)):
        if extra is not None:
            out.print(extra)
    if chosen.without is not None:
        out.print(Text(_dropped(chosen.without, chosen.dropped)))
    if chosen.skipped or chosen.repeated:
        out.print(
            Text(
                f"{chosen.skipped} malformed lines skipped, {chosen.repeated} repeated lines counted once",
                style="dim",
            )
        )


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


@app.command(context_settings={"allow_interspersed_args": False})
def sprt(
    ctx: typer.Context,
    command: Annotated[
        list[str],
        typer.Argument(
            metavar="COMMAND", help="The candidate's program and its arguments, after `--`."
        ),
    ],
    vs: Annotated[
        list[str],
        typer.Option(
            "--vs",
            metavar="[NAME=]LEVEL|COMMAND",
            help="An opponent: a built-in level (random, easy, medium, hard, expert, master) or a command line, NAME= before it names it in the tables; repeat for more.",
        ),
    ],
    seats: Annotated[
        int, typer.Option(metavar="K", help="Players per match: the candidate and K-1 opponents.")
    ] = 2,
    share0: Annotated[
        float | None,
        typer.Option(
            metavar="S0", help="The candidate's expected match point under H0 [default: 1/K]."
        ),
    ] = None,
    share1: Annotated[
        float | None, typer.Option(metavar="S1", help="… under H1 [default: S0 + 0.05].")
    ] = None,
    alpha: Annotated[
        float, typer.Option(metavar="P", help="The chance of accepting H1 when H0 is true.")
    ] = SprtSettings.alpha,
    beta: Annotated[
        float, typer.Option(metavar="P", help="The chance of accepting H0 when H1 is true.")
    ] = SprtSettings.beta,
    min_groups: Annotated[
        int, typer.Option(metavar="N", help="Duplicate groups before any decision.")
    ] = SprtSettings.min_groups,
    luck_adjusted: Annotated[bool, LuckSwitch] = True,
    games: Annotated[
        int | None,
        typer.Option(metavar="N", help="The cap: at most this many matches [default: 20000]."),
    ] = None,
    seed: Annotated[
        int | None, typer.Option(metavar="N", help="Seed of the first match (default: drawn).")
    ] = None,
    name: Annotated[
        str | None,
        typer.Option(metavar="NAME", help="The candidate's name [default: its program's name]."),
    ] = None,
    replays: Annotated[
        str,
        typer.Option(metavar="DIR", help="Folder for replays, results.jsonl and standings.json."),
    ] = "replays",
    timeout: ReplyTimeout = LIMITS.reply_timeout,
    jobs: Annotated[
        int | None,
        typer.Option(
            "--jobs",
            "-j",
            metavar="N",
            help="Matches played at once [default: the number of cores].",
        ),
    ] = None,
    resume: Annotated[
        bool, typer.Option("--resume", help="Continue the last run of this same test.")
    ] = False,
    new_run: NewRun = False,
    quiet: Quiet = False,
    json_line: Annotated[
        bool,
        typer.Option(
            "--json",
            help="At the end, one JSON line on stdout with the verdict and its figures (also with -q).",
        ),
    ] = False,
) -> None:
    """Is my bot better? A sequential test against opponents, on duplicate deals, stopping at the answer.

    Exit status: 0 the candidate is better (H1 accepted), 1 it is not (H0 accepted), 3 no
    decision by the cap, 128 + the signal when stopped (130 for Ctrl-C), 2 for bad options.
    """
    from arena.base import config as config_module
    from arena.ui import sprt_command

    _in_range("--jobs", jobs, 1, JOBS_LIMIT)
    _in_bounds("--timeout", timeout, "reply_timeout")
    _in_range("--seats", seats, 2, config_module.MAX_SEATS)
    _in_range("--games", games, 1, GAMES_LIMIT)
    _in_range("--min-groups", min_groups, 1, GAMES_LIMIT)
    _in_range("--seed", seed, 0, SEED_LIMIT - 1)

    with user_errors(told=sprt_command.in_options):
        data = sprt_command.config_data(
            command,
            vs,
            seats=seats,
            share0=share0,
            share1=share1,
            alpha=alpha,
            beta=beta,
            min_groups=min_groups,
            games=games,
            seed=seed,
            name=name,
            replays=replays,
            timeout=timeout,
            raw=not luck_adjusted,
        )
        # As if from a config file in the current folder: the base of relative paths.
        settings, participants = config_module.validate(Path("arena sprt"), data)
    options = (
        sys.argv[1 : sys.argv.index("--")]
        if "--" in sys.argv
        else ["sprt", *(f"--vs={v}" for v in vs)]
    )
    rest = " -- " + " ".join(shlex.quote(part) for part in command)

    def again(extra: str) -> str:
        return sprt_command.again(options) + extra + rest

    decided: list[int] = []

    def finished(plan: "Tournament", stopped: bool) -> None:
        assert plan.candidate is not None  # arena sprt's config is a gauntlet with a test
        status = sprt_command.exit_status(plan.candidate, stopped=stopped)
        decided.append(status)
        if json_line:
            line = sprt_command.verdict_line(
                plan.candidate, status=status, stopped=stopped, played=len(plan.done)
            )
            sys.stdout.write(line + "\n")
            sys.stdout.flush()

    _run_loaded(
        ctx,
        Path("arena sprt"),
        settings,
        participants,
        jobs=jobs,
        resume=resume,
        new_run=new_run,
        # Each `arena sprt` is a new test unless resumed: it takes the folder's standings over.
        replace_standings=not resume,
        quiet=quiet,
        scheduler=None,
        again=again,
        finished=finished,
    )
    raise typer.Exit(decided[0] if decided else 0)


@replay_app.command("verify")
def replay_verify(
    paths: Annotated[
        list[Path],
        typer.Argument(
            metavar="FILE_OR_FOLDER",
            help="Replay files, and folders whose replays (*.json but standings.json) are all verified.",
        ),
    ],
) -> None:
    """Play replays' recorded replies again with the engine; exit 1 if any differs from its record."""
    from arena.replays import replay as replay_module

    files: list[Path] = []
    for path in paths:
        if path.is_dir():
            found = sorted(
                p for p in path.glob("*.json") if p.name != "standings.json" and p.is_file()
            )
            if not found:
                fail(f"{path}: no replay (*.json) in this folder", 2)
            files += found
        else:
            files.append(path)
    failed = skipped = 0
    for file in files:
        problem: str | None
        try:
            data = replay_module.read(file)
            difference = replay_module.verify(data)
        except replay_module.NotAReplay as error:
            other = error.format or ""
            if other.startswith("gofish-arena-"):
                # Another file of a run (`replays/*.json` names standings.json): not a replay.
                skipped += 1
                _say(f"{file}: skipped, not a replay (its format is {other[:80]})")
                continue
            problem = str(error)
        except ReplayError as error:
            problem = str(error)
        else:
            problem = None if difference is None else f"{file}: differs: {difference}"
        if problem is not None:
            failed += 1
            _say(problem, error=True)
        else:
            _say(f"{file}: ok ({len(data.transcript)} messages, outcome {data.result.outcome})")
    checked = len(files) - skipped
    if not checked:
        fail("no replay among the files given", 2)
    if checked > 1:
        _say(
            f"{checked} replays: {checked - failed} ok"
            + (f", {failed} failed (not readable, or not the match they record)" if failed else "")
        )
    if failed:
        raise typer.Exit(1)


@replay_app.command("show")
def replay_show(
    file: ReplayFile,
    seat: Annotated[
        int | None, typer.Option(metavar="K", help="Show only what this seat saw.")
    ] = None,
    notes: Annotated[
        bool,
        typer.Option(
            "--notes", help="Under each step, what the participants wrote to stderr meanwhile."
        ),
    ] = False,
) -> None:
    """The match as a timeline: the deal, every ask, draw, book and fault, the final table."""
    from arena.replays import replay as replay_module
    from arena.ui import show

    with user_errors(usage=(ReplayError,), arena=None):
        data = replay_module.read(file)
    if seat is not None and not 0 <= seat < len(data.players):
        fail(f"--seat {seat}: the replay has seats 0..{len(data.players) - 1}", 2)
    with user_errors(usage=(ReplayError,), told=f"{file}: {{}}".format, arena=None):
        out.print(show.render(data, seat, notes=notes))


@replay_app.command("fork")
def replay_fork(
    file: Annotated[Path, typer.Argument(metavar="FILE", help="The replay to fork.")],
    at: Annotated[
        str,
        typer.Option(
            metavar="N|turn:T",
            help="Where live play starts: a message index as `replay show` prints it (57), or a turn (turn:7).",
        ),
    ],
    output: Annotated[
        Path,
        typer.Option(
            "--output",
            "-o",
            metavar="OUT.json",
            help="The new replay (never overwritten: OUT-2.json if taken).",
        ),
    ],
    seat: Annotated[
        list[str] | None,
        typer.Option(
            metavar="K=LEVEL|K=COMMAND",
            help="Who plays seat K from the point on; repeat for more seats (default: the recorded participant).",
        ),
    ] = None,
) -> None:
    """Continue a match from one of its messages, with the same or other participants."""
    from arena.replays import fork
    from arena.replays.replay import program_name
    from arena.ui.terminal import inert

    try:
        with user_errors(usage=(ReplayError, ConfigError), arena=str):
            path, forked = fork.fork_file(file, at, seat or [], output, cwd=Path.cwd())
    except KeyboardInterrupt:  # (a MatchInterrupted too) every participant is stopped already
        err.print(f"interrupted: the fork was not finished; nothing written to {output}")
        raise typer.Exit(shutdown.exit_status()) from None
    result = forked.record.result
    scores = ", ".join(
        f"{name} {score}"
        for name, score in zip(forked.record.setup.names, result.scores, strict=False)
    )
    out.print(inert(f"forked at message {forked.origin['at']}: {result.outcome} ({scores})", 200))
    names, commands = forked.record.setup.names, forked.record.commands
    for replaced in forked.origin["replaced"]:
        k = replaced["seat"]
        now = f"{program_name(commands[k])} for {names[k]}: {shlex.join(commands[k])}"
        out.print(inert(f"  seat {k}: {now}", 400))
    for k, counts in enumerate(forked.record.fault_counts()):
        # A seat lost live (its program not found from here) is told, as `run` tells it.
        first = next((f.fault for f in forked.record.faults if f.seat == k), None)
        if first is not None:
            total = ", ".join(f"{kind} {count}" for kind, count in counts.items())
            tail = (first.stderr_tail or "").strip().splitlines()[-1:]
            said = f"{first.kind}: {first.detail}" + (f" (stderr: {tail[0]})" if tail else "")
            out.print(inert(f"  faults of seat {k} ({names[k]}): {total}; first {said}", 400))
    out.print(inert(f"  replay: {path}", 400))


@replay_app.command("html")
def replay_html(
    file: ReplayFile,
    output: Annotated[
        Path, typer.Option("--output", "-o", metavar="OUT.html", help="The page to write.")
    ],
    review: Annotated[
        int | None,
        typer.Option(
            "--seat", metavar="K", help="Mark seat K's asks the coach would make otherwise."
        ),
    ] = None,
    level: Annotated[
        str, typer.Option(metavar="LEVEL", help="The coach's level, with --seat.")
    ] = "master",
    old_review: Annotated[int | None, typer.Option("--review", hidden=True)] = None,
) -> None:
    """One self-contained page that steps through the match (works offline, from file://),
    with each participant's notes beside its decisions, and the coach's marks with --seat."""
    review = renamed("--review", "--seat", old_review, review)
    from rich.text import Text

    from arena.bots import BOTS
    from arena.replays import coach
    from arena.replays import replay as replay_module
    from arena.ui import viewer

    if level not in BOTS:
        fail(f"--level {level}: not one of {', '.join(BOTS)}", 2)
    with user_errors(usage=(ReplayError,), arena=None):
        data = replay_module.read(file)  # its errors name the file already
    if review is not None and not 0 <= review < len(data.players):
        fail(f"--seat {review}: the replay has seats 0..{len(data.players) - 1}", 2)
    with user_errors(
        usage=(ReplayError, coach.CoachError), told=f"{file}: {{}}".format, arena=None
    ):
        marks = None
        if review is not None:
            decisions = coach.review(coach.view_of(data, review), level=level, seed=data.seed or 0)
            marks = viewer.review_marks(data, review, level, decisions)
        page = viewer.render(data, title=f"Go Fish replay: {file.name}", review=marks)
    with user_errors(arena=str):
        # A complete new file or none: a previous page stays whole until the new one is.
        viewer.write_page(output, page)
    out.print(Text(f"wrote {output}"))


@replay_app.command("review")
def replay_review(
    file: ReplayFile,
    seat: Annotated[int, typer.Option(metavar="K", help="The seat whose asks to review.")],
    level: Annotated[
        str, typer.Option(metavar="LEVEL", help="The policy to compare with (a built-in level).")
    ] = "master",
    worlds: Annotated[
        int, typer.Option(metavar="N", help="Determinisations per decision (more: narrower ±).")
    ] = 200,
    top: Annotated[int, typer.Option(metavar="N", help="Show the N costliest (0: all).")] = 10,
    as_json: Annotated[bool, typer.Option("--json", help="Print the review as JSON.")] = False,
) -> None:
    """The seat's asks that a stronger policy, seeing only what the seat saw, would have made
    otherwise, with what each cost in win chance and books; the costliest first."""
    import orjson

    from arena.bots import BOTS
    from arena.replays import coach
    from arena.replays import replay as replay_module
    from arena.ui import review

    if level not in BOTS:
        fail(f"--level {level}: not one of {', '.join(BOTS)}", 2)
    if not 2 <= worlds <= 100_000:
        fail(f"--worlds {worlds}: give 2 to 100000", 2)
    with user_errors(usage=(ReplayError,), arena=None):
        data = replay_module.read(file)
    if not 0 <= seat < len(data.players):
        fail(f"--seat {seat}: the replay has seats 0..{len(data.players) - 1}", 2)
    view = coach.view_of(data, seat)
    asks = sum(1 for _, message, _ in view if message.get("type") == "ask")
    with user_errors(usage=(coach.CoachError,), told=f"{file}: {{}}".format, arena=None):
        decisions = coach.review(view, level=level, worlds=worlds, seed=data.seed or 0)
    if as_json:
        text = orjson.dumps(review.as_json(data, seat, level, decisions, asks)).decode()
        out.print(text, markup=False)
    else:
        out.print(review.render(data, seat, level, decisions, asks, top))


@app.command()
def play(
    opponents: Annotated[int, typer.Option(metavar="1-3", help="Bots at the table.")] = 1,
    level: Annotated[
        str, typer.Option(metavar="LEVEL", help="Bot level: easy, medium, hard, expert or master.")
    ] = "easy",
    seed: Annotated[
        int | None, typer.Option(metavar="N", help="The deal (default: a new one).")
    ] = None,
    delay: Annotated[
        float, typer.Option(metavar="SECONDS", help="Seconds of pause before each bot move.")
    ] = 0.4,
    replays: Annotated[Path, typer.Option(metavar="DIR", help="Folder for the replay.")] = Path(
        "replays"
    ),
    name: Annotated[str, typer.Option(metavar="NAME", help="Your seat's name.")] = "you",
    rules: Annotated[
        str | None,
        typer.Option(
            "--rules",
            metavar="NAME|FILE",
            help="The rules: classic, family-two, family-table, kitchen-table, or the rules of a config file [default: kitchen-table, the classic rules with 7 cards each for two players, 5 for more].",
        ),
    ] = None,
) -> None:
    """Play Go Fish at the terminal against the built-in bots; the match is saved as a replay."""
    from arena.base.errors import WriteError
    from arena.base.files import check_writable
    from arena.ui import play as play_module

    _in_range("--opponents", opponents, 1, 3)  # one line as every option's, not typer's
    _in_range("--delay", delay, 0, 60)
    _in_range("--seed", seed, 0, SEED_LIMIT - 1)
    _check_name(name)
    # Before the game, not after it: a game played is never lost for want of a folder.
    with user_errors(usage=(ConfigError, WriteError), told="--replays: {}".format, arena=None):
        check_writable(replays.absolute())
    from arena.bots import Level

    try:
        Level.named(level, among=play_module.LEVELS)
    except ValueError as error:
        fail(f"--level: {error}", 2)
    with user_errors(arena=None):
        chosen = play_module.chosen_rules(rules, opponents + 1)
    options = play_module.PlayOptions(
        opponents=opponents,
        level=level,
        seed=play_module.new_seed() if seed is None else seed,
        delay=delay,
        replays=replays,
        name=name,
        rules=chosen,
        rules_choice=rules,
    )
    with user_errors(usage=()):
        status = play_module.play(options, out.console)
    raise typer.Exit(status)


def _check_name(name: str) -> None:
    """`--name` as a config's participant name is checked: 1 to 64 characters, all visible."""
    from arena.base.config import invisible_character

    if not 1 <= len(name) <= NAME_LENGTH:
        fail(f"--name: {len(name)} characters; a name has 1 to {NAME_LENGTH}", 2)
    hidden = invisible_character(name)
    if hidden is not None:
        fail(f"--name: holds {hidden}, which prints as nothing or turns the text around", 2)


@app.command()
def schema(
    out_dir: Annotated[
        Path | None,
        typer.Option(
            "--output", "-o", metavar="DIR", help="Write one file per schema into this folder."
        ),
    ] = None,
    old_out: Annotated[Path | None, typer.Option("--out", hidden=True)] = None,
) -> None:
    """Print the JSON Schema of every message, every reply and the replay file (one document)."""
    out_dir = renamed("--out", "--output", old_out, out_dir)
    import json

    from rich.text import Text

    from arena.replays import schema as schema_module

    if out_dir is None:
        typer.echo(json.dumps(schema_module.document(), indent=2, ensure_ascii=False))
        return
    from arena.base.files import check_replaceable, replace

    files = schema_module.files()
    with user_errors(told="--output: {}".format, arena=_cannot_write_schemas(out_dir)):
        for name in files:  # a folder or a FIFO in a schema's place: refused before any write
            check_replaceable(out_dir / name)
        for name, document in files.items():
            # Each file whole or not at all; a link in its place is replaced, never written through.
            data = json.dumps(document, indent=2, ensure_ascii=False) + "\n"
            replace(out_dir / name, data.encode("utf-8"))
    out.print(Text(f"wrote {len(files)} schemas to {out_dir}"))


@app.command()
def export(
    folder: Annotated[
        Path, typer.Argument(metavar="FOLDER", help="A folder of replays (*.json), or one replay.")
    ],
    output: Annotated[
        Path,
        typer.Option("-o", "--output", metavar="FILE", help="A new .jsonl or .parquet file."),
    ],
) -> None:
    """Write one row per decision of the replays (view, legal actions, action, valid, books,
    place) to a JSON lines or Parquet file (docs/research.md)."""
    from arena.replays import export as export_module

    if not folder.exists():
        fail(f"{folder}: no such file or folder", 2)
    if output.suffix not in export_module.FORMATS:
        fail(f"-o: {output}: the output is a .jsonl or .parquet file, not {output.suffix!r}", 2)
    if output.exists() or output.is_symlink():
        fail(f"-o: {output} exists already; give another name", 2)
    if output.suffix == ".parquet":
        try:
            import pyarrow  # noqa: F401
        except ImportError:
            fail("-o: a .parquet file needs pyarrow: pip install 'gofish-arena[parquet]'", 2)
    began = time.monotonic()
    with user_errors(usage=(ReplayError,), arena=str):
        done = export_module.export(folder, output)
    took = time.monotonic() - began
    _say(
        f"{_count(done.rows, 'decision')} from {_count(done.replays, 'replay')} to {output}"
        f" ({done.rows / took:,.0f} rows/s)"
    )


@app.command(context_settings={"allow_interspersed_args": False})
def check(
    command: Annotated[
        list[str],
        typer.Argument(
            metavar="COMMAND", help="The participant's program and its arguments, after `--`."
        ),
    ],
    timeout: ReplyTimeout = LIMITS.reply_timeout,
    startup_timeout: Annotated[
        float, typer.Option(metavar="SECONDS", help="Seconds from start to the init reply.")
    ] = LIMITS.startup_timeout,
    sandbox: Annotated[
        str,
        typer.Option(
            metavar="auto|bwrap|none",
            help="Run it confined as `arena run` would (docs/sandbox.md).",
        ),
    ] = LIMITS.sandbox,
    read_only: Annotated[
        list[Path] | None,
        typer.Option(
            "--read-only",
            metavar="PATH",
            help="A file or folder it may read in the sandbox besides its own files, as a config's readOnly (repeatable).",
        ),
    ] = None,
) -> None:
    """Check a participant program against the protocol; exit 0 only if it is compliant."""
    from arena.base import config as config_module
    from arena.ui import check as check_module

    _in_bounds("--timeout", timeout, "reply_timeout")
    _in_bounds("--startup-timeout", startup_timeout, "startup_timeout")
    cwd = Path.cwd()
    with user_errors(arena=None):
        resolved = check_module.resolve_command(command, cwd)
    readable = []
    for given in read_only or []:
        path = Path(os.path.abspath(cwd / given))
        if not path.exists():
            fail(f"--read-only: {str(given)!r} not found (looked for {path})", 2)
        readable.append(str(path))
    from arena.seats import sandbox as sandbox_module

    modes = typing.get_args(SandboxMode)
    if sandbox not in modes:
        fail(f"--sandbox: {sandbox!r} is not one of {', '.join(modes)}", 2)
    with user_errors(told="--sandbox: {}".format, arena=None):
        confinement, warning = sandbox_module.decide(sandbox)
    if warning is not None:
        err.print(warning, markup=False, highlight=False, soft_wrap=True)
    limits = config_module.LimitsSection(reply_timeout=timeout, startup_timeout=startup_timeout)
    report = check_module.run_checks(resolved, cwd, limits, confinement, readable)  # a stop: `main`
    if not out.is_terminal and "COLUMNS" not in os.environ:
        out.console.width = PIPED_WIDTH  # a file or a pipe: rich's 80 columns would cut the cells
    for part in check_module.render(report):
        out.print(part)
    raise typer.Exit(0 if report.passed else 1)


def main() -> None:
    # The arena uses no pydantic plugin: looking for some reads every installed package's
    # metadata (pydantic's documented switch).
    os.environ.setdefault("PYDANTIC_DISABLE_PLUGINS", "__all__")
    # A lone surrogate a bot wrote (kept in its replay) is printed as `\udXXX`, not a crash.
    for stream in (sys.stdout, sys.stderr):
        if hasattr(stream, "reconfigure"):
            stream.reconfigure(errors="backslashreplace")
    shutdown.guard_stdout()  # a closed or full stdout costs the output, never a match
    shutdown.install_immediate()  # until a command installs its own (`run`)
    sys.exit(command(sys.argv[1:]))


def command(args: list[str]) -> int:
    """Run `arena ARGS` in this process and give its exit status (a command's own `fail` still
    raises SystemExit): what `main` runs once the process is set up, and what the tests run
    where the process itself is not what they test."""
    try:
        status = app(args=args, standalone_mode=False)
    except (KeyboardInterrupt, _Interrupted, typer.Abort):  # the one place a stop ends in
        err.print("interrupted")
        return shutdown.exit_status()
    except typer.TyperException as error:
        return _usage_error(error)
    except ModuleNotFoundError as error:  # an optional extra not installed: which, in one line
        from arena.base import extras

        if (line := extras.missing_extra(error, _command_words(args))) is None:
            raise
        _say(line, error=True)
        return 2
    return status if isinstance(status, int) else 0


def _command_words(args: list[str]) -> str:
    """`arena` and its command as the user typed them (`arena league`, `arena export`)."""
    words = ["arena"]
    for word in args:
        if word.startswith("-") or len(words) == 3:
            break
        words.append(word)
        if word not in ("league", "replay"):  # (the groups of commands)
            break
    return " ".join(words)


def _usage_error(error: typer.TyperException) -> int:
    """A mistake on the command line (an option typer could not parse, a missing argument):
    one line naming the command, exit 2; `arena` alone and `arena replay` still show help."""
    from typer._click.exceptions import ClickException, NoArgsIsHelpError, UsageError

    if isinstance(error, NoArgsIsHelpError) or not isinstance(error, UsageError):
        if isinstance(error, ClickException):
            error.show()
            return error.exit_code
        _say(str(error), error=True)
        return 2
    command = error.ctx.command_path if error.ctx is not None else "arena"
    _say(f"{command}: {error.format_message()} (see {command} --help)", error=True)
    return 2


if __name__ == "__main__":
    main()
