"""A match as a list of steps a person can follow: the deal, asks, draws, books, faults, the end.

Built from a replay (or, during `arena play`, from a match in progress) by applying the
engine's events to a `Table`, so every step carries the table as it was right after it. Each
step says what happened twice over: as the whole table saw it (`line`) and as each seat saw
it (`seen[k]`, None when seat k was not shown it). What a seat sees is decided here only:

- its own hand and draws in full; another seat's hand as a size;
- every ask and its answer (who, whom, which rank, how many cards were handed over);
- another seat's draw named only when it was the rank just asked for, as at a real table
  (under `luckyDraw` the drawer shows it and asks again: a step seen by every seat);
- every book as it is laid (books go down face up);
- its own invalid asks and faults; the arena tells nobody else of them (contract §2.6).

Nothing here prints: `arena.ui.show` and `arena.ui.viewer` render the steps.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from enum import StrEnum

from arena.base.errors import ReplayError
from arena.base.words import ordinal
from arena.engine.cards import Card, describe, rank_sign
from arena.engine.events import (
    Asked,
    AskRefused,
    BookLaid,
    Drew,
    Event,
    LuckyDraw,
    NoOneToAsk,
    PickedUp,
    WentFishing,
    as_json,
)
from arena.engine.match import MatchSetup, Outcome, Result
from arena.engine.rules import NextPlayer, RefillWhen, Rules, Table, shown
from arena.engine.text import shorten
from arena.referee.loop import replay_transcript
from arena.replays.replay import Replay, deck_problem, setup_of
from arena.seats.replies import Exchange, FaultKind, SeatFault


class StepKind(StrEnum):
    DEAL = "deal"
    ASK = "ask"
    INVALID_ASK = "invalid-ask"
    DRAW = "draw"
    LUCKY_DRAW = "lucky-draw"
    NO_ONE_TO_ASK = "no-one-to-ask"
    BOOK = "book"
    FAULT = "fault"
    END = "end"


@dataclass(frozen=True)
class Who:
    """A seat named in a line (rendered with its name and colour)."""

    seat: int


Segment = str | Who
Line = tuple[Segment, ...]


@dataclass(frozen=True)
class Move:
    """Cards that changed place: `source`/`target` are `pond`, `hand` or `book` (with a seat)."""

    cards: tuple[int, ...]
    source: str
    target: str
    seat_from: int | None = None
    seat_to: int | None = None


@dataclass(frozen=True)
class Step:
    kind: StepKind
    at: int  # transcript index of the message this step happened at (or before)
    seat: int | None  # the seat the step is about
    line: Line  # as the whole table saw it
    seen: tuple[Line | None, ...]  # as each seat saw it; None: not shown to that seat
    moves: tuple[Move, ...]
    hands: tuple[tuple[int, ...], ...]  # card ids per seat, after the step
    pond: int  # cards in the pond, after the step
    books: tuple[tuple[int, ...], ...]  # ranks booked per seat, in the order laid
    fault: bool = False  # a fault or an invalid ask: highlighted


_PLURALS = {0: "Aces", 10: "Jacks", 11: "Knights", 12: "Queens", 13: "Kings"}


def rank_name(rank: int, plural: bool = False) -> str:
    """`7`, `Q` (on a card), or `7s`, `Queens` (in a sentence)."""
    if plural:
        return _PLURALS.get(rank) or f"{rank_name(rank)}s"
    return rank_sign(rank)


class TimelineBuilder:
    """Turns the engine's events (and the faults) into steps, one at a time."""

    def __init__(self, setup: MatchSetup) -> None:
        self.setup = setup
        self.seats = len(setup.names)
        self.cards: dict[int, Card] = {card["id"]: card for card in setup.deck}
        self.table = Table(self.seats, list(setup.deck), setup.rules.knights)
        self.booked: list[list[int]] = [[] for _ in range(self.seats)]
        self.last_ask: dict[int, int] = {}  # seat → rank of its latest ask
        self.steps: list[Step] = []

    # -- the steps ----------------------------------------------------------------------

    def deal(self) -> Step | None:
        """The deal, or None when the pack cannot cover it (did-not-start)."""
        rules = self.setup.rules
        if len(self.table.pond) < rules.cards_to_deal(self.seats):
            return None
        size = rules.hand_size(self.seats)
        self.table.deal(size)
        starter = Who(self.setup.starting_player)
        line: Line = (
            f"dealt {size} cards each, {len(self.table.pond)} left in the pond; first to ask: ",
            starter,
        )
        seen = tuple(
            (Who(seat), f": dealt {self._names(self.table.hands[seat])}; first to ask: ", starter)
            for seat in range(self.seats)
        )
        moves = tuple(
            Move(tuple(c["id"] for c in hand), "pond", "hand", seat_to=seat)
            for seat, hand in enumerate(self.table.hands)
        )
        return self._add(StepKind.DEAL, 0, None, line, seen, moves)

    def event(self, event: Event, transcript: Sequence[Exchange]) -> Step | None:
        """The step of one engine event. Raises ReplayError if it does not fit the table."""
        try:
            match event:
                case Asked():
                    return self._asked(event)
                case WentFishing() | PickedUp():
                    return self._drew(event)
                case BookLaid():
                    return self._book(event)
                case AskRefused():
                    return self._invalid(event, transcript)
                case LuckyDraw():
                    return self._lucky(event)
                case NoOneToAsk():
                    return self._no_one_to_ask(event)
        except (KeyError, IndexError, TypeError, ValueError) as error:
            raise ReplayError(f"event {as_json(event)} does not fit the table: {error!r}") from None
        return None

    def fault(self, fault: SeatFault) -> Step:
        seat = fault.seat
        line: Line = ("fault: ", Who(seat), f" — {fault.kind}: {shorten(fault.fault.detail, 120)}")
        if fault.fault.raw:
            line += (f" (it wrote: {shorten(fault.fault.raw, 60)})",)
        return self._add(
            StepKind.FAULT, fault.at, seat, line, self._only(seat, line), (), fault=True
        )

    def end(self, result: Result, at: int) -> Step:
        if result.outcome is Outcome.INTERRUPTED:
            # A match stopped before its end has no places: books so far are not a result.
            line: Line = ("match stopped (interrupted), no places; books so far: ",)
            for seat in range(len(result.scores)):
                line += (Who(seat), f" {_books(result.scores[seat])}  ")
            return self._add(StepKind.END, at, None, line, (line,) * self.seats, ())
        line = (f"match over ({result.outcome}): ",)
        for seat in sorted(range(len(result.scores)), key=lambda s: (result.places[s], s)):
            line += (Who(seat), f" {_books(result.scores[seat])} ({_place(result.places[seat])})  ")
        return self._add(StepKind.END, at, None, line, (line,) * self.seats, ())

    # -- events -------------------------------------------------------------------------

    def _asked(self, event: Asked) -> Step:
        asker, asked, rank = event.seat, event.asked, event.rank
        moving = tuple(c["id"] for c in self.table.hands[asked] if c["rank"] == rank)
        moved = self.table.hand_over(asked, asker, rank)
        if moved != event.moved:
            raise ValueError(f"{moved} cards move, the event says {event.moved}")
        self.last_ask[asker] = rank
        head: Line = (Who(asker), " asked ", Who(asked), f" for {rank_name(rank, True)}: ")
        if moved:
            names = self._names(self.table.hands[asker][-moved:])
            line = head + (Who(asked), f" handed over {moved} ({names})")
            public = head + (Who(asked), f" handed over {moved}")
            seen = tuple(line if seat in (asker, asked) else public for seat in range(self.seats))
        else:
            line = head + ("go fish",)
            seen = (line,) * self.seats
        moves = (Move(moving, "hand", "hand", asked, asker),) if moved else ()
        return self._add(StepKind.ASK, event.at, asker, line, seen, moves)

    def _drew(self, event: Drew) -> Step:
        seat, index = event.seat, event.place
        if self.table.pond[index]["id"] != event.card_id:
            raise ValueError(f"pond card {index} is not card {event.card_id}")
        card = self.table.draw(seat, index)
        name = describe(card)
        if isinstance(event, WentFishing):
            asked_for = self.last_ask.get(seat)
            lucky = asked_for == card["rank"]
            line: Line = (
                Who(seat),
                f" went fishing and drew {name}" + (", the rank asked for" if lucky else ""),
            )
            public: Line = line if lucky else (Who(seat), " went fishing")
        else:
            line = (Who(seat), f" picked up {name}")
            public = (Who(seat), " picked up a card")
        seen = tuple(line if s == seat else public for s in range(self.seats))
        moves = (Move((card["id"],), "pond", "hand", seat_to=seat),)
        return self._add(StepKind.DRAW, event.at, seat, line, seen, moves)

    def _lucky(self, event: LuckyDraw) -> Step:
        seat, card = event.seat, self.cards[event.card_id]
        line: Line = (Who(seat), f" shows {describe(card)}, the rank asked for, and asks again")
        return self._add(StepKind.LUCKY_DRAW, event.at, seat, line, (line,) * self.seats, ())

    def _no_one_to_ask(self, event: NoOneToAsk) -> Step:
        seat = event.seat
        line: Line = (Who(seat), " has no one to ask and goes fishing")
        return self._add(StepKind.NO_ONE_TO_ASK, event.at, seat, line, (line,) * self.seats, ())

    def _book(self, event: BookLaid) -> Step:
        seat, rank = event.seat, event.rank
        book = self.table.lay_book(seat, rank)
        ids = tuple(c["id"] for c in book)
        if sorted(ids) != sorted(event.card_ids):
            raise ValueError(f"the book is {ids}, the event says {list(event.card_ids)}")
        self.booked[seat].append(rank)
        line: Line = (Who(seat), f" laid a book of {rank_name(rank, True)}")
        moves = (Move(ids, "hand", "book", seat, seat),)
        return self._add(StepKind.BOOK, event.at, seat, line, (line,) * self.seats, moves)

    def _invalid(self, event: AskRefused, transcript: Sequence[Exchange]) -> Step:
        seat, at = event.seat, event.at
        answer = transcript[at].answer if 0 <= at < len(transcript) else None
        if answer is not None and not answer.delivered:
            line: Line = (Who(seat), " could not ask: it was stopped earlier; the turn passes")
            return self._add(
                StepKind.INVALID_ASK, at, seat, line, self._only(seat, line), (), fault=True
            )
        if answer is not None and answer.fault is not None:
            why = f"gave no reply ({answer.fault.kind})"
        else:
            reply = None if answer is None else answer.value
            why = "asked " + shown(reply, 60)
            if event.detail:
                why += f": {event.detail}"
        line = (Who(seat), f" made an invalid ask: {why}; the turn passes")
        return self._add(
            StepKind.INVALID_ASK, at, seat, line, self._only(seat, line), (), fault=True
        )

    # -- helpers ------------------------------------------------------------------------

    def _only(self, seat: int, line: Line) -> tuple[Line | None, ...]:
        return tuple(line if s == seat else None for s in range(self.seats))

    def _names(self, cards: Iterable[Card]) -> str:
        return " ".join(describe(card) for card in cards) or "no cards"

    def _add(
        self,
        kind: StepKind,
        at: int,
        seat: int | None,
        line: Line,
        seen: tuple[Line | None, ...],
        moves: tuple[Move, ...],
        *,
        fault: bool = False,
    ) -> Step:
        step = Step(
            kind=kind,
            at=at,
            seat=seat,
            line=line,
            seen=seen,
            moves=moves,
            hands=tuple(tuple(c["id"] for c in hand) for hand in self.table.hands),
            pond=len(self.table.pond),
            books=tuple(tuple(b) for b in self.booked),
            fault=fault,
        )
        self.steps.append(step)
        return step


