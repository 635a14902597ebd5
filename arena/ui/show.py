"""`arena replay show`: a replay as a terminal timeline, whole or as one seat saw it.

Builds rich renderables (the CLI prints them). Every string that comes from the replay
(names, fault details, raw replies) goes through `arena.base.terminal.inert`.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence

from rich.console import Group, RenderableType
from rich.rule import Rule
from rich.table import Table as RichTable
from rich.text import Text

from arena.base.errors import ReplayError
from arena.base.terminal import inert, printable
from arena.engine.cards import Card, describe, ranks
from arena.engine.match import MatchSetup
from arena.replays.replay import ForkOrigin, Replay
from arena.replays.timeline import (
    Line,
    Step,
    StepKind,
    Who,
    build,
    rank_name,
    rules_summary,
    turn_starts,
)

SEAT_STYLES = (
    "bold cyan",
    "bold magenta",
    "bold yellow",
    "bold green",
    "bold blue",
    "bold red",
    "bold bright_cyan",
    "bold bright_magenta",
)
NAME_LIMIT = 24


def seat_style(seat: int) -> str:
    return SEAT_STYLES[seat % len(SEAT_STYLES)]


class Names:
    """Seat names made safe for a terminal, each in its seat's colour."""

    def __init__(self, names: Sequence[str], you: int | None = None) -> None:
        self.names = [inert(str(name), NAME_LIMIT).plain for name in names]
        self.you = you

    def of(self, seat: int) -> Text:
        return Text(*self.styled(seat))

    def styled(self, seat: int) -> tuple[str, str]:
        """The seat's name (or `you`) and its style, for `Text.append`."""
        if seat == self.you:
            return "you", seat_style(seat)
        name = self.names[seat] if 0 <= seat < len(self.names) else f"seat {seat}"
        return name, seat_style(seat)

    def line(self, line: Line, style: str = "") -> Text:
        text = Text(style=style)
        for segment in line:
            if isinstance(segment, Who):
                text.append(*self.styled(segment.seat))
            else:
                text.append(printable(segment, 400))
        return text


def hand_text(cards: Sequence[Card]) -> Text:
    """A hand stacked by rank: `7 ×2 7♠ 7♥ · J J♣`."""
    groups: dict[int, list[Card]] = {}
    for card in cards:
        groups.setdefault(card["rank"], []).append(card)
    text = Text()
    for index, rank in enumerate(sorted(groups)):
        if index:
            text.append("  ")
        text.append(f"[{rank_name(rank)}]", style="bold")
        text.append(" " + " ".join(describe(card) for card in groups[rank]))
    return text if groups else Text("(no cards)", style="dim")


def book_strip(books: Sequence[Sequence[int]], knights: bool) -> Text:
    """One cell per rank, in the colour of the seat that booked it (several with many decks)."""
    owners: dict[int, list[int]] = {}
    for seat, ranks_booked in enumerate(books):
        for rank in ranks_booked:
            owners.setdefault(rank, []).append(seat)
    text = Text()
    for rank in ranks(knights):
        label = f"{rank_name(rank):>2}"
        seats = owners.get(rank)
        if not seats:
            text.append(f"[{label}]", style="dim")
        else:
            text.append("[", style=seat_style(seats[0]))
            text.append(label, style="reverse " + seat_style(seats[0]))
            text.append("]" if len(seats) == 1 else f"×{len(seats)}]", style=seat_style(seats[0]))
        text.append(" ")
    return text


def render(replay: Replay, seat: int | None = None, *, notes: bool = False) -> RenderableType:
    """The whole timeline of a replay; `seat`: only what that seat saw; `notes`: under each
    step, what the participants wrote to stderr while answering (only `seat`'s with `seat`).
    Raises ReplayError."""
    setup, steps = build(replay)
    seats = len(setup.names)
    if seat is not None and not 0 <= seat < seats:
        raise ReplayError(f"--seat {seat}: the replay has seats 0..{seats - 1}")
    names = Names(replay.shown_names(setup.names))
    parts: list[RenderableType] = [_header(replay, setup, names, seat)]
    noted = _Notes(replay, names, seat) if notes else None
    parts.extend(_timeline(setup, steps, names, seat, replay.fork, noted))
    parts.append(_final_table(replay, setup, steps, names, seat))
    return Group(*parts)


def _header(replay: Replay, setup: MatchSetup, names: Names, seat: int | None) -> Text:
    rules = setup.rules
    text = Text()
    text.append(f"seed {replay.seed}  ·  {len(setup.names)} seats  ·  ")
    text.append(rules_summary(rules, len(setup.names)))
    fork = replay.fork
    if fork is not None:
        text.append("\n")
        text.append_text(inert(f"forked from {fork.source} at message {fork.at}", 200))
        for s in fork.replaced:
            if 0 <= s < len(setup.names):
                played = replay.players[s].played_by if s < len(replay.players) else "?"
                text.append_text(inert(f"; seat {s} played by {played}", 400))
                text.append_text(inert(f" for {setup.names[s]}", 200))
    text.append("\nseats: ")
    for s in range(len(setup.names)):
        text.append(f"{s} ")
        text.append_text(names.of(s))
        text.append("  ")
    if seat is not None:
        text.append("\nas seen by seat ")
        text.append(f"{seat} ")
        text.append_text(names.of(seat))
        text.append(
            ": other hands show as sizes, their draws only when the rank asked for", style="dim"
        )
    return text


