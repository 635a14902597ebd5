"""The candidate of a gauntlet: its duplicate groups, in schedule order, and its SPRT.

Results lines arrive in any order (parallel workers); a group's *outcome* is the candidate's
mean match point over its k rotations, and outcomes go to the test strictly in schedule order:
group g is counted only when every group before it has been. So `--jobs` cannot bias the stop.

The rule for a group with a lost or interrupted match: a group counts when all its k matches
have a results line, whatever happened in them (a fault is part of the play), and the test
waits at the first group that lacks one. An interrupted or lost match has no line; `--resume`
plays it again, its group then completes and the test goes on. The rule reads only whether
lines exist, never what they say, so it cannot favour either hypothesis. A last group cut by
the cap (`games` not a multiple of k) never completes and never counts.

With `adjusted` (`[sprt] luckAdjusted`, the default of `arena sprt`), a match's point is the
candidate's luck-adjusted win share from the line's `luckAdjusted` (docs/luck.md; a line
without one counts its raw point), and the test is `NormalTest` on the groups' mean.

Once the test decides, outcomes stop going to it: matches that were in flight are recorded,
shown in the standings and counted in `later`, but the verdict is the one taken at the crossing.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

from arena.tournaments.results import ResultLine, win_share
from arena.tournaments.sprt import (
    Decision,
    Estimate,
    Hypotheses,
    NormalTest,
    SequentialTest,
    estimate,
)
from arena.tournaments.standings import Standings, wilson


@dataclass
class CandidateTest:
    """The candidate's groups of one run, and the SPRT over them when `hypotheses` is given."""

    name: str
    seats: int
    hypotheses: Hypotheses | None = None
    adjusted: bool = False  # on luck-adjusted points (docs/luck.md)
    sprt: SequentialTest | NormalTest | None = None
    points: dict[int, dict[int, Fraction | float]] = field(
        default_factory=dict
    )  # group -> rotation -> point
    outcomes: dict[Fraction | float, int] = field(default_factory=dict)  # every complete group
    next_group: int = 0  # the first group not yet counted
    seen: set[int] = field(default_factory=set)  # matches already observed

    def __post_init__(self) -> None:
        if self.hypotheses is not None and self.sprt is None:
            self.sprt = (
                NormalTest(self.hypotheses) if self.adjusted else SequentialTest(self.hypotheses)
            )

    @property
    def decision(self) -> Decision | None:
        return None if self.sprt is None else self.sprt.decision

    @property
    def groups(self) -> int:
        """Groups counted, in schedule order (those behind the verdict once it is taken)."""
        return self.sprt.groups if self.sprt is not None else self.next_group

    @property
    def tested_matches(self) -> int:
        """Matches behind the test's figures: after a decision, the rest of the cap is not needed."""
        return self.groups * self.seats

    def observe(self, line: ResultLine) -> None:
        """Take one results line (any order, each match once; a repeat is ignored)."""
        match = line.match
        if match in self.seen:
            return
        self.seen.add(match)
        names, places = line.seating, line.places
        if self.name not in names:
            return
        group, rotation = divmod(match, self.seats)
        seat = names.index(self.name)
        point: Fraction | float = win_share(places[seat], places)
        luck = line.luck_adjusted if self.adjusted else None
        if luck is not None:
            point = float(luck.winShare[seat])
        self.points.setdefault(group, {})[rotation] = point
        while len(self.points.get(self.next_group, ())) == self.seats:
            self._count(self.points.pop(self.next_group))
            self.next_group += 1

    def observe_all(self, lines: Iterable[ResultLine]) -> None:
        for line in sorted(lines, key=lambda line: line.match):
            self.observe(line)

    def _count(self, rotations: dict[int, Fraction | float]) -> None:
        outcome: Fraction | float
        if self.adjusted:
            outcome = sum(float(point) for point in rotations.values()) / self.seats
        else:
            outcome = sum(rotations.values(), Fraction(0)) / self.seats
        self.outcomes[outcome] = self.outcomes.get(outcome, 0) + 1
        if self.sprt is None:
            return
        if self.sprt.decision is None:
            if isinstance(self.sprt, NormalTest):
                self.sprt.add(float(outcome))
            else:
                assert isinstance(outcome, Fraction)
                self.sprt.add(outcome)

    @property
    def later(self) -> int:
        """Matches recorded beyond those behind the verdict: reported, never tested."""
        if self.decision is None:
            return 0
        return sum(1 for match in self.seen if match >= self.tested_matches)

    def estimate(self) -> Estimate:
        """The candidate's mean group point against an equal share (1/k), every group counted."""
        return estimate(self.outcomes, 1 / self.seats)

    def as_json(self) -> dict[str, Any] | None:
        """`standings.json`'s "sprt" value, or None without a test."""
        if self.sprt is None or self.hypotheses is None:
            return None
        h, test = self.hypotheses, self.sprt
        return {
            "llr": round(test.llr, 6),
            "lower": round(h.lower, 6),
            "upper": round(h.upper, 6),
            "decision": None if test.decision is None else str(test.decision),
            "matches": self.tested_matches,
            "groups": test.groups,
            "share0": h.share0,
            "share1": h.share1,
            "alpha": h.alpha,
            "beta": h.beta,
            "minGroups": test.first_decision,  # (the adjusted test's own floor is higher)
            "degenerate": test.degenerate,
            "laterMatches": self.later,
            "luckAdjusted": self.adjusted,
        }

    def history(self) -> list[list[float]]:
        """[[groups, llr], …] after each counted group: the test's path."""
        return [
            [groups, round(value, 6)] for groups, value in (self.sprt.history if self.sprt else [])
        ]


def against_each(standings: Standings, name: str) -> list[dict[str, Any]]:
    """The candidate against each opponent: how often it placed ahead (an equal place counts
    half), with the 95 % Wilson interval; strongest opponent first."""
    rows = []
    for row in standings.ranked():
        pair = standings.pair(name, row.name)
        if row.name != name and pair.matches:
            low, high = wilson(pair.ahead, pair.matches)
            rows.append(
                {
                    "opponent": row.name,
                    "matches": pair.matches,
                    "ahead": round(pair.ahead, 6),
                    "score": round(pair.share, 6),
                    "score95": [round(low, 6), round(high, 6)],
                }
            )
    return rows