def rules_summary(rules: Rules, seats: int) -> str:
    """The settings of a match in a few words, for the viewers' headers."""
    deal = f"{rules.hand_size(seats)} cards each" + (
        " (by table size)" if rules.deal_by_seats else ""
    )
    parts = [deal, f"refill to {rules.min_hand_size}" if rules.min_hand_size else "no refill"]
    if rules.next_player is NextPlayer.CLOCKWISE:
        parts.append("next: Clockwise (the seat after the one asked)")
    else:
        parts.append(f"next: {rules.next_player}")
    if rules.lucky_draw:
        parts.append("lucky draw")
    if rules.refill_empty_hand:
        when = "at once" if rules.refill_when is RefillWhen.AT_ONCE else "on its turn"
        parts.append(f"an empty hand draws {rules.refill_empty_hand} {when}")
    if rules.draw_when_no_one_to_ask:
        parts.append("no one to ask: draw")
    decks = f"{rules.number_of_decks} deck" + ("s" if rules.number_of_decks > 1 else "")
    parts.append(decks + (" with knights" if rules.knights else ""))
    return ", ".join(parts)


def _books(count: int) -> str:
    return f"{count} book" if count == 1 else f"{count} books"


def _place(place: object) -> str:
    return ordinal(place) if isinstance(place, int) else str(place)