def _timeline(
    setup: MatchSetup,
    steps: Sequence[Step],
    names: Names,
    seat: int | None,
    fork: ForkOrigin | None,
    notes: _Notes | None = None,
) -> Iterator[RenderableType]:
    cards = {card["id"]: card for card in setup.deck}
    turns = {at: number for number, at in enumerate(turn_starts(steps), 1)}
    marked = fork is None
    for step in steps:
        if fork is not None and not marked and step.kind is not StepKind.END and step.at >= fork.at:
            yield Rule(_fork_title(fork), style="yellow")
            marked = True
        line = step.line if seat is None else step.seen[seat]
        if step.kind is StepKind.DEAL:
            yield Rule(Text("the deal"), style="dim")
            yield names.line(step.line if seat is None else (line or ()))
            for s, hand in enumerate(step.hands):
                if seat is None or s == seat:
                    yield (
                        Text("  ")
                        .append_text(names.of(s))
                        .append(": ")
                        .append_text(hand_text([cards[i] for i in hand]))
                    )
                else:
                    yield Text("  ").append_text(names.of(s)).append(f": {len(hand)} cards")
            if notes is not None:
                yield from notes.until(step.at)
            yield Rule(Text("play"), style="dim")
            continue
        if step.kind is StepKind.END:
            if notes is not None:
                yield from notes.until(None)
            yield Rule(Text("the end"), style="dim")
            yield names.line(step.line, "bold")
            continue
        starts = (StepKind.ASK, StepKind.INVALID_ASK, StepKind.NO_ONE_TO_ASK)
        starts_turn = step.kind in starts and step.at in turns
        if starts_turn and (line is not None or step.kind is StepKind.ASK):
            who = names.of(step.seat) if step.seat is not None else Text("?")
            yield Text(f"turn {turns[step.at]}: ", style="dim").append_text(who)
        if line is None:
            continue
        prefix = Text(f"{step.at:>6}  ", style="dim")
        if step.fault:
            yield prefix.append_text(names.line(line, "red"))
        elif step.kind is StepKind.BOOK:
            yield prefix.append_text(names.line(line, "bold"))
        else:
            yield prefix.append_text(names.line(line))
        if notes is not None:
            yield from notes.until(step.at)


NOTE_LINES = 20  # lines of one exchange's notes shown in the terminal; the replay keeps them all


class _Notes:
    """The transcript's notes, handed out in order: those up to a step go under it."""

    def __init__(self, replay: Replay, names: Names, seat: int | None) -> None:
        self.entries = [
            (index, exchange.seat, exchange.notes)
            for index, exchange in enumerate(replay.transcript)
            if exchange.notes and (seat is None or exchange.seat == seat)
        ]
        self.names = names
        self.next = 0

    def until(self, at: int | None) -> Iterator[Text]:
        """The notes of every exchange up to transcript index `at` (None: all that are left)."""
        while self.next < len(self.entries):
            index, seat, text = self.entries[self.next]
            if at is not None and index > at:
                return
            self.next += 1
            lines = text.splitlines() or [""]
            head = Text(f"{index:>6}  ", style="dim").append("✎ ", style="italic")
            head.append(*self.names.styled(seat)).append(": ", style="italic")
            yield head.append(printable(lines[0], 200), style="italic")
            for line in lines[1:NOTE_LINES]:
                yield Text(" " * 10).append(printable(line, 200), style="italic")
            if len(lines) > NOTE_LINES:
                more = len(lines) - NOTE_LINES
                yield Text(" " * 10).append(f"… {more} more lines in the replay", style="dim")


def _final_table(
    replay: Replay,
    setup: MatchSetup,
    steps: Sequence[Step],
    names: Names,
    seat: int | None,
) -> RenderableType:
    last = steps[-1]
    cards = {card["id"]: card for card in setup.deck}
    result = replay.result
    counts = replay.fault_counts
    # Text rather than str throughout: a str is parsed as console markup (and emoji codes).
    title = f"the final table ({result.outcome}, pond {last.pond})"
    unfinished = result.outcome == "interrupted"  # no places: books so far are not a result
    if unfinished:
        title = f"the table when the match was stopped (interrupted: no places, pond {last.pond})"
    table = RichTable(title=Text(title, style="table.title"), title_justify="left")
    for column in ("seat", "name", "books", "place", "booked ranks", "hand", "faults"):
        table.add_column(
            Text(column),
            justify="right" if column in ("seat", "books", "place", "faults") else "left",
        )
    for s in range(len(setup.names)):
        hand = last.hands[s]
        if seat is None or s == seat:
            shown = hand_text([cards[i] for i in hand]) if hand else Text("-", style="dim")
        else:
            shown = Text(f"{len(hand)} cards" if hand else "-", style="dim")
        faults = ""
        if seat is None or s == seat:
            faults = _fault_total(counts, s)
        table.add_row(
            Text(str(s)),
            names.of(s),
            Text(str(len(last.books[s]))),
            Text("-" if unfinished else str(result.places[s])),
            Text(" ".join(rank_name(r) for r in last.books[s]) or "-"),
            shown,
            Text(faults),
        )
    strip = Text("books: ").append_text(book_strip(last.books, setup.rules.knights))
    return Group(table, strip)


def _fault_total(counts: Sequence[Mapping[str, int]] | None, seat: int) -> str:
    """The seat's fault count from the replay's informative `faultCounts`, if it has one."""
    if counts is None or seat >= len(counts):
        return ""
    return str(sum(counts[seat].values()))


def _fork_title(fork: ForkOrigin) -> Text:
    """The line that marks where a forked replay leaves its source and plays live."""
    seats = ", ".join(f"seat {seat}" for seat in fork.replaced)
    who = f"; {seats} replaced" if seats else ""
    return inert(f"forked here{who}: live from message {fork.at} on", 200)
