"""How far a better V could take the luck correction: richer baselines, fitted for the variance.

    nice python bench/luck_ceiling.py                  # the figures in docs/luck.md
    nice python bench/luck_ceiling.py --groups 300     # quicker, noisier

Version 1's V (arena/luck/value.py) is a five-weight model of who takes each rank's book. Two
richer baselines, each fitted on duplicate groups it is never evaluated on (fitting seeds 930000
and up, evaluation seeds 130000 and up: no other script or test uses them), answer whether a
better V could reach the issue's goal of 3x fewer matches (a variance ratio of 1/3):

1. **luck features** (any table size): at every draw, for each seat, 11 indicators of what the
   card does — the drawer now holds 2, 3 or 4 suits of the rank, takes a rank another seat
   holds, draws the rank it asked for (and books with it); for every other seat, the drawer
   took a rank that seat holds 1, 2 or 3 suits of, booked it, drew its asked rank — each alone,
   times the share of the books laid, and times V's win slope for the seat: 33 control variates
   `indicator(card drawn) − mean over the cards that could have been drawn`, zero-mean each,
   summed over the match. Their best coefficients, with version 1's correction as one more,
   are the least-squares fit of the seat's win share on them over the fitting groups.
2. **a learned V** (two seats; needs scikit-learn, `pip install scikit-learn`): a
   gradient-boosted regression of a seat's final win share on 106 numbers of the table after a
   draw, seen from that seat (how many ranks still in play are in each situation of suits the
   seat holds, suits the other holds and who is known to hold it; both seats' books and hand
   sizes; the pond; whether the seat moves next), trained on every draw of the fitting groups.
   Its correction is V(after the card drawn) − mean V(after each card that could have been),
   scaled by least squares on the fitting groups.

3. **the bots' coins**: version 1's correction on the same deals played by bots whose choices
   among equal asks and among opponents are always the first (`FirstOfEquals`; the pond index
   still drawn at random): whether the bots' own randomness is what the correction cannot reach.

Printed per pair: the candidate's mean group outcome and the variance of the group outcomes
(the unit `arena sprt` tests), raw, with version 1's correction and with each richer one, as
ratios to raw. Every correction here is zero-mean whatever its coefficients, so the means must
agree within their intervals.
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

try:
    import arena  # noqa: F401 - only to learn whether the checkout is importable
except ModuleNotFoundError:
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from arena.bots import BOTS
from arena.engine.events import Asked, Event, PickedUp, WentFishing
from arena.engine.match import MatchSetup
from arena.engine.rules import Rules
from arena.luck import measure
from arena.luck.correction import Tracker
from arena.luck.value import BITS, valuer
from arena.sdk import Bot
from arena.tournaments.standings import win_shares

sys.path.insert(0, str(Path(__file__).resolve().parent))
from luck import interval, play  # bench/luck.py, beside this file

FIT_SEED, EVALUATION_SEED = 930_000, 130_000
V = valuer()


@dataclass(frozen=True)
class Played:
    """One match of a duplicate group, and the candidate's seat in it."""

    group: int
    seat: int
    setup: MatchSetup
    events: list[Event]


class FirstOfEquals(random.Random):
    """A bot's coins, but its choices among equals (`choice`) always the first; what else it
    draws (the pond index) still at random."""

    def choice(self, seq: Sequence[Any]) -> Any:
        return seq[0]


def coinless(level: str) -> Bot:
    """The built-in bot `level`, choosing among equals with `FirstOfEquals`."""
    bot = BOTS[level]()
    start = bot.on_start

    def on_start() -> None:  # the SDK has just seeded `bot.rng` from the seat and the hand
        bot.rng = FirstOfEquals(bot.rng.random())
        start()

    bot.on_start = on_start  # type: ignore[method-assign]
    return bot


