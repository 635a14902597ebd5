"""What the standings claim, against fields of known strengths (docs/tournaments.md, "What the
numbers promise"). A simulation, not real matches: finishing orders drawn from Plackett–Luce.

1. **Coverage** of the rating's 95 % interval (against the field's mean): fields of 3, 8 and 20
   bots at 2, 3 and 4 seats, 1 to 100 matches a bot, each match its own deal or duplicate
   deals (the seats' rotations of one deal sharing its luck: a seat-luck drawn per deal, added
   to each θ); the bare sandwich (`rating.fit(floor=False)`, before the floor) against the
   floored fit; by matches a bot and by deals played; and the widths, floored / bare.
2. **One final table**: fields with equal pairs (twins) and unequal bots: some pair of twins
   told apart, and unequal bots told apart in the wrong order, by per-pair 95 % places
   (`Rated.places`, before the board) and by the board's final look (Holm).
3. **Daily looks**: seasons of 15 bots (7 pairs of twins and one), tables of 2 seats each one
   duplicate deal (both rotations), looked at every day: by random tables and by the league's
   matchmaking (`arena.league.matchmaking.next_table`, fed the floored fit); some twin pair
   told apart at any look and at the last, per-pair 95 % against the live board (confidence
   sequences planned to the season), the mean place range at the end; and the twins'
   head-to-head share (0.5 is the truth): Wilson's interval against the beta-binomial
   confidence sequence, excluding 0.5 at any look, and their widths at the end.

    python bench/standings.py [--fields 200] [--seasons 100] [--part coverage|final|daily|all]
"""

from __future__ import annotations

import argparse
import itertools
import math
import random
import statistics
import sys
import time
from collections import defaultdict
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

from arena.league.matchmaking import Entry, next_table
from arena.tournaments import board, rating
from arena.tournaments.confidence import share_sequence, wilson
from arena.tournaments.rating import ELO, Finish

SPREAD = 0.6  # the strengths' standard deviation in θ (about 100 Elo)
LUCK = 0.5  # a duplicate deal's seat-luck, in θ


def play(
    theta: Mapping[str, float], table: Sequence[str], rng: random.Random, luck: Sequence[float]
) -> dict[str, int]:
    """A finishing order drawn from Plackett–Luce, seat s's strength shifted by luck[s]."""
    left = list(range(len(table)))
    places: dict[str, int] = {}
    while left:
        weights = [math.exp(theta[table[s]] + luck[s]) for s in left]
        pick = rng.choices(left, weights)[0]
        places[table[pick]] = len(places) + 1
        left.remove(pick)
    return places


def deal(
    theta: Mapping[str, float],
    table: Sequence[str],
    rng: random.Random,
    group: object,
    duplicate: bool,
) -> list[Finish]:
    """One deal at `table`: every rotation of its seats sharing one seat-luck (duplicate), or
    one match without luck."""
    if not duplicate:
        return [Finish(play(theta, table, rng, [0.0] * len(table)), group)]
    luck = [rng.gauss(0, LUCK) for _ in table]
    k = len(table)
    return [
        Finish(play(theta, [table[(s + r) % k] for s in range(k)], rng, luck), group)
        for r in range(k)
    ]


# -- 1. coverage -------------------------------------------------------------------------------


def coverage(fields: int, seed: int) -> None:
    print("1. coverage of the rating's 95 % interval (floored | bare sandwich), width floored/bare")
    print(
        f"{'bots':>4} {'seats':>5} {'dup':>3} {'matches':>7}  {'floored':>7} {'bare':>6} {'width':>6}"
    )
    by_deals: dict[str, list[int]] = defaultdict(lambda: [0, 0, 0])
    worst = 1.0
    for bots, seats, duplicate, per_bot in itertools.product(
        (3, 8, 20), (2, 3, 4), (False, True), (1, 2, 4, 10, 30, 100)
    ):
        if seats > bots or (bots == 20 and per_bot == 100 and fields > 50):
            continue  # (20 bots at 100 matches: a minute a cell; run with --fields 50)
        rng = random.Random(f"{seed} {bots} {seats} {duplicate} {per_bot}")
        hit = [0, 0]
        total = 0
        widths = [0.0, 0.0]
        for f in range(fields):
            names = [f"b{i:02d}" for i in range(bots)]
            theta = {name: rng.gauss(0, SPREAD) for name in names}
            per_deal = seats if duplicate else 1
            deals = max(1, round(bots * per_bot / seats / per_deal))
            played = [
                finish
                for d in range(deals)
                for finish in deal(theta, rng.sample(names, seats), rng, (f, d), duplicate)
            ]
            mean = statistics.fmean(theta.values())
            fits = (rating.fit(played, names=names), rating.fit(played, names=names, floor=False))
            for row in fits[0].rated:
                if not row.matches:
                    continue
                total += 1
                truth = ELO * (theta[row.name] - mean)
                for k, fitted in enumerate(fits):
                    line = fitted[row.name]
                    inside = abs(line.rating - truth) <= line.plus_minus
                    hit[k] += inside
                    widths[k] += line.plus_minus
                    by_deals[_deal_bucket(row.deals)][k] += inside
                by_deals[_deal_bucket(row.deals)][2] += 1
        if total:
            floored, bare = hit[0] / total, hit[1] / total
            worst = min(worst, floored)
            ratio = widths[0] / widths[1] if widths[1] else math.inf
            dup = "yes" if duplicate else "no"
            print(
                f"{bots:>4} {seats:>5} {dup:>3} {per_bot:>7}  {floored:7.3f} {bare:6.3f} {ratio:6.2f}"
            )
            sys.stdout.flush()
    print(f"lowest coverage of the floored interval in any cell: {worst:.3f}")
    print("by deals played:  floored  bare  (participants)")
    for bucket in sorted(by_deals, key=lambda b: int(b.split("–")[0].rstrip("+"))):
        floored, bare, count = by_deals[bucket]
        print(f"  {bucket:>6} deals   {floored / count:.3f}  {bare / count:.3f}  ({count})")


