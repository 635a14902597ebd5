"""The batch rating fit (arena/tournaments/rating.py) against an independent fit, and its
promises: order of matches irrelevant, consistent with head-to-head at two seats, deals as the
unit of its intervals, finite for a bot that always wins; on win shares (`Finish.shares`, the
fit on luck-adjusted shares) the first place's likelihood, the finishing order's at two seats."""

from __future__ import annotations

import itertools
import math
import random
from collections.abc import Mapping, Sequence

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from arena.tournaments.rating import ELO, Finish, fit

# --- an independent fit: the log-likelihood written from its definition, maximised by a
# derivative-free coordinate search (no Newton, no shared code with the module) ---


def _efron(places: Mapping[str, int], theta: Mapping[str, float]) -> float:
    """log P(finishing order): place by place, ties by Efron's approximation (the module's
    docstring), a shared last place's final step exact."""
    total = 0.0
    unplaced = set(places)
    for place in sorted(set(places.values())):
        tied = [name for name in places if places[name] == place]
        d = len(tied)
        rest = sum(math.exp(theta[n]) for n in unplaced if n not in tied)
        tied_strength = sum(math.exp(theta[n]) for n in tied)
        if rest == 0:  # the last place
            if d == 1:
                break
            total += sum(theta[n] for n in tied) * (1 - 1 / d)
            total -= sum(math.log((1 - k / d) * tied_strength) for k in range(d - 1))
            break
        total += sum(theta[n] for n in tied)
        total -= sum(math.log(rest + (1 - k / d) * tied_strength) for k in range(d))
        unplaced -= set(tied)
    return total


def _penalised(finishes: Sequence[Finish], theta: Mapping[str, float]) -> float:
    prior = sum(t - 2 * math.log(1 + math.exp(t)) for t in theta.values())  # a win and a loss
    return prior + sum(_efron(f.places, theta) for f in finishes)


def _independent_fit(finishes: Sequence[Finish]) -> dict[str, float]:
    names = sorted({n for f in finishes for n in f.places})
    theta = dict.fromkeys(names, 0.0)
    best = _penalised(finishes, theta)
    step = 1.0
    while step > 1e-7:
        moved = False
        for name in names:
            for delta in (step, -step):
                trial = {**theta, name: theta[name] + delta}
                if (value := _penalised(finishes, trial)) > best:
                    theta, best, moved = trial, value, True
                    break
        if not moved:
            step /= 2
    return theta


def _simulated(
    strengths: Mapping[str, float], matches: int, seats: int, seed: int, *, ties: bool = False
) -> list[Finish]:
    """Plackett–Luce finishes of random tables (rotations of one table share its group); with
    `ties`, neighbours in the order sometimes share a place."""
    rng = random.Random(seed)
    names = sorted(strengths)
    found: list[Finish] = []
    group = 0
    while len(found) < matches:
        table = rng.sample(names, seats)
        for _ in range(seats):
            left, order = list(table), []
            while left:
                pick = rng.choices(left, [strengths[n] for n in left])[0]
                order.append(pick)
                left.remove(pick)
            places: dict[str, int] = {}
            for position, name in enumerate(order):
                shares = ties and position and rng.random() < 0.25
                places[name] = places[order[position - 1]] if shares else position + 1
            found.append(Finish(places, group))
        group += 1
    return found[:matches]


def test_the_ratings_are_the_maximum_of_the_likelihood_written_independently() -> None:
    finishes = _simulated({"a": 1.0, "b": 2.0, "c": 3.5, "d": 0.5}, 120, 3, seed=7, ties=True)
    assert any(len(set(f.places.values())) < len(f.places) for f in finishes)  # ties present
    fitted = fit(finishes, reference="a")
    independent = _independent_fit(finishes)
    for row in fitted.rated:
        expected = ELO * (independent[row.name] - independent["a"])
        assert row.rating == pytest.approx(expected, abs=0.01)
    by_independent = sorted(independent, key=lambda n: -independent[n])
    assert [row.name for row in fitted.rated] == by_independent


def test_the_order_of_the_matches_changes_nothing() -> None:
    finishes = _simulated({"a": 1.0, "b": 1.3, "c": 2.0, "d": 0.7, "e": 1.1}, 400, 3, seed=3)
    first = fit(finishes)
    for seed in range(5):
        shuffled = list(finishes)
        random.Random(seed).shuffle(shuffled)
        assert fit(shuffled) == first  # to the bit: ratings, intervals, places, covariance


def _round_robin(outcomes: Sequence[int], names: Sequence[str], per_pair: int) -> list[Finish]:
    """Two-seat matches, `per_pair` for each pair; each outcome 0 (first wins), 1, or 2 (tie)."""
    finishes = []
    draws = iter(outcomes)
    for first, second in itertools.combinations(names, 2):
        for match in range(per_pair):
            result = next(draws)
            places = {0: (1, 2), 1: (2, 1), 2: (1, 1)}[result]
            finishes.append(Finish({first: places[0], second: places[1]}, (first, second, match)))
    return finishes


