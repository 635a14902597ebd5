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
import os
import random
import secrets
import threading
import time
from collections.abc import Callable, Sequence
from concurrent.futures import FIRST_COMPLETED, Future, wait
from dataclasses import dataclass
from pathlib import Path

from arena.base.config import Config, Seat, bot_command, named_files
from arena.league.matchmaking import Entry, next_table, table_size
from arena.league.store import PAUSED, REPLAYS, Store, Version
from arena.seats import fingerprint
from arena.seats.replies import FaultKind
from arena.tournaments import rating
from arena.tournaments.executors import MatchExecutor
from arena.tournaments.runner import MatchPlayed, MatchTask, play_task, write_replay

REASON_CHARS, REASONS_TOLD = 300, 100  # a lost table's reason: its length, how many are told
REFRESH_SECONDS = 0.5  # the fit over every match is redone at most this often
SNAPSHOT_SECONDS = 10.0  # at most one rating snapshot per version this often
PRIOR_WIDTH = 350.0  # the interval shown for a version with no match yet


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
    place: str
    state: str


def seat_of(version: Version, folder: Path) -> Seat:
    """How a version sits at a table (`folder`: the league's)."""
    return seat_for(version.name, version.command, version.level, version.folder, folder)


def seat_for(
    name: str, command: Sequence[str], level: str | None, place: str | None, league: Path
) -> Seat:
    """A seat as `arena run` would make it of a config in the league's folder: a built-in
    level in the arena, else `command` run from its own folder `place` (relative to the
    league's), the files its command names made absolute. So its own folder is its, whole
    (a bot of several files reads them all), the league's folder is the organiser's, and
    its fingerprint is the one `arena run` records for the same program (`seats.fingerprint`)."""
    league = league.resolve()
    if level is not None:
        return Seat(name=name, command=bot_command(level), cwd=league, env={}, bot=level)
    assert place is not None
    own = Path(os.path.abspath(league / place))
    named = {str(path) for path in named_files(command, own)}
    absolute = tuple(
        path if (path := os.path.abspath(own / part)) in named else part for part in command
    )
    return Seat(name=name, command=absolute, cwd=league, env={})


def fingerprint_of(seat: Seat) -> str:
    """The version's fingerprint: the standings' participant fingerprint of its seat."""
    return fingerprint.of(seat)


def standings(store: Store) -> list[Row]:
    """Every active version's rating over all the matches of the season, best first."""
    versions = {version.id: version for version in store.versions()}
    active = [version for version in versions.values() if version.state == "active"]
    finishes = [
        rating.Finish(
            {
                versions[v].name: place
                for v, place in zip(match.versions, match.places, strict=True)
            },
            group=match.deal_seed,
        )
        for match in store.matches()
        if match.outcome != "interrupted" and all(v in versions for v in match.versions)
    ]
    if not active:
        return []
    fit = rating.fit(finishes, names=[version.name for version in active])
    shown = {version.name: version for version in active}
    rows = []
    for line in fit.rated:
        version = shown.get(line.name)
        if version is None:
            continue
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
            )
        )
    return rows


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
        self.rows: list[Row] = standings(store)
        self.lock = threading.Lock()
        self.snapshot_at = -SNAPSHOT_SECONDS
        self.dirty, self.refreshed_at = False, -REFRESH_SECONDS
        self.playing: dict[Future[MatchPlayed], tuple[MatchTask, tuple[int, ...], int]] = {}

    def leaderboard(self) -> list[Row]:
        with self.lock:
            return list(self.rows)

    def refresh(self) -> None:
        self.dirty, self.refreshed_at = False, time.monotonic()
        rows = standings(self.store)
        with self.lock:
            self.rows = rows
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

    def _table(self) -> list[tuple[MatchTask, tuple[int, ...], int]]:
        """The tasks of the next table (one per rotation), or none."""
        by_id = {row.version_id: row for row in self.leaderboard()}
        active = self._admitted({version.id: version for version in self.store.active()})
        busy = {v for _, ids, _ in self.playing.values() for v in ids}
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
        # Versions already at a table wait, when there are enough others.
        idle = [entry for entry in field if entry.id not in busy]
        chosen = next_table(idle if len(idle) >= size else field, size, self.rng)
        if chosen is None:
            return []
        deal = secrets.randbits(62)
        tasks = []
        for rotation in range(size):
            order = tuple(chosen[(seat - rotation) % size] for seat in range(size))
            seats = tuple(seat_of(active[v], self.store.folder) for v in order)
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
            tasks.append((task, order, rotation))
        return tasks

    def step(self, stop: threading.Event, timeout: float = 0.5) -> None:
        """Start tables while there is room, then take what has finished."""
        while not self.store.paused and len(self.playing) < self.jobs and not stop.is_set():
            tasks = self._table()
            if not tasks:
                break
            for task, order, rotation in tasks:
                self.playing[self.executor.submit(play_task, task)] = (task, order, rotation)
        if not self.playing:
            if self.dirty:
                self.refresh()
            stop.wait(timeout)
            return
        done, _ = wait(list(self.playing), timeout=timeout, return_when=FIRST_COMPLETED)
        lost = False
        for future in done:
            task, order, rotation = self.playing.pop(future)
            try:
                played = future.result()
            except Exception as error:  # noqa: BLE001 - a worker lost: the table is chosen again
                self._lost(error)
                lost = True
                continue
            if played.interrupted:
                continue  # stopped by shutdown: played again after a restart
            self.record(played, order, rotation)
        self.dirty = self.dirty or bool(done)
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

    def record(self, played: MatchPlayed, order: tuple[int, ...], rotation: int) -> None:
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
        )

    def run(self, stop: threading.Event) -> None:
        try:
            while not stop.is_set():
                self.step(stop)
        finally:
            with contextlib.suppress(Exception):
                self.executor.shutdown(wait=False, cancel_futures=True)
