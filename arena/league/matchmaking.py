"""Which table to play next: the one whose outcome is least known. Pure.

    size = table_size(sizes, len(field), rng)   # how many seats, when the league varies it
    table = next_table(field, size, rng)         # field: Entry per active version

A version with fewer than `NEW_MATCHES` matches is seated first (a new version plays at once).
Otherwise a table starts from two neighbours of the standings, drawn with weight 1/(z + ¼)²,
z being how many standard errors apart the fit puts them (close ratings, wide intervals: the
order the fit is least sure of); one table in ten starts from the least played version instead,
so every active version keeps playing. Further seats go to the opponent whose result against
those seated is least certain: the largest p·(1−p)·(σ² sum), p the chance the ratings give it.
"""

from __future__ import annotations

import itertools
import math
import random
from collections.abc import Sequence
from dataclasses import dataclass

from arena.base.normal import Z95  # a 95 % half-width in standard errors

NEW_MATCHES = 8  # a version's first matches: before these, it is seated first
SPREAD = 0.1  # the share of tables that start from the least played version


@dataclass(frozen=True)
class Entry:
    """An active version as matchmaking sees it."""

    id: int
    rating: float  # Elo-like
    plus_minus: float  # 95 % half-width
    matches: int


def _doubt(a: Entry, b: Entry) -> float:
    """How much a match of `a` against `b` would tell: p(1−p) × their joint uncertainty."""
    p = 1 / (1 + 10 ** ((b.rating - a.rating) / 400))
    return p * (1 - p) * (a.plus_minus**2 + b.plus_minus**2 + 1.0)


def _separation(a: Entry, b: Entry) -> float:
    """How surely the fit tells `a` and `b` apart: their gap in standard errors of the gap."""
    spread = math.hypot(a.plus_minus, b.plus_minus) / Z95 + 1e-9
    return abs(a.rating - b.rating) / spread


def table_size(sizes: Sequence[int], available: int, rng: random.Random) -> int | None:
    """The next table's size: one of `sizes` (`[league] seats`) that `available` versions can
    fill, each as likely; None when none can."""
    fitting = [size for size in sizes if size <= available]
    return rng.choice(fitting) if fitting else None


def next_table(field: Sequence[Entry], seats: int, rng: random.Random) -> tuple[int, ...] | None:
    """The ids of the next table's versions (seat order of its first rotation), or None when
    fewer than `seats` versions are active."""
    if len(field) < seats:
        return None
    fresh = [entry for entry in field if entry.matches < NEW_MATCHES]
    if fresh:
        table = [min(fresh, key=lambda entry: (entry.matches, rng.random()))]
    elif rng.random() < SPREAD:
        # Now and then the least played, whoever it is: every version keeps playing.
        table = [min(field, key=lambda entry: (entry.matches, rng.random()))]
    else:
        # The neighbours in the standings that the fit tells apart least surely.
        ranked = sorted(field, key=lambda entry: -entry.rating)
        pairs = list(itertools.pairwise(ranked))
        weights = [1 / (_separation(a, b) + 0.25) ** 2 for a, b in pairs]
        table = list(rng.choices(pairs, weights)[0])
    while len(table) < seats:
        rest = [entry for entry in field if entry not in table]
        # A little noise, so that equal doubts do not always seat the same opponent.
        best = max(
            rest,
            key=lambda entry: (
                sum(_doubt(entry, seated) for seated in table) * rng.uniform(0.8, 1.2)
            ),
        )
        table.append(best)
    table = table[:seats]
    rng.shuffle(table)
    return tuple(entry.id for entry in table)
