"""What a tournament's report shows, summarised from its results lines: pure, no I/O.

    chosen = select(lines, tournament)       # one tournament's lines, each match once
    summary = Summary.of(chosen.entries)     # or Summary(names) and `add` one match at a time
    data = summary.as_json(sprt=sprt_of(standings_document))

The lines are `results.ResultLine`s, checked when read (`results.read`): a line a person
edited into something else never gets here. A match is (run, match index): a line repeated in a
folder merged from copies counts once; the same match index played by two runs of the
tournament is two matches.

Ratings, wins, places and faults are `standings.Standings` (the same figures as
standings.json). What is added here: intervals over deal groups, the rating's path, seat
advantage, books and seat-count distributions, and the list of matches as compact columns.

**Intervals over groups.** The matches that share one deal (a duplicate group; without
duplicate deals every match has its own) are correlated, so the unit of an interval is the
deal: the share's variance is the cluster-robust one over deals (per-deal sums against the
overall share), and the interval is Wilson's score interval on the effective number of matches
p(1-p)/se², kept between the number of deals (each deal one trial) and the number of matches
(every match independent). With no spread to measure (one deal, or every deal alike) each deal
counts as one trial.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from arena.tournaments.board import Live, share_interval
from arena.tournaments.results import ResultLine
from arena.tournaments.standings import ADJUDICATED, Z95, Row, Standings, wilson, win_shares

FORMAT = "gofish-arena-report/1"
RATING_POINTS = 300  # about this many points of each rating's path are kept (at most twice)
SPRT_POINTS = 2000  # at most this many points of an LLR path are drawn
MOST_PARTICIPANTS = (
    1000  # beyond this many names a file is not a tournament's: later names are skipped
)
HEATMAP_MOST = 60  # participants beyond which the pairwise table is left to standings.json
FAULT_KINDS_SHOWN = 12  # the most frequent fault kinds shown; the rest are summed as "other"
_FILE_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,200}\.json")  # a replay the page may link to


def tournaments_in(lines: Iterable[ResultLine]) -> list[str]:
    """The tournament ids of `lines`, the most recently written last."""
    seen: dict[str, None] = {}
    for line in lines:
        seen.pop(line.tournament, None)
        seen[line.tournament] = None
    return list(seen)


@dataclass(frozen=True)
class Selection:
    entries: list[ResultLine]  # in match order, then in the order the runs first appear
    skipped: int  # lines of this tournament beyond MOST_PARTICIPANTS names
    repeated: int  # lines of a match already counted


def select(lines: Sequence[ResultLine], tournament: str, run: str | None = None) -> Selection:
    """The matches of one tournament (and one run of it, if given), each counted once."""
    seen: set[tuple[str, int]] = set()
    names: set[str] = set()
    runs: dict[str, int] = {}
    chosen: list[ResultLine] = []
    skipped = repeated = 0
    for line in lines:
        if line.tournament != tournament or (run is not None and line.run != run):
            continue
        if len(names) >= MOST_PARTICIPANTS and not names.issuperset(line.seating):
            skipped += 1
            continue
        key = (line.run, line.match)
        if key in seen:
            repeated += 1
            continue
        seen.add(key)
        names.update(line.seating)
        runs.setdefault(line.run, len(runs))
        chosen.append(line)
    chosen.sort(key=lambda line: (line.match, runs[line.run]))
    return Selection(chosen, skipped, repeated)


def grouped_interval(groups: Iterable[tuple[float, float]], z: float = Z95) -> tuple[float, float]:
    """The 95 % interval of a share from (successes, trials) per correlated group; (0, 1) if empty."""
    pairs = [(wins, trials) for wins, trials in groups if trials > 0]
    total = sum(trials for _, trials in pairs)
    if not total:
        return 0.0, 1.0
    count = len(pairs)
    share = sum(wins for wins, _ in pairs) / total
    effective = float(count)
    if count >= 2:
        spread = sum((wins - share * trials) ** 2 for wins, trials in pairs)
        variance = count / (count - 1) * spread / (total * total)
        if variance > 0 and 0 < share < 1:
            effective = min(float(total), max(float(count), share * (1 - share) / variance))
    return wilson(share * effective, effective, z)


def sprt_of(document: object) -> dict[str, Any] | None:
    """The `sprt` of a standings document, checked and thinned for drawing; None if absent or bad."""
    if not isinstance(document, dict) or not isinstance(sprt := document.get("sprt"), dict):
        return None
    numbers = {key: sprt.get(key) for key in ("llr", "lower", "upper")}
    if not all(
        isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v)
        for v in numbers.values()
    ):
        return None
    history = sprt.get("history")
    points = [
        [float(point[0]), float(point[1])]
        for point in (history if isinstance(history, list) else [])
        if isinstance(point, list)
        and len(point) == 2
        and all(
            isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v)
            for v in point
        )
    ]
    if len(points) > SPRT_POINTS:
        step = math.ceil(len(points) / SPRT_POINTS)
        points = points[::step] + ([points[-1]] if (len(points) - 1) % step else [])
    decision = sprt.get("decision")
    return {
        **{key: float(value) for key, value in numbers.items()},  # type: ignore[arg-type]
        "decision": decision[:40] if isinstance(decision, str) else None,
        "matches": sprt.get("matches") if type(sprt.get("matches")) is int else None,
        "groups": sprt.get("groups") if type(sprt.get("groups")) is int else None,
        "history": points,
    }


class Summary:
    """Every figure of the report, updated one match at a time."""

    def __init__(
        self, names: Iterable[str] = (), *, expected: int = 0, plan: Live | None = None
    ) -> None:
        """`plan`: the horizon of the live looks (`board.Live`), fixed before the first."""
        self.names: list[str] = []
        self.index: dict[str, int] = {}
        self.standings = Standings((), plan=plan)
        self.wins_by_deal: list[
            dict[object, list[float]]
        ] = []  # per participant: deal -> wins, matches
        self.books: list[Counter[int]] = []  # per participant: books laid in a match -> matches
        self.seat_counts: list[list[int]] = []  # per participant: matches in each seat
        self.seat_wins: list[dict[object, list[float]]] = []  # per seat: deal -> wins, matches
        self.outcomes: Counter[str] = Counter()
        self.runs: dict[str, tuple[int, str]] = {}  # run id -> its number here, its stamp
        self.in_match_order = True
        self.last: tuple[int, int] = (-1, -1)
        # the match list, as columns
        self.match_column: list[int] = []
        self.run_of: list[int] = []
        self.table_sizes: list[int] = []
        self.seated: list[int] = []  # participant indices, k per match
        self.scored: list[int] = []
        self.faulted: list[int] = []  # faults, per seat (docs/tournaments.md: each counted once)
        self.outcome_of: list[str] = []  # per match: its outcome when a limit decided it, else ""
        self.files: list[str] = []
        for name in names:
            self._participant(name)
        self.stride = max(1, math.ceil(expected / RATING_POINTS))
        self.path: list[tuple[int, list[tuple[float, float]]]] = [(0, self._ratings())]

    @classmethod
    def of(cls, entries: Sequence[ResultLine], names: Iterable[str] = ()) -> Summary:
        ordered = list(names) or _names_in_config_order(entries)
        summary = cls(ordered, expected=len(entries))
        for item in entries:
            summary.add(item)
        return summary

    def _participant(self, name: str) -> int:
        found = self.index.get(name)
        if found is not None:
            return found
        self.index[name] = len(self.names)
        self.names.append(name)
        rating = self.standings.ratings.setdefault(name, self.standings.model.rating(name=name))
        row = self.standings.rows.setdefault(name, Row(name))
        row.mu, row.sigma = rating.mu, rating.sigma
        self.wins_by_deal.append({})
        self.books.append(Counter())
        self.seat_counts.append([])
        return self.index[name]

    def _ratings(self) -> list[tuple[float, float]]:
        return [(self.standings.rows[n].mu, self.standings.rows[n].sigma) for n in self.names]

    @property
    def matches(self) -> int:
        return self.standings.matches

    def add(self, result: ResultLine) -> None:
        run, stamp = self.runs.setdefault(result.run, (len(self.runs), result.stamp))
        order = (result.match, run)
        if order < self.last:
            self.in_match_order = False
        self.last = max(self.last, order)
        seated = [self._participant(name) for name in result.seating]
        self.standings.add(result)
        shares = win_shares(result.places)
        k = len(seated)
        while len(self.seat_wins) < k:
            self.seat_wins.append({})
        for seat, who in enumerate(seated):
            tally = self.wins_by_deal[who].setdefault(result.deal_seed, [0.0, 0])
            tally[0] += shares[seat]
            tally[1] += 1
            seat_tally = self.seat_wins[seat].setdefault(result.deal_seed, [0.0, 0])
            seat_tally[0] += shares[seat]
            seat_tally[1] += 1
            self.books[who][result.scores[seat]] += 1
            counts = self.seat_counts[who]
            counts.extend([0] * (k - len(counts)))
            counts[seat] += 1
        self.outcomes[str(result.outcome)] += 1
        self.match_column.append(result.match)
        self.outcome_of.append(str(result.outcome) if result.outcome in ADJUDICATED else "")
        self.run_of.append(run)
        self.table_sizes.append(k)
        self.seated.extend(seated)
        self.scored.extend(result.scores)
        faults = result.faults or [{}] * k
        self.faulted.extend(sum(faults[seat].values()) for seat in range(k))
        self.files.append(_file_part(result.replay, stamp))
        if self.matches % self.stride == 0:
            self.path.append((self.matches, self._ratings()))
            if len(self.path) > 2 * RATING_POINTS:
                self.path = self.path[::2]
                self.stride *= 2

    def as_json(
        self, *, sprt: Mapping[str, Any] | None = None, live: bool = False, **header: Any
    ) -> dict[str, Any]:
        """The report's data: plain JSON, every per-participant list in `names` order; `live`:
        its claims hold at every look (the board's live look), else at this one."""
        standings = self.standings
        rows = [standings.rows[name] for name in self.names]
        ranked = [
            self.index[row.name] for row in standings.ranked(live=live) if row.name in self.index
        ]
        path = (
            self.path
            if self.path[-1][0] == self.matches
            else [*self.path, (self.matches, self._ratings())]
        )
        totals: Counter[str] = Counter()
        for row in rows:
            totals.update(row.faults)
        kinds = sorted(kind for kind, _ in totals.most_common(FAULT_KINDS_SHOWN))
        others = [
            sum(count for kind, count in row.faults.items() if kind not in kinds) for row in rows
        ]
        extra = ["other"] if any(others) else []
        most_books = max((max(c) for c in self.books if c), default=0)
        seats = max((len(c) for c in self.seat_counts), default=0)
        return {
            "format": FORMAT,
            **header,
            "live": live,
            "look": standings.look_json(live=live),
            "matches": self.matches,
            "runs": [{"run": run, "stamp": stamp} for run, (_, stamp) in self.runs.items()],
            "names": self.names,
            "ranked": ranked,
            "rows": [
                {
                    **row.as_json(),
                    "interval": [
                        round(v, 6)
                        for v in (
                            share_interval(row.wins, row.matches, standings.plan)
                            if live  # valid at every look: the page is read again and again
                            else grouped_interval(
                                (wins, trials) for wins, trials in self.wins_by_deal[i].values()
                            )
                        )
                    ],
                    "deals": len(self.wins_by_deal[i]),
                }
                for i, row in enumerate(rows)
            ],
            "pairwise": None
            if len(self.names) > HEATMAP_MOST
            else [
                [
                    None
                    if a == b or not (pair := standings.pair(a, b)).matches
                    else [round(pair.share, 4), pair.matches]
                    for b in self.names
                ]
                for a in self.names
            ],
            "ratingPath": {
                "matches": [point[0] for point in path],
                "mu": [
                    [round(point[1][i][0], 3) if i < len(point[1]) else None for point in path]
                    for i in range(len(self.names))
                ],
                "sigma": [
                    [round(point[1][i][1], 3) if i < len(point[1]) else None for point in path]
                    for i in range(len(self.names))
                ],
            },
            # Each fault once: a refused ask is its `refused-ask` fault, never also its
            # `invalid-ask` event (the standings' `invalidAsks`, a count of its own).
            "faultKinds": [*kinds, *extra],
            "faults": [
                [row.fault(kind) for kind in kinds] + [other][: len(extra)]
                for row, other in zip(rows, others)
            ],
            "books": [[counts[b] for b in range(most_books + 1)] for counts in self.books],
            "seatWins": [
                {
                    "share": round(
                        sum(w for w, _ in deals.values())
                        / max(1, sum(n for _, n in deals.values())),
                        6,
                    ),
                    "matches": sum(n for _, n in deals.values()),
                    "interval": [
                        round(v, 6) for v in grouped_interval((w, n) for w, n in deals.values())
                    ],
                }
                for deals in self.seat_wins
            ],
            "seatCounts": [counts + [0] * (seats - len(counts)) for counts in self.seat_counts],
            "outcomes": dict(self.outcomes.most_common(8)),
            "sprt": dict(sprt) if sprt is not None else None,
            "list": {
                "game": self.match_column,
                "run": self.run_of,
                "size": self.table_sizes,
                "seated": self.seated,
                "scores": self.scored,
                "faults": self.faulted,
                "adjudicated": self.outcome_of,
                "file": self.files,
            },
        }


def linkable(replay: str) -> bool:
    """Whether a results line's replay name is a plain file name the page may link to."""
    return _FILE_NAME.fullmatch(replay) is not None


def _file_part(replay: str, stamp: str) -> str:
    """A replay's file name without its run's stamp and `.json`, if it is a plain name at all."""
    if not linkable(replay):
        return ""
    stem = replay[: -len(".json")]
    return stem[len(stamp) :] if stamp and stem.startswith(stamp) else "/" + stem


def _names_in_config_order(entries: Sequence[ResultLine]) -> list[str]:
    """Participants by their config index, then by first appearance."""
    place: dict[str, tuple[int, int]] = {}
    for number, item in enumerate(entries):
        for seat, name in enumerate(item.seating):
            index = item.seats[seat]
            place[name] = min(place.get(name, (index, number)), (index, number))
    return sorted(place, key=place.__getitem__)
