"""What to tell a participant's writer when something went wrong that the participant can fix:
the last lines of its stderr with stack frames folded (`stderr_tail`), what the sandbox stopped
as read from that stderr (`sandbox_hints`), and why a match stalled (`stalled_note`). `arena
check` and the lines `arena run` prints about a seat's faults say the same words.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from pathlib import Path

import arena
from arena.engine.rules import NextPlayer, Rules

# A frame of a Node, Java or C# stack trace (`    at f (bot.js:3:9)`, `\tat Bot.main(Bot.java:9)`,
# `\t... 3 more`): these follow the error line, so a plain tail would show only frames.
_FRAME = re.compile(r"^\s+(at\s|\.\.\.\s\d+\smore)")


def stderr_tail(log: str, lines: int) -> list[str]:
    """The last `lines` non-blank lines of a stderr log, with every stack frame after the first
    of a trace folded into one line, so that the error line a trace starts with stays in view."""
    kept: list[str] = []
    folded = 0
    for line in log.splitlines():
        if not line.strip():
            continue
        if _FRAME.match(line) and kept and _FRAME.match(kept[-1]):
            folded += 1
            continue
        if folded:
            kept.append(f"    … {folded} more stack line{'s' if folded > 1 else ''}")
            folded = 0
        kept.append(line)
    if folded:
        kept.append(f"    … {folded} more stack line{'s' if folded > 1 else ''}")
    return kept[-lines:]


# What the sandbox stopped, read from a program's stderr, and what to do instead.
SANDBOX_HINTS = (
    (
        ("Read-only file system",),
        (
            "it tried to write outside its temporary folder: in the sandbox only $TMPDIR (= $HOME, a private "
            "folder emptied when the process ends) is writable; write there, and keep what it must read in its "
            "own folder or in a readOnly path the organiser gives it (docs/sandbox.md)"
        ),
    ),
    (
        ("Permission denied",),
        (
            "it was refused a file: in the sandbox it runs as an unprivileged user that may write only "
            "$TMPDIR (= $HOME) and read only what all may read; keep what it must read in its own folder "
            "(a folder of its own, not the config's) or a readOnly path, readable by all (docs/sandbox.md)"
        ),
    ),
    (
        (
            "Network is unreachable",
            "Temporary failure in name resolution",
            "Name or service not known",
            "ECONNREFUSED",
            "ENETUNREACH",
            "EAI_AGAIN",
            "Connection refused",
        ),
        (
            "it tried to use the network, which a participant never has in the sandbox (not even loopback): "
            "everything it needs must come with it, in its folder or a readOnly path (docs/sandbox.md)"
        ),
    ),
    (
        ("rustup could not choose a version", "no default toolchain", "rustup: command not found"),
        (
            "it found no Rust toolchain: rustup's lives in a home folder, and in the sandbox "
            "$HOME is its private /tmp; build first (cargo build --release) and enter the program "
            "built (./target/release/BOT), not `cargo run`"
        ),
    ),
)


# A program that could not find a file or class it names (Java, Python, Node, a shell): in the
# sandbox, most often one that its own files did not bring along.
NOT_FOUND = (
    "Could not find or load main class",
    "ClassNotFoundException",
    "NoClassDefFoundError",
    "Unable to access jarfile",
    "No such file or directory",
    "can't open file",
    "Cannot find module",
)
HELD_SHOWN = 4  # of the paths the sandbox held, named in the hint


def sandbox_hints(
    stderr: str, readable: Sequence[str] | None = None, folder: Path | None = None
) -> list[str]:
    """What the sandbox stopped, as read from the program's stderr, and what to do instead;
    `readable`, when known, is what the sandbox held beyond the system (`Jail.readable`), and
    `folder` the one the program was started from."""
    hints = [hint for marks, hint in SANDBOX_HINTS if any(mark in stderr for mark in marks)]
    if any(mark in stderr for mark in NOT_FOUND):
        hints.append(_not_found(readable, folder))
    return hints


def _not_found(readable: Sequence[str] | None, folder: Path | None) -> str:
    held = "its program's own files and the system's folders"
    if readable is not None:
        package = str(Path(arena.__file__).resolve().parent)  # (given to every participant)
        paths = [path for path in readable if path != package and not path.startswith("/etc/")]
        more = len(paths) - HELD_SHOWN
        named = ", ".join(paths[:HELD_SHOWN]) + (f" and {more} more" if more > 0 else "")
        held = f"{named} and the system's folders" if paths else "the system's folders"
    if folder is not None:
        inside = readable is not None and any(Path(p).is_relative_to(folder) for p in readable)
        held += f", nothing {'else ' if inside else ''}of {folder}"
    return (
        f"it could not find a file or class it names: the sandbox held only {held}; give it "
        "what it reads with `arena check --read-only PATH` (in a config, the participant's "
        '`readOnly = ["PATH"]`) and name it by its absolute path (docs/sandbox.md)'
    )


def stalled_note(rules: Rules, seats: int = 2, idle: int = 100) -> str:
    """Why a match stalls (`idle` asks in a row that moved no card), in words: what the bot
    writer (or the organiser) can look at."""
    note = (
        f"stalled: {idle} ask{'s' if idle != 1 else ''} in a row moved no card (invalid asks, or misses once the pond is "
        "empty: ask where the rank may be)"
    )
    if rules.next_player is NextPlayer.CLOCKWISE:
        note += (
            '; NOTE nextPlayer = "Clockwise" passes the turn to the seat AFTER THE ONE ASKED, '
            "not after the asker: a miss on the seat before you hands the turn straight back"
        )
    elif rules.next_player is NextPlayer.ASKED and seats >= 3:
        note += (
            '; at 3 or more seats, nextPlayer = "Asked" lets two seats that keep asking each '
            "other for ranks they lack pass the turn between them while the others never ask "
            '(the example bots do): "After asker" passes it round the table'
        )
    return note
