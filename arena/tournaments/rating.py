"""One batch rating fit over every match played: Plackett–Luce maximum likelihood. Pure.

    finishes = [Finish({"ann": 1, "bob": 2, "cy": 2}, group=deal_seed), ...]
    fit = rating.fit(finishes)                    # or reference="random": ratings against it
    Finish({"ann": 1, "bob": 2}, group=7, shares={"ann": 0.83, "bob": 0.17})  # win shares
    for row in fit.rated:                         # best first
        row.name, row.rating, row.plus_minus, row.matches, row.deals, row.wins, row.los_below
    fit.los("ann", "bob")                         # likelihood that ann is the stronger
    fit.difference("ann", "bob")                  # (Elo difference, its 95 % half-width)
    fit.se("ann", "bob")                          # the standard error of their θ difference

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

**Win shares** (`Finish.shares`; `arena standings --luck-adjusted` gives each match its
luck-adjusted win shares, docs/luck.md). Only the first place is modelled, and it is shared
out: a match at table T where i took a share x_i of the first place contributes
Σ_T x_i θ_i − log Σ_T w — the log-probability of the first place under the model, each
participant's term weighted by its share. At two seats, with win shares (a shared first place
half each), this is the finishing-order likelihood itself. It is concave whatever the shares,
and its score, Σ over matches of (x_i − w_i / Σ_T w), has mean zero wherever the shares have
the mean the model gives the first place: so shares with the luck taken out, which keep the
raw shares' expectation, estimate the same θ, and the intervals (the sandwich below) measure
their spread, not the model's. Places after the first are not used: at three seats and more
these ratings rest on less than the finishing order's.

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
optimistic, and worse: a participant of one deal has its one score equal to the prior's pull
at the maximum, so its sandwich ± is proportional to |θ| (near 0 rated near the middle), and
when every deal splits evenly every ± is 0. So **no variance is below the model's own**: the
variance of every contrast (a rating against the field's mean or the reference, a difference
of two) is the larger of the sandwich's and the inverse information's (prior included,
`Fit.model`). The sandwich still widens it where deals share luck or the model is wrong; the
floor holds it where there are too few deals to measure a spread (bench/standings.py: coverage
at least 0.95 in every cell, docs/tournaments.md). `floor=False` leaves the sandwich alone: for
luck-adjusted shares, whose spread is meant to be below the model's. `plus_minus` is the 95 %
half-width; `los` (likelihood of superiority) is Φ(difference / its standard error). All of
these are fixed-sample: right at one look. The board (`arena.tournaments.board`) makes the
claims a table shows from them: places that hold together at one look, or at every look.

**Large fields** (more than DENSE = 100 participants; up to it, everything above holds as
written, to the bit). Dense Newton steps and the sandwich's inverse cost n³: 200 participants
took 5 s, 3000 never finished. Above DENSE the field is split into the connected components of
the "met" graph (two participants are linked when they played a match together) and each
component is fitted on its own. That is statistically right, not only faster: the likelihood
is a sum over components, so θ is the same maximum (to rounding); and ratings of participants no
chain of matches links are not comparable (only the prior places them), so across components
`los` is 0.5, `difference`'s half-width is infinite, the covariance is 0 and no one is told apart
(`places` count only one's own component). A component of up to DENSE participants has its dense
Newton fit and its exact sandwich block (the deals of the whole field in G/(G−1)). A larger one
is approximated in two ways: (1) each Newton step is solved by conjugate gradients
preconditioned by the information's diagonal, one pass over the denominators per product, to
the same TOLERANCE (θ is the same maximum); (2) its intervals use the diagonal D of the
observed information in place of I: the variance of θ_i is Σ_g s_g,i² · G/(G−1) / D_ii² and the
covariances within it are 0. That ignores how a participant's estimate leans on its opponents'
(an opponent's own uncertainty): `plus_minus` and the LOS between two members are
approximations (within 4 % of the exact sandwich on a 30-bot test field), the ratings not.
The deals counted in G/(G−1) and the reference or field mean are the whole field's.

**Cannot be told apart** (pairwise, one pair at a time: the board's places hold together).
Two participants are told apart when the 95 % interval of their
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
from collections.abc import Callable, Hashable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field

from arena.base.normal import Z95

ELO = 400 / math.log(10)  # rating points per unit of θ
APART = 0.975  # the likelihood of superiority from which two neighbours are told apart
PRIOR = 1.0  # virtual wins and, as many, virtual losses against strength 1, per participant
TOLERANCE = 1e-10  # the fit stops when no θ moves more than this in a step
MOST_STEPS = 200
DENSE = 100  # the most participants fitted (field, or component above it) with a dense Newton
CG_STEPS = 500  # the most conjugate-gradient steps per Newton step of a large component

# A denominator: (participant index, coefficient) pairs, sorted by index.
Term = tuple[tuple[int, float], ...]


@dataclass(frozen=True)
class Finish:
    """One match's finishing order: each participant's place, 1 best, ties sharing a place;
    `group` is its deal (a duplicate group), the unit of the intervals.

    With `shares` (each participant's share of the first place, summing to 1: its win share,
    or its luck-adjusted win share, which may leave [0, 1]) only the first place is modelled,
    shared out as `shares` say (the module docstring, "Win shares")."""

    places: Mapping[str, int]
    group: Hashable
    shares: Mapping[str, float] | None = None

    def __post_init__(self) -> None:
        if any(type(place) is not int or place < 1 for place in self.places.values()):
            raise ValueError(f"places must be integers from 1: {dict(self.places)}")
        if self.shares is not None and (
            set(self.shares) != set(self.places)
            or not all(math.isfinite(share) for share in self.shares.values())
        ):
            raise ValueError(f"shares must be a number for each participant: {self.shares}")


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
    deals: int = 0  # distinct deals (`Finish.group`) it played: the unit of its interval
    wins: float = 0.0  # its first places (a shared one split), or its `Finish.shares` summed

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
    # above DENSE participants: each one's connected component of the "met" graph
    components: Mapping[str, int] | None = field(default=None, repr=False)
    # the model's own covariance (the inverse information, prior included): the floor of
    # every variance (module docstring, "Intervals"); None: the sandwich alone
    model: Mapping[tuple[str, str], float] | None = field(default=None, repr=False)

    def comparable(self, first: str, second: str) -> bool:
        """Whether a chain of matches links them (always, up to DENSE participants)."""
        return self.components is None or self.components[first] == self.components[second]

    def __getitem__(self, name: str) -> Rated:
        for row in self.rated:
            if row.name == name:
                return row
        raise KeyError(name)

    def difference(self, first: str, second: str) -> tuple[float, float]:
        """`first`'s rating minus `second`'s, and the 95 % half-width of that difference
        (infinite when no chain of matches links them)."""
        if not self.comparable(first, second):
            return ELO * (self.theta[first] - self.theta[second]), math.inf
        return ELO * (self.theta[first] - self.theta[second]), ELO * Z95 * self._se(first, second)

    def los(self, first: str, second: str) -> float:
        """The likelihood of superiority: how sure the fit is that `first` is the stronger."""
        if not self.comparable(first, second):
            return 0.5  # no match links them: the data say nothing about their order
        return _los(self.theta[first] - self.theta[second], self._se(first, second))

    def apart(self, first: str, second: str) -> bool:
        """Whether the 95 % interval of their difference excludes 0."""
        return max(self.los(first, second), self.los(second, first)) >= APART

    def se(self, first: str, second: str) -> float:
        """The standard error of θ_first − θ_second (in θ, not Elo): the sandwich's, never
        below the model's own; infinite when no chain of matches links them."""
        if not self.comparable(first, second):
            return math.inf
        return self._se(first, second)

    def _se(self, first: str, second: str) -> float:
        variance = _contrast(self.covariance, first, second)
        if self.model is not None:
            variance = max(variance, _contrast(self.model, first, second))
        return math.sqrt(max(variance, 0.0))