def build(replay: Replay) -> tuple[MatchSetup, list[Step]]:
    """The steps of a replay (as `arena.replays.replay.read` gives it). Raises ReplayError.

    The events come from the engine, fed the transcript's replies, so the steps agree with
    what `arena replay verify` checks whatever the file's informative `events` say.
    """
    setup = setup_of(replay)
    wrong_deck = deck_problem(setup)
    if wrong_deck is not None:
        raise ReplayError(wrong_deck)
    try:
        events = replay_transcript(setup, list(replay.transcript)).events
    except (KeyError, TypeError, ValueError) as error:
        raise ReplayError(f"malformed replay: {error!r}") from None
    builder = TimelineBuilder(setup)
    transcript = replay.transcript
    if builder.deal() is not None:
        # A fault at message i happened before the events that message's reply caused
        # (their `at` is i too): sort faults first among equals. A refused ask is shown by
        # its `invalid-ask` event, with the reason.
        faults = [f for f in replay.faults if f.kind is not FaultKind.REFUSED_ASK]
        timed = [(f.at, 0, n) for n, f in enumerate(faults)]
        timed += [(e.at, 1, n) for n, e in enumerate(events)]
        timed.sort()
        for _, is_event, n in timed:
            if is_event:
                builder.event(events[n], transcript)
            else:
                builder.fault(faults[n])
    builder.end(replay.result, len(transcript))
    return setup, builder.steps


def turn_starts(steps: Iterable[Step]) -> list[int]:
    """The transcript index at which each turn starts: turn k (from 1) is item k - 1.

    A turn is a seat's run of asks: it starts with an ask (valid or not) by another seat than
    the last one to ask, or by the same seat after its ask missed (without a lucky draw) or was
    refused; a draw by a seat with no one to ask is a turn of its own.
    """
    starts: list[int] = []
    asker: int | None = None
    passed = True
    for step in steps:
        if step.kind is StepKind.LUCKY_DRAW:
            passed = False  # the asked rank from the pond: the same seat asks again
            continue
        if step.kind not in (StepKind.ASK, StepKind.INVALID_ASK, StepKind.NO_ONE_TO_ASK):
            continue
        if passed or step.seat != asker:
            starts.append(step.at)
            asker = step.seat
        passed = step.kind is not StepKind.ASK or not step.moves
    return starts
