"""One batch rating fit over every match played: Plackett–Luce maximum likelihood. Pure.

    finishes = [Finish({"ann": 1, "bob": 2, "cy": 2}, group=deal_seed), ...]
    fit = rating.fit(finishes)                    # or reference="random": ratings against it
    for row in fit.rated:                         # best first
        row.name, row.rating, row.plus_minus, row.matches, row.places, row.place, row.los_below
    fit.los("ann", "bob")                         # likelihood that ann is the stronger
    fit.difference("ann", "bob")                  # (Elo difference, its 95 % half-width)

The API (`Finish`, `fit`, `Fit`, `Rated`) is stable: other modules and tools build on it.

**The model.** Each participant i has a strength w_i = exp(θ_i). A match's finishing order is
drawn place by place: the first place goes to i out of everyone still unplaced (R) with
probability w_i / Σ_R w (Plackett–Luce; at two seats this is Bradley–Terry). The ratings are the
θ that maximise the probability of every finishing order played, all at once: the order in
which the matches were played cannot matter, and bots that do not learn are rated as such.
`rating` = 400·log10(w) (Elo's scale: +400 means ten times the odds), against the mean of the
field (θ_i − mean θ) or against `reference` (θ_i − θ_ref).

**Ties** (a shared place) are every order of the tied players, averaged: Efron's approximation
(the default for ties in Cox regression, whose partial likelihood is this same model). A tied
group D of d players, with R unplaced before it, contributes each member's w as a numerator and
the d denominators Σ_{R∖D} w + (1 − k/d)·Σ_D w, k = 0…d−1. When D is everyone left (a shared
last place) its final step is exact: one of them is left, each with weight 1/d. So at two seats
a shared place counts as half a win each, as in chess.

**Prior.** Each participant is credited with one virtual win and one virtual loss against an
imaginary player of strength 1 (θ = 0): a bot that always wins or always loses gets a large but
finite rating, and a participant with few matches is pulled towards the middle (BayesElo's
virtual draws do the same). Against thousands of matches it moves nothing visible.

**The fit.** The log-likelihood (with its prior) is concave in θ and has one maximum: Newton's
method finds it, each step halved until the likelihood climbs, in about ten steps. (Hunter's MM
algorithm, the textbook method, also climbs at every step, but took thousands of steps for
20 bots at three seats: minutes, not seconds.) Identical denominators are summed first, so a
step costs the number of distinct seat sets met, not the number of matches.

**Intervals** count each deal (a duplicate group, `Finish.group`) as the unit: the matches of a
deal share its luck, so they are not independent. The covariance of θ is the cluster-robust
sandwich I⁻¹ (Σ_g s_g s_gᵀ · G/(G−1)) I⁻¹, with I the observed information (the prior's
included) and s_g the score of deal g. Chosen over a bootstrap over deals because it is one fit,
not hundreds (a bootstrap of 10,000 matches takes minutes in pure Python), and it is
deterministic: the same results give the same table. It is asymptotic: with few deals it is
optimistic. `plus_minus` is the 95 % half-width; `los` (likelihood of superiority) is
Φ(difference / its standard error).

**Cannot be told apart.** Two participants are told apart when the 95 % interval of their
difference excludes 0 (the likelihood of superiority of the higher one ≥ 0.975; `apart`). Each
participant's `places` = (1 + how many are told apart above it, the field's size − how many are
told apart below it): the places it may hold, shown as "3–5" (a single "3" when it is told apart
from everyone). The same as Chatbot Arena's rank with its upper bound, and unlike grouping
neighbours in a chain, one close pair does not merge a whole table into one group.
"""

from __future__ import annotations

import math
import operator
from collections import Counter, defaultdict
from collections.abc import Hashable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field

ELO = 400 / math.log(10)  # rating points per unit of θ
Z95 = 1.959963984540054  # the two-sided 95 % quantile of the normal distribution
APART = 0.975  # the likelihood of superiority from which two neighbours are told apart
PRIOR = 1.0  # virtual wins and, as many, virtual losses against strength 1, per participant
TOLERANCE = 1e-10  # the fit stops when no θ moves more than this in a step
MOST_STEPS = 200

# A denominator: (participant index, coefficient) pairs, sorted by index.
Term = tuple[tuple[int, float], ...]


