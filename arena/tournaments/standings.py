"""Standings of a tournament: counts, win shares with their uncertainty, ratings, pairwise.

Pure: results lines (`results.ResultLine`, the one summary of a match) in, numbers out.
`Standings.add` takes one match at a time (live standings);
`Standings.of` replays a list of matches in match order, so the final figures do not depend on
the order in which parallel workers finished.

- **wins** split a shared first place: when w seats tie for the most books each gets 1/w;
- **win share** is wins / matches, with a 95 % Wilson score interval; its **luck-adjusted**
  twin (`luckAdjusted`, docs/luck.md) is the mean adjusted share of the matches whose line has
  one, with its normal 95 % interval;
- **rating** is the batch Plackett–Luce fit over every match (`arena.tournaments.rating`):
  Elo-like points against the field's mean with a 95 % interval counting each deal as the unit
  (never narrower than the model's own), and what the table may claim from it is the board's
  (`arena.tournaments.board`): a participant with no match is listed apart, one with fewer
  than five deals is provisional (win share and posterior, no place), and the others have the
  places that hold *together* (`ranked()`, the final look) or at *every* look (`ranked(live=
  True)`, confidence sequences planned to `plan`, the run's matches a participant). The order
  is the fit's. With `adjusted` (`arena standings --luck-adjusted`) it is fitted on each
  match's luck-adjusted win shares (the raw ones for a line without) instead of its finishing
  order (`rating.Finish.shares`);
- **live** is OpenSkill's Plackett–Luce estimate (mu, sigma) updated match by match, in match
  order: the report's rating path; it depends on the order of the matches, so it orders nothing;
- **pairwise**: for two participants, the share of their common matches in which the first
  placed ahead of the second (an equal place counts half);
- **faults**: per kind as the replays record them, and `invalidAsks` from the `invalid-ask`
  events; `crashes` counts the kinds that are one (`FaultKind.is_crash`: `exited`, `crashed` and
  `start-failed`).
- **reply times**: the median reply, the slowest and its share of the reply limit
  (`arena.referee.loop.ReplyTimes`, one definition with `arena check`), over the matches whose
  line records them.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from openskill.models import PlackettLuce

from arena.base.normal import Z95
from arena.engine.match import Outcome
from arena.referee.loop import ReplyTimes
from arena.seats.replies import FaultKind
from arena.tournaments import board as boards
from arena.tournaments import rating as batch
from arena.tournaments.board import Board, Final, Line, Live, Look, Standing
from arena.tournaments.confidence import wilson
from arena.tournaments.rating import Finish, Fit, Rated
from arena.tournaments.results import ResultLine, win_shares

# Outcomes decided by a limit rather than played out (contract §2.9): adjudicated on books so far.
ADJUDICATED = frozenset({Outcome.STALLED, Outcome.TURN_LIMIT})

__all__ = ["Z95", "Pair", "Row", "Standings", "wilson", "win_shares"]

FORMAT = "gofish-arena-standings/3"
PLANNED = 100  # matches a participant, when no plan was given: a live look's default horizon


@dataclass
class Row:
    """One participant's figures so far."""

    name: str
    matches: int = 0
    wins: float = 0.0
    books: int = 0
    places: int = 0
    invalid_asks: int = 0
    adjudicated: int = 0  # matches ended by a limit (stalled, turn-limit): books so far decided
    faults: dict[str, int] = field(default_factory=dict)
    mu: float = 0.0
    sigma: float = 0.0
    fit: Rated | None = None  # its line of the batch fit, once `ranked` has run it
    line: Line | None = None  # its line on the board of the last `ranked` (None: no match)
    los_below: float | None = None  # likelihood it is stronger than the next ranked one
    # Luck-adjusted win shares (docs/luck.md): matches that have one, their sum and squares.
    adjusted_matches: int = 0
    adjusted_sum: float = 0.0
    adjusted_squares: float = 0.0
    reply_parts: list[ReplyTimes] = field(default_factory=list, repr=False)  # one per match

    @property
    def reply_times(self) -> ReplyTimes | None:
        """Its reply times over its matches (None: no line recorded a reply of it)."""
        return ReplyTimes.combined(self.reply_parts)

    @property
    def adjusted_share(self) -> float | None:
        return self.adjusted_sum / self.adjusted_matches if self.adjusted_matches else None

    @property
    def adjusted_interval(self) -> tuple[float, float] | None:
        """The normal 95 % interval of the mean adjusted share (it is no proportion: it may
        leave [0, 1] in a single match, so Wilson's interval does not apply)."""
        n, mean = self.adjusted_matches, self.adjusted_share
        if mean is None or n < 2:
            return None
        variance = max(self.adjusted_squares - n * mean * mean, 0.0) / (n - 1)
        half = Z95 * math.sqrt(variance / n)
        return mean - half, mean + half

    @property
    def win_share(self) -> float:
        return self.wins / self.matches if self.matches else 0.0

    @property
    def interval(self) -> tuple[float, float]:
        return wilson(self.wins, self.matches)

    @property
    def mean_books(self) -> float:
        return self.books / self.matches if self.matches else 0.0

    @property
    def mean_place(self) -> float:
        return self.places / self.matches if self.matches else 0.0

    @property
    def ordinal(self) -> float:
        return self.mu - 3 * self.sigma

    def fault(self, kind: str) -> int:
        return self.faults.get(kind, 0)

    @property
    def crashes(self) -> int:
        return sum(self.fault(kind) for kind in FaultKind if kind.is_crash)

    def as_json(self) -> dict[str, Any]:
        low, high = self.interval
        return {
            "name": self.name,
            "matches": self.matches,
            "wins": round(self.wins, 6),
            "winShare": round(self.win_share, 6),
            "winShare95": [round(low, 6), round(high, 6)],
            "luckAdjusted": self._luck_adjusted(),
            "meanBooks": round(self.mean_books, 6),
            "meanPlace": round(self.mean_place, 6),
            "adjudicated": self.adjudicated,
            "replyTimes": None if (times := self.reply_times) is None else times.as_json(),
            "rating": None if self.fit is None else self._rating_json(),
            "live": {
                "mu": round(self.mu, 6),
                "sigma": round(self.sigma, 6),
                "ordinal": round(self.ordinal, 6),
            },
            "faults": {
                "timeouts": self.fault("timeout"),
                "invalidAsks": self.invalid_asks,
                "crashes": self.crashes,
                "byKind": dict(sorted(self.faults.items())),
            },
        }

    def _rating_json(self) -> dict[str, Any]:
        line = self.line
        if line is None:  # no match: listed apart, the prior alone rates it
            return {"standing": str(Standing.UNPLAYED), "place": None}
        return {
            "standing": str(line.standing),
            "elo": round(line.rating, 3),
            "plusMinus": round(line.plus_minus, 3),
            "place": line.place or None,
            "places": None if line.places is None else list(line.places),
            "deals": line.deals,
            "losBelow": None if self.los_below is None else round(self.los_below, 6),
        }

    def _luck_adjusted(self) -> dict[str, Any] | None:
        share, interval = self.adjusted_share, self.adjusted_interval
        if share is None:
            return None
        return {
            "winShare": round(share, 6),
            "winShare95": None if interval is None else [round(x, 6) for x in interval],
            "matches": self.adjusted_matches,
        }


