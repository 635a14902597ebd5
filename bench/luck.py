"""How much luck the correction removes, whether it is unbiased, and what it costs.

    nice python bench/luck.py                        # the figures in docs/luck.md and the README
    nice python bench/luck.py --matches 300 --runs 50 # quicker, noisier

The built-in bots play in-process on the arena's engine, default rules, seeds 0 and up (never
the fitting seeds, 900000 and up); the candidate (first level) sits in every seat equally often.

1. **Unbiased**: identical bots at 2, 3 and 4 seats: each seat's mean adjusted win share with
   its 95 % interval (it must hold 1/n).
2. **Variance**: for pairs of unequal bots, the candidate's raw and adjusted mean (they must
   agree within their intervals), their standard deviations, and the variance ratio.
3. **The SPRT**: a sequential test of share0 = 1/n + 0 against share1 = 1/n + 0.05 (alpha =
   beta = 0.05), by the normal-approximation generalised LLR that `arena sprt` would run on
   continuous outcomes, is run `--runs` times (seed 1, 2, …) on outcomes drawn with
   replacement from the real matches, raw and adjusted: the mean matches to a decision, and the
   error rates when the outcomes are shifted to mean share0 (H0 true) and share1 (H1 true).
4. **Cost**: `play_task` (the worker's whole match, in-process bots) timed with the correction,
   and the correction alone: its share of a match's time in the worker.
"""

from __future__ import annotations

import argparse
import math
import random
import statistics
import sys
import time
from collections.abc import Sequence
from pathlib import Path

try:
    import arena  # noqa: F401 - only to learn whether the checkout is importable
except ModuleNotFoundError:
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from arena.bots import BOTS
from arena.engine.match import NO_REPLY, Match, MatchSetup, Result
from arena.engine.rules import Rules
from arena.luck import measure
from arena.tournaments.standings import win_shares

Z95 = 1.959963984540054


def play(seed: int, levels: Sequence[str], rules: Rules) -> tuple[Match, Result]:
    bots = [BOTS[level]() for level in levels]
    match = Match(MatchSetup.from_seed(seed, [f"{lv}-{s}" for s, lv in enumerate(levels)], rules))
    flow = match.play()
    reply = NO_REPLY
    try:
        delivery = next(flow)
        while True:
            reply = bots[delivery.seat].handle(delivery.message)
            delivery = flow.send(reply)
    except StopIteration as stop:
        return match, stop.value


def candidate_outcomes(
    levels: Sequence[str], matches: int, seed: int
) -> tuple[list[float], list[float]]:
    """The candidate's (levels[0]) raw and adjusted win share in each match; it sits in seat
    `match mod n`."""
    n, raw, adjusted = len(levels), [], []
    for i in range(matches):
        at = i % n
        seated = [levels[(s - at) % n] for s in range(n)]
        match, result = play(seed + i, seated, Rules())
        shares = win_shares(result.places)
        raw.append(shares[at])
        adjusted.append(measure(match.setup, match.events).adjusted_shares(shares)[at])
    return raw, adjusted


def interval(values: Sequence[float]) -> str:
    mean = statistics.mean(values)
    half = Z95 * statistics.stdev(values) / math.sqrt(len(values))
    return f"{mean:.3f} ± {half:.3f}"


def sprt(
    outcomes: Sequence[float], share0: float, share1: float, rng: random.Random, cap: int
) -> tuple[str | None, int]:
    """One sequential test on outcomes drawn with replacement: (decision, matches)."""
    lower, upper = math.log(0.05 / 0.95), math.log(0.95 / 0.05)
    total = squares = 0.0
    for n in range(1, cap + 1):
        x = outcomes[rng.randrange(len(outcomes))]
        total += x
        squares += x * x
        if n < 20:
            continue
        mean = total / n
        variance = max(squares / n - mean * mean, 1e-9)
        llr = (share1 - share0) * (total - n * (share0 + share1) / 2) / variance
        if llr >= upper:
            return "H1", n
        if llr <= lower:
            return "H0", n
    return None, cap


def sprt_cell(
    outcomes: Sequence[float], share0: float, share1: float, runs: int, cap: int, shift: float
) -> tuple[float, float, float]:
    """(mean matches to a decision, share of H1, share of H0) over `runs` tests, seeds 1…runs."""
    shifted = [x + shift for x in outcomes]
    used, h1, h0 = [], 0, 0
    for run in range(1, runs + 1):
        decision, n = sprt(shifted, share0, share1, random.Random(run), cap)
        used.append(n)
        h1 += decision == "H1"
        h0 += decision == "H0"
    return statistics.mean(used), h1 / runs, h0 / runs


