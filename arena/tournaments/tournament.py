"""A tournament: `games` matches over a fair schedule, recorded so that none is lost.

    plan = prepare(config_path, config, seats, resume=False)
    report = run(plan, lambda: make_executor(4), on_played=show)

Each match is a `runner.MatchTask` handed to an executor (see `arena.tournaments.executors`);
what comes back (a `runner.MatchPlayed`: its `results.ResultLine`, replay and logs) is written
here, by this process alone: the replay, then its line of `results.jsonl` (flushed and
fsynced), the line being the proof that the match is done. A tournament is
identified by a hash of its effective settings and seed (`tournament_id`); one run of it
by a run id. `--resume` continues the last run of the same tournament found in
`results.jsonl` and plays only the matches it lacks.
"""

from __future__ import annotations

import contextlib
import hashlib
import heapq
import queue
import secrets
import threading
import time
from collections.abc import Callable, Collection, Iterable, Iterator
from concurrent.futures import (
    FIRST_COMPLETED,
    BrokenExecutor,
    CancelledError,
    Future,
    ThreadPoolExecutor,
    wait,
)
from dataclasses import dataclass, field
from datetime import datetime
from enum import Enum, auto
from pathlib import Path

import orjson

from arena.base import files, shutdown
from arena.base.config import Config, Entrant
from arena.base.errors import ArenaError, ConfigError
from arena.replays.replay import file_stem
from arena.tournaments import board, results
from arena.tournaments.candidate import CandidateTest, against_each
from arena.tournaments.executors import MatchExecutor
from arena.tournaments.gauntlet import Gauntlet
from arena.tournaments.results import RESULTS, ResultLine
from arena.tournaments.runner import (
    LineHeader,
    MatchPlayed,
    MatchTask,
    play_task,
    replays_folder,
    write_replay,
)
from arena.tournaments.schedule import Rotations, Schedule
from arena.tournaments.sprt import Hypotheses
from arena.tournaments.standings import Standings

STANDINGS = "standings.json"
STANDINGS_LIMIT = 1 << 28  # bytes of a standings.json read back (whose tournament it is)
REPORT = "report.html"  # the run's page (arena/ui/report.py), beside the standings
ID_FORMAT = "gofish-arena-tournament/1"
RETRIES = 3  # attempts per match when the worker running it dies
DRAIN_SECONDS = 10.0  # after an interrupt, how long running matches get to stop by themselves
BACKLOG = 32  # finished matches waiting to be written, beyond which playing waits for writing


def tournament_id(config: Config, seed: int) -> str:
    """A hash of everything that decides the matches: settings, participants, seating, seed.

    Left out, so that they may change between a run and its resume: `games` (a tournament can
    be extended), `replays`, and how matches run (`reuse`, `inProcessBots`, `scheduler`,
    `sandbox`, a participant's `readOnly`).
    """
    identity = {
        "format": ID_FORMAT,
        "seed": seed,
        # The seed names, with the family rules only when on: ids of earlier runs stay valid.
        "rules": config.engine_rules.as_seed_names()["rules"],
        "deck": config.deck.model_dump(),
        "limits": config.limits.model_dump(exclude={"sandbox"}),
        "participants": [p.model_dump(exclude={"read_only"}) for p in config.participants],
        "seats": config.seats_per_match,
        "duplicate": config.duplicate_deals,
    }
    if config.tournament.candidate is not None:  # a gauntlet seats differently
        identity["candidate"] = config.tournament.candidate
    return hashlib.sha256(orjson.dumps(identity, option=orjson.OPT_SORT_KEYS)).hexdigest()[:16]


# -- the plan ---------------------------------------------------------------------------