def _contrast(cov: Mapping[tuple[str, str], float], first: str, second: str) -> float:
    return cov[first, first] + cov[second, second] - 2 * cov[first, second]


def _los(gap: float, se: float) -> float:
    """Φ(gap / se): the likelihood of superiority of a difference `gap` of standard error `se`."""
    if se <= 0:
        return 0.5 if gap == 0 else float(gap > 0)
    return 0.5 * math.erfc(-gap / se / math.sqrt(2))


def fit(
    finishes: Iterable[Finish],
    *,
    reference: str | None = None,
    names: Iterable[str] = (),
    floor: bool = True,
) -> Fit:
    """The maximum-likelihood ratings of every participant of `finishes` (and of `names`,
    which may have no match). The same finishes in any order give the same Fit, to the bit.
    `floor`: no variance below the model's own (the module docstring, "Intervals"); False
    for shares whose spread is meant to be smaller than the model's (luck-adjusted ones).

    Raises ValueError when `reference` is not one of the participants.
    """
    finishes = list(finishes)
    names = list(names)
    field_names = {n for f in finishes if len(f.places) >= 2 for n in f.places} | set(names)
    if reference is not None and reference not in field_names:
        raise ValueError(f"the reference {reference!r} is not a participant")
    if len(field_names) > DENSE:
        return _fit_by_component(finishes, names, reference, floor)
    data = _Data.of(finishes, names)
    theta = _maximise(data)
    covariance, model = _sandwich(data, theta)
    return _table(data, theta, covariance, model if floor else None, reference)


