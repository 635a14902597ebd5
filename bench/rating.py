"""How long the batch rating fit takes: 20 bots × 10,000 matches at 2, 3 and 4 seats.

    python bench/rating.py                   # the figures in docs/tournaments.md
    python bench/rating.py --matches 2000    # quicker

The floor, measured in the same run on the same matches, is OpenSkill's match-by-match update
(what the standings ranked by before the fit): the ratio fit / OpenSkill says what the batch fit
costs over the online estimate, whatever the machine's load. Finishes are drawn from a
Plackett–Luce model with strengths spread over ~600 Elo, each table played in every rotation
(one deal per table).
"""

from __future__ import annotations

import argparse
import math
import random
import sys
import time
from collections.abc import Callable
from pathlib import Path

try:
    import arena  # noqa: F401 - only to learn whether the checkout is importable
except ModuleNotFoundError:
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from openskill.models import PlackettLuce

from arena.tournaments.rating import Finish, fit


def finishes(bots: int, matches: int, seats: int, seed: int) -> list[Finish]:
    rng = random.Random(seed)
    strength = {f"bot{i:02d}": math.exp(i * 0.18) for i in range(bots)}
    names = sorted(strength)
    found: list[Finish] = []
    group = 0
    while len(found) < matches:
        table = rng.sample(names, seats)
        for _ in range(seats):
            left, places = list(table), {}
            while left:
                pick = rng.choices(left, [strength[n] for n in left])[0]
                places[pick] = len(places) + 1
                left.remove(pick)
            found.append(Finish(places, group))
        group += 1
    return found[:matches]


def openskill(played: list[Finish]) -> None:
    model = PlackettLuce()
    ratings = {}
    for finish in played:
        names = list(finish.places)
        for name in names:
            ratings.setdefault(name, model.rating(name=name))
        rated = model.rate(
            [[ratings[n]] for n in names], ranks=[float(finish.places[n]) for n in names]
        )
        for name, (rating,) in zip(names, rated):
            ratings[name] = rating


def best(action: Callable[[list[Finish]], object], played: list[Finish], repeat: int) -> float:
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        action(played)
        times.append(time.perf_counter() - start)
    return min(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bots", type=int, default=20)
    parser.add_argument("--matches", type=int, default=10_000)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    print(f"{args.bots} bots, {args.matches} matches, best of {args.repeat}")
    print("seats | fit (s) | OpenSkill online (s) | fit / OpenSkill")
    for seats in (2, 3, 4):
        played = finishes(args.bots, args.matches, seats, seed=seats)
        fitted = best(fit, played, args.repeat)
        floor = best(openskill, played, args.repeat)
        print(f"{seats} | {fitted:.2f} | {floor:.2f} | {fitted / floor:.2f}x")


if __name__ == "__main__":
    main()