@dataclass
class Tournament:
    """Everything a run needs to know: the schedule, its seeds, and what is already played."""

    config: Config
    seats: list[Entrant]  # every participant, in config order
    seed: int
    id: str
    run: str
    stamp: str  # the start of the run: the prefix of its replay names
    folder: Path
    schedule: Rotations
    done: dict[int, ResultLine] = field(default_factory=dict)  # match -> its results line
    seed_drawn: bool = False
    resumed: bool = False
    candidate: CandidateTest | None = None  # a gauntlet's candidate, and its SPRT
    skipped: list[str] = field(default_factory=list)  # results lines not believed, and why
    lock: results.Lock | None = None  # held for the whole run: one writer per folder
    fingerprints: dict[str, str] = field(default_factory=dict)  # name -> what it runs
    replaces: str | None = None  # the tournament whose standings this run replaces, if asked to
    # What each replay named by a results line records, read once (`doubt`).
    _replays: dict[str, results.Recorded] = field(default_factory=dict, repr=False)

    def __post_init__(self) -> None:
        if self.candidate is not None:
            self.candidate.observe_all(self.done.values())

    @property
    def decided(self) -> bool:
        """The sequential test has decided: no further match needs to start."""
        return self.candidate is not None and self.candidate.decision is not None

    def accept(self, line: ResultLine) -> None:
        """A results line now on disk."""
        self.done[line.match] = line
        if self.candidate is not None:
            self.candidate.observe(line)

    @property
    def matches(self) -> int:
        return self.config.matches

    @property
    def results_path(self) -> Path:
        return self.folder / RESULTS

    @property
    def standings_path(self) -> Path:
        return self.folder / STANDINGS

    def missing(self) -> Iterator[int]:
        """The matches still to play, lowest first (lazily: `games` may be huge); once the
        sequential test has decided, only those of the groups it counted."""
        matches = self.candidate.tested_matches if self.decided and self.candidate else self.matches
        return (match for match in range(matches) if match not in self.done)

    def deal_of(self, match: int) -> int:
        return self.schedule.slot(match).deal_seed

    def same_deal(self, match: int) -> range:
        """The matches that play `match`'s deal (its duplicate group; itself alone otherwise)."""
        slot = self.schedule.slot(match)
        if not self.schedule.duplicate:
            return range(match, match + 1)
        first = match - slot.rotation
        return range(first, min(first + self.schedule.seats, self.matches))

    def task(self, match: int, *, reuse: bool = True, finished: Collection[int] = ()) -> MatchTask:
        """Match `match`'s task; `reuse` False forbids keeping participants whatever the config.
        `finished`: matches played in this run whose results may not be recorded yet."""
        slot = self.schedule.slot(match)
        settings = self.config.tournament
        return MatchTask(
            config=self.config,
            seats=tuple(self.seats[index] for index in slot.seating),
            match=match,
            seed=slot.seed,
            deal_seed=slot.deal_seed,
            in_process_bots=settings.in_process_bots,
            reuse=settings.reuse and reuse,
            fingerprints=tuple(
                self.fingerprints.get(self.seats[index].name, "") for index in slot.seating
            )
            if self.fingerprints
            else (),
            # Whether another match will still play this deal: then no process of this one
            # may be kept (it would be alive while that match plays the deal it has seen).
            deal_again=any(
                m != match and m not in self.done and m not in finished
                for m in self.same_deal(match)
            ),
            header=LineHeader(
                self.id, self.run, self.stamp, self.seed, slot.seating, slot.group, slot.rotation
            ),
            extra=(
                (
                    "tournament",
                    {
                        "id": self.id,
                        "run": self.run,
                        "group": slot.group,
                        "rotation": slot.rotation,
                    },
                ),
            ),
        )

    def doubt(self, line: results.ResultLine) -> str | None:
        """Why a results line read back is not a match of this run as the arena recorded it
        (a line is believed only for a replay the arena wrote); None when it is."""
        if line.match >= self.matches:
            return f"beyond the {self.matches} matches of this run"
        slot = self.schedule.slot(line.match)
        names = [self.seats[index].name for index in slot.seating]
        expected = (
            list(slot.seating),
            names,
            slot.group,
            slot.rotation,
            slot.seed,
            slot.deal_seed,
            self.stamp,
        )
        found = (
            line.seats,
            line.seating,
            line.group,
            line.rotation,
            line.match_seed,
            line.deal_seed,
            line.stamp,
        )
        if found != expected:
            return "not the seating, seeds or stamp the schedule gives this match"
        if not line.replay.startswith(file_stem(self.stamp, line.match, names)):
            return "its replay is not named as the arena names it"
        return results.confirmed(line, self.folder, self._replays)

    def standings(self) -> Standings:
        """The standings of every match of this run so far, in match order."""
        lines = [line for match, line in self.done.items() if match < self.matches]
        return Standings.of([seat.name for seat in self.seats], lines, plan=self.live_plan())

    def live_plan(self) -> board.Live:
        """The horizon of its live views: the matches each participant is to play."""
        return board.planned(self.matches, self.config.seats_per_match, len(self.seats))

    def write_standings(self, standings: Standings | None = None) -> Path:
        """standings.json beside the replays (of `standings`, default those of every match so
        far), replaced atomically. Raises WriteError."""
        standings = self.standings() if standings is None else standings
        document = standings.as_json(
            tournament=self.id,
            run=self.run,
            seed=self.seed,
            games=self.matches,
            complete=next(self.missing(), None) is None,
            seats=self.schedule.seats,
            duplicate=self.schedule.duplicate,
        )
        if self.config.tournament.title is not None:  # a label only: not in the id
            document["title"] = self.config.tournament.title
        if self.candidate is not None:  # a gauntlet: its candidate and test
            document["candidate"] = self.candidate.name
            document["againstEach"] = against_each(standings, self.candidate.name)
            if (test := self.candidate.as_json()) is not None:
                document["sprt"] = {**test, "history": self.candidate.history()}
        files.replace(
            self.standings_path, orjson.dumps(document, option=orjson.OPT_INDENT_2) + b"\n"
        )
        return self.standings_path