@dataclass(frozen=True)
class Finish:
    """One match's finishing order: each participant's place, 1 best, ties sharing a place;
    `group` is its deal (a duplicate group), the unit of the intervals."""

    places: Mapping[str, int]
    group: Hashable

    def __post_init__(self) -> None:
        if any(type(place) is not int or place < 1 for place in self.places.values()):
            raise ValueError(f"places must be integers from 1: {dict(self.places)}")


@dataclass(frozen=True)
class Rated:
    """One participant's line of the fit."""

    name: str
    rating: float  # Elo-like: against the field's mean, or the reference (whose rating is 0)
    plus_minus: float  # half-width of its 95 % interval
    matches: int
    position: int  # 1 best, in the order of `Fit.rated`
    places: tuple[int, int]  # its best and worst place among those it can be told apart from
    los_below: float | None  # likelihood that it is stronger than the next one; None if last

    @property
    def place(self) -> str:
        """Its place as the table shows it: "3", or "3–5" when it cannot be told apart from
        the participants placed 3 to 5."""
        first, last = self.places
        return str(first) if first == last else f"{first}–{last}"


@dataclass(frozen=True)
class Fit:
    """The fitted ratings, best first, with what is needed for any pair's difference."""

    rated: tuple[Rated, ...]
    reference: str | None
    matches: int  # finishes with at least two participants
    groups: int  # distinct deals among them
    theta: Mapping[str, float] = field(repr=False)
    covariance: Mapping[tuple[str, str], float] = field(repr=False)

    def __getitem__(self, name: str) -> Rated:
        for row in self.rated:
            if row.name == name:
                return row
        raise KeyError(name)

    def difference(self, first: str, second: str) -> tuple[float, float]:
        """`first`'s rating minus `second`'s, and the 95 % half-width of that difference."""
        return ELO * (self.theta[first] - self.theta[second]), ELO * Z95 * self._se(first, second)

    def los(self, first: str, second: str) -> float:
        """The likelihood of superiority: how sure the fit is that `first` is the stronger."""
        gap = self.theta[first] - self.theta[second]
        se = self._se(first, second)
        if se <= 0:
            return 0.5 if gap == 0 else float(gap > 0)
        return 0.5 * math.erfc(-gap / se / math.sqrt(2))

    def apart(self, first: str, second: str) -> bool:
        """Whether the 95 % interval of their difference excludes 0."""
        return max(self.los(first, second), self.los(second, first)) >= APART

    def _se(self, first: str, second: str) -> float:
        cov = self.covariance
        variance = cov[first, first] + cov[second, second] - 2 * cov[first, second]
        return math.sqrt(max(variance, 0.0))


def fit(
    finishes: Iterable[Finish], *, reference: str | None = None, names: Iterable[str] = ()
) -> Fit:
    """The maximum-likelihood ratings of every participant of `finishes` (and of `names`,
    which may have no match). The same finishes in any order give the same Fit, to the bit.

    Raises ValueError when `reference` is not one of the participants.
    """
    data = _Data.of(finishes, names)
    if reference is not None and reference not in data.index:
        raise ValueError(f"the reference {reference!r} is not a participant")
    theta = _maximise(data)
    covariance = _sandwich(data, theta)
    return _table(data, theta, covariance, reference)


@dataclass
class _Data:
    """The log-likelihood's parts: Σ_i a_i θ_i − Σ_t c_t log Σ_j b_tj w_j, per deal and summed."""

    names: list[str]
    index: dict[str, int]
    matches: list[int]  # per participant
    numerators: list[float]  # a_i
    terms: list[tuple[Term, float]]  # (b_t, c_t), sorted
    deals: list[tuple[list[float], list[tuple[Term, float]]]]  # per deal: a, terms
    finishes: int

    @classmethod
    def of(cls, finishes: Iterable[Finish], extra: Iterable[str]) -> _Data:
        played = [f for f in finishes if len(f.places) >= 2]
        names = sorted({name for f in played for name in f.places} | set(extra))
        index = {name: i for i, name in enumerate(names)}
        matches = [0] * len(names)
        by_deal: dict[Hashable, list[Finish]] = defaultdict(list)
        for finish in played:
            by_deal[finish.group].append(finish)
            for name in finish.places:
                matches[index[name]] += 1
        numerators: list[list[float]] = [[] for _ in names]
        counts: Counter[Term] = Counter()
        deals = []
        for members in by_deal.values():
            deal_numerators: list[list[float]] = [[] for _ in names]
            deal_counts: Counter[Term] = Counter()
            for finish in members:
                _decompose(finish, index, deal_numerators, deal_counts)
            for i, parts in enumerate(deal_numerators):
                numerators[i].extend(parts)
            counts.update(deal_counts)
            deals.append(
                ([math.fsum(p) for p in deal_numerators], sorted(_weighted(deal_counts).items()))
            )
        return cls(
            names=names,
            index=index,
            matches=matches,
            numerators=[math.fsum(parts) for parts in numerators],
            terms=sorted(_weighted(counts).items()),
            deals=deals,
            finishes=len(played),
        )