@settings(max_examples=60, deadline=None)
@given(data=st.data(), size=st.integers(2, 5), per_pair=st.integers(1, 6))
def test_at_two_seats_a_bot_ahead_head_to_head_and_in_win_share_is_never_ranked_below(
    data: st.DataObject, size: int, per_pair: int
) -> None:
    names = [f"bot{i}" for i in range(size)]
    pairs = size * (size - 1) // 2
    outcomes = data.draw(
        st.lists(st.integers(0, 2), min_size=pairs * per_pair, max_size=pairs * per_pair)
    )
    finishes = _round_robin(outcomes, names, per_pair)
    score = dict.fromkeys(names, 0.0)
    ahead: dict[tuple[str, str], float] = {}
    for finish in finishes:
        (a, pa), (b, pb) = finish.places.items()
        share = 1.0 if pa < pb else 0.5 if pa == pb else 0.0
        score[a] += share
        score[b] += 1 - share
        ahead[a, b] = ahead.get((a, b), 0.0) + share
        ahead[b, a] = ahead.get((b, a), 0.0) + 1 - share
    position = {row.name: row.position for row in fit(finishes).rated}
    for a, b in itertools.permutations(names, 2):
        if score[a] > score[b] and ahead[a, b] > ahead[b, a]:
            assert position[a] < position[b], (a, b, score, ahead)


def test_a_bot_that_always_wins_or_always_loses_gets_a_finite_rating() -> None:
    finishes = [Finish({"champion": 1, "middle": 2, "loser": 3}, match) for match in range(50)] + [
        Finish({"middle": 1, "loser": 2}, 100 + match) for match in range(50)
    ]
    fitted = fit(finishes)
    ratings = {row.name: row.rating for row in fitted.rated}
    assert all(math.isfinite(r) for r in ratings.values())
    assert ratings["champion"] > ratings["middle"] > ratings["loser"]
    assert [row.place for row in fitted.rated] == ["1", "2", "3"]


def test_ratings_against_a_reference_and_the_field() -> None:
    finishes = _simulated({"a": 1.0, "b": 2.0, "c": 4.0}, 300, 2, seed=11)
    field = fit(finishes)
    assert math.fsum(row.rating for row in field.rated) == pytest.approx(0.0, abs=1e-6)
    against = fit(finishes, reference="a")
    assert against["a"].rating == 0.0 and against["a"].plus_minus == 0.0
    difference, half = field.difference("c", "a")
    assert against["c"].rating == pytest.approx(difference)
    assert against["c"].plus_minus == pytest.approx(half)
    assert field.los("c", "a") + field.los("a", "c") == pytest.approx(1.0)
    with pytest.raises(ValueError, match="not a participant"):
        fit(finishes, reference="nobody")


def test_the_deal_is_the_unit_of_the_intervals() -> None:
    """Four copies of each match in its own deal add no information; in four deals they do."""
    finishes = _simulated({"a": 1.0, "b": 1.5, "c": 2.5}, 240, 3, seed=5)
    once = fit(finishes)
    same_deal = fit([Finish(f.places, f.group) for f in finishes for _ in range(4)])
    new_deals = fit([Finish(f.places, (f.group, copy)) for f in finishes for copy in range(4)])
    for row in once.rated:
        assert same_deal[row.name].plus_minus == pytest.approx(row.plus_minus, rel=0.05)
        assert new_deals[row.name].plus_minus == pytest.approx(row.plus_minus / 2, rel=0.05)


def test_places_say_who_cannot_be_told_apart() -> None:
    strengths = {"top": 30.0, "twin1": 3.0, "twin2": 3.0, "bottom": 0.1}
    fitted = fit(_simulated(strengths, 800, 2, seed=2))
    assert fitted["top"].place == "1"
    assert fitted["bottom"].place == "4"
    assert {fitted["twin1"].place, fitted["twin2"].place} == {"2–3"}
    assert not fitted.apart("twin1", "twin2") and fitted.apart("top", "twin1")
    assert fitted.matches == 800


def test_a_participant_without_matches_is_rated_at_the_prior() -> None:
    fitted = fit([Finish({"a": 1, "b": 2}, 0)], names=["idle"])
    assert fitted["idle"].matches == 0
    assert math.isfinite(fitted["idle"].rating)


def test_a_participant_without_matches_may_hold_any_place() -> None:
    # Only the prior places it (at the field's mean, with no variance of its own): a league's
    # version just submitted showed place "3–4" of 5 beside its ± 350.
    fitted = fit(_simulated({"top": 30.0, "bottom": 0.1}, 200, 2, seed=2), names=["new"])
    assert fitted["new"].place == "1–3"
    assert fitted["top"].place == "1–2" and fitted["bottom"].place == "2–3"
    assert fitted.apart("top", "bottom")


# --- win shares (`Finish.shares`): the first place only, shared out ---


def _first_place(shares: Mapping[str, float], theta: Mapping[str, float]) -> float:
    """Σ x θ − log Σ w over the table: each seat's log-probability of the first place, weighted
    by its share of it."""
    return sum(x * theta[n] for n, x in shares.items()) - math.log(
        sum(math.exp(theta[n]) for n in shares)
    )


