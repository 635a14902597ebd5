"""Who sits where in match i of a tournament, and which deal it plays: pure and seeded.

A *seating* is an ordered choice of k distinct participants (seat 0 first). Seatings come in
*duplicate groups*: the k rotations of one cyclic order of one combination of players
(rotation r puts the player of base position j in seat (j + r) % k). Every rotation of a
group plays the same deal, so each player holds every seat's hand once.

The schedule is an endless sequence of groups, in *rounds*: a round is every group once, so
every seating once. A round is (k-1)! *cycles*; a cycle is every combination once (each with
one of its cyclic orders), so after each cycle every participant has played equally often.
Within a cycle, combinations are ordered greedily so that any prefix keeps appearances about
as even as possible; ties are broken by the tournament seed. Match i is rotation i % k of group
i // k. Nothing depends on the number of matches, so a tournament can be extended.

    plan = Schedule(participants=4, seats=2, seed=42, duplicate=True)
    plan.slot(0)   # Slot(match=0, seating=(0, 1), rotation=0, seed=42, deal_seed=42)

Match i's own seed is `seed + i` (contract §5.1); with duplicate deals its deal seed is the seed of its
group's first match, `seed + k * (i // k)`, so a single match (or rotation 0) plays exactly
the deal of its own seed.
"""

from __future__ import annotations

import math
import random
from dataclasses import dataclass
from itertools import combinations


@dataclass(frozen=True)
class Slot:
    """One match of the schedule."""

    match: int
    seating: tuple[int, ...]  # participant indices, in seat order
    group: int  # duplicate group number
    rotation: int
    seed: int  # the match's own seed: first seed + match
    deal_seed: int  # the seed of its shuffle and starting seat


class Rotations:
    """What every plan of matches shares, whoever sits at its tables: match i is rotation
    i % k of duplicate group i // k (everyone moved r seats on from the group's base), and
    the deal rule (a duplicate group plays the deal of its first match's seed). A plan gives
    `group_base`, and its `combinations` and `cyclic_orders` of tables."""

    def __init__(self, participants: int, seats: int, seed: int, duplicate: bool) -> None:
        if not 2 <= seats <= participants:
            raise ValueError(f"{seats} seats for {participants} participants")
        self.participants, self.seats, self.seed, self.duplicate = (
            participants,
            seats,
            seed,
            duplicate,
        )
        self.combinations = 1
        self.cyclic_orders = 1

    @property
    def seatings(self) -> int:
        """How many distinct seatings there are: every table in every order."""
        return self.combinations * self.cyclic_orders * self.seats

    def slot(self, match: int) -> Slot:
        group, rotation = divmod(match, self.seats)
        base = self.group_base(group)
        k = self.seats
        seating = tuple(base[(seat - rotation) % k] for seat in range(k))
        deal_seed = self.seed + match - rotation if self.duplicate else self.seed + match
        return Slot(match, seating, group, rotation, self.seed + match, deal_seed)

    def group_base(self, group: int) -> tuple[int, ...]:
        """Rotation 0 of duplicate group `group`."""
        raise NotImplementedError


class Schedule(Rotations):
    """The seatings and seeds of every match of a tournament: n! / (n-k)! seatings."""

    def __init__(self, participants: int, seats: int, seed: int, *, duplicate: bool = True) -> None:
        super().__init__(participants, seats, seed, duplicate)
        self.combinations = math.comb(participants, seats)
        self.cyclic_orders = math.factorial(seats - 1)
        self._order = _BalancedOrder(
            participants, seats, random.Random(f"gofish-arena schedule {seed}")
        )
        self._keys: dict[tuple[int, ...], tuple[int, int]] = {}

    def group_base(self, group: int) -> tuple[int, ...]:
        """Rotation 0 of a duplicate group."""
        cycle, position = divmod(group, self.combinations)
        cycle %= self.cyclic_orders
        combination = self._order[position]
        rest = list(combination[1:])
        index = _affine_index(cycle, self.cyclic_orders, self._cyclic_key(combination, position))
        return (combination[0], *_unrank_permutation(rest, index))

    def _cyclic_key(self, combination: tuple[int, ...], position: int) -> tuple[int, int]:
        """A seeded bijection of the cycles onto the cyclic orders, one per combination."""
        key = self._keys.get(combination)
        if key is None:
            orders = self.cyclic_orders
            rng = random.Random(f"gofish-arena cyclic {self.seed} {combination}")
            # The very first group sits in config order: a single match is the config's seating.
            key = _coprime(orders, rng), 0 if position == 0 else rng.randrange(orders)
            self._keys[combination] = key
        return key


class _BalancedOrder:
    """Every combination once, the first in config order, every prefix about as even as can be.

    Built lazily, one choice at a time, so that a huge field costs only what is played: each
    next combination is the first unused one among the players sorted by how often they have
    played (ties broken by the seeded generator).
    """

    def __init__(self, participants: int, seats: int, rng: random.Random) -> None:
        self.participants, self.seats, self.rng = participants, seats, rng
        self.total = math.comb(participants, seats)
        first = tuple(range(seats))
        self.order: list[tuple[int, ...]] = [first]
        self.used = {first}
        self.counts = [1] * seats + [0] * (participants - seats)

    def __getitem__(self, position: int) -> tuple[int, ...]:
        while len(self.order) <= position:
            self._choose()
        return self.order[position]

    def _choose(self) -> None:
        counts, rng = self.counts, self.rng
        keys = [(counts[player], rng.random()) for player in range(self.participants)]
        players = sorted(range(self.participants), key=keys.__getitem__)
        for candidate in combinations(players, self.seats):
            chosen = tuple(sorted(candidate))
            if chosen not in self.used:
                break
        else:  # pragma: no cover - only reached past `total`, which callers never ask for
            raise IndexError("every combination is already in the order")
        self.used.add(chosen)
        self.order.append(chosen)
        for player in chosen:
            counts[player] += 1


def _coprime(modulus: int, rng: random.Random) -> int:
    """A seeded multiplier that makes `x -> a*x + b (mod modulus)` a bijection."""
    if modulus <= 2:
        return 1
    while True:
        a = rng.randrange(1, modulus)
        if math.gcd(a, modulus) == 1:
            return a


def _affine_index(value: int, modulus: int, key: tuple[int, int]) -> int:
    a, b = key
    return (a * value + b) % modulus


def _unrank_permutation(items: list[int], index: int) -> list[int]:
    """The `index`-th permutation of `items` in lexicographic order (Lehmer code)."""
    pool, result = list(items), []
    for size in range(len(pool), 0, -1):
        block = math.factorial(size - 1)
        position, index = divmod(index, block)
        result.append(pool.pop(position))
    return result
