"""The luck of one match: at every chance event, V(what happened) − mean V(what could have).

`measure(setup, events)` plays the match's events again on the engine's own `Table` (the deal
card by card, then every hand-over, draw and book in the order the engine made them) and, at
every draw from the pond, adds for each seat

    f_seat(table before, card drawn) − mean over the cards that could have been drawn of
    f_seat(table before, that card)

where f is V after the card (arena/luck/value.py; to first order for the win share). The cards
that could have been drawn are the engine's `Table.alike`: the pond cards of the drawn
position's deck (with one deck, the whole pond). The deal is left to duplicate groups (see
docs/luck.md for why). Given everything any seat could know, the card drawn is uniform
over those, so each term has mean zero whatever the seats did, and the sum, subtracted from a
seat's win share (or books), leaves its expectation unchanged (docs/luck.md).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from arena.engine.events import (
    Asked,
    AskRefused,
    BookLaid,
    Event,
    LuckyDraw,
    NoOneToAsk,
    PickedUp,
    WentFishing,
)
from arena.engine.match import MatchSetup
from arena.engine.rules import Table
from arena.luck.value import BITS, CURRENT, Valuer, state_of, valuer


@dataclass(frozen=True)
class Luck:
    """What chance gave each seat in one match, in win share and in books (sums over events)."""

    share: tuple[float, ...]
    books: tuple[float, ...]
    events: int  # chance events corrected: the draws
    version: str = CURRENT  # V's parameters

    def adjusted_shares(self, shares: Sequence[float]) -> tuple[float, ...]:
        """The seats' win shares with the luck taken out (they still sum to 1)."""
        return tuple(share - luck for share, luck in zip(shares, self.share))

    def adjusted_books(self, scores: Sequence[int]) -> tuple[float, ...]:
        return tuple(score - luck for score, luck in zip(scores, self.books))


class EventMismatch(ValueError):
    """The events do not replay on the table (an arena bug: the engine and this disagree)."""