@dataclass
class _Data:
    """The log-likelihood's parts: Σ_i a_i θ_i − Σ_t c_t log Σ_j b_tj w_j, per deal and summed."""

    names: list[str]
    index: dict[str, int]
    matches: list[int]  # per participant
    dealt: list[int]  # per participant: the distinct deals it played
    wins: list[float]  # per participant: first places (shared ones split), or shares summed
    numerators: list[float]  # a_i
    terms: list[tuple[Term, float]]  # (b_t, c_t), sorted
    deals: list[tuple[dict[int, float], list[tuple[Term, float]]]]  # per deal: a (sparse), terms
    finishes: int

    @classmethod
    def of(cls, finishes: Iterable[Finish], extra: Iterable[str]) -> _Data:
        played = [f for f in finishes if len(f.places) >= 2]
        names = sorted({name for f in played for name in f.places} | set(extra))
        index = {name: i for i, name in enumerate(names)}
        matches = [0] * len(names)
        wins: list[list[float]] = [[] for _ in names]
        by_deal: dict[Hashable, list[Finish]] = defaultdict(list)
        for finish in played:
            by_deal[finish.group].append(finish)
            for name, share in _first_places(finish).items():
                matches[index[name]] += 1
                wins[index[name]].append(share)
        dealt = [0] * len(names)
        for members in by_deal.values():
            for i in {index[name] for finish in members for name in finish.places}:
                dealt[i] += 1
        numerators: list[list[float]] = [[] for _ in names]
        counts: Counter[Term] = Counter()
        deals = []
        for members in by_deal.values():
            deal_numerators: defaultdict[int, list[float]] = defaultdict(list)
            deal_counts: Counter[Term] = Counter()
            for finish in members:
                _decompose(finish, index, deal_numerators, deal_counts)
            for i, parts in deal_numerators.items():
                numerators[i].extend(parts)
            counts.update(deal_counts)
            deals.append(
                (
                    {i: math.fsum(parts) for i, parts in sorted(deal_numerators.items())},
                    sorted(_weighted(deal_counts).items()),
                )
            )
        return cls(
            names=names,
            index=index,
            matches=matches,
            dealt=dealt,
            wins=[math.fsum(parts) for parts in wins],
            numerators=[math.fsum(parts) for parts in numerators],
            terms=sorted(_weighted(counts).items()),
            deals=deals,
            finishes=len(played),
        )


def _first_places(finish: Finish) -> Mapping[str, float]:
    """Each participant's share of the first place: its `shares`, or 1/w for each of w tied."""
    if finish.shares is not None:
        return finish.shares
    best = min(finish.places.values())
    first = sum(1 for place in finish.places.values() if place == best)
    return {name: 1 / first if place == best else 0.0 for name, place in finish.places.items()}


def _weighted(counts: Counter[Term]) -> dict[Term, float]:
    return {term: float(count) for term, count in counts.items()}


