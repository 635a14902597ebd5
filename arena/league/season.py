"""The season: tables chosen by matchmaking, played through an executor, counted once.

    season = Season(store, config, executor, jobs=2)
    season.run(stop)              # in a thread: until `stop` is set
    season.standings()            # the latest fit, as leaderboard rows

Each table is one duplicate group: one deal under every rotation of its seats, each rotation
one `runner.play_task` on the executor; its size is one of the league's (`[league] seats`),
drawn per table. A finished match's replay is written first, then its
row in one transaction (`Store.record_match`, unique per deal and rotation): a match is counted
once or, when the server dies before its row, not at all — its table is chosen again later.
"""

from __future__ import annotations

import contextlib
import csv
import dataclasses
import io
import itertools
import os
import random
import secrets
import threading
import time
from collections import defaultdict, deque
from collections.abc import Callable, Sequence
from concurrent.futures import FIRST_COMPLETED, Future, wait
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from arena.base.config import Config, Entrant, bot_command
from arena.league.matchmaking import Entry, next_table, table_size
from arena.league.store import (
    ACTIVE,
    DISQUALIFIED,
    FINAL,
    OVER,
    PAUSED,
    REPLAYS,
    SEASON,
    Store,
    Version,
)
from arena.seats import fingerprint
from arena.seats.programs import named_files
from arena.seats.replies import FaultKind
from arena.tournaments import board, rating
from arena.tournaments.executors import MatchExecutor
from arena.tournaments.runner import MatchPlayed, MatchTask, play_task, write_replay

REASON_CHARS, REASONS_TOLD = 300, 100  # a lost table's reason: its length, how many are told
REFRESH_SECONDS = 0.5  # the fit over every match is redone at most this often
SNAPSHOT_SECONDS = 10.0  # at most one rating snapshot per version this often
PRIOR_WIDTH = 350.0  # the interval shown for a version with no match yet
PROVISIONAL = board.PROVISIONAL_DEALS  # deals before a version is placed (shown apart before)
LIVE_PLANNED = 500.0  # matches a version is planned to play: the live board's every-look plan
# A slow version does not take the workers: one at the tables for more than FAIR_SHARE times
# its share (seats / versions) of the time the last RECENT matches took waits while the others
# play (once those matches took FAIR_AFTER_SECONDS: not at the season's first tables).
FAIR_SHARE, FAIR_AFTER_SECONDS, RECENT = 1.25, 1.0, 50
PRUNE_EVERY = 50  # matches recorded between two looks at the replays' disk budget
FINAL_COMBINATIONS = 2000  # a final phase of larger tables samples this many of them


class NotYet(Exception):
    """`admit` cannot tell yet whether a version can play (no worker to ask, say)."""


@dataclass(frozen=True)
class Row:
    """One line of the leaderboard."""

    name: str  # the bot
    version: int
    version_id: int
    rating: float
    interval: float  # 95 % half-width
    matches: int
    place: str  # among the ranked active versions ("" while provisional or unplayed)
    state: str
    owner: str = ""  # the owner's name ("" for the organiser's own bots)
    standing: str = "ranked"  # `board.Standing`: ranked, provisional (no place) or unplayed
    win_share: float = 0.0
    win_interval: tuple[float, float] = (0.0, 1.0)  # at this look

    @property
    def provisional(self) -> bool:
        """Not placed: fewer than PROVISIONAL deals, or no match yet."""
        return self.standing != board.Standing.RANKED


@dataclass(frozen=True)
class Ending:
    """When the season ends (`[league] deadline`, `maxMatches`; None: not by that) and how
    many duplicate groups each pair plays in the final phase (`finalDeals`; 0: none)."""

    deadline: float | None = None  # a Unix time
    max_matches: int | None = None
    final_deals: int = 0

    def reason(self, now: float, matches: int) -> str | None:
        """Why the season is over now, or None."""
        if self.max_matches is not None and matches >= self.max_matches:
            return f"{self.max_matches} matches played"
        if self.deadline is not None and now >= self.deadline:
            return "the deadline passed"
        return None


def seat_of(version: Version, folder: Path) -> Entrant:
    """How a version sits at a table (`folder`: the league's)."""
    return seat_for(version.name, version.command, version.level, version.folder, folder)