def _deal_bucket(deals: int) -> str:
    for low, high in ((1, 1), (2, 2), (3, 5), (6, 15), (16, 50)):
        if low <= deals <= high:
            return str(low) if low == high else f"{low}–{high}"
    return "51+"


# -- 2. one final table ------------------------------------------------------------------------


def final_tables(fields: int, seed: int) -> None:
    print("\n2. one final table: some twin pair told apart | unequal told apart in the wrong order")
    print(
        f"{'bots':>4} {'seats':>5} {'matches':>7}  {'per-pair':>8} {'holm':>6}   {'per-pair':>8} {'holm':>6}"
    )
    for bots, seats, per_bot in itertools.product((8, 20), (2, 4), (1, 10, 100)):
        if bots == 20 and per_bot == 100 and fields > 50:
            continue
        rng = random.Random(f"{seed} final {bots} {seats} {per_bot}")
        apart = [0, 0]
        wrong = [0, 0]
        for f in range(fields):
            names = [f"b{i:02d}" for i in range(bots)]
            # pairs of twins, each pair SPREAD apart from the next
            theta = {name: SPREAD * (i // 2) - SPREAD * bots / 4 for i, name in enumerate(names)}
            played = [
                finish
                for d in range(max(1, bots * per_bot // seats))
                for finish in deal(theta, rng.sample(names, seats), rng, (f, d), False)
            ]
            fitted = rating.fit(played, names=names)
            table = board.of(fitted)
            pairwise = _pairwise_claims(fitted)
            claims = (pairwise, set(table.told_apart))
            for k, told in enumerate(claims):
                apart[k] += any(theta[a] == theta[b] for a, b in told)
                wrong[k] += any(theta[a] < theta[b] for a, b in told)
        print(
            f"{bots:>4} {seats:>5} {per_bot:>7}  {apart[0] / fields:8.3f} {apart[1] / fields:6.3f}"
            f"   {wrong[0] / fields:8.3f} {wrong[1] / fields:6.3f}"
        )
        sys.stdout.flush()


def _pairwise_claims(fitted: rating.Fit) -> set[tuple[str, str]]:
    """The (above, below) pairs of the per-pair 95 % places (each pair on its own)."""
    names = [row.name for row in fitted.rated]
    return {
        (a, b) if fitted.los(a, b) > 0.5 else (b, a)
        for a, b in itertools.combinations(names, 2)
        if fitted.apart(a, b)
    }


# -- 3. daily looks ----------------------------------------------------------------------------


@dataclass
class Season:
    """What one season's looks claimed."""

    any_look: list[bool]  # per-pair, live: some twin pair told apart at some look
    last: list[bool]  # per-pair, live, holm: at the last look
    ranges: list[float]  # the mean place range at the end, each way
    h2h_any: list[int]  # Wilson, sequence: twin pairs whose share excluded 0.5 at some look
    h2h_width: list[float]  # their widths at the end, summed
    h2h_pairs: int


def one_season(how: str, rng: random.Random, tag: object, days: int, tables_a_day: int) -> Season:
    names = [f"b{i:02d}" for i in range(15)]
    theta = {name: SPREAD * (i // 2) - SPREAD * 3.5 for i, name in enumerate(names)}
    twins = [(names[i], names[i + 1]) for i in range(0, 14, 2)]
    look = board.Live(planned=days * tables_a_day * 2 * 2 / 15, seats=2)
    played: list[Finish] = []
    ahead: dict[tuple[str, str], list[float]] = {pair: [0.0, 0.0] for pair in twins}
    told_any = [False, False]
    h2h_told = {pair: [False, False] for pair in twins}
    fitted = rating.fit([], names=names)
    for day in range(days):
        for t in range(tables_a_day):
            table = _table(how, fitted, names, rng)
            finishes = deal(theta, table, rng, (tag, day, t), True)
            played += finishes
            for pair in twins:
                if set(pair) <= set(table):
                    for finish in finishes:
                        a, b = finish.places[pair[0]], finish.places[pair[1]]
                        ahead[pair][0] += 1.0 if a < b else 0.5 if a == b else 0.0
                        ahead[pair][1] += 1
        fitted = rating.fit(played, names=names)
        for k, told in enumerate((_pairwise_claims(fitted), board.of(fitted, look).told_apart)):
            told_any[k] = told_any[k] or any(theta[a] == theta[b] for a, b in told)
        for pair, (wins, n) in ahead.items():
            if n:
                for k, (low, high) in enumerate(
                    (wilson(wins, n), share_sequence(wins, n, look.planned))
                ):
                    h2h_told[pair][k] = h2h_told[pair][k] or not low <= 0.5 <= high
    claims = (
        _pairwise_claims(fitted),
        board.of(fitted, look).told_apart,
        board.of(fitted).told_apart,
    )
    widths = [0.0, 0.0]
    met = [(pair, wins, n) for pair, (wins, n) in ahead.items() if n]
    for _pair, wins, n in met:
        wl, wh = wilson(wins, n)
        sl, sh = share_sequence(wins, n, look.planned)
        widths[0] += wh - wl
        widths[1] += sh - sl
    return Season(
        told_any,
        [any(theta[a] == theta[b] for a, b in told) for told in claims],
        [_mean_range(names, told) for told in claims],
        [sum(h2h_told[pair][k] for pair, _, _ in met) for k in range(2)],
        widths,
        len(met),
    )


def seasons(count: int, seed: int, days: int, tables_a_day: int) -> None:
    print(
        f"\n3. daily looks: {count} seasons of {days} days, 15 bots (7 twin pairs), "
        f"{tables_a_day} two-seat duplicate tables a day"
    )
    print(
        f"{'tables by':>11}  {'any look: per-pair':>18} {'live':>6}   {'last look: per-pair':>19}"
        f" {'live':>6} {'holm':>6}   {'place range: per-pair':>21} {'live':>6} {'holm':>6}"
    )
    for how in ("random", "matchmaking"):
        rng = random.Random(f"{seed} daily {how}")
        results = [one_season(how, rng, season, days, tables_a_day) for season in range(count)]

        def share(pick: Callable[[Season], bool]) -> float:
            return sum(pick(r) for r in results) / count  # noqa: B023 -- used at once

        ranges = [statistics.fmean(r.ranges[k] for r in results) for k in range(3)]
        print(
            f"{how:>11}  {share(lambda r: r.any_look[0]):18.3f} {share(lambda r: r.any_look[1]):6.3f}"
            f"   {share(lambda r: r.last[0]):19.3f} {share(lambda r: r.last[1]):6.3f}"
            f" {share(lambda r: r.last[2]):6.3f}   {ranges[0]:21.1f} {ranges[1]:6.1f} {ranges[2]:6.1f}"
        )
        pairs = sum(r.h2h_pairs for r in results)
        if pairs:
            wilson_any = sum(r.h2h_any[0] for r in results) / pairs
            sequence_any = sum(r.h2h_any[1] for r in results) / pairs
            ratio = sum(r.h2h_width[1] for r in results) / sum(r.h2h_width[0] for r in results)
            print(
                f"{'':>11}  twins' head-to-head excluding 0.5 at some look: Wilson "
                f"{wilson_any:.3f}, sequence {sequence_any:.3f}; width at the end, sequence / "
                f"Wilson {ratio:.2f}"
            )
        sys.stdout.flush()


def _table(how: str, fitted: rating.Fit, names: list[str], rng: random.Random) -> list[str]:
    if how == "random":
        return rng.sample(names, 2)
    field = [
        Entry(i, fitted[name].rating, fitted[name].plus_minus, fitted[name].matches)
        for i, name in enumerate(names)
    ]
    chosen = next_table(field, 2, rng)
    assert chosen is not None
    return [names[i] for i in chosen]


def _mean_range(
    names: Sequence[str], told: set[tuple[str, str]] | frozenset[tuple[str, str]]
) -> float:
    """The mean number of places a participant may hold, given the claims."""
    n = len(names)
    above = defaultdict(int)
    below = defaultdict(int)
    for high, low in told:
        above[low] += 1
        below[high] += 1
    return statistics.fmean((n - below[name]) - (1 + above[name]) + 1 for name in names)


PARTS: dict[str, Callable[[argparse.Namespace], None]] = {
    "coverage": lambda a: coverage(a.fields, a.seed),
    "final": lambda a: final_tables(a.fields, a.seed),
    "daily": lambda a: seasons(a.seasons, a.seed, a.days, a.tables),
}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--fields", type=int, default=200, help="fields per cell (1 and 2)")
    parser.add_argument(
        "--seasons", type=int, default=100, help="seasons per way of choosing tables"
    )
    parser.add_argument("--days", type=int, default=30)
    parser.add_argument("--tables", type=int, default=10, help="tables a day")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--part", choices=[*PARTS, "all"], default="all")
    args = parser.parse_args()
    began = time.monotonic()
    for name, part in PARTS.items():
        if args.part in (name, "all"):
            part(args)
    print(f"\n({time.monotonic() - began:.0f} s)")


if __name__ == "__main__":
    main()
