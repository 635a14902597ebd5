"""Fit V's parameters (arena/luck/value.py) on matches that are never used to evaluate it.

    nice python bench/luck_fit.py                    # the fit pinned as PARAMETERS["1"]
    nice python bench/luck_fit.py --matches 200      # quicker, rougher
    nice python bench/luck_fit.py --objective variance --matches 600  # V for the least variance

The built-in bots `random`, `easy`, `medium`, `hard` and `expert` play in-process, at 2, 3 and
4 seats (a level drawn per seat), default rules, on seeds 900000 and up — a range no test and
no evaluation in bench/luck.py uses (they use seeds below 100000). After every chance event
(each dealt card, each draw) the table is a sample; its targets are the match's final win
shares and books. The fit minimises the cross-entropy of V's win values against the final win
shares plus a small weight times the squared error of its book values, by coordinate descent
with shrinking steps (five parameters, pure Python: no numpy needed).
"""

from __future__ import annotations

import argparse
import math
import random
import statistics
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

try:
    import arena  # noqa: F401 - only to learn whether the checkout is importable
except ModuleNotFoundError:
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from arena.bots import BOTS
from arena.engine.events import PickedUp, WentFishing
from arena.engine.match import Match, MatchSetup, Result
from arena.engine.rules import Rules
from arena.luck.correction import Tracker, measure_with
from arena.luck.value import BITS, CURRENT, PARAMETERS, Parameters, Valuer
from arena.tournaments.standings import win_shares

FIT_SEEDS = 900_000
LEVELS = ("random", "easy", "medium", "hard", "expert")


@dataclass(frozen=True)
class Sample:
    """One table: per rank still in play (its counts by seat, books left), books, targets."""

    ranks: tuple[tuple[tuple[tuple[int, int, int], ...], int], ...]
    books: tuple[int, ...]
    laid: int
    total: int
    shares: tuple[float, ...]
    final_books: tuple[int, ...]


def play(seed: int, levels: Sequence[str], rules: Rules) -> tuple[Match, Result]:
    bots = [BOTS[level]() for level in levels]
    match = Match(MatchSetup.from_seed(seed, [f"{lv}-{s}" for s, lv in enumerate(levels)], rules))
    return match, match.play_out(bots)


def samples(match: Match, result: Result, every: int, rng: random.Random) -> list[Sample]:
    """The tables after each chance event of `match` (one in `every`, at random), as V sees
    them (arena/luck's own tracker of the replayed table)."""
    setup = match.setup
    seats = len(setup.names)
    tracker = Tracker(setup)
    shares = tuple(win_shares(result.places))
    out: list[Sample] = []

    def take() -> None:
        if rng.randrange(every):
            return
        ranks = tuple(
            (
                tuple(
                    (BITS[tracker.masks[s][r]], int(s == tracker.mover), tracker.known[s] >> r & 1)
                    for s in range(seats)
                ),
                q,
            )
            for r, q in enumerate(tracker.left)
            if q
        )
        books = tuple(tracker.table.books)
        out.append(Sample(ranks, books, sum(books), tracker.total, shares, result.scores))

    for seat in range(seats):
        for _ in range(setup.rules.hand_size(seats)):
            tracker.draw(seat, 0)
            take()
    for event in match.events:
        if isinstance(event, WentFishing | PickedUp):
            tracker.draw(event.seat, event.place)
            take()
        else:
            tracker.apply(event)
    return out


def valuer_of(params: Sequence[float]) -> Valuer:
    w = (params[0], params[1], params[2])
    return Valuer(Parameters(w=w, tau=params[3], pi=params[4], b0=params[5], b1=params[6]))


def loss(params: Sequence[float], data: Sequence[Sample], books_weight: float) -> float:
    v = valuer_of(params)
    cache: dict[tuple[tuple[int, int, int], ...], list[float]] = {}
    total = 0.0
    for sample in data:
        expected = [float(b) for b in sample.books]
        for pattern, q in sample.ranks:
            chances = cache.get(pattern)
            if chances is None:
                weights = [v.weight[c][m][k] for c, m, k in pattern]
                whole = sum(weights)
                chances = cache[pattern] = [x / whole for x in weights]
            for s, c in enumerate(chances):
                expected[s] += q * c
        win = v.win(expected, v.beta(sample.laid, sample.total))
        total -= sum(y * math.log(max(p, 1e-12)) for y, p in zip(sample.shares, win))
        total += books_weight * sum((e - b) ** 2 for e, b in zip(expected, sample.final_books))
    return total / len(data)


def fit(data: Sequence[Sample], start: Sequence[float], books_weight: float) -> list[float]:
    """Coordinate descent: try each parameter up and down by a step, halve the steps when
    nothing improves."""
    best = list(start)
    value = loss(best, data, books_weight)
    step = 0.5
    while step > 0.01:
        improved = False
        for i in range(len(best)):
            for sign in (1, -1):
                trial = list(best)
                trial[i] += sign * step
                if i == 5 and trial[i] <= 0:
                    continue
                trial_value = loss(trial, data, books_weight)
                if trial_value < value:
                    best, value, improved = trial, trial_value, True
                    break
        if not improved:
            step /= 2
        print(f"  loss {value:.5f} step {step:.3f} params {[round(p, 3) for p in best]}")
    return best


PAIRS = (("master", "expert"), ("expert", "hard"), ("hard", "medium"), ("expert", "medium"))


