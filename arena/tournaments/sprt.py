"""The sequential probability ratio test of a candidate's share: pure statistics, no I/O.

The evidence is a sequence of *outcomes*, each the candidate's mean match point over one unit
of play: a duplicate group (the k rotations of one deal) or a single match. A match point is 1
for a win, 1/w for a first place shared by w seats, 0 otherwise, so an outcome is a fraction in
[0, 1] with finitely many possible values (k+1 or more *levels*); with k equal bots its
expectation, the *share*, is 1/k.

The test is the generalised SPRT that fishtest runs on pentanomial pairs (Van den Bergh's
`LLRcalc`), over whatever levels the outcomes take:

- H0: share = share0, H1: share = share1 (share0 < share1); Wald's bounds
  lower = log(beta / (1 - alpha)), upper = log((1 - beta) / alpha);
- the outcome distribution is otherwise unknown (multinomial over its levels); under each
  hypothesis it is estimated by maximum likelihood subject to its mean being that share
  (`fit`: q_i = p_i / (1 + x (a_i - s)), x the root of a monotone secular equation), and the
  log-likelihood ratio is that of the two fits on the observed counts;
- *regularised*: the extreme levels 0 and 1 always belong to the support, with a count of
  `PRIOR` (10^-3, fishtest's epsilon) when none was observed. Without it data with one level
  only, such as two copies of one deterministic bot (every group exactly 1/k), has no fit with
  another mean: an LLR of -inf or a division by zero. With it such data drive the LLR steadily
  down, to H0, after a few dozen groups;
- no decision before `min_groups` outcomes, whatever the LLR: the fits of a handful of
  outcomes are not yet what the error rates assume.

On luck-adjusted outcomes (docs/luck.md), which take any real value, `NormalTest` is the same
generalised test under a normal model of unknown variance: under each hypothesis the variance
is fitted as the mean squared distance of the outcomes from its share, var_h = v + (mean -
share_h)^2 (v the outcomes' variance around their mean), and LLR = n/2 log(var0 / var1); the
same bounds, and no decision before `NORMAL_MIN_GROUPS` outcomes (or `min_groups` if more).
Both because the variance is estimated from the outcomes themselves: with skewed outcomes (a
candidate at 4 seats, share near 1/4) a sample short of the rare high outcomes has both a low
mean and a low variance, and the linearised LLR of fishtest's normalised SPRT, (share1 -
share0) (sum x - n (share0 + share1) / 2) / v, then accepted a false H0 in 8–9 % of tests for a
nominal 5 %; this one, from 50 outcomes, in 5 % (docs/luck.md, "The SPRT's error rates").

Also here, for runs of fixed length: `estimate` (mean outcome, its normal 95 % interval, and
the likelihood of superiority over a share).
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from fractions import Fraction

from arena.base.normal import Z95
from arena.engine.settings import SprtSettings

PRIOR = 1e-3  # the count given to an unobserved extreme level (fishtest's regularisation)
MIN_GROUPS = SprtSettings.min_groups  # outcomes before any decision
NORMAL_MIN_GROUPS = 50  # and of `NormalTest`, which estimates the variance from them


class Decision(StrEnum):
    H0 = "H0"
    H1 = "H1"


@dataclass(frozen=True)
class Hypotheses:
    """share0 against share1, with the error rates alpha (false H1) and beta (false H0).

    Raises ValueError for values that make no test.
    """

    share0: float
    share1: float
    alpha: float = 0.05
    beta: float = 0.05
    min_groups: int = MIN_GROUPS

    def __post_init__(self) -> None:
        if not 0 < self.share0 < self.share1 < 1:
            raise ValueError(
                f"need 0 < share0 < share1 < 1, got share0 {self.share0} and share1 {self.share1}"
            )
        for name in ("alpha", "beta"):
            if not 0 < getattr(self, name) < 0.5:
                raise ValueError(f"{name} must be between 0 and 0.5, got {getattr(self, name)}")
        if self.min_groups < 1:
            raise ValueError(f"min_groups must be at least 1, got {self.min_groups}")

    @property
    def lower(self) -> float:
        return math.log(self.beta / (1 - self.alpha))

    @property
    def upper(self) -> float:
        return math.log((1 - self.beta) / self.alpha)

    def verdict(self, llr: float) -> Decision | None:
        """H1 for a log-likelihood ratio at or above the upper bound, H0 at or below the lower,
        else none yet (both tests decide by it)."""
        if llr >= self.upper:
            return Decision.H1
        if llr <= self.lower:
            return Decision.H0
        return None


def regularised(counts: Mapping[Fraction, float]) -> list[tuple[float, float]]:
    """(level, count) pairs, ascending, with the extremes 0 and 1 given `PRIOR` when unseen."""
    support = {level: float(count) for level, count in counts.items() if count > 0}
    for extreme in (Fraction(0), Fraction(1)):
        support.setdefault(extreme, PRIOR)
    return sorted((float(level), count) for level, count in support.items())


def fit(pdf: Sequence[tuple[float, float]], share: float) -> list[float]:
    """The maximum-likelihood probabilities of the levels given that their mean is `share`.

    `pdf` is (level, weight) with positive weights, levels spanning `share` strictly. The
    answer is q_i = p_i / (1 + x d_i), d_i = level_i - share, where x is the one root in
    (-1/max d, -1/min d) of sum p_i d_i / (1 + x d_i), a decreasing function: found by Newton
    steps kept inside a shrinking bracket.
    """
    total = sum(weight for _, weight in pdf)
    probs = [weight / total for _, weight in pdf]
    gaps = [level - share for level, _ in pdf]
    low, high = -1 / max(gaps), -1 / min(gaps)
    x = 0.0
    for _ in range(200):
        f = slope = 0.0
        for p, d in zip(probs, gaps):
            term = d / (1 + x * d)
            f += p * term
            slope -= p * term * term
        if f > 0:
            low = x
        else:
            high = x
        if abs(f) < 1e-14 or slope == 0:
            break
        step = x - f / slope
        x = step if low < step < high else (low + high) / 2
        if high - low < 1e-15 * max(1.0, abs(x)):
            break
    return [p / (1 + x * d) for p, d in zip(probs, gaps)]


def llr(counts: Mapping[Fraction, float], share0: float, share1: float) -> float:
    """The generalised log-likelihood ratio of share1 against share0 for outcome counts."""
    pdf = regularised(counts)
    fit0, fit1 = fit(pdf, share0), fit(pdf, share1)
    return sum(count * (math.log(q1) - math.log(q0)) for (_, count), q0, q1 in zip(pdf, fit0, fit1))


@dataclass
class SequentialTest:
    """The test fed one outcome at a time, in schedule order; its decision, once taken, stays.

    `history` is (outcomes so far, LLR) after each outcome: the test's path, for a plot.
    """

    hypotheses: Hypotheses
    counts: dict[Fraction, int] = field(default_factory=dict)
    groups: int = 0
    llr: float = 0.0
    decision: Decision | None = None
    history: list[tuple[int, float]] = field(default_factory=list)

    def add(self, outcome: Fraction) -> Decision | None:
        """Count one outcome (a fraction in [0, 1]) and say the decision, if one is taken.

        Raises ValueError for an outcome out of range or once the test has decided: what
        comes after the decision must not change it.
        """
        if self.decision is not None:
            raise ValueError(f"the test has decided ({self.decision}) at {self.groups} outcomes")
        if not 0 <= outcome <= 1:
            raise ValueError(f"an outcome is a point in [0, 1], got {outcome}")
        self.counts[outcome] = self.counts.get(outcome, 0) + 1
        self.groups += 1
        h = self.hypotheses
        self.llr = llr(self.counts, h.share0, h.share1)
        self.history.append((self.groups, self.llr))
        if self.groups >= self.first_decision:
            self.decision = h.verdict(self.llr)
        return self.decision

    @property
    def first_decision(self) -> int:
        """The outcomes before any decision: `min_groups`."""
        return self.hypotheses.min_groups

    @property
    def degenerate(self) -> bool:
        """Every outcome so far has been the same: the data have no variance of their own."""
        return len(self.counts) == 1

    def estimate(self, share: float | None = None) -> Estimate:
        return estimate(self.counts, self.hypotheses.share0 if share is None else share)


VARIANCE_FLOOR = 1e-6  # a variance below this is taken as this (identical outcomes)


@dataclass
class NormalTest:
    """The sequential test on outcomes of any real value (luck-adjusted shares), fed in
    schedule order; its decision, once taken, stays. `history` as `SequentialTest`'s."""

    hypotheses: Hypotheses
    groups: int = 0
    total: float = 0.0
    squares: float = 0.0
    llr: float = 0.0
    decision: Decision | None = None
    history: list[tuple[int, float]] = field(default_factory=list)

    def add(self, outcome: float) -> Decision | None:
        """Count one outcome and say the decision, if one is taken. Raises ValueError for an
        outcome that is not a finite number, or once the test has decided."""
        if self.decision is not None:
            raise ValueError(f"the test has decided ({self.decision}) at {self.groups} outcomes")
        if not math.isfinite(outcome):
            raise ValueError(f"an outcome is a finite number, got {outcome}")
        self.groups += 1
        self.total += outcome
        self.squares += outcome * outcome
        h, n = self.hypotheses, self.groups
        variance, mean = self.variance, self.total / n
        var0, var1 = (variance + (mean - share) ** 2 for share in (h.share0, h.share1))
        self.llr = n / 2 * math.log(var0 / var1)
        self.history.append((n, self.llr))
        if n >= self.first_decision:
            self.decision = h.verdict(self.llr)
        return self.decision

    @property
    def first_decision(self) -> int:
        """The outcomes before any decision: `NORMAL_MIN_GROUPS`, or `min_groups` if more."""
        return max(self.hypotheses.min_groups, NORMAL_MIN_GROUPS)

    @property
    def variance(self) -> float:
        """The outcomes' variance around their mean (at least `VARIANCE_FLOOR`)."""
        n = self.groups
        if n == 0:
            return VARIANCE_FLOOR
        mean = self.total / n
        return max(self.squares / n - mean * mean, VARIANCE_FLOOR)

    @property
    def degenerate(self) -> bool:
        return self.variance <= VARIANCE_FLOOR


@dataclass(frozen=True)
class Estimate:
    """The mean outcome with its 95 % normal interval, and the likelihood of superiority."""

    outcomes: int
    mean: float
    low: float
    high: float
    los: float  # P(true mean > share), normal approximation; 0.5 without data


def estimate(
    counts: Mapping[Fraction, int] | Mapping[Fraction | float, int] | Iterable[tuple[float, int]],
    share: float,
) -> Estimate:
    """The mean of outcome counts against `share` (for runs of fixed length)."""
    pairs = list(counts.items()) if isinstance(counts, Mapping) else list(counts)
    n = sum(count for _, count in pairs)
    if n == 0:
        return Estimate(0, math.nan, 0.0, 1.0, 0.5)
    mean = sum(float(level) * count for level, count in pairs) / n
    variance = sum(count * (float(level) - mean) ** 2 for level, count in pairs) / max(1, n - 1)
    error = math.sqrt(variance / n)
    if error == 0:
        los = 0.5 if mean == share else float(mean > share)
    else:
        los = 0.5 * math.erfc(-(mean - share) / error / math.sqrt(2))
    return Estimate(n, mean, mean - Z95 * error, mean + Z95 * error, los)
