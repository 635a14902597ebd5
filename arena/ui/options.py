"""What several commands take, said once: the options they share (`Quiet`, `ResultsFolder`, the
luck switch…) and the checks of a number given on the command line (`in_range`), one line and
exit 2 before anything starts.
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Annotated

import typer

from arena.engine.settings import NAME_LENGTH, Limits, declared
from arena.ui.say import fail

# The options several commands take.
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


# One switch for the luck taken out of a score, in every command that has a choice
# (docs/luck.md): `arena sprt` tests luck-adjusted points unless `--raw`; `arena standings`
# ranks by finishing order unless `--luck-adjusted`.
LuckSwitch = typer.Option(
    "--luck-adjusted/--raw",
    help="Luck-adjusted win shares, or raw match points (docs/luck.md).",
)


JOBS_LIMIT = 1024  # matches played at once on one machine


def in_range(
    option: str, value: float | None, low: float, high: float, *, above: bool = False
) -> None:
    """Exit 2 with one line unless `value` (when given) is finite and within low..high
    (strictly above `low` when `above`): nan, inf and 1e9 seconds are refused, not run."""
    if value is None:
        return
    if not math.isfinite(value) or value > high or value < low or (above and value == low):
        bound = f"above {_plain(low)}" if above else f"from {_plain(low)}"
        fail(f"{option}: {value!r} is not a number {bound} to {_plain(high)}", 2)


def in_bounds(option: str, value: float, limit: str) -> None:
    """`_in_range` with the bounds the config declares for `limits.<limit>` (`reply_timeout`)."""
    setting = next(setting for name, _, setting in declared(Limits) if name == limit)
    low = setting.gt if setting.gt is not None else setting.ge
    assert low is not None and setting.le is not None  # (a time limit has both)
    in_range(option, value, low, setting.le, above=setting.gt is not None)


def _plain(bound: float) -> str:
    return str(int(bound)) if float(bound).is_integer() else f"{bound:g}"


def check_name(name: str) -> None:
    """`--name` as a config's participant name is checked: 1 to 64 characters, all visible."""
    from arena.base.config import invisible_character

    if not 1 <= len(name) <= NAME_LENGTH:
        fail(f"--name: {len(name)} characters; a name has 1 to {NAME_LENGTH}", 2)
    hidden = invisible_character(name)
    if hidden is not None:
        fail(f"--name: holds {hidden}, which prints as nothing or turns the text around", 2)