def variance_fit(matches: int) -> None:
    """`--objective variance`: V's parameters chosen to leave the least variance in the
    adjusted win share of 2-seat matches between the stronger levels (seeds 905000 and up,
    each pair in both seatings), by the same coordinate descent; then, on matches it never saw
    (bench/luck.py's duplicate groups, seeds 60000, 65000, 70000), the variance ratio of a
    group's outcome with version 1's V and with this one."""
    from arena.luck import measure

    games = []
    for i in range(matches):
        a, b = PAIRS[i % len(PAIRS)]
        levels = [a, b] if i // len(PAIRS) % 2 == 0 else [b, a]
        match, result = play(FIT_SEEDS + 5_000 + i, levels, Rules())
        games.append((match, win_shares(result.places)[0]))

    def fitted(params: Sequence[float]) -> tuple[float, float]:
        """The variance ratio left with the best scale, and that scale."""
        v = valuer_of(params)
        raw = [share for _, share in games]
        luck = [measure_with(v, m.setup, m.events, "fit").share[0] for m, _ in games]
        covariance = statistics.covariance(raw, luck)
        ratio = 1 - covariance**2 / (statistics.variance(luck) * statistics.variance(raw))
        return ratio, covariance / statistics.variance(luck)

    current = PARAMETERS[CURRENT]
    best = [*current.w, current.tau, current.pi, current.b0, current.b1]
    value, step = fitted(best)[0], 0.4
    print(f"  version {CURRENT}: variance ratio {value:.4f} on the fitting matches")
    while step > 0.05:
        improved = False
        for i in range(len(best)):
            for sign in (1, -1):
                trial = list(best)
                trial[i] += sign * step
                if i == 5 and trial[i] <= 0:
                    continue
                trial_value = fitted(trial)[0]
                if trial_value < value:
                    best, value, improved = trial, trial_value, True
                    break
        if not improved:
            step /= 2
        print(f"  ratio {value:.4f} step {step:.3f} params {[round(p, 3) for p in best]}")
    scale = fitted(best)[1]
    v = valuer_of(best)
    print(f"win scale at 2 seats {scale:.3f}; held out, 500 duplicate groups each:")
    for number, levels in enumerate(PAIRS[:3]):
        raw, first, this = [], [], []
        for group in range(500):
            r = a1 = a2 = 0.0
            for at in range(2):
                match, result = play(
                    60_000 + 5_000 * number + group,
                    [levels[(s - at) % 2] for s in range(2)],
                    Rules(),
                )
                share = win_shares(result.places)[at]
                r += share / 2
                a1 += (share - measure(match.setup, match.events).share[at]) / 2
                a2 += (
                    share - scale * measure_with(v, match.setup, match.events, "fit").share[at]
                ) / 2
            raw.append(r)
            first.append(a1)
            this.append(a2)
        whole = statistics.variance(raw)
        print(
            f"  {levels[0]} vs {levels[1]}: variance ratio, version {CURRENT} "
            f"{statistics.variance(first) / whole:.3f}, this fit {statistics.variance(this) / whole:.3f}"
        )


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--matches", type=int, default=600, help="matches per table size")
    parser.add_argument("--every", type=int, default=3, help="keep one table in this many")
    parser.add_argument("--books-weight", type=float, default=0.02)
    parser.add_argument(
        "--objective",
        choices=("likelihood", "variance"),
        default="likelihood",
        help="variance: fit on the adjusted share's variance at 2 seats (`variance_fit`)",
    )
    args = parser.parse_args(argv)
    print(
        "command: python bench/luck_fit.py " + " ".join(argv if argv is not None else sys.argv[1:])
    )
    if args.objective == "variance":
        variance_fit(args.matches)
        return 0
    rng = random.Random(FIT_SEEDS)
    data: list[Sample] = []
    started = time.perf_counter()
    seed = FIT_SEEDS
    matches: list[list[tuple[Match, Result]]] = []
    for seats in (2, 3, 4):
        matches.append([])
        for _ in range(args.matches):
            levels = [rng.choice(LEVELS) for _ in range(seats)]
            match, result = play(seed, levels, Rules())
            matches[-1].append((match, result))
            data.extend(samples(match, result, args.every, rng))
            seed += 1
    print(
        f"{len(data)} tables from {3 * args.matches} matches (seeds {FIT_SEEDS}..{seed - 1}) "
        f"in {time.perf_counter() - started:.0f} s"
    )
    best = fit(data, [-0.16, -0.07, 0.8, 0.0, 0.0, 0.4, 0.6], args.books_weight)
    v = valuer_of(best)
    win_scale, books_scale = [], []
    for seats, played in enumerate(matches[:3], start=2):
        # The coefficient of each control variate: cov(score, luck) / var(luck), every seat
        # of every fitting match of this size pooled.
        raw_w, luck_w, raw_b, luck_b = [], [], [], []
        for match, result in played:
            luck = measure_with(v, match.setup, match.events, "fit")
            raw_w += win_shares(result.places)
            luck_w += luck.share
            raw_b += result.scores
            luck_b += luck.books
        win_scale.append(statistics.covariance(raw_w, luck_w) / statistics.variance(luck_w))
        books_scale.append(statistics.covariance(raw_b, luck_b) / statistics.variance(luck_b))
        print(f"  {seats} seats: win scale {win_scale[-1]:.3f}, books scale {books_scale[-1]:.3f}")
    print(
        f"Parameters(w=({best[0]:.3f}, {best[1]:.3f}, {best[2]:.3f}), tau={best[3]:.3f}, "
        f"pi={best[4]:.3f}, b0={best[5]:.3f}, b1={best[6]:.3f}, "
        f"win_scale=({', '.join(f'{x:.3f}' for x in win_scale)}), "
        f"books_scale=({', '.join(f'{x:.3f}' for x in books_scale)}))"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
