"""Is the SPRT right, and what do duplicate deals save? Thousands of simulated tests on real data.

    nice python bench/sprt.py                         # the figures in docs/testing-a-bot.md
    nice python bench/sprt.py --groups 300 --runs 200 # quicker, noisier

1. **Real outcomes.** The built-in bots play duplicate groups in-process on the arena's engine
   (default rules): at 2 seats `expert` (the candidate) against `hard`; at 4 seats `hard`
   against `medium`, `hard` and `expert` (a share near 1/4). A group is the k rotations of one deal (seed `--seed + group`), the
   candidate in every seat once; its outcome is the candidate's mean match point. Every match
   of those groups is also a single match on a fresh deal, the candidate in each seat equally
   often: their points are the single-match outcomes.
2. **Tilted to each hypothesis.** The empirical outcome distribution p is tilted exponentially
   (q_i ∝ p_i e^(θ a_i)) until its mean is share0 (H0 true) or share1 (H1 true): the real shape
   and variance of Go Fish outcomes, with exactly the hypothesised share.
3. **Simulated tests.** `--runs` runs of `arena.tournaments.sprt.SequentialTest` (the code
   `arena run` uses, minimum of groups included) draw outcomes from the tilted distribution
   until a decision or the cap (`--cap` matches). Measured: how often H0-true runs accept H1
   (the real alpha) and H1-true runs accept H0 (the real beta), and the mean number of
   matches to a decision, for groups and for single matches under the same test; the ratio
   singles/groups is the saving of duplicate deals, measured in this same run.
"""

from __future__ import annotations

import argparse
import math
import random
import sys
import time
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction
from pathlib import Path

try:
    import arena  # noqa: F401 - only to learn whether the checkout is importable
except ModuleNotFoundError:
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from bot_strength import play_seeded

from arena.engine.rules import Rules
from arena.tournaments.results import win_share
from arena.tournaments.sprt import Decision, Hypotheses, SequentialTest


@dataclass(frozen=True)
class Table:
    """One table to test at: the candidate's level first, then its opponents'."""

    levels: tuple[str, ...]
    share0: float
    share1: float

    @property
    def seats(self) -> int:
        return len(self.levels)


TABLES = (
    Table(("expert", "hard"), 0.5, 0.55),
    Table(("hard", "medium", "hard", "expert"), 0.25, 0.30),
)


def play_groups(
    table: Table, groups: int, seed: int, rules: Rules
) -> tuple[Counter[Fraction], Counter[Fraction]]:
    """Outcome counts of real duplicate groups, and of their matches as single matches."""
    k = table.seats
    group_outcomes: Counter[Fraction] = Counter()
    singles: Counter[Fraction] = Counter()
    for group in range(groups):
        points = []
        for rotation in range(k):
            # Rotation r puts the candidate (base position 0) in seat r.
            levels = [table.levels[(seat - rotation) % k] for seat in range(k)]
            places = play_seeded(seed + group, levels, rules).places
            point = win_share(places[rotation], places)
            points.append(point)
            singles[point] += 1
        group_outcomes[sum(points, Fraction(0)) / k] += 1
    return group_outcomes, singles


def tilted(counts: Counter[Fraction], share: float) -> tuple[list[Fraction], list[float]]:
    """Levels and probabilities: the empirical distribution tilted exponentially to mean `share`."""
    levels = sorted(counts)
    base = [counts[level] / sum(counts.values()) for level in levels]
    values = [float(level) for level in levels]

    def probabilities(theta: float) -> list[float]:
        weights = [p * math.exp(theta * (a - 0.5)) for p, a in zip(base, values)]
        total = sum(weights)
        return [w / total for w in weights]

    low, high = -200.0, 200.0
    for _ in range(200):
        middle = (low + high) / 2
        mean = sum(p * a for p, a in zip(probabilities(middle), values))
        low, high = (middle, high) if mean < share else (low, middle)
    return levels, probabilities((low + high) / 2)


@dataclass
class Cell:
    """Simulated tests of one unit (group or single) under one truth."""

    runs: int = 0
    h0: int = 0
    h1: int = 0
    matches_to_decision: int = 0

    @property
    def undecided(self) -> int:
        return self.runs - self.h0 - self.h1

    @property
    def mean_matches(self) -> float:
        decided = self.h0 + self.h1
        return self.matches_to_decision / decided if decided else math.nan