def _weighted(counts: Counter[Term]) -> dict[Term, float]:
    return {term: float(count) for term, count in counts.items()}


def _decompose(
    finish: Finish, index: Mapping[str, int], numerators: list[list[float]], counts: Counter[Term]
) -> None:
    """Add one finish's numerators and denominators (the tie model of the module docstring)."""
    by_place: dict[int, list[int]] = defaultdict(list)
    for name, place in finish.places.items():
        by_place[place].append(index[name])
    left = sorted(index[name] for name in finish.places)
    for place in sorted(by_place):
        tied = sorted(by_place[place])
        d = len(tied)
        others = [i for i in left if i not in tied]
        if not others:  # a shared last place (or a single last one: nothing left to choose)
            for i in tied:
                numerators[i].append(1 - 1 / d)
            if d > 1:
                counts[tuple((i, 1.0) for i in tied)] += d - 1
            break
        for i in tied:
            numerators[i].append(1.0)
        for k in range(d):
            weight = 1 - k / d
            counts[tuple(sorted([(i, 1.0) for i in others] + [(i, weight) for i in tied]))] += 1
        left = others


def _maximise(data: _Data) -> list[float]:
    """θ by Newton's steps on the concave log-likelihood, each halved until it climbs, until
    none moves θ more than TOLERANCE."""
    theta = [0.0] * len(data.names)
    current = _log_likelihood(data, theta)
    for _ in range(MOST_STEPS):
        w = [math.exp(t) for t in theta]
        gradient = [
            s + PRIOR - 2 * PRIOR * wi / (1 + wi)
            for s, wi in zip(_scores(data.numerators, data.terms, w), w)
        ]
        step = _solve(_information(data, w), gradient)
        size = max((abs(x) for x in step), default=0.0)
        if size < TOLERANCE:
            break
        for _halving in range(60):
            trial = [t + x for t, x in zip(theta, step)]
            value = _log_likelihood(data, trial)
            if value >= current:
                break
            step = [x / 2 for x in step]
        else:
            break  # no step climbs: at the maximum to the precision of the sums
        theta, current = trial, value
    return theta


def _log_likelihood(data: _Data, theta: Sequence[float]) -> float:
    """Σ a θ − Σ c log Σ b w, with the prior's virtual matches."""
    w = [math.exp(t) for t in theta]
    parts = [
        (a + PRIOR) * t - 2 * PRIOR * math.log1p(wi) for a, t, wi in zip(data.numerators, theta, w)
    ]
    parts.extend(-c * math.log(sum(b * w[i] for i, b in term)) for term, c in data.terms)
    return math.fsum(parts)


def _scores(
    numerators: Sequence[float], terms: Sequence[tuple[Term, float]], w: Sequence[float]
) -> list[float]:
    """The gradient in θ of Σ a θ − Σ c log Σ b w (no prior)."""
    score = list(numerators)
    for term, c in terms:
        ratio = c / sum(b * w[i] for i, b in term)
        for i, b in term:
            score[i] -= ratio * b * w[i]
    return score


def _information(data: _Data, w: Sequence[float]) -> list[list[float]]:
    """Minus the Hessian in θ of the log-likelihood with its prior (the observed information)."""
    n = len(w)
    info = [[0.0] * n for _ in range(n)]
    for i, wi in enumerate(w):
        info[i][i] += 2 * PRIOR * wi / (1 + wi) ** 2
    for term, c in data.terms:
        total = sum(b * w[i] for i, b in term)
        parts = [(i, b * w[i] / total) for i, b in term]
        for i, pi in parts:
            row = info[i]
            row[i] += c * pi
            for j, pj in parts:
                row[j] -= c * pi * pj
    return info