def prepare(
    config_path: Path,
    config: Config,
    seats: list[Entrant],
    *,
    resume: bool = False,
    new_run: bool = False,
    replace_standings: bool = False,
    fingerprints: dict[str, str] | None = None,
) -> Tournament:
    """The tournament a config asks for: a new run, or with `resume` the last one to go on.

    `fingerprints` (name -> `arena.seats.fingerprint.of`) are recorded in every results line
    and replay, and checked on `resume`. Takes the replays folder's lock first (held by the
    returned plan until it is released or this process ends). Raises ConfigError when another
    run holds it; when `resume` finds nothing to go on from and the config has no seed; and,
    unless `new_run`, when `resume` finds a participant whose program changed since the run
    began, or when the folder's standings are another tournament's (a changed config: they
    would be replaced) — with `replace_standings` (`arena sprt`'s new tests) those are replaced
    and `plan.replaces` names them. ArenaError for an unreadable results file.
    """
    folder = replays_folder(config_path, config)
    lock = results.Lock.take(folder)
    try:
        plan = _prepare(config_path, config, seats, folder, lock, resume=resume and not new_run)
        plan.fingerprints = dict(fingerprints or {})
        if not new_run:
            _check_same_program(plan)
            if replace_standings:
                plan.replaces = _other_tournament(plan)
            else:
                _check_same_tournament(plan)
        return plan
    except BaseException:
        lock.release()
        raise


def _prepare(
    config_path: Path,
    config: Config,
    seats: list[Entrant],
    folder: Path,
    lock: results.Lock,
    *,
    resume: bool,
) -> Tournament:
    if (folder / RESULTS).is_symlink():
        raise ConfigError(
            f"{folder / RESULTS}: is a symbolic link; the arena does not write through one"
        )
    for name in (RESULTS, STANDINGS, REPORT):  # appended to or rewritten: a folder in the way
        files.check_replaceable(folder / name)  # fails now, not after the matches
    found = results.read(folder / RESULTS) if resume else results.ResultsFile()
    seed, drawn = config.seed, False
    if seed is None and resume:
        for line in reversed(found.lines):
            if line.tournament == tournament_id(config, line.seed):
                seed = line.seed
                break
        else:
            raise ConfigError(
                f"{config_path}: --resume: no earlier run of this config (with its seed) in "
                f"{folder / RESULTS}; give --seed, or run without --resume"
            )
    if seed is None:
        # 63 bits: as many as a config's seed holds; too many to search for a hand's seed.
        seed, drawn = secrets.randbits(63), True
    identity = tournament_id(config, seed)
    ours = [line for line in found.lines if line.tournament == identity]
    schedule = _schedule(config, seats, seed)
    candidate = _candidate(config)
    if not ours:
        stamp = datetime.now().strftime("%Y%m%d-%H%M%S")
        return Tournament(
            config,
            seats,
            seed,
            identity,
            f"{stamp}-{secrets.token_hex(3)}",
            stamp,
            folder,
            schedule,
            seed_drawn=drawn,
            candidate=candidate,
            skipped=found.skipped,
            lock=lock,
        )
    run_id, stamp = ours[-1].run, ours[-1].stamp
    plan = Tournament(
        config,
        seats,
        seed,
        identity,
        run_id,
        stamp,
        folder,
        schedule,
        resumed=True,
        candidate=candidate,
        skipped=found.skipped,
        lock=lock,
    )
    for line in ours:
        if line.run != run_id or line.match in plan.done:
            continue
        why = plan.doubt(line)
        if why is None:
            plan.accept(line)
        else:
            plan.skipped.append(f"game {line.match}: {why}")
    return plan