def _decompose(
    finish: Finish,
    index: Mapping[str, int],
    numerators: defaultdict[int, list[float]],
    counts: Counter[Term],
) -> None:
    """Add one finish's numerators and denominators (the tie model of the module docstring;
    with shares, its first place only)."""
    if finish.shares is not None:
        for name, share in finish.shares.items():
            numerators[index[name]].append(share)
        counts[tuple(sorted((index[name], 1.0) for name in finish.places))] += 1
        return
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


Solver = Callable[[_Data, Sequence[float], list[float]], list[float]]


def _dense_step(data: _Data, w: Sequence[float], gradient: list[float]) -> list[float]:
    """x with I · x = gradient, I the observed information, formed and solved."""
    return _solve(_information(data, w), gradient)


def _maximise(data: _Data, solve: Solver = _dense_step) -> list[float]:
    """θ by Newton's steps on the concave log-likelihood, each halved until it climbs, until
    none moves θ more than TOLERANCE. A step solves information · step = gradient with `solve`:
    by default at once on the dense n × n information (`_dense_step`); for a large component,
    `_conjugate_gradients`, whose products with the information cost one pass over the terms
    and never form the matrix."""
    theta = [0.0] * len(data.names)
    current = _log_likelihood(data, theta)
    for _ in range(MOST_STEPS):
        w = [math.exp(t) for t in theta]
        gradient = [
            s + PRIOR - 2 * PRIOR * wi / (1 + wi)
            for s, wi in zip(_scores(data.numerators, data.terms, w), w)
        ]
        step = solve(data, w, gradient)
        if max((abs(x) for x in step), default=0.0) < TOLERANCE:
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


def _dense(numerators: Mapping[int, float], n: int) -> list[float]:
    a = [0.0] * n
    for i, value in numerators.items():
        a[i] = value
    return a


Matrix = list[list[float]]


def _sandwich(
    data: _Data, theta: Sequence[float], deals: int | None = None
) -> tuple[Matrix, Matrix]:
    """The cluster-robust covariance of θ, deals as clusters (`deals` of the whole field when
    `data` is one of its connected components), and the model's own (the inverse
    information, prior included)."""
    n = len(theta)
    w = [math.exp(t) for t in theta]
    bread = _inverse(_information(data, w))
    deals = len(data.deals) if deals is None else deals
    meat = [[0.0] * n for _ in range(n)]
    if deals >= 2:
        scale = deals / (deals - 1)
        # sorted: the order of the deals must not reach the floating-point sums
        for score in sorted(_scores(_dense(a, n), terms, w) for a, terms in data.deals):
            nonzero = [(i, s) for i, s in enumerate(score) if s]
            for i, si in nonzero:
                row = meat[i]
                for j, sj in nonzero:
                    row[j] += scale * si * sj
    else:  # one deal: no spread to measure between deals; the model's own covariance
        return bread, bread
    half = _product(bread, meat)
    return _product(half, bread), bread


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


def _levels(
    theta: Sequence[float], covariance: Matrix, reference: int | None
) -> tuple[list[float], list[float]]:
    """Each θ against the field's mean (the contrast e_i − 1/n) or the reference's, and the
    variance of that contrast."""
    n = len(theta)
    if reference is None:
        mean = math.fsum(theta) / n if n else 0.0
        row_means = [math.fsum(row) / n for row in covariance]
        grand = math.fsum(row_means) / n if n else 0.0
        return [t - mean for t in theta], [
            covariance[i][i] - 2 * row_means[i] + grand for i in range(n)
        ]
    r = reference
    return [t - theta[r] for t in theta], [
        covariance[i][i] + covariance[r][r] - 2 * covariance[i][r] for i in range(n)
    ]


def _by_name(names: Sequence[str], matrix: Matrix) -> dict[tuple[str, str], float]:
    return {(a, b): matrix[i][j] for i, a in enumerate(names) for j, b in enumerate(names)}