def groups_of(
    levels: Sequence[str], first_seed: int, count: int, coins: bool = True
) -> list[tuple[Played, float, float]]:
    """The candidate's matches: (the match, its win share, version 1's luck for it)."""
    n, played = len(levels), []
    for group in range(count):
        for at in range(n):
            seated = [levels[(s - at) % n] for s in range(n)]
            bots = None if coins else [coinless(level) for level in seated]
            match, result = play(first_seed + group, seated, Rules(), bots)
            share = win_shares(result.places)[at]
            luck = measure(match.setup, match.events).share[at]
            played.append((Played(group, at, match.setup, list(match.events)), share, luck))
    return played


# A draw, as both baselines see it: the tracker before it, the drawer, the rank it asked for
# (-1 for a pick-up), and the classes of cards that could be drawn: (rank, suits held after) ->
# how many, with the class of the card drawn.
Draw = tuple[Tracker, int, int, dict[tuple[int, int], int], tuple[int, int]]


def draws(setup: MatchSetup, events: Sequence[Event], each: Callable[[Draw], None]) -> None:
    """Replay the match on the engine's table (as arena.luck.measure does) and call `each` at
    every draw from the pond, before the card leaves it."""
    tracker = Tracker(setup)
    seats = tracker.table.seats
    for seat in range(seats):
        for _ in range(setup.rules.hand_size(seats)):
            tracker.draw(seat, 0)
    asked = -1
    for event in events:
        if isinstance(event, WentFishing | PickedUp):
            drawer, could = event.seat, tracker.table.alike(event.place)
            classes: dict[tuple[int, int], int] = {}
            for i in could:
                code = tracker.codes[i]
                key = (code >> 2, BITS[tracker.masks[drawer][code >> 2] | 1 << (code & 3)])
                classes[key] = classes.get(key, 0) + 1
            card = tracker.table.pond[event.place]
            drawn = (card["rank"], BITS[tracker.masks[drawer][card["rank"]] | 1 << card["suit"]])
            each((tracker, drawer, asked if isinstance(event, WentFishing) else -1, classes, drawn))
            tracker.draw(event.seat, event.place)
            asked = -1
        else:
            if isinstance(event, Asked):
                asked = event.rank
            tracker.apply(event)


# --- 1. luck features -------------------------------------------------------------------


def indicators(
    tracker: Tracker, seat: int, drawer: int, rank: int, after: int, asked: int
) -> list[float]:
    held = [BITS[masks[rank]] for masks in tracker.masks]
    others = max(h for t, h in enumerate(held) if t != drawer) if len(held) > 1 else 0
    lucky = rank == asked
    if seat == drawer:
        return [after == 4, after == 3, after == 2, others >= 1, lucky, lucky and after == 4,
                0, 0, 0, 0, 0]  # fmt: skip
    return [0, 0, 0, 0, 0, 0, held[seat] == 1, held[seat] == 2, held[seat] == 3, after == 4, lucky]


def luck_features(setup: MatchSetup, events: Sequence[Event], seat: int) -> np.ndarray:
    """The 33 control variates of `seat`, summed over the match."""
    total = np.zeros(33)

    def each(draw: Draw) -> None:
        tracker, drawer, asked, classes, drawn = draw
        done = sum(tracker.table.books) / tracker.total
        beta = V.beta(sum(tracker.table.books), tracker.total)
        win = V.win(
            V.expected_in(tracker.states, tracker.left, tracker.table.books, tracker.mover), beta
        )
        slope = beta * win[seat] * (1 - win[seat])
        whole = sum(classes.values())

        def of(key: tuple[int, int]) -> np.ndarray:
            x = np.array(indicators(tracker, seat, drawer, *key, asked), dtype=float)
            return np.concatenate([x, x * done, x * slope])

        mean = sum((times / whole) * of(key) for key, times in classes.items())
        total[:] += of(drawn) - mean

    draws(setup, events, each)
    return total


# --- 2. a learned V -----------------------------------------------------------------------


