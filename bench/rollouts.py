"""`Sim` in Python against the same rollouts in the core: worlds per second, side by side.

    python bench/rollouts.py [--worlds 2000] [--seats 2 4] [--rounds 3] [--horizon 10]

A world is what master's search hands `arena.bots.simulator.rollouts` for one dealt world: every
hand, the pond, the books, the public memory, a luck seed, the seat to move and its three
candidate asks; each ask is played on `Sim` and `horizon` more asks by `Policy`, and the expected
books are read (`play_out`, `expected_books`). Worlds here are dealt at random from the default
pack (hands of 0 to 8 cards, the rest the pond, the candidates the mover's held ranks), seeded.
`python` is `rollouts_in_python` (Sim, Policy and play_out as written), the floor; `core` is the
same loop in C (arena/core/_core.c), which `rollouts` is when the core is compiled. Both must
give the same floats (checked on every world). Chunks are interleaved, as in bench/env.py.
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

try:
    import arena  # noqa: F401 - only to learn whether the checkout is importable
except ModuleNotFoundError:
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from arena.bots.simulator import code, rollouts, rollouts_in_python
from arena.core import COMPILED


def worlds(seats: int, count: int, horizon: int) -> list[tuple[Any, ...]]:
    rng = random.Random(seats)
    out: list[tuple[Any, ...]] = []
    while len(out) < count:
        deck = [code(r, s) for r in range(14) if r != 11 for s in range(4)]
        rng.shuffle(deck)
        hands = []
        for _ in range(seats):
            size = rng.randrange(0, 9)
            hands.append(deck[:size])
            deck = deck[size:]
        me = rng.randrange(seats)
        if not hands[me]:
            continue
        others = [s for s in range(seats) if s != me]
        asks = [(rng.choice(others), rng.choice(hands[me]) >> 2) for _ in range(3)]
        out.append(
            (
                hands,
                deck,
                [0] * seats,
                1,
                0,
                [rng.getrandbits(14) for _ in range(seats)],
                [rng.getrandbits(14) for _ in range(seats)],
                rng.getrandbits(32),
                me,
                asks,
                horizon,
            )
        )
    return out


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--worlds", type=int, default=2000)
    parser.add_argument("--seats", type=int, nargs="+", default=[2, 4])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--horizon", type=int, default=10, help="master's (10)")
    args = parser.parse_args(argv)
    if not COMPILED:
        print("the core is not compiled here: nothing to compare (pip install -e .)")
        return 2
    runs = {"python": rollouts_in_python, "core": rollouts}
    for seats in args.seats:
        dealt = worlds(seats, args.worlds, args.horizon)
        for world in dealt[:200]:
            assert rollouts(*world) == rollouts_in_python(*world)
        took = dict.fromkeys(runs, 0.0)
        for _ in range(args.rounds):
            for name, run in runs.items():
                began = time.perf_counter()
                for world in dealt:
                    run(*world)
                took[name] += time.perf_counter() - began
        done = len(dealt) * args.rounds
        for name in runs:
            print(
                f"{seats} seats  {name:6}  {done / took[name]:9.0f} worlds/s"
                f"  ({took['python'] / took[name]:.1f}x the Python loop's)"
            )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
