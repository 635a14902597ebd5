"""Which table to play next: the one whose outcome is least known. Pure.

    table = next_table(field, seats, rng)   # field: Entry per active version

A version with fewer than `NEW_MATCHES` matches is seated first (a new version plays at once);
otherwise the first seat goes to a version drawn with weight (its interval's width)² × (1 +
fewer matches than the field's mean), and each further seat to the opponent whose result
against those seated is least certain: close ratings and wide intervals, i.e. the largest
p·(1−p)·(σ² sum) with p the chance the fitted ratings give it. Every active version keeps
being drawn: no weight is zero.
"""

from __future__ import annotations

import math
import random
from collections.abc import Sequence
from dataclasses import dataclass

NEW_MATCHES = 8  # a version's first matches: before these, it is seated first
ELO = 400 / math.log(10)


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


def next_table(field: Sequence[Entry], seats: int, rng: random.Random) -> tuple[int, ...] | None:
    """The ids of the next table's versions (seat order of its first rotation), or None when
    fewer than `seats` versions are active."""
    if len(field) < seats:
        return None
    fresh = [entry for entry in field if entry.matches < NEW_MATCHES]
    if fresh:
        first = min(fresh, key=lambda entry: (entry.matches, rng.random()))
    else:
        mean = sum(entry.matches for entry in field) / len(field)
        weights = [
            (entry.plus_minus + 1.0) ** 2 * (1.0 + max(0.0, mean - entry.matches) / (mean + 1))
            for entry in field
        ]
        first = rng.choices(list(field), weights)[0]
    table = [first]
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
    rng.shuffle(table)
    return tuple(entry.id for entry in table)