def _check_same_program(plan: Tournament) -> None:
    """A resumed run goes on only with the programs it began with: each participant's
    fingerprint in its last results line of the run must be today's."""
    recorded: dict[str, str] = {}
    for line in plan.done.values():
        prints = line.seat_fingerprints
        if prints is not None:
            for name, digest in zip(line.seating, prints):
                recorded[name] = digest
    for name, digest in plan.fingerprints.items():
        before = recorded.get(name)
        if before is not None and before != digest:
            raise ConfigError(
                f"--resume: {name!r} is not the program run {plan.run} played: its files, "
                f"folder, readOnly paths or interpreter changed (fingerprint {before[:12]} "
                f"then, {digest[:12]} now); restore it, or start a new run with --new-run"
            )


def _other_tournament(plan: Tournament) -> str | None:
    """The tournament of the folder's standings when this run would replace them, else None."""
    if plan.matches <= 1 or plan.resumed:
        return None  # a single match writes no standings; a resumed run is this tournament
    path = plan.folder / STANDINGS
    try:
        document = orjson.loads(files.read_capped(path, STANDINGS_LIMIT))
    except (OSError, files.UnreadableFile, orjson.JSONDecodeError):
        return None  # none, or not one the arena wrote: `write_standings` says so if it matters
    other = document.get("tournament") if isinstance(document, dict) else None
    return other[:16] if isinstance(other, str) and other != plan.id else None


def _check_same_tournament(plan: Tournament) -> None:
    """A run that would replace the folder's standings of another tournament (a changed config
    or seed) is refused: the two would be told apart only by an id."""
    other = _other_tournament(plan)
    if other is not None:
        raise ConfigError(
            f"{plan.folder}: holds the standings of tournament {other[:16]}, and this config "
            f"(or seed) is tournament {plan.id}: give it another `replays` folder, or "
            "--new-run to replace those standings"
        )


def _schedule(config: Config, seats: list[Entrant], seed: int) -> Rotations:
    name = config.tournament.candidate
    if name is None:
        return Schedule(len(seats), config.seats_per_match, seed, duplicate=config.duplicate_deals)
    index = [seat.name for seat in seats].index(name)
    return Gauntlet(
        len(seats), config.seats_per_match, seed, index, duplicate=config.duplicate_deals
    )


def _candidate(config: Config) -> CandidateTest | None:
    name = config.tournament.candidate
    if name is None:
        return None
    test = config.sprt
    hypotheses = (
        None
        if test is None
        else Hypotheses(test.share0, test.share1, test.alpha, test.beta, test.min_groups)
    )
    adjusted = test is not None and test.luck_adjusted
    return CandidateTest(name, config.seats_per_match, hypotheses, adjusted=adjusted)


# -- running it -------------------------------------------------------------------------


@dataclass
class RunReport:
    played: int = 0  # matches finished and recorded by this run
    interrupted: bool = False
    interrupted_replays: list[Path] = field(default_factory=list)
    retries: int = 0
    seconds: float = 0.0


# Told of each match once its results line is on disk (`played.line` names its replay).
OnPlayed = Callable[[MatchPlayed], None]