class Tracker:
    """The engine's table replayed event by event, with what V reads beside it."""

    def __init__(self, setup: MatchSetup) -> None:
        seats = len(setup.names)
        self.setup = setup
        self.table = Table(seats, list(setup.deck), setup.rules.knights)
        self.masks = [[0] * 14 for _ in range(seats)]  # per seat, per rank: suits held
        self.left = [0] * 14  # per rank: books still to lay
        for card in setup.deck:
            self.left[card["rank"]] += 1
        self.left = [count // 4 for count in self.left]
        self.total = sum(self.left)
        self.codes = [card["rank"] << 2 | card["suit"] for card in setup.deck]  # beside the pond
        self.known = [0] * seats  # per seat: a bit per rank it is known to hold
        self.mover = setup.starting_player
        # per rank: what V reads of it (`value.state_of`), kept as the masks and bits change
        self.states = [state_of(self.masks, self.known, rank) for rank in range(14)]

    def _restate(self, rank: int) -> None:
        self.states[rank] = state_of(self.masks, self.known, rank)

    def draw(self, seat: int, index: int) -> int:
        card = self.table.draw(seat, index)
        del self.codes[index]
        rank = card["rank"]
        self.masks[seat][rank] |= 1 << card["suit"]
        self._restate(rank)
        return card["id"]

    def apply(self, event: Event) -> None:
        """Follow a non-draw event (draws go through `draw`)."""
        kind, seats = type(event), self.table.seats
        if kind is Asked:
            assert isinstance(event, Asked)
            bit = 1 << event.rank
            self.table.hand_over(event.asked, event.seat, event.rank)
            self.masks[event.seat][event.rank] |= self.masks[event.asked][event.rank]
            self.masks[event.asked][event.rank] = 0
            self.known[event.seat] |= bit
            self.known[event.asked] &= ~bit
            self._restate(event.rank)
            self.mover = (
                event.seat
                if event.moved
                else self.setup.rules.next_player.after_miss(event.seat, event.asked, seats)
            )
        elif kind is BookLaid:
            assert isinstance(event, BookLaid)
            self.table.lay_book(event.seat, event.rank)
            self.left[event.rank] -= 1
            mask = 0
            for card in self.table.hands[event.seat]:
                if card["rank"] == event.rank:
                    mask |= 1 << card["suit"]
            self.masks[event.seat][event.rank] = mask
            if not mask:
                self.known[event.seat] &= ~(1 << event.rank)
            self._restate(event.rank)
        elif kind is AskRefused or kind is NoOneToAsk:
            assert isinstance(event, AskRefused | NoOneToAsk)
            self.mover = (event.seat + 1) % seats
        elif kind is LuckyDraw:
            assert isinstance(event, LuckyDraw)
            self.mover = event.seat

    def chance(
        self, v: Valuer, seat: int, index: int, could: Sequence[int]
    ) -> tuple[list[float], list[float]]:
        """Per seat, (win, books): f(pond card `index` to `seat`) − mean f(each card of `could`).

        A draw changes only the drawer's holding of the drawn rank, so the candidates fall into
        a few classes (the rank, and the suits of it held after) and E changes in one rank.
        """
        pond, seats = self.table.pond, range(self.table.seats)
        masks, mover, states = self.masks, self.mover, self.states
        expected = v.expected_in(states, self.left, self.table.books, mover)
        beta = v.beta(sum(self.table.books), self.total)
        mine = masks[seat]
        codes = self.codes
        classes: dict[tuple[int, int], int] = {}  # (rank, suits of it held after): candidates
        for code in codes if len(could) == len(codes) else (codes[i] for i in could):
            rank = code >> 2
            key = (rank, BITS[mine[rank] | 1 << (code & 3)])
            classes[key] = classes.get(key, 0) + 1
        card = pond[index]
        actual = (card["rank"], BITS[mine[card["rank"]] | 1 << card["suit"]])
        mean = [0.0 for _ in seats]
        change: list[float] | None = None
        left, whole = self.left, len(could)
        for (rank, after), times in classes.items():
            q = left[rank]
            if not q:  # a rank with no book left to lay (a rigged pack) changes nothing
                if (rank, after) == actual:
                    change = [0.0 for _ in seats]
                continue
            delta = v.change(states[rank], mover, seat, after, q)
            if (rank, after) == actual:
                change = delta
            weight = times / whole
            mean = [m + weight * d for m, d in zip(mean, delta)]
        if change is None:
            raise EventMismatch(f"pond card {index} is not among the cards that could be drawn")
        books = [c - m for c, m in zip(change, mean)]
        slope = v.slope(expected, beta)
        win = [sum(row[t] * books[t] for t in seats) for row in slope]
        return win, books


def measure(setup: MatchSetup, events: Iterable[Event], version: str = CURRENT) -> Luck:
    """The luck of each seat in the match `setup` played with these `events`.

    Raises EventMismatch when an event does not fit the table (a draw of another card).
    """
    return measure_with(valuer(version), setup, events, version)


def measure_with(v: Valuer, setup: MatchSetup, events: Iterable[Event], version: str) -> Luck:
    """`measure` with a V of any parameters (bench/luck_fit.py tries its own)."""
    seats = len(setup.names)
    rules = setup.rules
    tracker = Tracker(setup)
    share = [0.0] * seats
    books = [0.0] * seats
    count = 0
    table = tracker.table
    if len(table.pond) < rules.cards_to_deal(seats):
        return Luck(tuple(share), tuple(books), 0, version)
    # The deal is not corrected: duplicate groups deal it to every seat in turn, and its own
    # correction (each dealt card uniform over the cards not yet dealt) removed no measurable
    # variance (docs/luck.md) at a third of the cost.
    for seat in range(seats):
        for _ in range(rules.hand_size(seats)):
            tracker.draw(seat, 0)
    for event in events:
        if type(event) is WentFishing or type(event) is PickedUp:
            assert isinstance(event, WentFishing | PickedUp)
            if not 0 <= event.place < len(table.pond):
                raise EventMismatch(f"a draw at {event.place} from a pond of {len(table.pond)}")
            _add(share, books, tracker.chance(v, event.seat, event.place, table.alike(event.place)))
            if tracker.draw(event.seat, event.place) != event.card_id:
                raise EventMismatch(f"the draw at {event.at} took another card than the match's")
            count += 1
        else:
            tracker.apply(event)
    win_scale, books_scale = v.p.scales(seats)
    return Luck(
        tuple(win_scale * x for x in share), tuple(books_scale * x for x in books), count, version
    )


def _add(share: list[float], books: list[float], terms: tuple[list[float], list[float]]) -> None:
    for seat, (win, book) in enumerate(zip(*terms)):
        share[seat] += win
        books[seat] += book
