"""The core against the engine, longer than the suite: every rule set of tests/test_core.py,
`--games` seeded games each (default 20,000), event by event (arena/core/differential.py).

    python bench/core_vs_engine.py [--games 20000] [--first-seed 100000]

Prints, per rule set, the games and events compared and how long it took; exits 1 at the
first difference (the seed, and the two events).
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from arena.core import COMPILED, Batch
from tests.test_core import RULE_SETS, differ


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--games", type=int, default=20_000)
    parser.add_argument("--first-seed", type=int, default=100_000)
    args = parser.parse_args()
    print(f"core: {'compiled C' if COMPILED else 'pure Python'}")
    seeds = range(args.first_seed, args.first_seed + args.games)
    total_games = total_events = 0
    for name, rules, seats, idle in RULE_SETS:
        began = time.perf_counter()
        try:
            events = differ(rules, seats, idle, seeds, Batch)
        except AssertionError as difference:
            print(f"{name}: {difference}")
            raise SystemExit(1) from None
        total_games += len(seeds)
        total_events += events
        print(
            f"{name:24} {len(seeds):7} games {events:10} events equal"
            f"  ({time.perf_counter() - began:.0f} s)"
        )
    print(f"all: {total_games} games, {total_events} events, equal")


if __name__ == "__main__":
    main()
