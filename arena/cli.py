"""The `arena` command line: the only module that prints.

Exit status: 0 when the matches were played (whatever the participants did), 2 for a bad
config or usage, 1 for a failure of the arena itself (e.g. a replay it could not write),
130 when interrupted (the replay of the match in progress is written, marked interrupted).
"""

from __future__ import annotations

import signal
import sys
from datetime import datetime
from pathlib import Path
from types import FrameType
from typing import Annotated, NoReturn, Optional

import typer
from rich.console import Console
from rich.table import Table
from rich.text import Text

from arena import config as config_module
from arena import replay as replay_module
from arena.errors import ArenaError, ConfigError, ReplayError
from arena.runner import GameInterrupted, PlayedGame, play_game, replays_folder, run_seed
from arena.terminal import inert

app = typer.Typer(
    add_completion=False,
    no_args_is_help=True,
    pretty_exceptions_enable=False,
    help="gofish-arena: run Go Fish matches between bots written in any language.",
)
replay_app = typer.Typer(no_args_is_help=True, help="Check and look at replay files.")
app.add_typer(replay_app, name="replay")

out = Console(highlight=False)
err = Console(stderr=True, highlight=False)


def fail(message: str, status: int) -> NoReturn:
    err.print(inert(message, limit=2000), style="bold red" if status == 1 else None)
    raise typer.Exit(status)


def _stop_on_sigterm() -> None:
    def interrupt(signum: int, frame: FrameType | None) -> None:
        raise KeyboardInterrupt

    signal.signal(signal.SIGTERM, interrupt)


def _place(rank: int) -> str:
    return {1: "1st", 2: "2nd", 3: "3rd"}.get(rank, f"{rank}th")


def _print_game(played: PlayedGame, cwd: Path) -> None:
    line = Text(f"game {played.game + 1}  seed {played.seed}  {played.outcome}  ")
    for seat, name in enumerate(played.names):
        line.append_text(inert(name, 24))
        faults = sum(played.fault_counts[seat].values())
        line.append(f" {played.scores[seat]} books ({_place(played.ranks[seat])}"
                     + (f", {faults} faults" if faults else "") + ")  ")
    out.print(line)
    out.print(Text(f"  replay: {_relative(played.replay, cwd)}", style="dim"))


def _relative(path: Path, cwd: Path) -> str:
    try:
        return str(path.relative_to(cwd))
    except ValueError:
        return str(path)


def _print_totals(games: list[PlayedGame]) -> None:
    names: dict[str, list[float]] = {}
    for played in games:
        best = min(played.ranks)
        winners = sum(1 for rank in played.ranks if rank == best)
        for seat, name in enumerate(played.names):
            totals = names.setdefault(name, [0, 0.0, 0, 0])
            totals[0] += 1
            totals[1] += (1 / winners) if played.ranks[seat] == best else 0
            totals[2] += played.scores[seat]
            totals[3] += sum(played.fault_counts[seat].values())
    table = Table(title=f"{len(games)} matches")
    for column in ("seat name", "matches", "wins", "books", "faults"):
        table.add_column(column, justify="left" if column == "seat name" else "right")
    for name, (matches, wins, books, faults) in sorted(names.items(), key=lambda item: -item[1][1]):
        table.add_row(inert(name, 32), str(int(matches)), f"{wins:g}", str(int(books)), str(int(faults)))
    out.print(table)


@app.command()
def run(
    config: Annotated[Path, typer.Argument(help="The config.toml to run.")],
    seed: Annotated[Optional[int], typer.Option(help="Seed of the first match (overrides the config).")] = None,
    games: Annotated[Optional[int], typer.Option(help="Number of matches (overrides the config).")] = None,
) -> None:
    """Play the matches of CONFIG and write one replay per match."""
    try:
        settings, seats = config_module.load(config, seed=seed, games=games)
    except ConfigError as error:
        fail(str(error), 2)
    _stop_on_sigterm()
    first_seed = run_seed(settings)
    folder = replays_folder(config, settings)
    stamp = datetime.now().strftime("%Y%m%d-%H%M%S")
    cwd = Path.cwd()
    played: list[PlayedGame] = []
    try:
        for game in range(settings.games):
            result = play_game(settings, seats, game=game, seed=first_seed + game, folder=folder, stamp=stamp)
            played.append(result)
            _print_game(result, cwd)
    except GameInterrupted as stop:
        out.print(Text(f"interrupted: the match in progress was stopped; replay: {_relative(stop.played.replay, cwd)}"))
        raise typer.Exit(130) from None
    except KeyboardInterrupt:
        out.print("interrupted")
        raise typer.Exit(130) from None
    except ArenaError as error:
        fail(f"arena error: {error}", 1)
    if len(played) > 1:
        _print_totals(played)


@replay_app.command("verify")
def replay_verify(file: Annotated[Path, typer.Argument(help="A replay JSON file.")]) -> None:
    """Play a replay's recorded replies again with the engine; exit 1 at the first difference."""
    try:
        data = replay_module.read(file)
        difference = replay_module.verify(data)
    except ReplayError as error:
        fail(str(error), 1)
    except (KeyError, TypeError, ValueError) as error:
        fail(f"{file}: malformed replay: {error}", 1)
    if difference is not None:
        fail(f"{file}: differs: {difference}", 1)
    entries = len(data["transcript"])
    out.print(Text(f"{file}: ok ({entries} messages, outcome {data['result']['outcome']})"))


@app.command()
def schema(
    out_dir: Annotated[Optional[Path], typer.Option("--out", help="Write one file per schema into this folder.")] = None,
) -> None:
    """Print the JSON Schema of every message, every reply and the replay file (one document)."""
    import json

    from arena import schema as schema_module

    if out_dir is None:
        typer.echo(json.dumps(schema_module.document(), indent=2, ensure_ascii=False))
        return
    files = schema_module.files()
    try:
        out_dir.mkdir(parents=True, exist_ok=True)
        for name, document in files.items():
            (out_dir / name).write_text(json.dumps(document, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    except OSError as error:
        fail(f"cannot write schemas to {out_dir}: {error}", 1)
    out.print(Text(f"wrote {len(files)} schemas to {out_dir}"))


@app.command(context_settings={"allow_interspersed_args": False})
def check(
    command: Annotated[list[str], typer.Argument(metavar="COMMAND", help="The participant's program and its arguments, after `--`.")],
    timeout: Annotated[float, typer.Option(help="Seconds allowed for each reply.")] = 2.0,
    startup_timeout: Annotated[float, typer.Option(help="Seconds from start to the init reply.")] = 10.0,
) -> None:
    """Check a participant program against the protocol; exit 0 only if it is compliant."""
    from arena import check as check_module

    if timeout <= 0 or startup_timeout <= 0:
        fail("--timeout and --startup-timeout must be positive", 2)
    cwd = Path.cwd()
    try:
        resolved = check_module.resolve_command(command, cwd)
    except ConfigError as error:
        fail(str(error), 2)
    limits = config_module.LimitsSection(replyTimeout=timeout, startupTimeout=startup_timeout)
    report = check_module.run_checks(resolved, cwd, limits)
    for part in check_module.render(report):
        out.print(part)
    raise typer.Exit(0 if report.passed else 1)



def main() -> None:
    try:
        app()
    except KeyboardInterrupt:
        err.print("interrupted")
        sys.exit(130)


if __name__ == "__main__":
    main()