def run(
    plan: Tournament,
    make_executor: Callable[[], MatchExecutor],
    *,
    window: int = 2,
    on_played: OnPlayed | None = None,
) -> RunReport:
    """Play every missing match; returns when all are recorded or the run was stopped.

    `window` is how many tasks are in flight at once. `on_played` is called in this thread
    for each match once its results line is on disk. A stop requested through
    `arena.base.shutdown` (the CLI's signal handlers) starts nothing new, stops the running
    matches, records every finished one and returns with `interrupted` set; an urgent one kills
    the workers instead of waiting DRAIN_SECONDS for them. Raises WriteError when a file
    cannot be written, ArenaError when a worker fails other than by dying (a bug of the arena).
    """
    report = RunReport()
    began = time.monotonic()
    todo = _Todo(plan.missing())
    attempts: dict[int, int] = {}
    in_flight: dict[Future[MatchPlayed], int] = {}
    finished: set[int] = set()  # played, their results perhaps not recorded yet
    recorder = _Recorder(plan)
    executor = make_executor()
    try:
        # Once a sequential test has its answer, no match starts: those in flight finish.
        while ((todo and not plan.decided) or in_flight) and not shutdown.should_stop():
            while (
                todo and len(in_flight) < window and not plan.decided and not shutdown.should_stop()
            ):
                # One match of a deal at a time: no process plays a deal while another
                # process that has seen it (in another rotation) runs.
                match = todo.pop(_dealt_in(plan, in_flight.values()))
                if match is None:
                    break
                task = plan.task(match, reuse=executor.keeps_participants, finished=finished)
                in_flight[executor.submit(play_task, task)] = match
            done, _ = wait(list(in_flight), timeout=0.1, return_when=FIRST_COMPLETED)
            broken = False
            fatal: str | None = None
            for future in sorted(done, key=in_flight.__getitem__):
                match = in_flight.pop(future)
                if _collect(future, match, recorder, report) is not TaskEnd.RETRY:
                    finished.add(match)
                else:
                    attempts[match] = attempts.get(match, 0) + 1
                    if attempts[match] >= RETRIES:
                        # Raised once the rest of this batch is recorded: none of it is lost.
                        fatal = fatal or f"game {match}: its worker died {RETRIES} times"
                    report.retries += 1
                    todo.again([match])
                    broken = True
            recorder.deliver(report, on_played, backlog=BACKLOG)
            if fatal is not None:
                raise ArenaError(fatal)
            if report.interrupted:  # a worker was stopped by a signal of its own: stop them all
                shutdown.token.request()
            if broken and not shutdown.should_stop():
                # A dead worker breaks the whole pool: play its unfinished tasks again.
                _stop(executor)
                todo.again(in_flight.values())
                in_flight.clear()
                executor = make_executor()
        if shutdown.should_stop():
            report.interrupted = True
            _drain(executor, in_flight, recorder, report)
    except BaseException:
        _stop(executor)
        raise
    finally:
        executor.shutdown(wait=True, cancel_futures=True)  # bounded: see pool.END_SECONDS
        recorder.close()
        report.seconds = time.monotonic() - began
    recorder.deliver(report, on_played)
    _lines_of(plan)
    return report


def _lines_of(plan: Tournament) -> None:
    """Lines an interrupt may have kept from `plan.done` after they reached the file: taken
    back from it, each only when its replay confirms it (the file is shared with the world)."""
    for line in results.read(plan.results_path).lines:
        ours = line.tournament == plan.id and line.run == plan.run and line.match not in plan.done
        if ours and plan.doubt(line) is None:
            plan.accept(line)


def _dealt_in(plan: Tournament, matches: Iterable[int]) -> Callable[[int], bool]:
    """Whether a match's deal is one that `matches` are playing."""
    playing = {plan.deal_of(m) for m in matches}
    return lambda match: plan.deal_of(match) in playing


class _Todo:
    """The matches to play, lowest first: the missing ones lazily, and those to play again."""

    def __init__(self, missing: Iterator[int]) -> None:
        self._missing = missing
        self._coming = next(missing, None)
        self._again: list[int] = []

    def __bool__(self) -> bool:
        return self._coming is not None or bool(self._again)

    def pop(self, held: Callable[[int], bool] = lambda match: False) -> int | None:
        """The lowest match not `held` (those are kept for later); None when all are."""
        skipped: list[int] = []
        try:
            while self:
                if self._again and (self._coming is None or self._again[0] < self._coming):
                    match = heapq.heappop(self._again)
                else:
                    assert self._coming is not None
                    match, self._coming = self._coming, next(self._missing, None)
                if not held(match):
                    return match
                skipped.append(match)
            return None
        finally:
            self.again(skipped)

    def again(self, matches: Iterable[int]) -> None:
        for match in matches:
            heapq.heappush(self._again, match)


def _stop(executor: MatchExecutor) -> None:
    executor.interrupt()
    executor.shutdown(wait=True, cancel_futures=True)


class TaskEnd(Enum):
    """How a match task's future ended, as the run sees it."""

    PLAYED = auto()  # its match was played (to its end or interrupted) and is recorded
    RETRY = auto()  # its worker died: play it again
    CANCELLED = auto()
    UNPLAYED = auto()  # its worker was stopping: the match never began