def table_after(
    tracker: Tracker, seat: int, drawer: int, rank: int, after: int, mover: int
) -> np.ndarray:
    """106 numbers of the two-seat table after `drawer` comes to hold `after` suits of `rank`."""
    other = 1 - seat
    x = np.zeros(106, dtype=np.uint8)
    known = tracker.known
    for r in range(14):
        if not tracker.left[r]:
            continue
        mine, theirs = BITS[tracker.masks[seat][r]], BITS[tracker.masks[other][r]]
        if r == rank:
            mine, theirs = (after, theirs) if drawer == seat else (mine, after)
        x[((mine * 5 + theirs) * 2 + (known[seat] >> r & 1)) * 2 + (known[other] >> r & 1)] += 1
    hands = [len(hand) for hand in tracker.table.hands]
    hands[drawer] += 1
    x[100:106] = (tracker.table.books[seat], tracker.table.books[other], hands[seat],
                  hands[other], len(tracker.table.pond) - 1, mover == seat)  # fmt: skip
    return x


def learned_rows(
    setup: MatchSetup, events: Sequence[Event], seat: int
) -> list[tuple[np.ndarray, np.ndarray, np.ndarray]]:
    """Per draw: the table after the card drawn, the classes' chances, the table after each."""
    rows = []

    def each(draw: Draw) -> None:
        tracker, drawer, asked, classes, drawn = draw

        def of(key: tuple[int, int]) -> np.ndarray:
            mover = drawer if key[0] == asked else tracker.mover  # a lucky draw keeps the turn
            return table_after(tracker, seat, drawer, *key, mover)

        keys = list(classes)
        whole = sum(classes.values())
        rows.append(
            (
                of(drawn),
                np.array([classes[k] / whole for k in keys]),
                np.array([of(k) for k in keys]),
            )
        )

    draws(setup, events, each)
    return rows


def learned_luck(
    fit: list[tuple[Played, float, float]], evaluation: list[tuple[Played, float, float]]
) -> tuple[list[float], list[float]]:
    """The learned V's luck for each match of the fitting and of the evaluation groups."""
    from sklearn.ensemble import HistGradientBoostingRegressor

    inputs, outcomes = [], []
    for played, share, _ in fit:
        for seat in range(2):
            mine = share if seat == played.seat else 1 - share
            for after, _, _ in learned_rows(played.setup, played.events, seat):
                inputs.append(after)
                outcomes.append(mine)
    model = HistGradientBoostingRegressor(max_iter=300, random_state=0)
    model.fit(np.array(inputs, dtype=np.float32), np.array(outcomes))

    def luck(played: Played) -> float:
        rows = learned_rows(played.setup, played.events, played.seat)
        actual = model.predict(np.array([after for after, _, _ in rows], dtype=np.float32))
        candidates = model.predict(np.concatenate([each for _, _, each in rows]).astype(np.float32))
        total, at = 0.0, 0
        for value, (_, chances, each) in zip(actual, rows):
            total += value - float(chances @ candidates[at : at + len(chances)])
            at += len(chances)
        return total

    return [luck(p) for p, _, _ in fit], [luck(p) for p, _, _ in evaluation]


# --- the comparison -------------------------------------------------------------------------


def group_outcomes(
    matches: list[tuple[Played, float, float]], adjusted: Sequence[float], seats: int
) -> list[float]:
    by_group: dict[int, float] = {}
    for (played, _, _), value in zip(matches, adjusted):
        by_group[played.group] = by_group.get(played.group, 0.0) + value / seats
    return list(by_group.values())


def least_squares(columns: list[Sequence[float]], outcomes: Sequence[float]) -> np.ndarray:
    x, y = np.array(columns, dtype=float).T, np.array(outcomes, dtype=float)
    coefficients: np.ndarray = np.linalg.lstsq(x - x.mean(0), y - y.mean(), rcond=None)[0]
    return coefficients