def cost(matches: int) -> None:
    import tempfile

    from arena.base.config import load
    from arena.tournaments import runner

    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "config.toml"
        path.write_text(
            '[[participants]]\nname = "a"\nbot = "hard"\n[[participants]]\nname = "b"\nbot = "hard"\n'
        )
        config, seated = load(path)
    seats = tuple(seated)
    spent = [0.0]
    original = runner.measure

    def timed(*args: object) -> object:
        started = time.perf_counter()
        try:
            return original(*args)  # type: ignore[arg-type]
        finally:
            spent[0] += time.perf_counter() - started

    runner.measure = timed  # type: ignore[assignment]
    started = time.perf_counter()
    for i in range(matches):
        runner.play_task(runner.MatchTask(config, seats, i, i, i, in_process_bots=True))
    whole = time.perf_counter() - started
    runner.measure = original
    print(
        f"\ncost: {matches} matches hard vs hard in the worker (play_task, in-process bots): "
        f"{1000 * whole / matches:.2f} ms each, of which the correction {1000 * spent[0] / matches:.2f} ms "
        f"= {100 * spent[0] / (whole - spent[0]):.0f}% of the match without it"
    )


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--matches", type=int, default=2000, help="matches per table (default 2000)"
    )
    parser.add_argument("--runs", type=int, default=200, help="simulated tests per cell")
    parser.add_argument("--cap", type=int, default=20000)
    args = parser.parse_args(argv)
    print("command: python bench/luck.py " + " ".join(argv if argv is not None else sys.argv[1:]))
    started = time.perf_counter()
    print("\n1. identical bots (hard): each seat's mean adjusted share, raw beside it")
    for seats in (2, 3, 4):
        n = args.matches
        per_seat_raw: list[list[float]] = [[] for _ in range(seats)]
        per_seat_adj: list[list[float]] = [[] for _ in range(seats)]
        for i in range(n):
            match, result = play(10_000 * seats + i, ["hard"] * seats, Rules())
            shares = win_shares(result.places)
            adjusted = measure(match.setup, match.events).adjusted_shares(shares)
            for s in range(seats):
                per_seat_raw[s].append(shares[s])
                per_seat_adj[s].append(adjusted[s])
        print(
            f"  {seats} seats, {n} matches (1/n = {1 / seats:.3f}): "
            + "; ".join(
                f"seat {s} adjusted {interval(per_seat_adj[s])} raw {interval(per_seat_raw[s])}"
                for s in range(seats)
            )
        )
    print(f"  ({time.perf_counter() - started:.0f} s)")
    print("\n2./3. unequal bots: raw and adjusted, and the SPRT share0 = 1/n, share1 = 1/n + 0.05")
    tables = (
        ("master", "expert"),
        ("expert", "hard"),
        ("hard", "medium"),
        ("expert", "hard", "medium", "hard"),
        ("hard", "medium", "hard", "expert"),
    )
    for number, levels in enumerate(tables):
        started = time.perf_counter()
        raw, adjusted = candidate_outcomes(levels, args.matches, 60_000 + 5_000 * number)
        sd_raw, sd_adj = statistics.stdev(raw), statistics.stdev(adjusted)
        print(
            f"\n  {' vs '.join(levels)} ({len(levels)} seats, {args.matches} matches, "
            f"{time.perf_counter() - started:.0f} s): candidate raw {interval(raw)}, adjusted "
            f"{interval(adjusted)}; sd {sd_raw:.3f} -> {sd_adj:.3f}, variance ratio "
            f"{(sd_adj / sd_raw) ** 2:.3f} ({(sd_raw / sd_adj) ** 2:.2f}x fewer matches for one interval)"
        )
        share0 = 1 / len(levels)
        share1 = share0 + 0.05
        for name, outcomes in (("raw", raw), ("adjusted", adjusted)):
            mean = statistics.mean(outcomes)
            as_is = sprt_cell(outcomes, share0, share1, args.runs, args.cap, 0.0)
            at0 = sprt_cell(outcomes, share0, share1, args.runs, args.cap, share0 - mean)
            at1 = sprt_cell(outcomes, share0, share1, args.runs, args.cap, share1 - mean)
            print(
                f"    {name:8}: as played: {as_is[0]:.0f} matches to a decision (H1 {as_is[1]:.2f}, "
                f"H0 {as_is[2]:.2f}); H0 true: false H1 {at0[1]:.3f}, {at0[0]:.0f} matches; "
                f"H1 true: false H0 {at1[2]:.3f}, {at1[0]:.0f} matches"
            )
    cost(max(50, args.matches // 10))
    return 0


if __name__ == "__main__":
    sys.exit(main())
