"""The SPRT's statistics against answers known independently: Wald's Bernoulli test, a brute-force
maximum likelihood, the fits' constraints, degenerate data, and the rules of a decision."""

from __future__ import annotations

import itertools
import math
from fractions import Fraction

import pytest
from hypothesis import given
from hypothesis import strategies as st

from arena.tournaments.results import win_share
from arena.tournaments.sprt import (
    PRIOR,
    Decision,
    Hypotheses,
    SequentialTest,
    estimate,
    fit,
    llr,
    regularised,
)

HALF, QUARTER = Fraction(1, 2), Fraction(1, 4)


def test_with_wins_and_losses_only_it_is_walds_bernoulli_test() -> None:
    # Levels 0 and 1 alone leave one distribution per mean: the LLR is the classic one.
    wins, losses, s0, s1 = 37, 25, 0.5, 0.55
    expected = wins * math.log(s1 / s0) + losses * math.log((1 - s1) / (1 - s0))
    assert llr({Fraction(1): wins, Fraction(0): losses}, s0, s1) == pytest.approx(
        expected, rel=1e-9
    )


def _brute_force_loglik(counts: dict[Fraction, float], share: float) -> float:
    """Max of sum c log q over q on levels 0, 1/2, 1 with mean `share`: one free parameter (q1),
    the log-likelihood concave in it, so a ternary search finds the maximum."""
    c0, c5, c1 = (counts.get(level, 0.0) for level in (Fraction(0), HALF, Fraction(1)))

    def loglik(q1: float) -> float:
        q5 = 2 * (share - q1)
        q0 = 1 - q5 - q1
        return sum(c * math.log(q) for c, q in ((c0, q0), (c5, q5), (c1, q1)) if c)

    low, high = max(0.0, 2 * share - 1) + 1e-15, share - 1e-15  # keeps q0, q5, q1 > 0
    for _ in range(300):
        a, b = low + (high - low) / 3, high - (high - low) / 3
        if loglik(a) < loglik(b):
            low = a
        else:
            high = b
    return loglik((low + high) / 2)


@pytest.mark.parametrize(
    "counts",
    [
        {Fraction(0): 30, HALF: 50, Fraction(1): 40},
        {Fraction(0): 3, HALF: 90, Fraction(1): 7},
        {Fraction(0): 12, HALF: 1, Fraction(1): 9},
    ],
)
def test_the_fits_are_the_maximum_likelihood_found_by_brute_force(
    counts: dict[Fraction, float],
) -> None:
    expected = _brute_force_loglik(counts, 0.56) - _brute_force_loglik(counts, 0.5)
    assert llr(counts, 0.5, 0.56) == pytest.approx(expected, abs=1e-6)


@given(
    st.dictionaries(
        st.integers(0, 48).map(lambda n: Fraction(n, 48)), st.integers(1, 500), min_size=1
    ),
    st.floats(0.02, 0.98),
)
def test_a_fit_is_a_distribution_with_the_asked_mean(
    counts: dict[Fraction, int], share: float
) -> None:
    pdf = regularised(counts)
    q = fit(pdf, share)
    assert all(p > 0 for p in q)
    assert sum(q) == pytest.approx(1, abs=1e-6)  # fishtest checks its fits to 1e-6
    assert sum(p * level for p, (level, _) in zip(q, pdf)) == pytest.approx(share, abs=1e-6)


def test_a_fit_at_the_observed_mean_is_the_observed_distribution() -> None:
    counts = {
        Fraction(0): 2,
        QUARTER: 3,
        HALF: 5,
    }  # with 1 regularised: the mean is just above 0.275
    pdf = regularised(counts)
    mean = sum(level * c for level, c in pdf) / sum(c for _, c in pdf)
    assert fit(pdf, mean) == pytest.approx([c / sum(c for _, c in pdf) for _, c in pdf], abs=1e-12)


def test_only_the_unseen_extremes_are_regularised() -> None:
    assert regularised({HALF: 4}) == [(0.0, PRIOR), (0.5, 4.0), (1.0, PRIOR)]
    assert regularised({Fraction(0): 1, Fraction(1): 2}) == [(0.0, 1.0), (1.0, 2.0)]