def _independent_share_fit(finishes: Sequence[Finish]) -> dict[str, float]:
    names = sorted({n for f in finishes for n in f.places})
    theta = dict.fromkeys(names, 0.0)

    def penalised(theta: Mapping[str, float]) -> float:
        prior = sum(t - 2 * math.log(1 + math.exp(t)) for t in theta.values())
        return prior + sum(_first_place(f.shares or {}, theta) for f in finishes)

    step = 1.0
    while step > 1e-7:
        moved = False
        for name in names:
            for delta in (step, -step):
                trial = {**theta, name: theta[name] + delta}
                if penalised(trial) > penalised(theta):
                    theta, moved = trial, True
                    break
        if not moved:
            step /= 2
    return theta


def _noisy_shares(finishes: Sequence[Finish], seed: int, spread: float) -> list[Finish]:
    """Each finish with shares like luck-adjusted ones: its win shares plus zero-sum noise,
    some outside [0, 1]."""
    rng = random.Random(seed)
    noisy = []
    for finish in finishes:
        best = min(finish.places.values())
        first = [n for n, p in finish.places.items() if p == best]
        noise = {n: rng.gauss(0, spread) for n in finish.places}
        mean = math.fsum(noise.values()) / len(noise)
        shares = {
            n: (1 / len(first) if n in first else 0.0) + noise[n] - mean for n in finish.places
        }
        noisy.append(Finish(finish.places, finish.group, shares))
    return noisy


def test_win_shares_are_the_first_places_likelihood_written_independently() -> None:
    plain = _simulated({"a": 1.0, "b": 2.0, "c": 3.5, "d": 0.5}, 90, 3, seed=8)
    finishes = _noisy_shares(plain, seed=1, spread=0.3)
    assert any(not 0 <= x <= 1 for f in finishes for x in (f.shares or {}).values())
    fitted = fit(finishes, reference="a")
    independent = _independent_share_fit(finishes)
    for row in fitted.rated:
        assert row.rating == pytest.approx(
            ELO * (independent[row.name] - independent["a"]), abs=0.01
        )
    # they are not the finishing orders' ratings: the places after the first are not used
    by_order = fit(plain, reference="a")
    assert any(abs(by_order[n].rating - fitted[n].rating) > 1 for n in "bcd")


def test_at_two_seats_win_shares_are_the_finishing_order() -> None:
    finishes = _simulated({"a": 1.0, "b": 2.0, "c": 0.7}, 200, 2, seed=4, ties=True)
    assert any(len(set(f.places.values())) == 1 for f in finishes)  # a shared first place
    shared = [
        Finish(
            f.places,
            f.group,
            {
                n: 1 / list(f.places.values()).count(1) if p == 1 else 0.0
                for n, p in f.places.items()
            },
        )
        for f in finishes
    ]
    by_order, by_shares = fit(finishes), fit(shared)
    for row in by_order.rated:
        assert by_shares[row.name].rating == pytest.approx(row.rating, abs=1e-6)
        assert by_shares[row.name].plus_minus == pytest.approx(row.plus_minus, abs=1e-6)


def test_shares_with_less_spread_give_the_same_ratings_with_narrower_intervals() -> None:
    """The intervals measure the shares' spread: shares pulled towards their expectation (as
    the luck correction does) give the same ratings within them, and narrower intervals
    (`floor=False`: the model's own variance, which such shares are meant to beat, is no
    floor for them)."""
    strengths = {"a": 1.0, "b": 2.0, "c": 2.0}
    rng = random.Random(9)
    names = sorted(strengths)
    sharp, blurred = [], []
    for group in range(600):
        table = rng.sample(names, 2)
        total = sum(strengths[n] for n in table)
        expected = {n: strengths[n] / total for n in table}
        winner = rng.choices(table, [strengths[n] for n in table])[0]
        raw = {n: float(n == winner) for n in table}
        places = {n: 1 if n == winner else 2 for n in table}
        blurred.append(Finish(places, group, raw))
        # the luck half taken out: halfway between the outcome and its expectation
        sharp.append(Finish(places, group, {n: (raw[n] + expected[n]) / 2 for n in table}))
    raw_fit, sharp_fit = fit(blurred), fit(sharp, floor=False)
    for name in names:
        assert sharp_fit[name].plus_minus < 0.75 * raw_fit[name].plus_minus
        assert abs(sharp_fit[name].rating - raw_fit[name].rating) < raw_fit[name].plus_minus
    assert not sharp_fit.apart("b", "c") and sharp_fit.apart("b", "a")


def test_shares_must_name_the_same_participants() -> None:
    with pytest.raises(ValueError, match="shares must"):
        Finish({"a": 1, "b": 2}, 0, {"a": 1.0})
    with pytest.raises(ValueError, match="shares must"):
        Finish({"a": 1, "b": 2}, 0, {"a": math.nan, "b": 1.0})
