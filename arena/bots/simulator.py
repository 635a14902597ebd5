"""A compact Go Fish table for a searching bot's rollouts: the contract's rules on counts.

The engine (arena/engine/match.py) builds every message of a match; a rollout needs none of
them, only where the cards go. `Sim` keeps per seat how many cards of each (rank, suit) it
holds, the pond as a list whose *last* card is the next one drawn, and the books. It follows the
contract's rules (docs/contract.md §2–3): the empty-table pick-up, a seat with no card passing,
hand-overs, the book check (ranks swept in order, each book followed by a pick-up to
`minHandSize`, swept again until none), the asked seat's pick-up, go fish, and `nextPlayer`
("Asked", "Clockwise", "After asker"). Card order within a hand is not kept: no rule outcome
depends on it, only on which cards a hand holds.

tests/test_simulator.py plays the engine and this table side by side (same deck, same asks,
every pond reply `-1`, i.e. the last card) and demands the same hands and books after every
ask, so the two cannot drift apart.
"""

from __future__ import annotations

import random
from collections.abc import Sequence

from arena.core import compiled_rollouts

__all__ = ["Policy", "Sim", "code", "expected_books", "rollouts"]

NEXT_PLAYERS = ("Asked", "Clockwise", "After asker")


def code(rank: int, suit: int) -> int:
    """A card as the simulator knows it: its rank and suit (which deck does not matter)."""
    return rank * 4 + suit


class Sim:
    """Hands, pond and books; `ask` resolves one ask and says who moves next."""

    __slots__ = (
        "books",
        "cards",
        "held",
        "min_hand",
        "next_player",
        "pending",
        "pond",
        "ranks",
        "seats",
        "sizes",
    )

    def __init__(
        self,
        cards: Sequence[Sequence[int]],
        pond: Sequence[int],
        books: Sequence[int],
        min_hand: int,
        next_player: str,
    ) -> None:
        """`cards[s]`: the codes in seat `s`'s hand; `pond`: codes, the last drawn first."""
        if next_player not in NEXT_PLAYERS:
            raise ValueError(f"nextPlayer {next_player!r} is not one of {NEXT_PLAYERS}")
        self.seats = len(cards)
        self.cards = [[0] * 56 for _ in cards]  # per seat: how many of each code
        self.ranks = [[0] * 14 for _ in cards]  # per seat: how many of each rank
        self.held = [0] * self.seats  # per seat: a bit for each rank it holds
        # Per seat: a bit for each rank that has gained a card since the last book check and
        # now counts four or more (only such a rank can be a book).
        self.pending = [0] * self.seats
        self.sizes = [0] * self.seats
        for seat, hand in enumerate(cards):
            for card in hand:
                self._gain(seat, card)
        self.pond = list(pond)
        self.books = list(books)
        self.min_hand = min_hand
        self.next_player = NEXT_PLAYERS.index(next_player)

    def copy(self) -> Sim:
        other = Sim.__new__(Sim)
        other.seats = self.seats
        other.cards = [list(c) for c in self.cards]
        other.ranks = [list(r) for r in self.ranks]
        other.held = list(self.held)
        other.pending = list(self.pending)
        other.sizes = list(self.sizes)
        other.pond = list(self.pond)
        other.books = list(self.books)
        other.min_hand = self.min_hand
        other.next_player = self.next_player
        return other

    def _gain(self, seat: int, card: int) -> None:
        rank = card >> 2
        self.cards[seat][card] += 1
        count = self.ranks[seat][rank] = self.ranks[seat][rank] + 1
        self.sizes[seat] += 1
        self.held[seat] |= 1 << rank
        if count >= 4:
            self.pending[seat] |= 1 << rank

    def pick_up(self, seat: int, target: int) -> None:
        """Draw the pond's last card until `seat` holds `target` cards or the pond is empty."""
        while self.sizes[seat] < target and self.pond:
            self._gain(seat, self.pond.pop())

    def check_books(self, seat: int) -> None:
        """The book check of one seat (contract §3): sweep ranks upward, again until none."""
        cards = self.cards[seat]
        found, last = False, -1
        while self.pending[seat]:
            later = self.pending[seat] >> (last + 1) << (last + 1)
            if not later:
                if not found:
                    return
                found, last = False, -1  # a sweep found a book: sweep again
                continue
            rank = (later & -later).bit_length() - 1
            last, base = rank, rank * 4
            if cards[base] and cards[base + 1] and cards[base + 2] and cards[base + 3]:
                for c in range(base, base + 4):
                    cards[c] -= 1
                left = self.ranks[seat][rank] = self.ranks[seat][rank] - 4
                if left < 4:
                    self.pending[seat] &= ~(1 << rank)
                if not left:
                    self.held[seat] &= ~(1 << rank)
                self.sizes[seat] -= 4
                self.books[seat] += 1
                found = True
                self.pick_up(seat, self.min_hand)
            else:
                self.pending[seat] &= ~(1 << rank)

    def check_books_all(self) -> None:
        for seat, pending in enumerate(self.pending):
            if pending:
                self.check_books(seat)

    def hand_over(self, asked: int, asker: int, rank: int) -> int:
        moved = self.ranks[asked][rank]
        if moved:
            given, taken = self.cards[asked], self.cards[asker]
            for c in range(rank * 4, rank * 4 + 4):
                taken[c] += given[c]
                given[c] = 0
            self.ranks[asked][rank] = 0
            self.held[asked] &= ~(1 << rank)
            count = self.ranks[asker][rank] = self.ranks[asker][rank] + moved
            if count >= 4:
                self.pending[asker] |= 1 << rank
            self.sizes[asked] -= moved
            self.sizes[asker] += moved
        return moved

    def ask(self, asker: int, asked: int, rank: int) -> tuple[int, int]:
        """Resolve a valid ask (contract §2.7): (cards moved, the seat whose turn it is next)."""
        moved = self.hand_over(asked, asker, rank)
        if moved:
            self.check_books_all()
        self.pick_up(asked, self.min_hand)
        if moved:
            return moved, asker
        if self.pond:
            self._gain(asker, self.pond.pop())
        self.check_books_all()
        if self.next_player == 0:
            return 0, asked
        if self.next_player == 1:
            return 0, (asked + 1) % self.seats
        return 0, (asker + 1) % self.seats

    def to_move(self, seat: int) -> int | None:
        """The seat that asks next from `seat`'s turn (contract §2.5), or None when it is over."""
        while True:
            if not any(self.sizes):
                if not self.pond:
                    return None
                self.pick_up(seat, max(self.min_hand, 1))
                self.check_books_all()
                continue
            if not self.sizes[seat]:
                seat = (seat + 1) % self.seats
                continue
            return seat