def _table(
    data: _Data,
    theta: list[float],
    covariance: Matrix,
    model: Matrix | None,
    reference: str | None,
) -> Fit:
    names, n = data.names, len(data.names)
    r = None if reference is None else data.index[reference]
    level, variances = _levels(theta, covariance, r)
    if model is not None:
        variances = [max(v, m) for v, m in zip(variances, _levels(theta, model, r)[1])]
    theta_of = dict(zip(names, theta))
    cov_of = _by_name(names, covariance)
    model_of = None if model is None else _by_name(names, model)
    order = sorted(range(n), key=lambda i: (-theta[i], names[i]))
    draft = Fit((), reference, data.finishes, len(data.deals), theta_of, cov_of, None, model_of)
    ranked = [names[i] for i in order]
    unplayed = frozenset(names[i] for i in range(n) if not data.matches[i])
    rated = tuple(
        Rated(
            name=names[i],
            rating=ELO * level[i],
            plus_minus=ELO * Z95 * math.sqrt(max(variances[i], 0.0)),
            matches=data.matches[i],
            position=p + 1,
            places=_places(draft, ranked, p, unplayed),
            los_below=draft.los(ranked[p], ranked[p + 1]) if p + 1 < n else None,
            deals=data.dealt[i],
            wins=data.wins[i],
        )
        for p, i in enumerate(order)
    )
    return Fit(rated, reference, data.finishes, len(data.deals), theta_of, cov_of, None, model_of)


def _places(
    fit: Fit, ranked: Sequence[str], position: int, unplayed: frozenset[str] = frozenset()
) -> tuple[int, int]:
    """The best and worst places (1-based) of `ranked[position]`: 1 + how many are told apart
    above it, and the field's size − how many are told apart below it. A participant of no
    match (`unplayed`: only the prior places it, with no variance of its own) is told apart
    from no one, as no chain of matches links it: it may hold any place."""
    name = ranked[position]
    if name in unplayed:
        return 1, len(ranked)
    above = sum(
        1 for other in ranked[:position] if other not in unplayed and fit.los(other, name) >= APART
    )
    below = sum(
        1
        for other in ranked[position + 1 :]
        if other not in unplayed and fit.los(name, other) >= APART
    )
    return 1 + above, len(ranked) - below


# Above DENSE participants: each connected component of the "met" graph on its own.


def _components(finishes: Sequence[Finish], names: Iterable[str]) -> list[list[str]]:
    """The participants linked by a chain of matches, each list sorted, in order of first name."""
    parent: dict[str, str] = {}

    def root(name: str) -> str:
        parent.setdefault(name, name)
        while parent[name] != name:
            parent[name] = parent[parent[name]]
            name = parent[name]
        return name

    for name in names:
        root(name)
    for finish in finishes:
        first, *others = sorted(finish.places)
        for other in others:
            a, b = root(first), root(other)
            if a != b:
                parent[max(a, b)] = min(a, b)
    members: dict[str, list[str]] = defaultdict(list)
    for name in sorted(parent):
        members[root(name)].append(name)
    return sorted(members.values())


@dataclass(frozen=True)
class _Block:
    """One component's θ and covariance: dense, or its diagonal only (`dense` None)."""

    names: list[str]
    theta: list[float]
    dense: list[list[float]] | None
    diagonal: list[float]
    model: _Block | None = None  # the model's own covariance, of the same shape
    dealt: list[int] = field(default_factory=list)
    wins: list[float] = field(default_factory=list)

    def row_sum(self, i: int) -> float:
        return math.fsum(self.dense[i]) if self.dense is not None else self.diagonal[i]


class _Covariance(Mapping[tuple[str, str], float]):
    """The block-diagonal covariance: 0 between components (and, in a large one, off the
    diagonal), computed on look-up rather than stored n × n."""

    def __init__(self, blocks: Sequence[_Block]) -> None:
        self.blocks = blocks
        self._at = {name: (b, i) for b in blocks for i, name in enumerate(b.names)}
        self._names = sorted(self._at)

    def __getitem__(self, pair: tuple[str, str]) -> float:
        (block, i), (other, j) = self._at[pair[0]], self._at[pair[1]]
        if block is not other:
            return 0.0
        if block.dense is not None:
            return block.dense[i][j]
        return block.diagonal[i] if i == j else 0.0

    def __iter__(self) -> Iterator[tuple[str, str]]:
        return ((a, b) for a in self._names for b in self._names)

    def __len__(self) -> int:
        return len(self._names) ** 2