def _sandwich(data: _Data, theta: Sequence[float]) -> list[list[float]]:
    """The cluster-robust covariance of θ, deals as clusters."""
    n = len(theta)
    w = [math.exp(t) for t in theta]
    bread = _inverse(_information(data, w))
    deals = len(data.deals)
    meat = [[0.0] * n for _ in range(n)]
    if deals >= 2:
        scale = deals / (deals - 1)
        # sorted: the order of the deals must not reach the floating-point sums
        for score in sorted(_scores(a, terms, w) for a, terms in data.deals):
            nonzero = [(i, s) for i, s in enumerate(score) if s]
            for i, si in nonzero:
                row = meat[i]
                for j, sj in nonzero:
                    row[j] += scale * si * sj
    else:  # one deal: no spread to measure between deals; the model's own covariance
        return bread
    half = _product(bread, meat)
    return _product(half, bread)


def _product(a: list[list[float]], b: list[list[float]]) -> list[list[float]]:
    columns = list(zip(*b))
    return [[sum(map(operator.mul, row, column)) for column in columns] for row in a]


def _solve(matrix: list[list[float]], vector: list[float]) -> list[float]:
    """x with matrix · x = vector: Gaussian elimination with partial pivoting."""
    n = len(matrix)
    rows = [list(row) + [value] for row, value in zip(matrix, vector)]
    for col in range(n):
        pivot = max(range(col, n), key=lambda r: abs(rows[r][col]))
        rows[col], rows[pivot] = rows[pivot], rows[col]
        top = rows[col]
        for r in range(col + 1, n):
            if factor := rows[r][col] / top[col]:
                row = rows[r]
                row[col:] = [x - factor * y for x, y in zip(row[col:], top[col:])]
    solution = [0.0] * n
    for col in reversed(range(n)):
        row = rows[col]
        known = sum(row[j] * solution[j] for j in range(col + 1, n))
        solution[col] = (row[n] - known) / row[col]
    return solution


def _inverse(matrix: list[list[float]]) -> list[list[float]]:
    """Gauss–Jordan with partial pivoting (the information is positive definite: the prior)."""
    n = len(matrix)
    rows = [list(row) + [float(i == j) for j in range(n)] for i, row in enumerate(matrix)]
    for col in range(n):
        pivot = max(range(col, n), key=lambda r: abs(rows[r][col]))
        rows[col], rows[pivot] = rows[pivot], rows[col]
        top = rows[col]
        scale = top[col]
        top[:] = [x / scale for x in top]
        for r in range(n):
            if r != col and (factor := rows[r][col]):
                rows[r] = [x - factor * y for x, y in zip(rows[r], top)]
    return [row[n:] for row in rows]


def _table(
    data: _Data, theta: list[float], covariance: list[list[float]], reference: str | None
) -> Fit:
    names, n = data.names, len(data.names)
    if reference is None:  # against the field's mean: the contrast e_i − 1/n
        mean = math.fsum(theta) / n if n else 0.0
        row_means = [math.fsum(row) / n for row in covariance]
        grand = math.fsum(row_means) / n if n else 0.0
        level = [t - mean for t in theta]
        variances = [covariance[i][i] - 2 * row_means[i] + grand for i in range(n)]
    else:
        r = data.index[reference]
        level = [t - theta[r] for t in theta]
        variances = [covariance[i][i] + covariance[r][r] - 2 * covariance[i][r] for i in range(n)]
    theta_of = dict(zip(names, theta))
    cov_of = {(a, b): covariance[i][j] for i, a in enumerate(names) for j, b in enumerate(names)}
    order = sorted(range(n), key=lambda i: (-theta[i], names[i]))
    draft = Fit((), reference, data.finishes, len(data.deals), theta_of, cov_of)
    ranked = [names[i] for i in order]
    rated = tuple(
        Rated(
            name=names[i],
            rating=ELO * level[i],
            plus_minus=ELO * Z95 * math.sqrt(max(variances[i], 0.0)),
            matches=data.matches[i],
            position=p + 1,
            places=_places(draft, ranked, p),
            los_below=draft.los(ranked[p], ranked[p + 1]) if p + 1 < n else None,
        )
        for p, i in enumerate(order)
    )
    return Fit(rated, reference, data.finishes, len(data.deals), theta_of, cov_of)


def _places(fit: Fit, ranked: Sequence[str], position: int) -> tuple[int, int]:
    """The best and worst places (1-based) of `ranked[position]`: 1 + how many are told apart
    above it, and the field's size − how many are told apart below it."""
    name = ranked[position]
    above = sum(1 for other in ranked[:position] if fit.los(other, name) >= APART)
    below = sum(1 for other in ranked[position + 1 :] if fit.los(name, other) >= APART)
    return 1 + above, len(ranked) - below


__all__ = ["ELO", "Finish", "Fit", "Rated", "fit"]
