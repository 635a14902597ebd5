"""How much luck the correction removes, whether it is unbiased, and what it costs.

    nice python bench/luck.py                                   # the figures in docs/luck.md
    nice python bench/luck.py --matches 300 --groups 100 --runs 20  # quicker, noisier

The built-in bots play in-process on the arena's engine, default rules, seeds 20000 to 90000
(never the fitting seeds, 900000 and up, nor the tests', 50000 to 50300 of other tables).

1. **Unbiased**: identical bots at 2, 3 and 4 seats: each seat's mean adjusted win share with
   its 95 % interval (it must hold 1/n).
2. **Variance**: for unequal bots on duplicate groups (the k rotations of one deal, as `arena
   sprt` plays them), the candidate's raw and adjusted mean group outcome (they must agree
   within their intervals), their standard deviations and the variance ratio.
3. **The SPRT**: share0 = 1/k against share1 = 1/k + 0.05, alpha = beta = 0.05, the test
   `arena sprt` runs: `SequentialTest` on raw group outcomes (`--raw`), `NormalTest` on adjusted
   ones (the default). `--runs` tests (seeds 1, 2, …) draw the real groups with replacement:
   matches to a decision as played; and the error rates with the outcomes moved to share0 (H0
   true) and share1 (H1 true): tilted for raw (bench/sprt.py's way), shifted for adjusted.
4. **Cost**: `play_task` (the worker's whole match, in-process bots) timed with the correction,
   and the correction alone: its share of a match's time in the worker, in wall-clock and in CPU
   time (on a shared machine the wall clock counts the waits for a core). `--cost N`: only this.
"""

from __future__ import annotations

import argparse
import math
import random
import statistics
import sys
import time
from collections import Counter
from collections.abc import Sequence
from fractions import Fraction
from pathlib import Path

try:
    import arena  # noqa: F401 - only to learn whether the checkout is importable
except ModuleNotFoundError:
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from arena.bots import BOTS
from arena.engine.match import Match, MatchSetup, Result
from arena.engine.rules import Rules
from arena.luck import measure
from arena.sdk import Bot
from arena.tournaments.results import win_share
from arena.tournaments.sprt import Decision, Hypotheses, NormalTest, SequentialTest
from arena.tournaments.standings import wilson, win_shares

sys.path.insert(0, str(Path(__file__).resolve().parent))
from sprt import tilted  # bench/sprt.py, beside this file

Z95 = 1.959963984540054


def play(
    seed: int, levels: Sequence[str], rules: Rules, bots: Sequence[Bot] | None = None
) -> tuple[Match, Result]:
    """One match of the built-in `levels` (or of these `bots`), in-process."""
    bots = bots or [BOTS[level]() for level in levels]
    match = Match(MatchSetup.from_seed(seed, [f"{lv}-{s}" for s, lv in enumerate(levels)], rules))
    return match, match.play_out(bots)


def candidate_groups(
    levels: Sequence[str], groups: int, seed: int
) -> tuple[list[Fraction], list[float]]:
    """The candidate's (levels[0]) raw and adjusted outcome in each duplicate group: its mean
    point over the k rotations of one deal (seed `seed + group`), rotation r seating it at r."""
    n, raw, adjusted = len(levels), [], []
    for group in range(groups):
        points: list[Fraction] = []
        shares: list[float] = []
        for at in range(n):
            seated = [levels[(s - at) % n] for s in range(n)]
            match, result = play(seed + group, seated, Rules())
            points.append(win_share(result.places[at], result.places))
            luck = measure(match.setup, match.events)
            shares.append(luck.adjusted_shares(win_shares(result.places))[at])
        raw.append(sum(points, Fraction(0)) / n)
        adjusted.append(sum(shares) / n)
    return raw, adjusted


def interval(values: Sequence[float]) -> str:
    mean = statistics.mean(values)
    half = Z95 * statistics.stdev(values) / math.sqrt(len(values))
    return f"{mean:.3f} ± {half:.3f}"


def sprt_runs(
    outcomes: Sequence[Fraction] | Sequence[float],
    hypotheses: Hypotheses,
    seats: int,
    runs: int,
    cap: int,
) -> tuple[float, float, float]:
    """`runs` tests (seeds 1 … runs) on group outcomes drawn with replacement, each until a
    decision or the cap: (mean matches to a decision, share of H1, share of H0). Raw
    outcomes go to `SequentialTest` and adjusted ones to `NormalTest`, as `arena sprt` does."""
    used, h1, h0 = [], 0, 0
    for run in range(1, runs + 1):
        rng = random.Random(run)
        test: SequentialTest | NormalTest = (
            SequentialTest(hypotheses)
            if isinstance(outcomes[0], Fraction)
            else NormalTest(hypotheses)
        )
        decision = None
        while decision is None and test.groups * seats < cap:
            outcome = outcomes[rng.randrange(len(outcomes))]
            decision = (
                test.add(outcome)
                if isinstance(test, SequentialTest) and isinstance(outcome, Fraction)
                else test.add(float(outcome))  # type: ignore[union-attr]
            )
        used.append(test.groups * seats)
        h1 += decision is Decision.H1
        h0 += decision is Decision.H0
    return statistics.mean(used), h1 / runs, h0 / runs


def rate(share: float, runs: int) -> str:
    """An error rate with its 95 % Wilson interval."""
    low, high = wilson(share * runs, runs)
    return f"{share:.3f} [{low:.3f}, {high:.3f}]"


def shifted(outcomes: Sequence[float], share: float) -> list[float]:
    mean = statistics.mean(outcomes)
    return [x + share - mean for x in outcomes]