def _collect(
    future: Future[MatchPlayed], match: int, recorder: _Recorder, report: RunReport
) -> TaskEnd:
    """Hand a finished future's match to the recorder; say whether it must be played again."""
    try:
        played = future.result()
    except CancelledError:
        return TaskEnd.CANCELLED
    except BrokenExecutor:
        return TaskEnd.RETRY
    except shutdown.Stopped:  # queued to a worker that was already stopping: never begun
        return TaskEnd.UNPLAYED
    except ArenaError:
        raise
    except Exception as error:
        raise ArenaError(
            f"game {match}: a worker failed: {type(error).__name__}: {error}"
        ) from error
    if played.interrupted:
        report.interrupted = True
    recorder.record(played)
    return TaskEnd.PLAYED


def _drain(
    executor: MatchExecutor,
    in_flight: dict[Future[MatchPlayed], int],
    recorder: _Recorder,
    report: RunReport,
) -> None:
    """After a stop request: stop the running matches and record every one that finished.

    Matches that do not stop within DRAIN_SECONDS, or an urgent stop (a second signal), get
    their workers killed; what had come back by then is recorded all the same.
    """
    executor.interrupt()
    for future in in_flight:
        future.cancel()
    waiting = [future for future in in_flight if not future.cancelled()]
    pending = set(waiting)
    deadline = time.monotonic() + DRAIN_SECONDS
    while pending and not shutdown.token.urgent() and time.monotonic() < deadline:
        _, pending = wait(pending, timeout=min(0.1, max(0.0, deadline - time.monotonic())))
    if pending:
        executor.kill()
    for future in sorted(waiting, key=in_flight.__getitem__):
        if future.done():
            with contextlib.suppress(ArenaError):
                _collect(future, in_flight[future], recorder, report)


class _Recorder:
    """The one writer: a thread that writes replays, then their results lines.

    Matches that finish together are written together: their replays in parallel, their lines
    in one append and one fsync. No signal handler raises (`arena.base.shutdown`), so nothing
    cuts it short; `close` waits for it to write everything it was given.
    """

    def __init__(self, plan: Tournament) -> None:
        self.plan = plan
        self.inbox: queue.SimpleQueue[MatchPlayed | None] = queue.SimpleQueue()
        self.outbox: queue.SimpleQueue[tuple[MatchPlayed, Path] | BaseException] = (
            queue.SimpleQueue()
        )
        self.files = ThreadPoolExecutor(max_workers=4, thread_name_prefix="arena-replay")
        self.given = self.taken = 0  # matches handed over, and accounted for since
        self.thread = threading.Thread(target=self._work, name="arena-recorder", daemon=True)
        self.thread.start()

    def record(self, played: MatchPlayed) -> None:
        self.given += 1
        self.inbox.put(played)

    def _work(self) -> None:
        plan, ending = self.plan, False
        while not ending:
            batch = [self.inbox.get()]
            while not self.inbox.empty():
                batch.append(self.inbox.get())
            ending = None in batch
            played = [item for item in batch if item is not None]
            if not played:
                continue
            try:
                paths = list(self.files.map(lambda p: write_replay(plan.folder, p), played))
                written = [p.with_replay(path) for p, path in zip(played, paths)]
                results.append(plan.results_path, [p.line for p in written if not p.interrupted])
            except BaseException as error:  # noqa: BLE001 - handed to the main thread
                self.outbox.put(error)
                return
            for item in zip(written, paths):
                self.outbox.put(item)

    def deliver(
        self, report: RunReport, on_played: OnPlayed | None, *, backlog: int | None = None
    ) -> None:
        """In the caller's thread: account for what has been written; raise its write error.

        With `backlog`, first wait until no more than that many matches wait to be written: a
        run whose matches outpace the disk must not hold them all in memory.
        """
        while not self.outbox.empty() or (
            backlog is not None and self.given - self.taken > backlog
        ):
            item = self.outbox.get()
            if isinstance(item, BaseException):
                raise item
            self.taken += 1
            played, path = item
            if played.interrupted:
                report.interrupted_replays.append(path)
                continue
            self.plan.accept(played.line)
            report.played += 1
            if on_played is not None:
                on_played(played)

    def close(self) -> None:
        self.inbox.put(None)
        self.thread.join()  # what it is writing is already played: let it finish
        self.files.shutdown(wait=True)
