"""`arena replay …`: check and look at replay files.

arena replay verify replays/            # every replay played again, each compared
arena replay show FILE --seat 0         # the match as a timeline, as seat 0 saw it
arena replay fork FILE --at turn:7 --seat 1=hard -o forked.json
arena replay html FILE -o match.html --seat 0
arena replay review FILE --seat 0 --level master
"""

import shlex
from pathlib import Path
from typing import Annotated

import typer

from arena.base import shutdown
from arena.base.errors import ConfigError, ReplayError
from arena.ui.options import ReplayFile
from arena.ui.say import err, fail, out, renamed, say, user_errors

replay_app = typer.Typer(
    no_args_is_help=True, rich_markup_mode=None, help="Check and look at replay files."
)


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
                say(f"{file}: skipped, not a replay (its format is {other[:80]})")
                continue
            problem = str(error)
        except ReplayError as error:
            problem = str(error)
        else:
            problem = None if difference is None else f"{file}: differs: {difference}"
        if problem is not None:
            failed += 1
            say(problem, error=True)
        else:
            say(f"{file}: ok ({len(data.transcript)} messages, outcome {data.result.outcome})")
    checked = len(files) - skipped
    if not checked:
        fail("no replay among the files given", 2)
    if checked > 1:
        say(
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
    from arena.base.terminal import inert
    from arena.replays import fork
    from arena.replays.replay import program_name

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
