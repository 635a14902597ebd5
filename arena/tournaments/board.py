"""What a standings table may claim, at one look or at every look: the board. Pure.

    fit = rating.fit(finishes, names=everyone)       # the fit: ratings, never-too-narrow ±
    final = board.of(fit)                            # one look: a run's end, a final phase
    live = board.of(fit, board.Live(planned=40, seats=3))   # a table read again and again
    for line in final.ranked:                        # best first, each with its places
        line.name, line.place, line.rating, line.plus_minus
    for line in final.provisional:                   # too few deals to place: no place
        line.name, line.win_share, line.win_interval, line.rating, line.plus_minus
    final.unplayed                                   # no match yet: listed apart, never ranked
    final.above("ann", "bob")                        # a claim this look may make
    final.as_json()
    board.share_interval(ahead, meetings, look)      # a head-to-head share's interval at a look

This is the one place where standings are turned into claims: `arena standings`,
standings.json, the live table of `arena run`, the report, and the league's board and API all
show a `Board`.

**Who is placed.** A participant with no match is *unplayed*: only the prior rates it, so it
is listed apart and never ranked. One with fewer than `PROVISIONAL_DEALS` deals (`Rated.deals`:
distinct deals, the unit of the intervals) is *provisional*: its win share with its interval,
and its rating shown as what it is, the posterior with its prior named (`PRIOR`), but no place
(with a deal or two the sandwich's spread is not yet measured, and the floor alone carries its
interval). Only the others, *ranked*, have places, counted among themselves.

**Places** are built from pairwise claims "i is above j" (its rating higher, the difference
told from 0): `places` = (1 + how many are above it, the number ranked − how many are below).
What makes a claim depends on the look:

- `Final` (the default), one look: Holm's step-down method over every pair of ranked
  participants at once (`confidence.holm`, on the two-sided p-values of the fit's z-scores),
  so the whole table holds together: the chance that any pair of equals is told apart is at
  most `alpha`. Each rating's ± is the fit's fixed-sample 95 % interval: right for this one
  look, and it says so (`Final.interval`).
- `Live(planned, seats)`, a table read at every match or every day: each pair's claim is made
  from a confidence sequence, the normal-mixture boundary on the same z-score
  (`confidence.mixture_z`) planned to the information the pair should have at the planned end
  (`planned` matches a participant, at `seats`), so that a pair of equals is told apart at
  *some* look with chance at most `alpha`, however it was matched. The ± and the provisional
  win-share intervals are confidence sequences too (`share_interval`, also for head-to-head
  shares). `planned` is a plan, fixed before the first look (a run's schedule; a season's
  days × the matches a version plays a day; with tables of several sizes, the smallest): a
  wrong one costs width, never validity, and after the planned end the claims still hold.
"""

from __future__ import annotations

import math
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

from arena.base.normal import Z95
from arena.tournaments import confidence
from arena.tournaments.confidence import ALPHA, wilson
from arena.tournaments.rating import ELO, Fit, Rated

PROVISIONAL_DEALS = 5  # deals before a participant is placed
PRIOR = "one virtual win and one virtual loss against a player of the field's middle strength"


class Standing(StrEnum):
    RANKED = "ranked"
    PROVISIONAL = "provisional"
    UNPLAYED = "unplayed"


@dataclass(frozen=True)
class Final:
    """One look: Holm over every pair; the fixed-sample 95 % intervals."""

    alpha: float = ALPHA

    interval = "fixed-sample 95 % (valid at this one look)"
    method = "holm"


def information_per_match(seats: int) -> float:
    """The Fisher information on one participant's θ of one match at `seats` equal seats under
    Plackett–Luce: Σ over the draws of p(1 − p) while it is unplaced, p = 1/r of r left."""
    return sum((r / seats) * (1 / r) * (1 - 1 / r) for r in range(2, seats + 1))


@dataclass(frozen=True)
class Live:
    """Every look: confidence sequences planned to `planned` matches a participant at `seats`.

    Raises ValueError for a plan of no match or fewer than two seats."""

    planned: float
    seats: int = 2
    alpha: float = ALPHA

    interval = "confidence sequence (valid at every look)"
    method = "normal mixture"

    def __post_init__(self) -> None:
        if not self.planned > 0 or self.seats < 2 or not 0 < self.alpha < 1:
            raise ValueError(f"a live look needs planned > 0 and seats >= 2: {self}")

    @property
    def information(self) -> float:
        """The information on one θ planned at the end (its difference with another: half)."""
        return self.planned * information_per_match(self.seats)


Look = Final | Live


def planned(matches: int, seats: int, participants: int) -> Live:
    """The live look of a run of `matches` matches at `seats` among `participants`: each
    participant's share of the planned matches."""
    return Live(max(1.0, matches * seats / max(participants, 1)), max(2, seats))


@dataclass(frozen=True)
class Line:
    """One participant on the board."""

    name: str
    standing: Standing
    rating: float  # Elo-like, against the field's mean (the fit's): the posterior's centre
    plus_minus: float  # its half-width at this look (`Look.interval`)
    matches: int
    deals: int
    wins: float
    win_interval: tuple[float, float]  # the win share's interval at this look
    places: tuple[int, int] | None = None  # ranked only: best and worst place it may hold

    @property
    def win_share(self) -> float:
        return self.wins / self.matches if self.matches else 0.0

    @property
    def place(self) -> str:
        """ "3", "3–5" (cannot be told apart from those placed 3 to 5), or "" (not placed)."""
        if self.places is None:
            return ""
        first, last = self.places
        return str(first) if first == last else f"{first}–{last}"

    def as_json(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "standing": str(self.standing),
            "place": self.place or None,
            "places": None if self.places is None else list(self.places),
            "elo": round(self.rating, 3),
            "plusMinus": round(self.plus_minus, 3),
            "matches": self.matches,
            "deals": self.deals,
            "winShare": round(self.win_share, 6),
            "winShareInterval": [round(x, 6) for x in self.win_interval],
        }


