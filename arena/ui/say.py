"""What every command says, and the one way a command fails: the two consoles (`out`, `err`),
`fail` (one line, an exit status), `user_errors` (an exception out of a block as that line) and
`renamed` (an option's old spelling, with its note).

    with user_errors():
        settings, seats = config.load(path)  # a ConfigError: its line on stderr, exit 2
    fail("--seat 5: the replay has seats 0..3", 2)

Exit statuses (docs/contract.md §5.6): 0 done, 1 the arena's own failure, 2 a bad config,
option or file of the user's; a command may add its own verdicts (`arena sprt`: 3, 4; `arena
league submit`: 3). Only typer, the standard library and the arena's errors are imported here:
`arena --help` stays light.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any, NoReturn, TypeVar

import typer

from arena.base.errors import ArenaError, ConfigError

if TYPE_CHECKING:
    from rich.console import Console

# Exit statuses every command shares (a command's own verdicts are its own: `arena sprt`'s).
OK = 0
ARENA_FAILURE = 1  # the arena's own failure: a file it could not write, a stdout that broke
BAD_INPUT = 2  # a config, option or file of the user's that cannot be used; nothing started


class _Console:
    """A rich Console made at its first use, so that commands that print nothing rich (and
    `--help`) never import rich."""

    def __init__(self, **options: Any) -> None:
        self._options = options
        self._made: Console | None = None

    @property
    def console(self) -> Console:
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


def widen_when_piped() -> None:
    """A table printed to a file or a pipe gets `PIPED_WIDTH` columns (rich's 80 would cut the
    cells), unless COLUMNS says otherwise."""
    if not out.is_terminal and "COLUMNS" not in os.environ:
        out.console.width = PIPED_WIDTH


def fail(message: str, status: int) -> NoReturn:
    """One line on stderr (for grep and scripts, whatever the terminal width), then exit."""
    if status == 1:  # the arena's own failure: in red
        from arena.base.terminal import inert

        err.print(inert(message, limit=2000), style="bold red", soft_wrap=True)
    else:  # plain: a mistake in a file or an option is told without loading rich
        say(message, error=True)
    raise typer.Exit(status)


def renamed(old: str, new: str, value: T | None, given: T | None) -> T | None:
    """An option's value given by its old spelling (kept hidden for one release), with a
    one-line note on stderr; refused beside the new one."""
    if value is None:
        return given
    if given is not None:
        fail(f"{old} and {new}: give {new} alone ({old} is its old name)", 2)
    say(f"note: {old} is now {new}; the old name goes in the next release", error=True)
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


def say(line: str, *, error: bool = False) -> None:
    """One plain line (a file name made printable), without loading rich: verify prints many."""
    from arena.base.terminal import printable

    stream = sys.stderr if error else sys.stdout
    stream.write(printable(line, limit=2000) + "\n")


def count(number: int, noun: str) -> str:
    return f"{number} {noun}" + ("" if number == 1 else "s")


def relative(path: Path, cwd: Path) -> str:
    """`path` as seen from `cwd` when it is below it, else as it is."""
    try:
        return str(path.relative_to(cwd))
    except ValueError:
        return str(path)
