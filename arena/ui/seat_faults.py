"""What went wrong for each seat of a played match, said where the user is looking.

A seat that could not start or was stopped gets its fault, the last lines of its stderr (stack
frames folded, so a Node or Java error line shows), the path of its log and, when the sandbox
stopped it, what to do instead; replies that broke a rule get their count, the first reason and
what the bot wrote. `arena check` uses the same stderr tail and sandbox hints.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Iterator
from pathlib import Path

from rich.text import Text

from arena.base.terminal import inert
from arena.referee.hints import sandbox_hints, stderr_tail
from arena.seats.replies import FaultKind
from arena.tournaments.runner import FaultSeen, MatchPlayed

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