@dataclass(frozen=True)
class Board:
    """The claims of one look."""

    look: Look
    ranked: tuple[Line, ...]  # best first
    provisional: tuple[Line, ...]  # by name: no order is claimed
    unplayed: tuple[str, ...]  # by name
    told_apart: frozenset[tuple[str, str]] = field(repr=False)  # (above, below)

    def above(self, first: str, second: str) -> bool:
        """Whether this look claims `first` is stronger than `second`."""
        return (first, second) in self.told_apart

    def apart(self, first: str, second: str) -> bool:
        return self.above(first, second) or self.above(second, first)

    def __iter__(self) -> Iterator[Line]:
        """The ranked, then the provisional (the unplayed have no line)."""
        return iter((*self.ranked, *self.provisional))

    def __getitem__(self, name: str) -> Line:
        for line in self:
            if line.name == name:
                return line
        raise KeyError(name)

    def as_json(self) -> dict[str, Any]:
        look = self.look
        return {
            "look": {
                "kind": "live" if isinstance(look, Live) else "final",
                "method": look.method,
                "alpha": look.alpha,
                "interval": look.interval,
                **(
                    {"plannedMatches": look.planned, "seats": look.seats}
                    if isinstance(look, Live)
                    else {}
                ),
            },
            "prior": PRIOR,
            "provisionalBelowDeals": PROVISIONAL_DEALS,
            "ranked": [line.as_json() for line in self.ranked],
            "provisional": [line.as_json() for line in self.provisional],
            "unplayed": list(self.unplayed),
        }


def share_interval(
    successes: float, trials: float, look: Look | None = None
) -> tuple[float, float]:
    """A share's interval at `look` (a win share; a head-to-head share, a shared place half):
    Wilson's at one look, the beta-binomial confidence sequence planned to `Live.planned`
    trials at every look."""
    if isinstance(look, Live):
        return confidence.share_sequence(successes, trials, look.planned, look.alpha)
    return wilson(successes, trials)


def standing(row: Rated) -> Standing:
    if not row.matches:
        return Standing.UNPLAYED
    return Standing.PROVISIONAL if row.deals < PROVISIONAL_DEALS else Standing.RANKED


def of(fit: Fit, look: Look | None = None) -> Board:
    """The board of `fit` at `look` (`Final()` when None)."""
    look = Final() if look is None else look
    ranked = [row for row in fit.rated if standing(row) is Standing.RANKED]
    told = _told_apart(fit, [row.name for row in ranked], look)
    above = {row.name: 0 for row in ranked}
    below = dict(above)
    for high, low in told:
        above[low] += 1
        below[high] += 1
    n = len(ranked)
    return Board(
        look,
        tuple(_line(fit, row, look, (1 + above[row.name], n - below[row.name])) for row in ranked),
        tuple(
            _line(fit, row, look, None)
            for row in sorted(fit.rated, key=lambda row: row.name)
            if standing(row) is Standing.PROVISIONAL
        ),
        tuple(sorted(row.name for row in fit.rated if standing(row) is Standing.UNPLAYED)),
        told,
    )


def _line(fit: Fit, row: Rated, look: Look, places: tuple[int, int] | None) -> Line:
    interval = share_interval(row.wins, row.matches, look)
    plus_minus = row.plus_minus
    if isinstance(look, Live):
        se = row.plus_minus / ELO / Z95  # the fit's standard error against the field's mean
        z = confidence.mixture_z(1 / se**2 if se > 0 else math.inf, look.information, look.alpha)
        plus_minus = ELO * z * se if se > 0 else 0.0
    return Line(
        row.name,
        standing(row),
        row.rating,
        plus_minus,
        row.matches,
        row.deals,
        row.wins,
        interval,
        places,
    )


def _told_apart(fit: Fit, names: Sequence[str], look: Look) -> frozenset[tuple[str, str]]:
    """The (above, below) pairs this look claims, among `names` (best first)."""
    pairs: dict[tuple[str, str], float] = {}  # (higher, lower) -> z
    for p, high in enumerate(names):
        for low in names[p + 1 :]:
            se = fit.se(high, low)
            if math.isfinite(se):
                gap = fit.theta[high] - fit.theta[low]
                pairs[high, low] = gap / se if se > 0 else 0.0 if gap == 0 else math.inf
    if isinstance(look, Live):
        planned = look.information / 2  # a difference of two θ: half the information of one
        told = set()
        for (high, low), z in pairs.items():
            se = fit.se(high, low)
            information = 1 / se**2 if se > 0 else math.inf
            if abs(z) >= confidence.mixture_z(information, planned, look.alpha):
                told.add((high, low) if z > 0 else (low, high))
        return frozenset(told)
    rejected = confidence.holm(
        {pair: confidence.normal_p(z) for pair, z in pairs.items()}, look.alpha
    )
    return frozenset(pair if pairs[pair] > 0 else (pair[1], pair[0]) for pair in rejected)


__all__ = [
    "PRIOR",
    "PROVISIONAL_DEALS",
    "Board",
    "Final",
    "Line",
    "Live",
    "Look",
    "Standing",
    "information_per_match",
    "of",
    "planned",
    "share_interval",
    "standing",
]
