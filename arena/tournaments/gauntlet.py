"""A gauntlet's schedule: every match seats the candidate and `seats - 1` others, drawn fairly.

The same shape as `schedule.Schedule` (slots, duplicate groups, seeds), with one participant,
the *candidate*, at every table. A group's base (rotation 0) is the candidate followed by one
cyclic order of one combination of the others; rotation r moves everyone r seats on, so over
a group the candidate sits in every seat once and, with duplicate deals, holds every seat's
hand of one deal once.

The combinations of others come in *cycles* (each once per cycle, every prefix about as even
as can be, ties broken by the seed: the main schedule's balanced order, over the others), and
a *round* of (k-1)! cycles gives every combination each of its orders of the others once.
Built lazily, one group at a time: nothing depends on the number of matches, and a run of a
million matches costs only what it plays.

    plan = Gauntlet(participants=4, seats=2, seed=42, candidate=3)
    plan.slot(0).seating   # (3, 0): the candidate, then the first other in config order
"""

from __future__ import annotations

import math
import random

from arena.tournaments.schedule import (
    Rotations,
    _affine_index,
    _BalancedOrder,
    _coprime,
    _unrank_permutation,
)


class Gauntlet(Rotations):
    """The seatings and seeds of every match of a gauntlet: a schedule whose tables all seat
    the candidate. Raises ValueError for no table."""

    def __init__(
        self, participants: int, seats: int, seed: int, candidate: int, *, duplicate: bool = True
    ) -> None:
        super().__init__(participants, seats, seed, duplicate)
        if not 0 <= candidate < participants:
            raise ValueError(f"no participant {candidate}")
        self.candidate = candidate
        self.others = [index for index in range(participants) if index != candidate]
        self.combinations = math.comb(len(self.others), seats - 1)
        self.cyclic_orders = math.factorial(seats - 1)  # orders of the others after the candidate
        rng = random.Random(f"gofish-arena gauntlet {seed}")
        self._order = _BalancedOrder(len(self.others), seats - 1, rng)
        self._keys: dict[tuple[int, ...], tuple[int, int]] = {}

    def group_base(self, group: int) -> tuple[int, ...]:
        """Rotation 0 of a duplicate group: the candidate in seat 0, then the others."""
        cycle, position = divmod(group, self.combinations)
        combination = self._order[position]
        key = self._keys.get(combination)
        if key is None:
            rng = random.Random(f"gofish-arena gauntlet cyclic {self.seed} {combination}")
            key = (
                _coprime(self.cyclic_orders, rng),
                0 if position == 0 else rng.randrange(self.cyclic_orders),
            )
            self._keys[combination] = key
        index = _affine_index(cycle % self.cyclic_orders, self.cyclic_orders, key)
        others = [self.others[i] for i in combination]
        return (self.candidate, *_unrank_permutation(others, index))
