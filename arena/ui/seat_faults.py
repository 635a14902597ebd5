"""What went wrong for each seat of a played match, said where the user is looking.

A seat that could not start or was stopped gets its fault, the last lines of its stderr (stack
frames folded, so a Node or Java error line shows), the path of its log and, when the sandbox
stopped it, what to do instead; replies that broke a rule get their count, the first reason and
what the bot wrote. `arena check` uses the same stderr tail and sandbox hints.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Collection, Iterator, Sequence
from pathlib import Path

from rich.text import Text

import arena
from arena.seats.replies import FaultKind
from arena.tournaments.runner import FaultSeen, MatchPlayed
from arena.ui.terminal import inert

STDERR_LINES = 5  # lines of a stopped seat's stderr shown at the terminal
NOUNS = {
    FaultKind.NOT_JSON: ("reply that was not JSON", "replies that were not JSON"),
    FaultKind.REFUSED_ASK: ("refused ask", "refused asks"),
    FaultKind.BAD_POND_INDEX: (
        "pond index that was not a number",
        "pond indices that were not numbers",
    ),
    FaultKind.UNSOLICITED: ("output nobody asked for", "outputs nobody asked for"),
    FaultKind.LOG_FULL: ("stderr log over its cap", "stderr logs over their cap"),
}
# What a bot usually did to earn the fault, told after its first example.
HINTS = {
    FaultKind.NOT_JSON: "stdout is for replies only: log to stderr",
    FaultKind.UNSOLICITED: "one line per message, and debug output on stderr",
    FaultKind.LOG_FULL: "write less to stderr, or raise limits.stderrBytes",
}
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


def log_path(replay: Path, seat: int) -> Path:
    """Where `replay.write` keeps a seat's stderr beside its replay."""
    return replay.with_name(f"{replay.stem}.seat{seat}.stderr.log")


def notes(
    played: MatchPlayed,
    replay: Path,
    shown_path: Callable[[Path], str] = str,
    *,
    seats: Collection[int] | None = None,
    counted: bool = True,
    stops: bool = True,
) -> Iterator[Text]:
    """Lines for every seat (of `seats`, default all) that had a fault; nothing for a clean match.

    `shown_path` turns a path into the text printed (e.g. relative to the current folder);
    without `counted`, only a fault that stopped the seat is told; without `stops`, only the
    counted ones.
    """
    for seat, name in enumerate(played.names):
        if seats is not None and seat not in seats:
            continue
        own = [seen for seen in played.faults if seen.fault.seat == seat]
        stop = next((seen for seen in own if seen.fault.kind.stops), None)
        if stop is not None and stops:
            fault = stop.fault
            told = f"{fault.kind} at message {_message(stop)}: {fault.fault.detail}"
            if stop.message == "match-end":  # the match was over: only a reply lacked
                told += " (match-end wants a reply too: null, then exit)"
            yield _who(name).append_text(inert(told, limit=600))
            log = played.logs[seat] if seat < len(played.logs) else ""
            tail = stderr_tail(log, STDERR_LINES)
            if tail:
                where = log_path(replay, seat)
                yield Text(f"    last lines of its stderr ({shown_path(where)}):", style="dim")
                for line in tail:
                    yield Text("      ").append_text(inert(line, limit=200))
            else:
                yield Text("    it wrote nothing on stderr", style="dim")
            confined = seat < len(played.confinement) and played.confinement[seat] == "bwrap"
            for hint in sandbox_hints(log) if confined else ():
                yield Text("    in the sandbox: ", style="yellow").append_text(
                    inert(hint, limit=600)
                )
        kinds = dict.fromkeys(seen.fault.kind for seen in own if not seen.fault.kind.stops)
        for kind in kinds if counted else ():
            same = [seen for seen in own if seen.fault.kind == kind]
            first = same[0]
            one, many = NOUNS[kind]
            text = (
                f"{len(same)} {one if len(same) == 1 else many}; the first, at message "
                f"{_message(first)}: {first.fault.fault.detail}"
            )
            raw = first.fault.fault.raw
            if kind in (FaultKind.NOT_JSON, FaultKind.UNSOLICITED) and raw is not None:
                text += f"; it wrote {raw[:80]!r}"
            if kind in HINTS:
                text += f" ({HINTS[kind]})"
            yield _who(name).append_text(inert(text, limit=600))


def _who(name: str) -> Text:
    return Text("  ").append_text(inert(name, 24)).append(": ")


def _message(seen: FaultSeen) -> str:
    """`#7 (ask)`: the transcript index, from 0 as `replay show` numbers messages, and its type."""
    at = seen.fault.at
    return f"#{at}" if seen.message is None else f"#{at} ({seen.message})"


class FirstStops:
    """Over a run of many matches: the first match in which each participant was stopped (it
    could not start, crashed, timed out…), and the first in which it broke a rule (a refused
    ask, a reply that was not JSON…), kept to be told after the standings with the reason."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self.found: dict[str, tuple[MatchPlayed, int]] = {}
        self.broke: dict[str, tuple[MatchPlayed, int]] = {}

    def add(self, played: MatchPlayed) -> None:
        """Note a played match, its results line on disk."""
        for seen in played.faults:
            name = played.names[seen.fault.seat]
            first = self.found if seen.fault.kind.stops else self.broke
            first.setdefault(name, (played, seen.fault.seat))

    def notes(self, shown_path: Callable[[Path], str] = str) -> Iterator[Text]:
        for found, stops, about in (
            (self.found, True, "stopped participants, each at its first time"),
            (self.broke, False, "invalid replies, each participant's first match with them"),
        ):
            if not found:
                continue
            yield Text(f"{about} (the faults table counts them all):")
            for played, seat in found.values():
                replay = self.folder / played.line.replay
                yield Text(f"  game {played.match} ({shown_path(replay)}):", style="dim")
                yield from notes(
                    played, replay, shown_path, seats={seat}, counted=not stops, stops=stops
                )