def seat_for(
    name: str, command: Sequence[str], level: str | None, place: str | None, league: Path
) -> Entrant:
    """A seat as `arena run` would make it of a config in the league's folder: a built-in
    level in the arena, else `command` run from its own folder `place` (relative to the
    league's), the files its command names made absolute. So its own folder is its, whole
    (a bot of several files reads them all), the league's folder is the organiser's, and
    its fingerprint is the one `arena run` records for the same program (`seats.fingerprint`)."""
    league = league.resolve()
    if level is not None:
        return Entrant(name=name, command=bot_command(level), cwd=league, env={}, bot=level)
    assert place is not None
    own = Path(os.path.abspath(league / place))
    named = {str(path) for path in named_files(command, own)}
    absolute = tuple(
        path if (path := os.path.abspath(own / part)) in named else part for part in command
    )
    return Entrant(name=name, command=absolute, cwd=league, env={})


def fingerprint_of(seat: Entrant) -> str:
    """The version's fingerprint: the standings' participant fingerprint of its seat."""
    return fingerprint.of(seat)


def standings(
    store: Store, *, phase: str | None = None, look: board.Look | None = None
) -> list[Row]:
    """Every active version on the board (`arena.tournaments.board`) of the fit over the
    season's matches (`phase`: that phase's only), at `look` (the live board's every-look
    plan by default): the ranked best first, with places counted among the active versions
    only; then the provisional (fewer than PROVISIONAL deals: a win share, no place) and the
    unplayed, apart. The final phase's table is every version it seated, at one look (Holm)."""
    versions = {version.id: version for version in store.versions()}
    active = [version for version in versions.values() if version.state == ACTIVE]
    if phase == FINAL:  # the final table: every version the final phase seated, not disqualified
        seated = {v for _, ids, _ in store.final_tables() for v in ids}
        active = [
            versions[v]
            for v in sorted(seated)
            if v in versions and versions[v].state != DISQUALIFIED
        ]
        look = board.Final() if look is None else look
    finishes = [
        rating.Finish(
            {
                versions[v].name: place
                for v, place in zip(match.versions, match.places, strict=True)
            },
            group=match.deal_seed,
        )
        for match in store.matches(phase=phase)
        if match.outcome != "interrupted" and all(v in versions for v in match.versions)
    ]
    if not active:
        return []
    everyone = rating.fit(finishes, names=[version.name for version in active])
    shown = {version.name: version for version in active}
    # Only the active versions are on the board: places are counted among them alone.
    fit = dataclasses.replace(
        everyone, rated=tuple(row for row in everyone.rated if row.name in shown)
    )
    claims = board.of(fit, look if look is not None else board.Live(LIVE_PLANNED))
    owners = store.owner_names()
    lines = [*claims, *(_unplayed(fit[name]) for name in claims.unplayed)]
    if phase is None:  # a paused version stays in sight, apart and without a place
        rated = {row.name: row for row in everyone.rated}
        for version in versions.values():
            if version.state == PAUSED:
                shown[version.name] = version
                row = rated.get(version.name)
                lines.append(_apart(version.name, row))
    rows = []
    for line in lines:
        version = shown[line.name]
        rows.append(
            Row(
                version.bot,
                version.number,
                version.id,
                round(line.rating, 1),
                round(line.plus_minus if line.matches else PRIOR_WIDTH, 1),
                line.matches,
                line.place,
                version.state,
                owners.get(version.owner_id, "") if version.owner_id is not None else "",
                PAUSED if version.state == PAUSED else str(line.standing),
                round(line.win_share, 4),
                (round(line.win_interval[0], 4), round(line.win_interval[1], 4)),
            )
        )
    return rows


def _unplayed(row: rating.Rated) -> board.Line:
    return _apart(row.name, row)


def _apart(name: str, row: rating.Rated | None) -> board.Line:
    """A line shown apart, without a place (unplayed, or paused: `standings` says which)."""
    if row is None or not row.matches:
        return board.Line(name, board.Standing.UNPLAYED, 0.0, PRIOR_WIDTH, 0, 0, 0.0, (0.0, 1.0))
    return board.Line(
        name,
        board.Standing.PROVISIONAL,
        row.rating,
        row.plus_minus,
        row.matches,
        row.deals,
        row.wins,
        board.share_interval(row.wins, row.matches),
    )


def row_json(row: Row) -> dict[str, Any]:
    """A board's line as the API and the results files give it."""
    return {
        "name": row.name,
        "version": row.version,
        "owner": row.owner,
        "rating": row.rating,
        "interval": row.interval,
        "matches": row.matches,
        "place": row.place,
        "provisional": row.provisional,
        "standing": row.standing,
        "winShare": row.win_share,
        "winShareInterval": list(row.win_interval),
        "needs": PROVISIONAL,
    }


