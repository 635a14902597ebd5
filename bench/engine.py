"""Engine throughput: whole matches per second, no processes involved.

Each match is set up from a seed (shuffle and starting seat, as `arena run` does), played by
in-process random bots (like the seed's random participant: a random card of the hand, a random
other seat, a random pond index) with the reference's default rules, and every message is
encoded with `orjson.dumps`, as the match loop does before writing it to a participant.

The floor, measured in the same run, is the encoding alone: the same messages re-encoded with
`orjson.dumps`. The ratio says how much more a message costs than writing it out.

    python bench/engine.py [--seconds 2] [--seats 2 4] [--profile]
"""

from __future__ import annotations

import argparse
import cProfile
import pstats
import random
import sys
import time
from typing import Any

import orjson

from arena.engine.match import MatchSetup, Outcome, play_out
from arena.engine.rules import Rules

GOAL = 1000  # two-seat games per second on one core


class RandomSeat:
    """A seat's random bot that encodes every message it is sent, as the match loop does."""

    def __init__(self, seat: int, seats: int, bot: random.Random, keep: list[bytes] | None):
        self.seat, self.seats, self.bot, self.keep = seat, seats, bot, keep
        self.messages = 0

    def handle(self, message: dict[str, Any]) -> Any:
        encoded = orjson.dumps(message)
        self.messages += 1
        if self.keep is not None:
            self.keep.append(encoded)
        kind = message["type"]
        if kind == "ask":
            other = (self.seat + self.bot.randrange(1, self.seats)) % self.seats
            return {"player": other, "cardId": self.bot.choice(message["hand"])["id"]}
        if kind == "go-fish":
            return self.bot.randrange(len(message["pond"]))
        if kind == "pick-up":
            return self.bot.randrange(message["pond"])
        return None


def play_one(
    seed: int, names: tuple[str, ...], rules: Rules, bot: random.Random, keep: list[bytes] | None
) -> int:
    """Play one match; return its number of messages (kept in `keep` as encoded, if given).

    Keeping every encoded message alive costs about a third of the time by itself (allocation
    of many ~500-byte objects), so only the few games the floor needs keep theirs.
    """
    seats = [RandomSeat(seat, len(names), bot, keep) for seat in range(len(names))]
    result = play_out(MatchSetup.from_seed(seed, names, rules), seats)
    if result.outcome is not Outcome.COMPLETED:
        raise SystemExit(f"seed {seed}: the match ended {result.outcome}")
    return sum(seat.messages for seat in seats)


def play_for(seats: int, seconds: float, kept: list[bytes]) -> tuple[int, int]:
    """Play matches for `seconds` of wall time; return (games, messages)."""
    names = tuple(f"bot{s}" for s in range(seats))
    rules, bot = Rules(), random.Random(0)
    games = messages = 0
    start = time.perf_counter()
    while time.perf_counter() - start < seconds:
        messages += play_one(games, names, rules, bot, kept if games < 50 else None)
        games += 1
    return games, messages


def encode_floor(kept: list[bytes], seconds: float) -> float:
    """Messages per CPU second of `orjson.dumps` alone, on the same kind of messages."""
    decoded = [orjson.loads(line) for line in kept]
    dumps, rounds = orjson.dumps, 0
    cpu_start, wall_start = time.process_time(), time.perf_counter()
    while time.perf_counter() - wall_start < seconds or not rounds:
        for message in decoded:
            dumps(message)
        rounds += 1
    return rounds * len(decoded) / (time.process_time() - cpu_start)


def measure(seats: int, seconds: float) -> dict[str, float]:
    # Rates are per second of this process's CPU time: on a shared machine the wall clock
    # also counts the time other processes held the core.
    kept: list[bytes] = []
    wall_start, cpu_start = time.perf_counter(), time.process_time()
    games, messages = play_for(seats, seconds, kept)
    cpu = time.process_time() - cpu_start
    wall = time.perf_counter() - wall_start
    return {
        "seats": seats,
        "games": games,
        "cpu_share": cpu / wall,
        "games_per_s": games / cpu,
        "messages_per_s": messages / cpu,
        "messages_per_game": messages / games,
        "encode_only_per_s": encode_floor(kept, min(seconds / 4, 1.0)),
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--seconds", type=float, default=2.0, help="time per seat count (default 2)"
    )
    parser.add_argument(
        "--seats", type=int, nargs="+", default=[2, 4], help="seat counts (default 2 4)"
    )
    parser.add_argument(
        "--profile", action="store_true", help="cProfile the matches of the first seat count"
    )
    args = parser.parse_args(argv)
    print("$", " ".join(["python", *sys.argv]))
    if args.profile:
        profiler = cProfile.Profile()
        profiler.runcall(play_for, args.seats[0], args.seconds, [])
        pstats.Stats(profiler).sort_stats("tottime").print_stats(15)
        return 0
    results = [measure(seats, args.seconds) for seats in args.seats]
    print("rates per CPU second of this process; floor = orjson.dumps of the same messages alone")
    head = (
        "seats",
        "games",
        "games/s",
        "msgs/game",
        "msgs/s",
        "floor msgs/s",
        "x floor",
        "cpu/wall",
    )
    print("{:>5} {:>7} {:>9} {:>9} {:>10} {:>13} {:>7} {:>8}".format(*head))
    for r in results:
        print(
            f"{r['seats']:>5} {r['games']:>7} {r['games_per_s']:>9,.0f} {r['messages_per_game']:>9.0f}"
            f" {r['messages_per_s']:>10,.0f} {r['encode_only_per_s']:>13,.0f}"
            f" {r['encode_only_per_s'] / r['messages_per_s']:>7.1f} {r['cpu_share']:>8.0%}"
        )
    two = next((r for r in results if r["seats"] == 2), None)
    summary = ", ".join(f"{r['seats']} seats {r['games_per_s']:,.0f} games/s" for r in results)
    verdict = (
        ""
        if two is None
        else f" (goal {GOAL:,} two-seat games/s: {'met' if two['games_per_s'] >= GOAL else 'NOT met'})"
    )
    print(f"summary: {summary}{verdict}, python {sys.version.split()[0]}, one core")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