def test_identical_bots_every_group_one_half_go_to_h0_never_to_minus_infinity() -> None:
    test = SequentialTest(Hypotheses(0.5, 0.55))
    path = []
    while test.decision is None:
        test.add(HALF)
        path.append(test.llr)
        assert math.isfinite(test.llr)
    assert test.decision is Decision.H0
    assert test.degenerate
    assert all(b < a < 0 for a, b in itertools.pairwise(path))  # steadily down
    # Mean 0.55 from mass at 1/2 alone puts a tenth of it on 1: each group costs H1 log(0.9).
    assert test.llr / test.groups == pytest.approx(math.log(0.9), rel=0.02)
    # lower / log(0.9) = 27.9 groups; the prior on 0 and 1 slows it by a fraction of a group.
    assert math.ceil(test.hypotheses.lower / math.log(0.9)) <= test.groups <= 30


def test_no_decision_before_the_minimum_number_of_groups() -> None:
    test = SequentialTest(Hypotheses(0.5, 0.6, min_groups=30))
    for _ in range(29):
        assert test.add(Fraction(1)) is None
    assert test.llr > test.hypotheses.upper  # far beyond the bound, and still undecided
    assert test.add(Fraction(1)) is Decision.H1


def test_a_decision_stays_and_later_outcomes_are_refused() -> None:
    test = SequentialTest(Hypotheses(0.5, 0.6, min_groups=1))
    while test.add(Fraction(1)) is None:
        pass
    groups, value = test.groups, test.llr
    with pytest.raises(ValueError, match="decided"):
        test.add(Fraction(0))
    assert (test.groups, test.llr, test.decision) == (groups, value, Decision.H1)
    assert test.history[-1] == (groups, value)
    assert [g for g, _ in test.history] == list(range(1, groups + 1))


def test_wald_bounds() -> None:
    h = Hypotheses(0.25, 0.3, alpha=0.05, beta=0.1)
    assert h.lower == pytest.approx(math.log(0.1 / 0.95))
    assert h.upper == pytest.approx(math.log(0.9 / 0.05))


@pytest.mark.parametrize(
    ("share0", "share1", "alpha", "beta", "message"),
    [
        (0.55, 0.5, 0.05, 0.05, "share0 < share1"),
        (0.0, 0.5, 0.05, 0.05, "share0 < share1"),
        (0.5, 1.0, 0.05, 0.05, "share0 < share1"),
        (0.5, 0.55, 0.0, 0.05, "alpha"),
        (0.5, 0.55, 0.05, 0.7, "beta"),
    ],
)
def test_impossible_hypotheses_are_refused(
    share0: float, share1: float, alpha: float, beta: float, message: str
) -> None:
    with pytest.raises(ValueError, match=message):
        Hypotheses(share0, share1, alpha, beta)


def test_match_points_split_a_shared_first_place() -> None:
    assert win_share(1, [1, 2]) == 1
    assert win_share(2, [1, 2]) == 0
    assert win_share(1, [1, 1, 3]) == HALF
    assert win_share(1, [1, 1, 1, 1]) == QUARTER


def test_estimate_of_a_fixed_run() -> None:
    counts = {Fraction(0): 40, Fraction(1): 60}
    e = estimate(counts, 0.5)
    sd = math.sqrt(0.6 * 0.4 * 100 / 99 / 100)
    assert (e.outcomes, e.mean) == (100, pytest.approx(0.6))
    assert (e.low, e.high) == (
        pytest.approx(0.6 - 1.959964 * sd),
        pytest.approx(0.6 + 1.959964 * sd),
    )
    assert e.los == pytest.approx(0.5 * math.erfc(-(0.1 / sd) / math.sqrt(2)))
    assert 0.97 < e.los < 1
    assert estimate({HALF: 10}, 0.5).los == 0.5  # no variance, no difference: nothing known
    assert estimate({}, 0.5).outcomes == 0
