"""The `arena` command line: the wiring of every command (each lives in its own module: `run_command`,
`sprt_command`, `replay_command`, `league_command`…), the small commands, and the process's
set-up and the one place a command's end becomes an exit status (`command`). What every command
says goes through `arena.ui.say`; `arena play`'s screen is drawn by `arena.ui.play`.

Exit status (docs/contract.md §5.6): 0 when the command did its work (the matches played,
whatever the participants did), 1 for a failure of the arena itself (e.g. a replay it could not
write, or a stdout that could not take the output), 2 for a bad config, option or file of the
user's, 4 when `arena sprt` accepts H0, 3 when it reaches its cap undecided or when `arena
league submit`'s league refused the version, 128 + the signal when stopped by one (130 for
Ctrl-C, 143 for SIGTERM, 129 for SIGHUP; see `arena.base.shutdown` and docs/stopping.md).
"""

import os
import sys
import time
import typing
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from arena.base import shutdown
from arena.base.errors import ConfigError, ReplayError
from arena.engine.settings import SEED_LIMIT, SandboxMode
from arena.ui import replay_command, run_command, sprt_command
from arena.ui.league_command import league_app
from arena.ui.options import (
    LIMITS,
    LuckSwitch,
    ReplyTimeout,
    ResultsFolder,
    TournamentId,
    Without,
    check_name,
    in_bounds,
    in_range,
)
from arena.ui.say import count, err, fail, out, renamed, say, user_errors, widen_when_piped

# Start-up: `arena --help` imports typer and nothing else of weight. Rich, pydantic, orjson and
# the rooms below are imported by the commands that use them (bench/startup.py measures it).
if TYPE_CHECKING:
    from typer._click.core import Context as ClickContext

__all__ = ["app", "command", "err", "fail", "main", "out", "renamed", "user_errors"]


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
app.add_typer(replay_command.replay_app, name="replay")
# `arena league …` (docs/league.md): needs the `league` extra only when it serves or submits.
app.add_typer(league_app, name="league")
app.command()(run_command.run)


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
    from arena.ui import standings_command

    for game in view or ():
        in_range("--view", game, 0, 10**9)  # a game number, as `arena run` numbers them (from 0)
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
        out.print(Text(standings_command.dropped(without, built.dropped)))


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
    widen_when_piped()
    if json_output:
        import orjson

        document = standings_command.as_json(chosen, table)
        sys.stdout.write(orjson.dumps(document, option=orjson.OPT_INDENT_2).decode() + "\n")
    elif csv_output:
        sys.stdout.write(standings_command.as_csv(table))
    else:
        standings_command.print_standings(chosen, table)
    if without is not None and (json_output or csv_output):
        err.print(standings_command.dropped(without, chosen.dropped), markup=False, highlight=False)


app.command(context_settings={"allow_interspersed_args": False})(sprt_command.sprt)


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

    in_range("--opponents", opponents, 1, 3)  # one line as every option's, not typer's
    in_range("--delay", delay, 0, 60)
    in_range("--seed", seed, 0, SEED_LIMIT - 1)
    check_name(name)
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


def _cannot_write_schemas(folder: Path) -> Callable[[str], str]:
    def words(message: str) -> str:
        return f"cannot write schemas to {folder}: {message.removeprefix('cannot write ')}"

    return words


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
    say(
        f"{count(done.rows, 'decision')} from {count(done.replays, 'replay')} to {output}"
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
    from arena.referee import check as check_module
    from arena.referee import check_report

    in_bounds("--timeout", timeout, "reply_timeout")
    in_bounds("--startup-timeout", startup_timeout, "startup_timeout")
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
    widen_when_piped()
    for part in check_report.render(report):
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
        say(line, error=True)
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
        say(str(error), error=True)
        return 2
    command = error.ctx.command_path if error.ctx is not None else "arena"
    say(f"{command}: {error.format_message()} (see {command} --help)", error=True)
    return 2


if __name__ == "__main__":
    main()
