"""What the luck correction costs per match, and what of it the core could take over.

    python bench/luck_speed.py [--matches 200] [--seats 2 4] [--rounds 3]

Random matches are played once on the engine (random valid replies; default rules; seeds 0 on),
their setups and events kept. Then, in `--rounds` interleaved chunks (a change in the machine's
load falls on all alike), each contender goes over the same matches:

- `engine` (the floor): the engine's match generator plays each match again from its replies,
  every message built: what simulating the match costs on the engine.
- `correction`: `arena.luck.measure(setup, events)`, the whole correction.
- `table-only`: the correction's walk without V: its `Tracker` follows the deal, every draw and
  every other event on the engine's `Table` (what `measure` does between two chance terms), and
  no chance term is computed. This is the only part of the correction a second home of the
  rules (arena/core) could play; the rest is V (arena/luck/value.py), a closed form of the
  table, which is not a rule of the game.

Matches/s and the ratio to the floor are printed; `table-only / correction` is the share of the
correction's time the core could at most save.
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

try:
    import arena  # noqa: F401 - only to learn whether the checkout is importable
except ModuleNotFoundError:
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from arena.engine.events import Event, PickedUp, WentFishing
from arena.engine.match import Match, MatchSetup
from arena.engine.rules import Rules
from arena.luck import measure
from arena.luck.correction import Tracker

Played = tuple[MatchSetup, list[Event], list[Any]]  # setup, events, the replies in order


def random_matches(seats: int, matches: int) -> list[Played]:
    names = tuple(f"seat_{s}" for s in range(seats))
    rng = random.Random(seats)
    played: list[Played] = []
    for seed in range(matches):
        setup = MatchSetup.from_seed(seed, names, Rules())
        match = Match(setup)
        flow, table, replies = match.play(), match.table, []
        try:
            seat, message = next(flow)
            while True:
                reply: Any = None
                if message["type"] == "ask":
                    other = (seat + rng.randrange(1, seats)) % seats
                    reply = {"player": other, "cardId": rng.choice(table.hands[seat])["id"]}
                    replies.append(reply)
                elif message["type"] in ("go-fish", "pick-up"):
                    reply = rng.randrange(len(table.pond))
                    replies.append(reply)
                seat, message = flow.send(reply)
        except StopIteration:
            played.append((setup, list(match.events), replies))
    return played


def engine_again(played: Sequence[Played]) -> None:
    for setup, _, replies in played:
        flow, answers = Match(setup).play(), iter(replies)
        try:
            _, message = next(flow)
            while True:
                decision = message["type"] in ("ask", "go-fish", "pick-up")
                _, message = flow.send(next(answers) if decision else None)
        except StopIteration:
            pass


def correction(played: Sequence[Played]) -> None:
    for setup, events, _ in played:
        measure(setup, events)


def table_only(played: Sequence[Played]) -> None:
    for setup, events, _ in played:
        tracker = Tracker(setup)
        rules, seats = setup.rules, len(setup.names)
        if len(tracker.table.pond) < rules.cards_to_deal(seats):
            continue
        for seat in range(seats):
            for _ in range(rules.hand_size(seats)):
                tracker.draw(seat, 0)
        for event in events:
            if type(event) is WentFishing or type(event) is PickedUp:
                tracker.draw(event.seat, event.place)
            else:
                tracker.apply(event)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--matches", type=int, default=200)
    parser.add_argument("--seats", type=int, nargs="+", default=[2, 4])
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args(argv)
    runs: dict[str, Callable[[Sequence[Played]], None]] = {
        "engine": engine_again,
        "correction": correction,
        "table-only": table_only,
    }
    for seats in args.seats:
        played = random_matches(seats, args.matches)
        took = dict.fromkeys(runs, 0.0)
        for _ in range(args.rounds):
            for name, run in runs.items():
                began = time.perf_counter()
                run(played)
                took[name] += time.perf_counter() - began
        done = args.matches * args.rounds
        for name in runs:
            print(
                f"{seats} seats  {name:10}  {done / took[name]:8.0f} matches/s"
                f"  ({took['engine'] / took[name]:.2f}x the engine's)"
            )
        share = took["table-only"] / took["correction"]
        print(f"{seats} seats  table-only / correction: {share:.2f} of the correction's time")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
