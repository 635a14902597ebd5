"""What went wrong for each seat of a played match, said where the user is looking.

A seat that could not start or was stopped gets its fault, the last lines of its stderr (stack
frames folded, so a Node or Java error line shows), the path of its log and, when the sandbox
stopped it, what to do instead; replies that broke a rule get their count, the first reason and
what the bot wrote. `arena check` uses the same stderr tail and sandbox hints.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

from rich.text import Text

from arena.ui.terminal import inert

STDERR_LINES = 5  # lines of a stopped seat's stderr shown at the terminal
# Faults that stop a participant for the rest of its match.
STOPPING = ("start-failed", "exited", "crashed", "timeout", "line-too-long", "too-much-output")
# Faults after which it plays on; each is reported in the order of its first time.
COUNTED = ("not-json", "refused-ask", "bad-pond-index", "unsolicited-output", "log-full")
NOUNS = {
    "not-json": ("reply that was not JSON", "replies that were not JSON"),
    "refused-ask": ("refused ask", "refused asks"),
    "bad-pond-index": ("pond index that was not a number", "pond indices that were not numbers"),
    "unsolicited-output": ("output nobody asked for", "outputs nobody asked for"),
    "log-full": ("stderr log over its cap", "stderr logs over their cap"),
}
# What a bot usually did to earn the fault, told after its first example.
HINTS = {
    "not-json": "stdout is for replies only: log to stderr",
    "unsolicited-output": "one line per message, and debug output on stderr",
    "log-full": "write less to stderr, or raise limits.stderrBytes",
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
)


def sandbox_hints(stderr: str) -> list[str]:
    """What the sandbox stopped, as read from the program's stderr, and what to do instead."""
    return [hint for marks, hint in SANDBOX_HINTS if any(mark in stderr for mark in marks)]


def log_path(replay: Path, seat: int) -> Path:
    """Where `replay.write` keeps a seat's stderr beside its replay."""
    return replay.with_name(f"{replay.stem}.seat{seat}.stderr.log")


def notes(
    document: Mapping[str, Any],
    replay: Path,
    logs: Sequence[str],
    shown_path: Any = str,
    *,
    seats: Collection[int] | None = None,
    counted: bool = True,
) -> Iterator[Text]:
    """Lines for every seat (of `seats`, default all) that had a fault; nothing for a clean match.

    `shown_path` turns a path into the text printed (e.g. relative to the current folder);
    without `counted`, only a fault that stopped the seat is told.
    """
    names = [str(player.get("name", "?")) for player in document.get("players") or []]
    faults = [f for f in document.get("faults") or [] if isinstance(f, Mapping)]
    transcript = document.get("transcript") or []
    for seat, name in enumerate(names):
        if seats is not None and seat not in seats:
            continue
        own = [f for f in faults if f.get("seat") == seat]
        stop = next((f for f in own if f.get("kind") in STOPPING), None)
        if stop is not None:
            told = f"{stop.get('kind')} at message {_message(stop, transcript)}: {stop.get('detail', '')}"
            if _type_at(stop, transcript) == "match-end":  # the match was over: only a reply lacked
                told += " (match-end wants a reply too: null, then exit)"
            yield _who(name).append_text(inert(told, limit=600))
            log = logs[seat] if seat < len(logs) else ""
            tail = stderr_tail(log, STDERR_LINES)
            if tail:
                where = log_path(replay, seat)
                yield Text(f"    last lines of its stderr ({shown_path(where)}):", style="dim")
                for line in tail:
                    yield Text("      ").append_text(inert(line, limit=200))
            else:
                yield Text("    it wrote nothing on stderr", style="dim")
            players = document.get("players") or []
            confined = (
                isinstance(players[seat], Mapping) and players[seat].get("sandbox") == "bwrap"
            )
            for hint in sandbox_hints(log) if confined else ():
                yield Text("    in the sandbox: ", style="yellow").append_text(
                    inert(hint, limit=600)
                )
        kinds = dict.fromkeys(f.get("kind") for f in own if f.get("kind") in COUNTED)
        for kind in kinds if counted else ():
            same = [f for f in own if f.get("kind") == kind]
            first = same[0]
            one, many = NOUNS[str(kind)]
            text = (
                f"{len(same)} {one if len(same) == 1 else many}; the first, at message "
                f"{_message(first, transcript)}: {first.get('detail', '')}"
            )
            raw = first.get("raw")
            if kind in ("not-json", "unsolicited-output") and isinstance(raw, str):
                text += f"; it wrote {raw[:80]!r}"
            if kind in HINTS:
                text += f" ({HINTS[str(kind)]})"
            yield _who(name).append_text(inert(text, limit=600))


def _who(name: str) -> Text:
    return Text("  ").append_text(inert(name, 24)).append(": ")


def _message(fault: Mapping[str, Any], transcript: Sequence[Any]) -> str:
    """`#7 (ask)`: the transcript index, from 0 as `replay show` numbers messages, and its type."""
    at = fault.get("at")
    if not isinstance(at, int):
        return "?"
    kind = _type_at(fault, transcript)
    return f"#{at}" if kind is None else f"#{at} ({kind})"


def _type_at(fault: Mapping[str, Any], transcript: Sequence[Any]) -> object:
    """The type of the message a fault came with, when the transcript has it."""
    at = fault.get("at")
    if isinstance(at, int) and 0 <= at < len(transcript) and isinstance(transcript[at], Mapping):
        message = transcript[at].get("message")
        if isinstance(message, Mapping):
            return message.get("type")
    return None


class FirstStops:
    """Over a run of many matches: the first match in which each participant was stopped (it
    could not start, crashed, timed out…), kept to be told after the standings."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self.found: dict[str, tuple[int, Path, dict[str, Any], tuple[str, ...], int]] = {}

    def add(self, line: Mapping[str, Any], played: Any) -> None:
        """Note a played match (`played`: a runner's MatchPlayed, its `line` in results.jsonl)."""
        stopped = [
            seat
            for seat, counts in enumerate(played.fault_counts)
            if any(kind in STOPPING for kind in counts) and played.names[seat] not in self.found
        ]
        if not stopped:
            return
        import orjson

        document = orjson.loads(played.document)
        for seat in stopped:
            self.found[played.names[seat]] = (
                played.match,
                self.folder / str(line.get("replay", "")),
                document,
                tuple(played.logs),
                seat,
            )

    def notes(self, shown_path: Any = str) -> Iterator[Text]:
        if not self.found:
            return
        yield Text(
            "stopped participants, each at its first time (the faults table counts them all):"
        )
        for match, replay, document, logs, seat in self.found.values():
            yield Text(f"  game {match} ({shown_path(replay)}):", style="dim")
            yield from notes(document, replay, logs, shown_path, seats={seat}, counted=False)
