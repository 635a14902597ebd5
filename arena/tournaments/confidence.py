"""Claims that hold at every look, and claims that hold together: pure statistics, no I/O.

    z = mixture_z(information, planned)          # |z-score| from which a gap is claimed, any look
    low, high = share_sequence(ahead, trials, planned)   # a share's interval, valid at every look
    told = holm({pair: p_value, ...})                     # the pairs told apart, all at once

**At every look** (a live table redrawn after each match, a league's daily board): a 95 %
interval read after every match, stopping at the first one that excludes 0, excludes it far
more often than 5 % of the time. A *confidence sequence* is an interval that holds at all looks
at once: with probability at least 1 − α it never excludes the truth, however often it is read
and whenever one stops. Both here are Robbins' mixture martingales, read with Ville's
inequality (a non-negative supermartingale of mean ≤ 1 exceeds 1/α with probability ≤ α, ever):

- `mixture_z`, for an estimate that is (approximately) a sum S of increments with variance V,
  its *information* (V = 1/se² for the fit's z-score z = S/√V): the two-sided normal mixture
  M = ∫ exp(λS − λ²V/2) dN(0, 1/ρ)(λ) = √(ρ/(ρ+V)) exp(S²/(2(ρ+V))) is ≥ 1/α exactly when
  z² ≥ (1 + ρ/V)(log(1 + V/ρ) + 2 log(1/α)). ρ is the *plan*: fixed before any look (from the
  planned end, never from the data), chosen so the boundary is least at the planned
  information (`planned`): 3.04 instead of 1.96 there, at α = 0.05. A wrong plan costs width,
  never validity (3.66 at a fifth of it, 3.27 at sixteen times it).
- `share_sequence`, for outcomes in [0, 1] with mean p (a head-to-head share, a win share; a
  shared place counts half): the beta-binomial mixture M(p) = B(a + S, b + n − S) / B(a, b) /
  (p^S (1 − p)^(n − S)), a supermartingale under p for any outcome in [0, 1] (its likelihood
  ratio is convex in the outcome, so an outcome in [0, 1] is no worse than a coin with the
  same mean); the interval is {p : M(p) < 1/α}. Its prior Beta(a, a) is the plan, as ρ above.

**All at once** (a run's final table, a league's final phase: one look): a table of n
participants makes n(n−1)/2 pairwise claims; at 95 % each, some false claim among twenty equal
bots is nearly certain. `holm` (Holm's step-down Bonferroni) tells apart only pairs whose claims
hold together: the chance that any pair of equals is told apart is at most α, whatever the
dependence between the pairs. So "these five cannot be told apart" is what the data allow.
"""

from __future__ import annotations

import math
from collections.abc import Hashable, Mapping
from functools import cache
from typing import TypeVar

from arena.base.normal import Z95

K = TypeVar("K", bound=Hashable)
ALPHA = 0.05  # the chance, over the whole sequence of looks or the whole table, of any false claim


@cache
def plan_ratio(alpha: float = ALPHA) -> float:
    """V/ρ at which the normal mixture's boundary is least (≈ 6.1 at α = 0.05): ρ = planned/it."""
    spend = 2 * math.log(1 / alpha)

    def square(r: float) -> float:
        return (1 + 1 / r) * (math.log1p(r) + spend)

    low, high = 0.01, 1e4  # unimodal in log r: a golden-section search
    ratio = (math.sqrt(5) - 1) / 2
    for _ in range(200):
        a = high - ratio * (high - low)
        b = low + ratio * (high - low)
        if square(a) < square(b):
            high = b
        else:
            low = a
    return (low + high) / 2


def mixture_z(information: float, planned: float, alpha: float = ALPHA) -> float:
    """The |z| from which an estimate of this `information` (1/se²) is told from 0, so that
    over every look the chance of any false claim is at most `alpha`; the boundary is planned
    to be least at `planned` information. Infinite at no information.

    Raises ValueError for a plan that is not positive or an alpha outside (0, 1).
    """
    if not planned > 0 or not 0 < alpha < 1:
        raise ValueError(f"a plan needs planned > 0 and 0 < alpha < 1, not {planned}, {alpha}")
    if not information > 0:
        return math.inf
    if math.isinf(information):
        return 0.0
    rho = planned / plan_ratio(alpha)
    return math.sqrt(
        (1 + rho / information) * (math.log1p(information / rho) - 2 * math.log(alpha))
    )


