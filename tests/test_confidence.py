"""The confidence sequences and Holm's method (arena/tournaments/confidence.py) against
independent computations: the mixtures by numerical integration, Holm by closed testing over
every subset, and their promises by Monte Carlo on known truths."""

from __future__ import annotations

import itertools
import math
import random

import pytest

from arena.tournaments.confidence import (
    holm,
    log_beta,
    mixture_z,
    plan_ratio,
    share_prior,
    share_sequence,
    wilson,
)


def _simpson(f, low: float, high: float, steps: int = 4000) -> float:  # type: ignore[no-untyped-def]
    h = (high - low) / steps
    total = f(low) + f(high)
    total += sum((4 if k % 2 else 2) * f(low + k * h) for k in range(1, steps))
    return total * h / 3


def _normal_mixture(s: float, v: float, rho: float) -> float:
    """∫ exp(λS − λ²V/2) dN(0, 1/ρ)(λ), integrated numerically."""
    spread = 12 / math.sqrt(rho)

    def density(lam: float) -> float:
        prior = math.sqrt(rho / (2 * math.pi)) * math.exp(-rho * lam * lam / 2)
        return math.exp(lam * s - lam * lam * v / 2) * prior

    centre = s / (v + rho)
    return _simpson(density, centre - spread, centre + spread)


@pytest.mark.parametrize(("information", "planned"), [(0.5, 10.0), (10.0, 10.0), (300.0, 10.0)])
def test_the_normal_mixture_boundary_is_where_the_mixture_reaches_one_over_alpha(
    information: float, planned: float
) -> None:
    z = mixture_z(information, planned)
    rho = planned / plan_ratio()
    s = z * math.sqrt(information)
    assert _normal_mixture(s, information, rho) == pytest.approx(20.0, rel=1e-6)
    assert _normal_mixture(0.99 * s, information, rho) < 20.0


def test_the_plan_makes_the_boundary_least_at_the_planned_information() -> None:
    at_plan = mixture_z(100.0, 100.0)
    assert 3.0 < at_plan < 3.1  # the 3.04, against 1.96 at one look
    assert all(mixture_z(100.0 * f, 100.0) > at_plan for f in (0.5, 0.9, 1.1, 2.0))
    assert mixture_z(0.0, 1.0) == math.inf
    with pytest.raises(ValueError):
        mixture_z(1.0, 0.0)


def test_a_random_walk_crosses_the_mixture_boundary_at_any_look_at_most_alpha() -> None:
    """Outcomes ±½ (variance ¼ each): the fraction of walks whose z-score ever reaches the
    boundary, looked at after every step, against the 1.96 of a single look."""
    rng = random.Random(7)
    steps, walks = 300, 1500
    bound = [mixture_z(t / 4, steps / 4) for t in range(steps + 1)]
    crossed = naive = 0
    for _ in range(walks):
        s = 0.0
        hit = hit_naive = False
        for t in range(1, steps + 1):
            s += 0.5 if rng.random() < 0.5 else -0.5
            z = abs(s) / math.sqrt(t / 4)
            hit = hit or z >= bound[t]
            hit_naive = hit_naive or z >= 1.959963984540054
        crossed += hit
        naive += hit_naive
    assert crossed / walks <= 0.05
    assert naive / walks >= 0.3  # why the sequence is needed: 95 % at every look is not 95 %


def _beta_mixture(p: float, successes: float, trials: float, a: float) -> float:
    """∫ q^S (1−q)^(n−S) dBeta(a, a)(q) / (p^S (1−p)^(n−S)), integrated numerically."""

    def density(q: float) -> float:
        if q <= 0 or q >= 1:
            return 0.0
        log = (successes + a - 1) * math.log(q) + (trials - successes + a - 1) * math.log1p(-q)
        return math.exp(log - log_beta(a, a))

    # the substitution q = sin²(u) removes the end-point singularities of a < 1
    def smooth(u: float) -> float:
        q = math.sin(u) ** 2
        return density(q) * 2 * math.sin(u) * math.cos(u)

    integral = _simpson(smooth, 0.0, math.pi / 2, 20000)
    return integral / math.exp(successes * math.log(p) + (trials - successes) * math.log1p(-p))


@pytest.mark.parametrize(
    ("successes", "trials", "planned"), [(7.0, 10, 10.0), (30.5, 80, 200.0), (0.0, 6, 50.0)]
)
def test_the_share_sequence_ends_where_the_beta_mixture_reaches_one_over_alpha(
    successes: float, trials: int, planned: float
) -> None:
    low, high = share_sequence(successes, trials, planned)
    a = share_prior(planned)
    assert low <= successes / trials <= high
    for end in (low, high):
        if 0 < end < 1:
            assert _beta_mixture(end, successes, trials, a) == pytest.approx(20.0, rel=1e-4)
    wilson_low, wilson_high = wilson(successes, trials)
    assert high - low > wilson_high - wilson_low  # the price of holding at every look
    if low > 0:
        assert _beta_mixture(low * 0.98, successes, trials, a) > 20.0


@pytest.mark.parametrize("truth", [0.5, 0.3])
def test_a_share_sequence_holds_at_every_look(truth: float) -> None:
    """Outcomes 0, ½ (a shared place) or 1 with mean `truth`, read after every one."""
    rng = random.Random(11)
    trials, runs = 100, 300
    tie = 0.2
    win = truth - tie / 2
    missed = missed_wilson = 0
    for _ in range(runs):
        total = 0.0
        miss = miss_wilson = False
        for n in range(1, trials + 1):
            u = rng.random()
            total += 1.0 if u < win else 0.5 if u < win + tie else 0.0
            if n % 5 == 0:  # every fifth look: the bisection is not free
                low, high = share_sequence(total, n, trials)
                miss = miss or not low <= truth <= high
                wl, wh = wilson(total, n)
                miss_wilson = miss_wilson or not wl <= truth <= wh
        missed += miss
        missed_wilson += miss_wilson
    assert missed / runs <= 0.05
    assert missed_wilson / runs >= 0.12


def _closed_testing(p_values: dict[int, float], alpha: float) -> frozenset[int]:
    """Reject i when every intersection hypothesis containing i is rejected by Bonferroni."""
    keys = list(p_values)
    rejected = set()
    for i in keys:
        others = [k for k in keys if k != i]
        if all(
            min(p_values[k] for k in (i, *subset)) <= alpha / (len(subset) + 1)
            for size in range(len(others) + 1)
            for subset in itertools.combinations(others, size)
        ):
            rejected.add(i)
    return frozenset(rejected)


def test_holm_is_closed_testing_with_bonferroni() -> None:
    rng = random.Random(3)
    seen = set()
    for _ in range(300):
        m = rng.randint(1, 7)
        p_values = {k: rng.random() ** rng.choice([1, 3, 6]) for k in range(m)}
        told = holm(p_values, 0.05)
        assert told == _closed_testing(p_values, 0.05)
        seen.add(len(told))
    assert len(seen) >= 4  # the cases reject none, some and all