@dataclass
class Pair:
    matches: int = 0
    ahead: float = 0.0  # matches the first placed ahead of the second; an equal place is half

    @property
    def share(self) -> float:
        return self.ahead / self.matches if self.matches else 0.0


class Standings:
    """Figures for a fixed list of participants, updated one match at a time."""

    def __init__(
        self, names: Iterable[str], *, adjusted: bool = False, plan: Live | None = None
    ) -> None:
        self.adjusted = adjusted  # the batch fit on luck-adjusted win shares
        self.plan = plan or Live(PLANNED)  # the horizon of every live look, fixed beforehand
        self._boards: dict[Look, Board] = {}
        self.model = PlackettLuce()
        self.rows = {name: Row(name) for name in names}
        self.ratings = {name: self.model.rating(name=name) for name in self.rows}
        for name, rating in self.ratings.items():
            self.rows[name].mu, self.rows[name].sigma = rating.mu, rating.sigma
        self.pairs: dict[tuple[str, str], Pair] = {}
        self.matches = 0
        self.finishes: list[Finish] = []
        self._fit: Fit | None = None

    @classmethod
    def of(
        cls,
        names: Iterable[str],
        lines: Iterable[ResultLine],
        *,
        adjusted: bool = False,
        plan: Live | None = None,
    ) -> Standings:
        """The standings of these matches, taken in match order whatever order they came in."""
        standings = cls(names, adjusted=adjusted, plan=plan)
        for line in sorted(lines, key=lambda line: line.match):
            standings.add(line)
        return standings

    def add(self, result: ResultLine) -> None:
        self.matches += 1
        # Its deal (the same cards, whichever run played them): the unit of the intervals.
        deal = ("deal", result.deal_seed)
        shares = win_shares(result.places)
        luck = result.luck_adjusted
        adjusted = luck.winShare if luck is not None else []
        fitted = (adjusted or shares) if self.adjusted else None
        self.finishes.append(
            Finish(
                dict(zip(result.seating, result.places)),
                deal,
                None if fitted is None else dict(zip(result.seating, fitted)),
            )
        )
        self._fit = None
        self._boards.clear()
        reply_times = result.reply_times or []
        for seat, name in enumerate(result.seating):
            row = self.rows.setdefault(name, Row(name))
            row.matches += 1
            row.wins += shares[seat]
            row.books += result.scores[seat]
            row.places += result.places[seat]
            row.adjudicated += result.outcome in ADJUDICATED
            if seat < len(adjusted):
                row.adjusted_matches += 1
                row.adjusted_sum += adjusted[seat]
                row.adjusted_squares += adjusted[seat] ** 2
            if seat < len(reply_times) and (times := reply_times[seat]) is not None:
                row.reply_parts.append(times)
            if seat < len(result.invalid_asks):
                row.invalid_asks += result.invalid_asks[seat]
            if seat < len(result.faults):
                for kind, count in result.faults[seat].items():
                    row.faults[kind] = row.faults.get(kind, 0) + count
            for other_seat, other in enumerate(result.seating):
                if other_seat != seat:
                    pair = self.pairs.setdefault((name, other), Pair())
                    pair.matches += 1
                    mine, theirs = result.places[seat], result.places[other_seat]
                    pair.ahead += 1.0 if mine < theirs else 0.5 if mine == theirs else 0.0
        self._rate(result)

    def _rate(self, result: ResultLine) -> None:
        for name in result.seating:
            if name not in self.ratings:
                self.ratings[name] = self.model.rating(name=name)
        teams = [[self.ratings[name]] for name in result.seating]
        rated = self.model.rate(teams, ranks=[float(place) for place in result.places])
        for name, (rating,) in zip(result.seating, rated):
            self.ratings[name] = rating
            self.rows[name].mu, self.rows[name].sigma = rating.mu, rating.sigma

    def fitted(self) -> Fit:
        """The batch rating fit of every match so far (computed once per number of matches)."""
        if self._fit is None:
            self._fit = batch.fit(self.finishes, names=self.rows, floor=not self.adjusted)
            for line in self._fit.rated:
                self.rows[line.name].fit = line
        return self._fit

    def board(self, look: Look | None = None) -> Board:
        """The claims of the fit at `look` (the final one when None; computed once per number
        of matches)."""
        look = Final() if look is None else look
        if look not in self._boards:
            self._boards[look] = boards.of(self.fitted(), look)
        return self._boards[look]

    def ranked(self, *, live: bool = False) -> list[Row]:
        """The board's order: the ranked best first, then the provisional, then those with no
        match (by name); each row's `line` that of the final look, or of a live one (`live`:
        claims valid at every look, planned to `plan`)."""
        fit = self.fitted()
        table = self.board(self.plan if live else None)
        lines = list(table)
        for row in self.rows.values():
            row.line, row.los_below = None, None
        for line in lines:
            self.rows[line.name].line = line
        for high, low in itertools.pairwise(table.ranked):
            self.rows[high.name].los_below = fit.los(high.name, low.name)
        return [self.rows[line.name] for line in lines] + [
            self.rows[name] for name in sorted(table.unplayed)
        ]

    def look_json(self, *, live: bool = False) -> dict[str, Any]:
        """What the claims of `ranked(live=live)` promise: the board's look and prior."""
        document = self.board(self.plan if live else None).as_json()
        return {
            key: document[key] for key in ("look", "prior", "provisionalBelowDeals", "unplayed")
        }

    def pair(self, first: str, second: str) -> Pair:
        return self.pairs.get((first, second), Pair())

    def as_json(self, *, live: bool = False, **header: Any) -> dict[str, Any]:
        ranked = self.ranked(live=live)
        order = {row.name: place for place, row in enumerate(ranked)}
        fit = self.fitted()
        return {
            "format": FORMAT,
            **header,
            "matches": self.matches,
            "rating": {
                "model": "plackett-luce",
                "scale": "elo",
                "against": "field mean" if fit.reference is None else fit.reference,
                "deals": fit.groups,
                "level": 0.95,
                **({"luckAdjusted": True} if self.adjusted else {}),
                **self.look_json(live=live),
            },
            "participants": [row.as_json() for row in ranked],
            "pairwise": [
                {
                    "first": first,
                    "second": second,
                    "matches": pair.matches,
                    "ahead": round(pair.ahead, 6),
                    "share": round(pair.share, 6),
                }
                # Only the pairs that met, in standings order: a field of thousands has
                # millions of pairs, most of which never shared a table.
                for (first, second), pair in sorted(
                    self.pairs.items(), key=lambda item: (order[item[0][0]], order[item[0][1]])
                )
                if pair.matches
            ],
        }