def log_beta(a: float, b: float) -> float:
    return math.lgamma(a) + math.lgamma(b) - math.lgamma(a + b)


def share_prior(planned: float, alpha: float = ALPHA) -> float:
    """The a of Beta(a, a) planned for `planned` outcomes: the normal mixture's plan carried to
    a share near ½ (an outcome's variance ¼: ρ = planned/4/ratio, a + a + 1 = 4ρ), at least ½."""
    return max(0.5, (planned / plan_ratio(alpha) - 1) / 2)


def log_mixture(p: float, successes: float, trials: float, a: float) -> float:
    """log M(p) of the beta-binomial mixture (module docstring), at a share p in (0, 1)."""
    failures = trials - successes
    return (
        log_beta(a + successes, a + failures)
        - log_beta(a, a)
        - successes * math.log(p)
        - failures * math.log1p(-p)
    )


def share_sequence(
    successes: float, trials: float, planned: float, alpha: float = ALPHA
) -> tuple[float, float]:
    """The interval of a share p, valid at every look: {p : M(p) < 1/alpha}, `successes` the
    sum of `trials` outcomes in [0, 1]; planned for `planned` outcomes. (0, 1) with none.

    Raises ValueError for successes outside [0, trials] or a plan that is not positive.
    """
    if not 0 <= successes <= trials or not planned > 0 or not 0 < alpha < 1:
        raise ValueError(f"no share of {successes} in {trials} with plan {planned}, {alpha}")
    if trials == 0:
        return 0.0, 1.0
    a = share_prior(planned, alpha)
    bound = -math.log(alpha)
    centre = min(max(successes / trials, 1e-12), 1 - 1e-12)

    def inside(p: float) -> bool:
        return log_mixture(p, successes, trials, a) < bound

    def edge(outside: float) -> float:
        near, far = centre, outside  # M is convex in log terms: one crossing on each side
        if inside(far):
            return far
        for _ in range(60):
            mid = (near + far) / 2
            near, far = (mid, far) if inside(mid) else (near, mid)
        return near

    return (0.0 if inside(1e-300) else edge(1e-15)), (1.0 if inside(1 - 1e-16) else edge(1 - 1e-15))


def wilson(successes: float, trials: float, z: float = Z95) -> tuple[float, float]:
    """The Wilson score interval of a proportion, at one look; (0, 1) with no trials.

    `successes` may be fractional (split wins), and `trials` too (an effective number of
    matches, `summary.grouped_interval`): the formula only needs the observed share.
    """
    if trials <= 0:
        return 0.0, 1.0
    share = successes / trials
    z2 = z * z
    centre = (share + z2 / (2 * trials)) / (1 + z2 / trials)
    half = (
        z * math.sqrt(share * (1 - share) / trials + z2 / (4 * trials * trials)) / (1 + z2 / trials)
    )
    return max(0.0, centre - half), min(1.0, centre + half)


def normal_p(z: float) -> float:
    """The two-sided p-value of a z-score."""
    return math.erfc(abs(z) / math.sqrt(2))


def holm(p_values: Mapping[K, float], alpha: float = ALPHA) -> frozenset[K]:
    """The hypotheses Holm's step-down method rejects: the k-th smallest of m p-values is
    compared with alpha/(m − k + 1), until the first that is not below it. The chance of any
    false rejection is at most `alpha`, whatever the dependence."""
    ordered = sorted(p_values.items(), key=lambda item: item[1])
    m = len(ordered)
    rejected = []
    for k, (key, p) in enumerate(ordered):
        if p > alpha / (m - k):
            break
        rejected.append(key)
    return frozenset(rejected)


__all__ = [
    "ALPHA",
    "holm",
    "log_mixture",
    "mixture_z",
    "normal_p",
    "plan_ratio",
    "share_prior",
    "share_sequence",
    "wilson",
]