def results_of(store: Store, league: str) -> dict[str, Any]:
    """The results: the final phase's table (once one is played) and the season's board (its
    standings at the end once it is over), with owners; `final` once the board is frozen."""
    phase = store.phase
    season = standings(store, phase=None if phase == SEASON else SEASON)
    final = [] if phase == SEASON else standings(store, phase=FINAL)
    return {
        "league": league,
        "final": phase == OVER,
        "ended": store.setting("ended"),
        "finalPhase": [row_json(row) for row in final],
        "finalMatches": len(store.matches(phase=FINAL)) if final else 0,
        "season": [row_json(row) for row in season],
    }


def results_csv(results: dict[str, Any]) -> str:
    """The results as CSV: one line per bot, the final phase's table first, then the season's."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(
        [
            "table",
            "place",
            "bot",
            "owner",
            "version",
            "rating",
            "interval",
            "matches",
            "provisional",
        ]
    )
    for table in ("finalPhase", "season"):
        for row in results[table]:
            writer.writerow(
                [
                    "final" if table == "finalPhase" else "season",
                    row["place"],
                    row["name"],
                    row["owner"],
                    row["version"],
                    f"{row['rating']:.1f}",
                    f"{row['interval']:.1f}",
                    row["matches"],
                    int(row["provisional"]),
                ]
            )
    return out.getvalue()


def final_schedule(
    ids: Sequence[int], size: int, deals: int, rng: random.Random
) -> list[tuple[int, tuple[int, ...]]]:
    """The final phase's tables: every `size`-set of `ids` (a sample of FINAL_COMBINATIONS of
    them when there are more), each on `deals` fresh deals, every rotation played (a
    duplicate group): (deal seed, versions in the first rotation's seat order)."""
    tables = list(itertools.combinations(sorted(ids), size)) if len(ids) >= size else []
    if len(tables) > FINAL_COMBINATIONS:
        tables = rng.sample(tables, FINAL_COMBINATIONS)
    schedule = [(rng.getrandbits(62), table) for _ in range(deals) for table in tables]
    rng.shuffle(schedule)
    return schedule


class Season:
    """Plays the league's tables, `jobs` matches at a time, until told to stop."""

    def __init__(
        self,
        store: Store,
        config: Config,
        executor: MatchExecutor,
        *,
        jobs: int,
        sizes: Sequence[int],
        on_change: Callable[[], None] = lambda: None,
        rng: random.Random | None = None,
        admit: Callable[[Version], str | None] | None = None,
        on_problem: Callable[[str], None] = lambda line: None,
        ending: Ending = Ending(),
        replay_bytes: int | None = None,
    ) -> None:
        """`admit(version)`, when given, is asked once before a version is first seated (and
        again after it was paused or retired and resumed): why it cannot play
        where the matches run, or None. A version it names is paused with that reason as its
        note; one it cannot judge yet (it raises NotYet) waits for a later table.
        `on_problem(line)` is told, once for each reason, why a table was lost (a worker gone,
        one that lacks what a seat needs): the organiser's to see, the table is chosen again."""
        self.store, self.config, self.executor = store, config, executor
        self.jobs, self.sizes = max(1, jobs), tuple(sizes)
        self.on_change, self.on_problem, self.told = on_change, on_problem, set[str]()
        self.rng = rng or random.Random(secrets.randbits(64))
        self.admit, self.admitted = admit, set[int]()
        self.ending, self.replay_bytes, self.recorded = ending, replay_bytes, 0
        # the last RECENT matches: how long each took, and who sat at it
        self.recent: deque[tuple[float, tuple[int, ...]]] = deque(maxlen=RECENT)
        self.rows: list[Row] = []
        self.final_rows: list[Row] = []
        self.lock = threading.Lock()
        self.snapshot_at = -SNAPSHOT_SECONDS
        self.dirty, self.refreshed_at = False, -REFRESH_SECONDS
        # each match in flight: its task, versions in seat order, rotation and phase
        self.playing: dict[Future[MatchPlayed], tuple[MatchTask, tuple[int, ...], int, str]] = {}
        self.refresh()

    def leaderboard(self) -> list[Row]:
        """The live board; once the season is over, frozen: its standings at the end."""
        with self.lock:
            return list(self.rows)

    def final(self) -> list[Row]:
        """The final phase's table (empty while the season runs)."""
        with self.lock:
            return list(self.final_rows)

    def refresh(self) -> None:
        self.dirty, self.refreshed_at = False, time.monotonic()
        phase = self.store.phase
        rows = standings(self.store, phase=None if phase == SEASON else SEASON)
        final = [] if phase == SEASON else standings(self.store, phase=FINAL)
        with self.lock:
            self.rows, self.final_rows = rows, final
        now = time.monotonic()
        if now - self.snapshot_at >= SNAPSHOT_SECONDS:  # the rating over time, not every match
            self.snapshot_at = now
            self.store.snapshot([(r.version_id, r.matches, r.rating, r.interval) for r in rows])
        self.on_change()

    def _admitted(self, active: dict[int, Version]) -> dict[int, Version]:
        """The active versions `admit` lets play (each asked once); one it names is paused."""
        if self.admit is None:
            return active
        self.admitted &= set(active)  # one that left and came back is asked again
        allowed = {}
        for ident, version in active.items():
            if ident not in self.admitted:
                try:
                    problem = self.admit(version)
                except NotYet:
                    continue  # asked again at the next table
                if problem is not None:
                    self.store.set_state(
                        ident,
                        PAUSED,
                        f"paused: {problem}; once it is there, resume this version",
                    )
                    self.dirty = True
                    continue
                self.admitted.add(ident)
            allowed[ident] = version
        return allowed

    def _table(self) -> list[tuple[MatchTask, tuple[int, ...], int, str]]:
        """The tasks of the next table (one per rotation), or none: matchmaking's while the
        season runs, the final phase's fixed ones after it, none once it is over."""
        phase = self.store.phase
        if phase == SEASON:
            reason = self.ending.reason(time.time(), self.store.match_count())
            if reason is not None:
                self._end(reason)
                phase = self.store.phase
        if phase == FINAL:
            return self._final_table()
        if phase == OVER:
            return []
        by_id = {row.version_id: row for row in self.leaderboard()}
        active = self._admitted({version.id: version for version in self.store.active()})
        busy = {v for _, ids, *_ in self.playing.values() for v in ids}
        field = [
            Entry(
                version.id,
                by_id[version.id].rating if version.id in by_id else 0.0,
                by_id[version.id].interval if version.id in by_id else PRIOR_WIDTH,
                by_id[version.id].matches if version.id in by_id else 0,
            )
            for version in active.values()
        ]
        size = table_size(self.sizes, len(field), self.rng)
        if size is None:
            return []
        # Versions already at a table wait, when there are enough others; so does one that took
        # more than its share of the time played (a slow bot does not stall the season).
        hogs = self._hogs(size, len(field))
        choices = [
            [entry for entry in field if entry.id not in busy | hogs],
            [entry for entry in field if entry.id not in hogs],
            field,
        ]
        chosen = next_table(next(c for c in choices if len(c) >= size), size, self.rng)
        if chosen is None:
            return []
        return self._tasks(chosen, active, secrets.randbits(62), range(size), SEASON)

    def _hogs(self, size: int, versions: int) -> set[int]:
        """The versions at the tables for more than FAIR_SHARE times their share of the time
        the last RECENT matches took: they wait (a slow bot does not stall the season)."""
        wall = sum(seconds for seconds, _ in self.recent)
        if wall <= FAIR_AFTER_SECONDS:
            return set()
        taken: dict[int, float] = defaultdict(float)
        for seconds, seated in self.recent:
            for version in seated:
                taken[version] += seconds
        fair = FAIR_SHARE * wall * size / versions
        return {version for version, seconds in taken.items() if seconds > fair}

    def _end(self, reason: str) -> None:
        """The season over: the final phase scheduled (every active version, fixed tables of
        the league's smallest size), or the board frozen at once when it plays none."""
        ids = sorted(self._admitted({v.id: v for v in self.store.active()}))
        schedule = final_schedule(ids, min(self.sizes), self.ending.final_deals, self.rng)
        self.store.end_season(reason, schedule)
        self.dirty = True

    def _final_table(self) -> list[tuple[MatchTask, tuple[int, ...], int, str]]:
        """The rotations of the final phase's next table not yet counted nor in flight; the
        board frozen once every table is counted."""
        flying = {task.deal_seed for task, *_ in self.playing.values()}
        versions = {v.id: v for v in self.store.versions()}
        for deal, ids, done in self.store.final_tables():
            left = [r for r in range(len(ids)) if r not in done]
            if not left or deal in flying:
                continue
            if any(v not in versions or versions[v].state == DISQUALIFIED for v in ids):
                continue  # (a disqualified version's tables are not played)
            return self._tasks(ids, versions, deal, left, FINAL)
        if not self.playing:
            self.store.freeze()
            self.dirty = True
        return []

    def _tasks(
        self,
        chosen: Sequence[int],
        versions: dict[int, Version],
        deal: int,
        rotations: Sequence[int],
        phase: str,
    ) -> list[tuple[MatchTask, tuple[int, ...], int, str]]:
        """One task per rotation of a duplicate group on `deal`."""
        size = len(chosen)
        tasks = []
        for rotation in rotations:
            order = tuple(chosen[(seat - rotation) % size] for seat in range(size))
            seats = tuple(seat_of(versions[v], self.store.folder) for v in order)
            task = MatchTask(
                config=self.config,
                seats=seats,
                match=rotation,
                seed=deal + rotation,
                deal_seed=deal,
                in_process_bots=True,
                reuse=False,
                extra=(("league", {"deal": deal, "rotation": rotation}),),
            )
            tasks.append((task, order, rotation, phase))
        return tasks

    def step(self, stop: threading.Event, timeout: float = 0.5) -> None:
        """Start tables while there is room, then take what has finished."""
        while not self.store.paused and len(self.playing) < self.jobs and not stop.is_set():
            tasks = self._table()
            if not tasks:
                break
            for task, order, rotation, phase in tasks:
                self.playing[self.executor.submit(play_task, task)] = (task, order, rotation, phase)
        if not self.playing:
            if self.dirty:
                self.refresh()
            stop.wait(timeout)
            return
        done, _ = wait(list(self.playing), timeout=timeout, return_when=FIRST_COMPLETED)
        lost = False
        for future in done:
            task, order, rotation, phase = self.playing.pop(future)
            try:
                played = future.result()
            except Exception as error:  # noqa: BLE001 - a worker lost: the table is chosen again
                self._lost(error)
                lost = True
                continue
            if played.interrupted:
                continue  # stopped by shutdown: played again after a restart
            self.record(played, order, rotation, phase)
        self.dirty = self.dirty or bool(done)
        if self.replay_bytes is not None and self.recorded >= PRUNE_EVERY:
            self.recorded = 0
            self.store.prune_replays(self.replay_bytes)
        if self.dirty and time.monotonic() - self.refreshed_at >= REFRESH_SECONDS:
            self.refresh()
        if lost:
            stop.wait(timeout)  # (not at once again: a worker that fails every task fails fast)

    def _lost(self, error: BaseException) -> None:
        """Tell `on_problem` why a table was lost, the first time for this reason (a reason may
        quote what an owner wrote, a program's name: shown printable only, and short)."""
        text = (str(error).splitlines() or [type(error).__name__])[0]
        reason = "".join(c if c.isprintable() else "?" for c in text)[:REASON_CHARS]
        if reason not in self.told and len(self.told) < REASONS_TOLD:
            self.told.add(reason)
            self.on_problem(f"a table was lost and is chosen again: {reason}")

    def record(
        self, played: MatchPlayed, order: tuple[int, ...], rotation: int, phase: str = SEASON
    ) -> None:
        line = played.line
        stamp = f"league-{line.deal_seed:x}"
        path = write_replay(self.store.folder / REPLAYS, played, stamp)
        start_failed = [
            version
            for version, faults in zip(order, line.faults, strict=True)
            if faults.get(FaultKind.START_FAILED, 0)
            or faults.get(FaultKind.EXITED, 0)
            and sum(faults.values()) == faults.get(FaultKind.EXITED, 0)
        ]
        self.store.record_match(
            deal_seed=line.deal_seed,
            rotation=rotation,
            versions=order,
            places=tuple(line.places),
            scores=tuple(line.scores),
            outcome=str(line.outcome),
            faults=tuple(line.faults),
            replay=path.name,  # (its seats' stderr logs are beside it)
            start_failed=start_failed,
            phase=phase,
        )
        self.recorded += 1
        self.recent.append((line.seconds, order))

    def run(self, stop: threading.Event) -> None:
        try:
            while not stop.is_set():
                self.step(stop)
        finally:
            with contextlib.suppress(Exception):
                self.executor.shutdown(wait=False, cancel_futures=True)