class Policy:
    """How every seat plays in a rollout: `hard`'s public memory, kept as rank bitmasks.

    A seat asks a seat that the table knows holds one of its ranks; otherwise it asks for the
    rank it holds most of, from a random seat with cards that has not said go fish for it since
    it last drew. `holds[s]` and `lacks[s]` are what every seat knows of seat `s`.
    """

    __slots__ = ("holds", "lacks", "rng")

    def __init__(self, holds: Sequence[int], lacks: Sequence[int], rng: random.Random) -> None:
        self.holds = list(holds)
        self.lacks = list(lacks)
        self.rng = rng

    def choose(self, sim: Sim, seat: int) -> tuple[int, int]:
        """(seat asked, rank asked for) for `seat`, which holds a card."""
        mine = sim.held[seat]
        seats, sizes = sim.seats, sim.sizes
        for other in range(seats):
            if other != seat and sizes[other]:
                known = self.holds[other] & mine
                if known:
                    return other, (known & -known).bit_length() - 1
        counts = sim.ranks[seat]
        most = max(counts)
        best = [rank for rank, n in enumerate(counts) if n == most]
        rank = best[0] if len(best) == 1 else self.rng.choice(best)
        bit = 1 << rank
        with_cards = [o for o in range(seats) if o != seat and sizes[o]]
        if not with_cards:
            with_cards = [o for o in range(seats) if o != seat]
        fresh = [o for o in with_cards if not self.lacks[o] & bit]
        pool = fresh or with_cards
        return (pool[0] if len(pool) == 1 else self.rng.choice(pool)), rank

    def seen(self, sim: Sim, asker: int, asked: int, rank: int, moved: int) -> None:
        """What the table learns from one resolved ask."""
        bit = 1 << rank
        if sim.held[asker] & bit:
            self.holds[asker] |= bit
        else:
            self.holds[asker] &= ~bit  # the ask finished a book
        self.lacks[asker] &= ~bit
        self.holds[asked] &= ~bit
        if not moved:
            self.lacks[asked] |= bit
            self.lacks[asker] = 0  # it drew an unseen card (or the pond was empty: no matter)


def play_out(sim: Sim, seat: int, policy: Policy, max_asks: int) -> None:
    """Play from `seat`'s turn until the table is empty or `max_asks` asks were made."""
    for _ in range(max_asks):
        mover = sim.to_move(seat)
        if mover is None:
            return
        asked, rank = policy.choose(sim, mover)
        moved, seat = sim.ask(mover, asked, rank)
        policy.seen(sim, mover, asked, rank, moved)


def expected_books(sim: Sim) -> list[float]:
    """Books per seat, each book still open shared among the seats holding most of its rank."""
    books = [float(b) for b in sim.books]
    if not any(sim.sizes):
        return books
    for rank in range(14):
        most = max(ranks[rank] for ranks in sim.ranks)
        if most:
            leaders = [s for s, ranks in enumerate(sim.ranks) if ranks[rank] == most]
            for seat in leaders:
                books[seat] += 1.0 / len(leaders)
    return books


def rollouts_in_python(
    hands: Sequence[Sequence[int]],
    pond: Sequence[int],
    books: Sequence[int],
    min_hand: int,
    next_player: int,
    holds: Sequence[int],
    lacks: Sequence[int],
    luck: int,
    me: int,
    asks: Sequence[tuple[int, int]],
    horizon: int,
) -> list[list[float]]:
    """For each candidate ask of seat `me` in one world: the ask, then `horizon` asks of the
    policy (tie-breaks from `random.Random(luck)`, the same for every candidate), then
    `expected_books`. `rollouts` is this, in C when the core is built (the same floats)."""
    root = Sim(hands, pond, books, min_hand, NEXT_PLAYERS[next_player])
    out = []
    for seat, rank in asks:
        sim = root.copy()
        policy = Policy(holds, lacks, random.Random(luck))
        moved, mover = sim.ask(me, seat, rank)
        policy.seen(sim, me, seat, rank, moved)
        play_out(sim, mover, policy, horizon)
        out.append(expected_books(sim))
    return out


rollouts = compiled_rollouts or rollouts_in_python