def _fit_by_component(
    finishes: list[Finish], names: list[str], reference: str | None, floor: bool
) -> Fit:
    played = [f for f in finishes if len(f.places) >= 2]
    deals = len({f.group for f in played})
    matches: Counter[str] = Counter(name for f in played for name in f.places)
    groups = _components(played, names)
    component = {name: c for c, members in enumerate(groups) for name in members}
    by_component: list[list[Finish]] = [[] for _ in groups]
    for finish in played:
        by_component[component[next(iter(finish.places))]].append(finish)
    blocks = []
    for members, own in zip(groups, by_component):
        data = _Data.of(own, members)
        if len(members) <= DENSE:
            theta = _maximise(data)
            dense, bread = _sandwich(data, theta, deals)
            model = _Block(members, theta, bread, [bread[i][i] for i in range(len(bread))])
            block = _Block(members, theta, dense, [dense[i][i] for i in range(len(dense))], model)
        else:
            theta = _maximise(data, _conjugate_gradients)
            diagonal, inverse = _diagonal_sandwich(data, theta, deals)
            block = _Block(members, theta, None, diagonal, _Block(members, theta, None, inverse))
        blocks.append(
            _Block(
                block.names,
                block.theta,
                block.dense,
                block.diagonal,
                block.model if floor else None,
                data.dealt,
                data.wins,
            )
        )
    return _table_by_component(blocks, component, matches, len(played), deals, reference)


def _shares(data: _Data, w: Sequence[float]) -> list[tuple[float, list[tuple[int, float]]]]:
    """Per denominator: its count c and each member's share b·w / Σ b w."""
    shares = []
    for term, c in data.terms:
        total = sum(b * w[i] for i, b in term)
        shares.append((c, [(i, b * w[i] / total) for i, b in term]))
    return shares


def _conjugate_gradients(data: _Data, w: Sequence[float], gradient: list[float]) -> list[float]:
    """x with I · x = gradient, I the observed information, never formed."""
    shares = _shares(data, w)
    prior = [2 * PRIOR * wi / (1 + wi) ** 2 for wi in w]
    diagonal = list(prior)
    for c, parts in shares:
        for i, p in parts:
            diagonal[i] += c * p * (1 - p)

    def times(v: Sequence[float]) -> list[float]:
        out = [d * x for d, x in zip(prior, v)]
        for c, parts in shares:
            mean = sum(p * v[i] for i, p in parts)
            for i, p in parts:
                out[i] += c * p * (v[i] - mean)
        return out

    x = [0.0] * len(w)
    residual = list(gradient)
    z = [r / d for r, d in zip(residual, diagonal)]
    direction = list(z)
    rz = sum(r * zi for r, zi in zip(residual, z))
    bound = (TOLERANCE / 10) ** 2 * max(1.0, sum(g * g for g in gradient))
    for _ in range(CG_STEPS):
        if sum(r * r for r in residual) <= bound:
            break
        product = times(direction)
        alpha = rz / sum(d * q for d, q in zip(direction, product))
        x = [xi + alpha * d for xi, d in zip(x, direction)]
        residual = [r - alpha * q for r, q in zip(residual, product)]
        z = [r / d for r, d in zip(residual, diagonal)]
        rz, previous = sum(r * zi for r, zi in zip(residual, z)), rz
        direction = [zi + rz / previous * d for zi, d in zip(z, direction)]
    return x