def simulate(
    levels: list[Fraction],
    probabilities: list[float],
    hypotheses: Hypotheses,
    matches_per_unit: int,
    runs: int,
    cap: int,
    rng: random.Random,
) -> Cell:
    cell = Cell()
    units_cap = cap // matches_per_unit
    cumulative = list(_accumulate(probabilities))
    for _ in range(runs):
        test = SequentialTest(hypotheses)
        decision = None
        while decision is None and test.groups < units_cap:
            decision = test.add(levels[_draw(cumulative, rng.random())])
        cell.runs += 1
        if decision is Decision.H0:
            cell.h0 += 1
        elif decision is Decision.H1:
            cell.h1 += 1
        if decision is not None:
            cell.matches_to_decision += test.groups * matches_per_unit
    return cell


def _accumulate(values: Sequence[float]) -> list[float]:
    total, out = 0.0, []
    for value in values:
        total += value
        out.append(total)
    out[-1] = 1.0
    return out


def _draw(cumulative: list[float], u: float) -> int:
    low, high = 0, len(cumulative) - 1
    while low < high:
        middle = (low + high) // 2
        if cumulative[middle] < u:
            low = middle + 1
        else:
            high = middle
    return low


def _spread(counts: Counter[Fraction]) -> tuple[float, float]:
    n = sum(counts.values())
    mean = sum(float(a) * c for a, c in counts.items()) / n
    return mean, math.sqrt(sum(c * (float(a) - mean) ** 2 for a, c in counts.items()) / (n - 1))


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--groups", type=int, default=1000, help="real duplicate groups per table (default 1000)"
    )
    parser.add_argument(
        "--runs", type=int, default=1000, help="simulated tests per cell (default 1000)"
    )
    parser.add_argument(
        "--cap", type=int, default=20000, help="matches per test at most (default 20000)"
    )
    parser.add_argument("--alpha", type=float, default=0.05)
    parser.add_argument("--beta", type=float, default=0.05)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args(argv)
    print("command: python bench/sprt.py " + " ".join(argv if argv is not None else sys.argv[1:]))
    rules, rng = Rules(), random.Random(args.seed)
    for table in TABLES:
        started = time.perf_counter()
        groups, singles = play_groups(table, args.groups, args.seed, rules)
        k = table.seats
        _, g_sd = _spread(groups)
        s_mean, s_sd = _spread(singles)
        print(
            f"\n{k} seats: {' vs '.join(table.levels)}: {args.groups} real groups ({k * args.groups} matches) "
            f"in {time.perf_counter() - started:.0f} s"
        )
        print(
            f"  real candidate share {s_mean:.3f}; sd of a group's outcome {g_sd:.3f}, of a single match's "
            f"{s_sd:.3f} (a group of {k} independent matches would have {s_sd / math.sqrt(k):.3f}); "
            f"{len(groups)} group levels, {len(singles)} match levels"
        )
        hypotheses = Hypotheses(table.share0, table.share1, args.alpha, args.beta)
        print(
            f"  test: share0 {table.share0}, share1 {table.share1}, alpha {args.alpha}, beta {args.beta}, "
            f"at least {hypotheses.min_groups} units, cap {args.cap} matches, {args.runs} runs per cell"
        )
        print(
            "  | unit | truth | accepted H1 | accepted H0 | no decision | mean matches to a decision |"
        )
        print("  |---|---|---:|---:|---:|---:|")
        means: dict[tuple[str, str], float] = {}
        started = time.perf_counter()
        for unit, counts, size in (("group", groups, k), ("single", singles, 1)):
            for truth, share in (("H0", table.share0), ("H1", table.share1)):
                levels, probabilities = tilted(counts, share)
                cell = simulate(levels, probabilities, hypotheses, size, args.runs, args.cap, rng)
                means[unit, truth] = cell.mean_matches
                wrong = cell.h1 if truth == "H0" else cell.h0
                nominal = args.alpha if truth == "H0" else args.beta
                print(
                    f"  | {unit} | {truth} ({share}) | {cell.h1 / cell.runs:.3f} | {cell.h0 / cell.runs:.3f} | "
                    f"{cell.undecided / cell.runs:.3f} | {cell.mean_matches:.0f} |"
                    f"   error {wrong / cell.runs:.3f} vs nominal {nominal}"
                )
        for truth in ("H0", "H1"):
            ratio = means["single", truth] / means["group", truth]
            print(
                f"  {truth} true: single matches need {ratio:.2f}x the matches of duplicate groups "
                f"({means['single', truth]:.0f} vs {means['group', truth]:.0f}): duplicate deals save "
                f"{100 * (1 - 1 / ratio):.0f}%"
            )
        print(f"  simulated in {time.perf_counter() - started:.0f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