def compare(levels: Sequence[str], groups: int, learned: bool) -> None:
    started, seats = time.perf_counter(), len(levels)
    fit = groups_of(levels, FIT_SEED, groups)
    evaluation = groups_of(levels, EVALUATION_SEED, groups)
    shares = {"fit": [s for _, s, _ in fit], "evaluation": [s for _, s, _ in evaluation]}
    version1 = {"fit": [v for _, _, v in fit], "evaluation": [v for _, _, v in evaluation]}
    features = {
        name: [luck_features(p.setup, p.events, p.seat) for p, _, _ in matches]
        for name, matches in (("fit", fit), ("evaluation", evaluation))
    }
    columns = [list(column) for column in np.array(features["fit"]).T] + [version1["fit"]]
    theta = least_squares(columns, shares["fit"])
    adjusted = {
        "raw": shares["evaluation"],
        "version 1 (arena today)": [
            s - v for s, v in zip(shares["evaluation"], version1["evaluation"])
        ],
        "33 luck features + version 1": [
            s - float(np.append(z, v) @ theta)
            for s, z, v in zip(shares["evaluation"], features["evaluation"], version1["evaluation"])
        ],
    }
    if learned and seats == 2:
        fitted, evaluated = learned_luck(fit, evaluation)
        scale = least_squares([fitted], shares["fit"])[0]
        adjusted[f"learned V (x{scale:.2f})"] = [
            s - scale * v for s, v in zip(shares["evaluation"], evaluated)
        ]
    print(f"\n  {' vs '.join(levels)} ({seats} seats, {groups} groups fitted on, {groups} evaluated on, "
          f"{time.perf_counter() - started:.0f} s)")  # fmt: skip
    raw_variance = statistics.variance(group_outcomes(evaluation, adjusted["raw"], seats))
    for name, values in adjusted.items():
        outcomes = group_outcomes(evaluation, values, seats)
        ratio = statistics.variance(outcomes) / raw_variance
        print(
            f"    {name:30} mean {interval(outcomes)}  variance ratio {ratio:.3f} ({1 / ratio:.2f}x fewer matches)"
        )


def without_coins(levels: Sequence[str], groups: int) -> None:
    """Version 1's variance ratio on the evaluation deals, the bots with and without coins."""
    seats = len(levels)
    ratios = []
    for coins in (True, False):
        matches = groups_of(levels, EVALUATION_SEED, groups, coins)
        raw = group_outcomes(matches, [share for _, share, _ in matches], seats)
        adjusted = group_outcomes(matches, [share - luck for _, share, luck in matches], seats)
        ratios.append(statistics.variance(adjusted) / statistics.variance(raw))
    print(
        f"  {' vs '.join(levels)} ({seats} seats, {groups} groups): version 1's variance ratio "
        f"{ratios[0]:.3f} with the bots' coins, {ratios[1]:.3f} with their choices among equals "
        "always the first"
    )


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--groups", type=int, default=800, help="duplicate groups to fit on, and to evaluate on"
    )
    parser.add_argument(
        "--no-learned", action="store_true", help="leave out the learned V (scikit-learn)"
    )
    parser.add_argument("--coins-only", action="store_true", help="only 3, the bots' coins")
    args = parser.parse_args(argv)
    print(
        "command: python bench/luck_ceiling.py "
        + " ".join(argv if argv is not None else sys.argv[1:])
    )
    learned = not args.no_learned
    if learned:
        try:
            import sklearn  # noqa: F401
        except ModuleNotFoundError:
            print(
                "scikit-learn is not installed: the learned V is left out (pip install scikit-learn)"
            )
            learned = False
    tables = (("master", "expert"), ("expert", "hard"), ("expert", "hard", "medium", "hard"))
    for levels in () if args.coins_only else tables:
        compare(levels, args.groups, learned)
    print("\n3. the bots' coins")
    for levels in (("expert", "hard"), ("expert", "hard", "medium", "hard")):
        without_coins(levels, args.groups)
    return 0


if __name__ == "__main__":
    sys.exit(main())