def tilted_sample(outcomes: Sequence[Fraction], share: float, size: int) -> list[Fraction]:
    """Raw outcomes with their empirical distribution tilted to mean `share` (bench/sprt.py's
    way), as a sample of `size` drawn in proportion (deterministic)."""
    levels, probabilities = tilted(Counter(outcomes), share)
    sample: list[Fraction] = []
    for level, p in zip(levels, probabilities):
        sample += [level] * round(p * size)
    return sample


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
    spent = [0.0, 0.0]  # wall, CPU
    original = runner.measure

    def timed(*args: object) -> object:
        started, cpu = time.perf_counter(), time.process_time()
        try:
            return original(*args)  # type: ignore[arg-type]
        finally:
            spent[0] += time.perf_counter() - started
            spent[1] += time.process_time() - cpu

    runner.measure = timed  # type: ignore[assignment]
    started, cpu = time.perf_counter(), time.process_time()
    for i in range(matches):
        runner.play_task(runner.MatchTask(config, seats, i, i, i, in_process_bots=True))
    whole, whole_cpu = time.perf_counter() - started, time.process_time() - cpu
    runner.measure = original
    print(
        f"\ncost: {matches} matches hard vs hard in the worker (play_task, in-process bots): "
        f"{1000 * whole / matches:.2f} ms each, of which the correction {1000 * spent[0] / matches:.2f} ms "
        f"= {100 * spent[0] / (whole - spent[0]):.0f}% of the match without it; in CPU time "
        f"(what a loaded machine does not inflate) {1000 * whole_cpu / matches:.2f} ms and "
        f"{1000 * spent[1] / matches:.2f} ms = {100 * spent[1] / (whole_cpu - spent[1]):.0f}%"
    )


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--matches", type=int, default=2000, help="matches per identical table")
    parser.add_argument("--groups", type=int, default=600, help="duplicate groups per pair")
    parser.add_argument("--runs", type=int, default=40, help="simulated tests per cell")
    parser.add_argument("--cap", type=int, default=20000)
    parser.add_argument("--cost", type=int, metavar="N", help="only the cost, over N matches")
    parser.add_argument("--skip-identical", action="store_true", help="leave out section 1")
    args = parser.parse_args(argv)
    print("command: python bench/luck.py " + " ".join(argv if argv is not None else sys.argv[1:]))
    if args.cost:
        cost(args.cost)
        return 0
    started = time.perf_counter()
    print("\n1. identical bots (hard): each seat's mean adjusted share, raw beside it")
    for seats in () if args.skip_identical else (2, 3, 4):
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
    print("\n2./3. unequal bots on duplicate groups: raw and adjusted, and the SPRT")
    tables = (
        ("master", "expert"),
        ("expert", "hard"),
        ("hard", "medium"),
        ("expert", "hard", "medium", "hard"),
        ("hard", "medium", "hard", "expert"),
    )
    for number, levels in enumerate(tables):
        started = time.perf_counter()
        k = len(levels)
        raw, adjusted = candidate_groups(levels, args.groups, 60_000 + 5_000 * number)
        sd_raw, sd_adj = statistics.stdev(map(float, raw)), statistics.stdev(adjusted)
        print(
            f"\n  {' vs '.join(levels)} ({k} seats, {args.groups} groups = {k * args.groups} matches, "
            f"{time.perf_counter() - started:.0f} s): candidate raw {interval(list(map(float, raw)))}, "
            f"adjusted {interval(adjusted)}; sd of a group {sd_raw:.3f} -> {sd_adj:.3f}, variance "
            f"ratio {(sd_adj / sd_raw) ** 2:.3f} ({(sd_raw / sd_adj) ** 2:.2f}x fewer matches for one interval)"
        )
        hypotheses = Hypotheses(1 / k, 1 / k + 0.05)
        print(
            f"    SPRT share0 {hypotheses.share0:.3f}, share1 {hypotheses.share1:.3f}, alpha = beta = 0.05, "
            f"{args.runs} runs (seeds 1…{args.runs}) per cell, cap {args.cap} matches"
        )
        size = 20 * len(raw)
        cells = {
            "raw": (
                raw,
                tilted_sample(raw, hypotheses.share0, size),
                tilted_sample(raw, hypotheses.share1, size),
            ),
            "adjusted": (
                adjusted,
                shifted(adjusted, hypotheses.share0),
                shifted(adjusted, hypotheses.share1),
            ),
        }
        played = {}
        for name, (as_is, at0, at1) in cells.items():
            played[name] = sprt_runs(as_is, hypotheses, k, args.runs, args.cap)  # type: ignore[arg-type]
            h0 = sprt_runs(at0, hypotheses, k, args.runs, args.cap)  # type: ignore[arg-type]
            h1 = sprt_runs(at1, hypotheses, k, args.runs, args.cap)  # type: ignore[arg-type]
            print(
                f"    {name:8}: as played {played[name][0]:.0f} matches to a decision (H1 "
                f"{played[name][1]:.2f}, H0 {played[name][2]:.2f}); H0 true: false H1 "
                f"{rate(h0[1], args.runs)} ({h0[0]:.0f} matches); H1 true: false H0 "
                f"{rate(h1[2], args.runs)} ({h1[0]:.0f} matches)"
            )
        print(
            f"    as played, adjusted needs {played['adjusted'][0] / played['raw'][0]:.2f}x the matches of raw "
            f"({played['raw'][0] / played['adjusted'][0]:.2f}x fewer)"
        )
    cost(max(50, args.matches // 10))
    return 0


if __name__ == "__main__":
    sys.exit(main())
