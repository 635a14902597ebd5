"""V: what a table is worth to each seat, the baseline of the luck correction (docs/luck.md).

V reads the whole table (every hand, the books, what is left of each rank), whose turn comes
next, and which holdings are public (a seat that asked for a rank is known to hold it until it
gives it away or books it). Two values per seat:

- **books**, the expected final books. Each rank still in play goes, as a book, to one seat;
  seat t's chance of it is proportional to `exp(W[c] + tau [t moves next] + pi [t's holding is
  public])`, `c` the suits of the rank t holds (none: weight 1; a full set: certain). So
  `E_t = books_t + sum over ranks of books_left(rank) * chance_t(rank)`, summing to the
  pack's books.
- **win**, the expected win share: `softmax(beta * E)`, sharper as the match goes on
  (`beta = b0 + b1 * done`, `done` the share of the pack's books laid). It sums to 1.

The correction uses win's first-order change around the table before each draw (the softmax's
Jacobian times the change in E): a fixed function of the table before the draw and the card
drawn, which is all unbiasedness asks, and no exponential per candidate card.

Any V keeps the correction unbiased; a good V only makes it remove more luck. The parameters
are fitted by bench/luck_fit.py on matches never used to evaluate it, and pinned here per
version (`PARAMETERS`), so that adjusted scores computed with one version stay comparable.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

BITS = (0, 1, 1, 2, 1, 2, 2, 3, 1, 2, 2, 3, 2, 3, 3, 4)  # suits held, by suit mask
CERTAIN = 1e9  # a full set's weight: its seat takes the book


@dataclass(frozen=True)
class Parameters:
    """V's weights: `w` is W[1], W[2], W[3] (W[0] = 0); `tau` for the seat that moves next,
    `pi` for a public holding; beta = b0 + b1 * done."""

    w: tuple[float, float, float]
    tau: float
    pi: float
    b0: float
    b1: float
    # The control variates' coefficients by table size (2, 3, 4 or more seats), win then books:
    # any multiple of a zero-mean term is zero-mean, and the best one is cov(score, luck) /
    # var(luck), measured on the fitting matches.
    win_scale: tuple[float, float, float] = (1.0, 1.0, 1.0)
    books_scale: tuple[float, float, float] = (1.0, 1.0, 1.0)

    def scales(self, seats: int) -> tuple[float, float]:
        at = min(seats, 4) - 2
        return self.win_scale[at], self.books_scale[at]


# Fitted by `python bench/luck_fit.py` (seeds 900000 and up; see docs/luck.md). A new fit is a
# new entry: results computed with one version keep the parameters they were computed with.
PARAMETERS = {
    "1": Parameters(
        w=(0.043, 0.446, 1.128),
        tau=0.047,
        pi=-0.812,
        b0=0.541,
        b1=0.538,
        win_scale=(1.286, 0.847, 0.703),
        books_scale=(1.747, 0.908, 0.719),
    ),
}
CURRENT = "1"


class Valuer:
    """V with one set of parameters. A seat's state per rank is `(suits held, public)`."""

    def __init__(self, parameters: Parameters) -> None:
        self.p = parameters
        w = (0.0, *parameters.w)
        # weight[c][moves][public]
        self.weight = [
            [
                [
                    CERTAIN
                    if c == 4
                    else 1.0
                    if c == 0
                    else math.exp(w[c] + parameters.tau * moves + parameters.pi * public)
                    for public in (0, 1)
                ]
                for moves in (0, 1)
            ]
            for c in range(5)
        ]
        self._chances: dict[tuple[tuple[int, ...], int], list[float]] = {}
        self._books: dict[tuple[tuple[int, ...], int, int], list[float]] = {}
        self._changes: dict[tuple[tuple[int, ...], int, int, int, int], list[float]] = {}

    def chances(self, counts: Sequence[int], mover: int, public: Sequence[int]) -> list[float]:
        """Each seat's chance of one rank's book: `counts` suits held, `public` 0/1 by seat."""
        return self.chances_in((*counts, *public), mover)

    def chances_in(self, state: tuple[int, ...], mover: int) -> list[float]:
        """`chances` of a rank's `state`: each seat's suits held, then each seat's public bit
        (`state_of`). Remembered: a match meets few distinct states."""
        known = self._chances.get((state, mover))
        if known is None:
            weight, seats = self.weight, len(state) // 2
            weights = [weight[state[s]][s == mover][state[seats + s]] for s in range(seats)]
            total = sum(weights)
            known = self._chances[state, mover] = [x / total for x in weights]
        return known

    def change(
        self, state: tuple[int, ...], mover: int, seat: int, held: int, books: int
    ) -> list[float]:
        """Each seat's change in its expected books from a rank of `books` books left when
        `seat` comes to hold `held` suits of it (a draw: nothing else changes). Remembered, as
        `chances_in`."""
        key = (state, mover, seat, held, books)
        known = self._changes.get(key)
        if known is None:
            after = list(state)
            after[seat] = held
            before, now = self.chances_in(state, mover), self.chances_in(tuple(after), mover)
            known = self._changes[key] = [books * (b - a) for a, b in zip(before, now)]
        return known

    def expected(
        self,
        masks: Sequence[Sequence[int]],
        left: Sequence[int],
        books: Sequence[int],
        mover: int,
        known: Sequence[int],
    ) -> list[float]:
        """Each seat's expected final books (`known[s]`: a bit per rank s is known to hold)."""
        states = [state_of(masks, known, rank) for rank in range(len(left))]
        return self.expected_in(states, left, books, mover)

    def expected_in(
        self,
        states: Sequence[tuple[int, ...]],
        left: Sequence[int],
        books: Sequence[int],
        mover: int,
    ) -> list[float]:
        """`expected` from each rank's state (`state_of`)."""
        parts = [self.books_in(states[rank], mover, q) for rank, q in enumerate(left) if q]
        # each seat's books, plus the ranks' parts in rank order
        return (
            [sum(column, float(b)) for b, column in zip(books, zip(*parts))]
            if parts
            else [float(b) for b in books]
        )

    def books_in(self, state: tuple[int, ...], mover: int, books: int) -> list[float]:
        """Each seat's expected books from a rank of `books` books left in `state`."""
        key = (state, mover, books)
        known = self._books.get(key)
        if known is None:
            known = self._books[key] = [books * c for c in self.chances_in(state, mover)]
        return known

    def beta(self, laid: int, total: int) -> float:
        return self.p.b0 + self.p.b1 * laid / total

    def win(self, expected: Sequence[float], beta: float) -> list[float]:
        """Each seat's expected win share from its expected books."""
        xs = [beta * e for e in expected]
        top = max(xs)
        es = [math.exp(x - top) for x in xs]
        total = sum(es)
        return [e / total for e in es]

    def slope(self, expected: Sequence[float], beta: float) -> list[list[float]]:
        """d win_s / d E_t at `expected` (the softmax's Jacobian times beta)."""
        win = self.win(expected, beta)
        return [
            [beta * ws * ((s == t) - wt) for t, wt in enumerate(win)] for s, ws in enumerate(win)
        ]


def state_of(masks: Sequence[Sequence[int]], known: Sequence[int], rank: int) -> tuple[int, ...]:
    """What V reads of one rank: each seat's suits of it held (from its suit masks), then
    whether each seat's holding of it is public (`known[s]`: a bit per rank)."""
    return (*(BITS[held[rank]] for held in masks), *(bits >> rank & 1 for bits in known))


def valuer(version: str = CURRENT) -> Valuer:
    return Valuer(PARAMETERS[version])