def _diagonal_sandwich(
    data: _Data, theta: Sequence[float], deals: int
) -> tuple[list[float], list[float]]:
    """Each θ's variance from the diagonal of the observed information only: the sandwich with
    I replaced by its diagonal D, D⁻¹ (Σ_g s_g,i² · G/(G−1)) D⁻¹ (1/D with one deal); and the
    model's, 1/D (below the inverse information's diagonal: a floor that may be low)."""
    w = [math.exp(t) for t in theta]
    information = [2 * PRIOR * wi / (1 + wi) ** 2 for wi in w]
    for c, parts in _shares(data, w):
        for i, p in parts:
            information[i] += c * p * (1 - p)
    inverse = [1 / d for d in information]
    if deals < 2:
        return inverse, inverse
    squares: list[list[float]] = [[] for _ in w]
    for a, terms in data.deals:
        score = dict(a)
        for term, c in terms:
            ratio = c / sum(b * w[i] for i, b in term)
            for i, b in term:
                score[i] = score.get(i, 0.0) - ratio * b * w[i]
        for i, s in score.items():
            squares[i].append(s * s)
    scale = deals / (deals - 1)
    return [scale * math.fsum(sq) / d / d for sq, d in zip(squares, information)], inverse


def _table_by_component(
    blocks: Sequence[_Block],
    component: Mapping[str, int],
    matches: Mapping[str, int],
    finishes: int,
    deals: int,
    reference: str | None,
) -> Fit:
    covariance = _Covariance(blocks)
    floored = all(b.model is not None for b in blocks)
    model = _Covariance([b.model for b in blocks if b.model is not None]) if floored else None
    theta_of = {name: t for b in blocks for name, t in zip(b.names, b.theta)}
    dealt = {name: d for b in blocks for name, d in zip(b.names, b.dealt)}
    wins = {name: x for b in blocks for name, x in zip(b.names, b.wins)}
    names = sorted(theta_of)
    n = len(names)

    def variances(cov: _Covariance) -> dict[str, float]:
        if reference is None:
            row_mean = {
                name: b.row_sum(i) / n for b in cov.blocks for i, name in enumerate(b.names)
            }
            grand = math.fsum(row_mean.values()) / n
            return {name: cov[name, name] - 2 * row_mean[name] + grand for name in names}
        return {name: _contrast(cov, name, reference) for name in names}

    if reference is None:
        mean = math.fsum(theta_of.values()) / n
        level = {name: theta_of[name] - mean for name in names}
    else:
        level = {name: theta_of[name] - theta_of[reference] for name in names}
    variance = variances(covariance)
    if model is not None:
        variance = {
            name: max(v, m) for (name, v), m in zip(variance.items(), variances(model).values())
        }
    ranked = sorted(names, key=lambda name: (-theta_of[name], name))
    draft = Fit((), reference, finishes, deals, theta_of, covariance, component, model)
    # told apart only within a component: count, per component, those above and below
    above: dict[str, int] = {}
    below: dict[str, int] = {}
    in_order: dict[int, list[str]] = defaultdict(list)
    for name in ranked:
        in_order[component[name]].append(name)
    for own in in_order.values():
        theta = [theta_of[name] for name in own]
        if blocks[component[own[0]]].dense is None:  # no covariances: the pairs inline
            var = [covariance[name, name] for name in own]
            floor = [0.0] * len(own) if model is None else [model[name, name] for name in own]

            def se(p: int, q: int, var: list[float] = var, floor: list[float] = floor) -> float:
                return math.sqrt(max(var[p] + var[q], floor[p] + floor[q], 0.0))

            for p, name in enumerate(own):
                t = theta[p]
                above[name] = sum(_los(theta[q] - t, se(p, q)) >= APART for q in range(p))
                below[name] = sum(
                    _los(t - theta[q], se(p, q)) >= APART for q in range(p + 1, len(own))
                )
            continue
        for p, name in enumerate(own):
            above[name] = sum(1 for other in own[:p] if draft.los(other, name) >= APART)
            below[name] = sum(1 for other in own[p + 1 :] if draft.los(name, other) >= APART)
    rated = tuple(
        Rated(
            name=name,
            rating=ELO * level[name],
            plus_minus=ELO * Z95 * math.sqrt(max(variance[name], 0.0)),
            matches=matches[name],
            position=p + 1,
            places=(1 + above[name], n - below[name]),
            los_below=draft.los(name, ranked[p + 1]) if p + 1 < n else None,
            deals=dealt[name],
            wins=wins[name],
        )
        for p, name in enumerate(ranked)
    )
    return Fit(rated, reference, finishes, deals, theta_of, covariance, component, model)


__all__ = ["ELO", "Finish", "Fit", "Rated", "fit"]
