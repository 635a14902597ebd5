"""One match as an independent task, and writing what it returns.

    task = MatchTask(config, seats, match=3, seed=45, deal_seed=44)
    played = play_task(task)                      # in any process: returns bytes, writes nothing
    path = write_replay(folder, played)           # on the client: the one writer

`play_task` is what an executor runs (a local process pool, or Dask later): the task is a
small picklable object, and the returned `MatchPlayed` holds everything the client needs (its
`results.ResultLine`, the faults as typed values, the replay document as bytes, the stderr
logs), so a worker that dies costs only a retry and no file is ever written twice. `play_one_match` is the one-call form for a single match.
Nothing here prints.
"""

from __future__ import annotations

import dataclasses
import threading
import weakref
from collections import Counter, OrderedDict
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from arena.base import shutdown
from arena.base.config import Config, Entrant
from arena.engine.events import AskRefused
from arena.engine.match import MatchSetup, Outcome
from arena.luck import Luck, measure
from arena.referee.loop import MatchInterrupted, MatchRecord, play_match
from arena.referee.seating import make_participants
from arena.replays import replay
from arena.seats.ending import close_all
from arena.seats.replies import FaultKind, Participant, SeatFault
from arena.tournaments.results import ResultLine, win_shares

KEPT_PER_WORKER = 16  # idle reusable participants one worker keeps (least recently used go)


@dataclass(frozen=True)
class LineHeader:
    """What the run knows of a match before it is played: its results line's other keys."""

    tournament: str
    run: str
    stamp: str  # the start of the run: the prefix of its replay names
    seed: int  # the tournament's seed
    seats: tuple[int, ...]  # the config indices of the seated participants, in seat order
    group: int
    rotation: int


@dataclass(frozen=True)
class MatchTask:
    """One match to play: the settings, who sits where, and its seeds. Picklable, small."""

    config: Config
    seats: tuple[Entrant, ...]  # in seat order
    match: int
    seed: int  # the match's seed, recorded in its replay
    deal_seed: int  # the seed of its shuffle and starting seat (shared by a duplicate group)
    in_process_bots: bool = False
    reuse: bool = False  # keep participants that ask for it alive for this worker's next match
    deal_again: bool = False  # another match will play this deal: keep no process of this one
    extra: tuple[tuple[str, Any], ...] = ()  # more top-level keys for the replay
    fingerprints: tuple[str, ...] = ()  # by seat: what each runs (`arena.seats.fingerprint`)
    header: LineHeader | None = None  # None: a match of no tournament (`play_one_match`)

    @property
    def names(self) -> tuple[str, ...]:
        return tuple(seat.name for seat in self.seats)

    def __str__(self) -> str:
        return f"game {self.match}"


@dataclass(frozen=True)
class FaultSeen:
    """A seat's fault, with the type of the message it came with (`init`, `ask`…; None: none)."""

    fault: SeatFault
    message: str | None


@dataclass(frozen=True)
class MatchPlayed:
    """What a worker sends back: the match's results line, its faults, the replay and logs.

    `line.replay` is the name the replay is to be written under; the run's recorder gives
    the line the name it was written under (`with_replay`) before anyone else reads it.
    """

    line: ResultLine
    faults: tuple[FaultSeen, ...]
    confinement: tuple[str, ...]  # how each seat was confined: "bwrap", "none", "in-process"…
    document: bytes = field(repr=False)  # the replay file's bytes
    logs: tuple[str, ...] = field(repr=False)  # each seat's stderr ("" for none)

    @property
    def match(self) -> int:
        return self.line.match

    @property
    def names(self) -> tuple[str, ...]:
        return tuple(self.line.seating)

    @property
    def interrupted(self) -> bool:
        return self.line.outcome == Outcome.INTERRUPTED

    def with_replay(self, path: Path) -> MatchPlayed:
        """The same match, its line naming the replay file as written."""
        line = self.line.model_copy(update={"replay": path.name})
        return dataclasses.replace(self, line=line)


@dataclass(frozen=True)
class RecordedMatch:
    """What a finished match tells its caller: how it ended, and where its replay is."""

    line: ResultLine
    replay: Path


class MatchStopped(Exception):
    """Ctrl-C during a match; its replay, marked interrupted, is at `played.replay`."""

    def __init__(self, played: RecordedMatch) -> None:
        super().__init__("interrupted")
        self.played = played


def replays_folder(config_path: Path, config: Config) -> Path:
    return (config_path.resolve().parent / config.replays).resolve()


def setup_for(config: Config, names: Sequence[str], seed: int) -> MatchSetup:
    return MatchSetup.from_seed(seed, names, config.engine_rules, **config.limits.match_options())


# -- the worker side --------------------------------------------------------------------


class KeptParticipants:
    """Participants that asked to be reused, idle between matches (one pool per worker thread).

    A kept process never plays the same deal twice: it would know, from the seat it held
    before, the starting hand of the seat it holds now (duplicate deals play one deal under
    every rotation of the seats). A match whose deal a kept process has played gets another
    process of the same participant, kept or new; so a participant keeps as many processes as
    a duplicate group has rotations (its seats), each started once.
    """

    def __init__(self, capacity: int = KEPT_PER_WORKER) -> None:
        self.capacity = capacity
        self.idle: OrderedDict[int, tuple[tuple[Any, ...], Participant]] = OrderedDict()
        # The deal seeds each kept process has played (forgotten with the process).
        self.deals: weakref.WeakKeyDictionary[Participant, set[int]] = weakref.WeakKeyDictionary()

    def take(self, key: tuple[Any, ...], deal: int | None = None) -> Participant | None:
        """An idle process of `key` that has not played `deal`, or None (start a new one)."""
        for ident, (kept_key, participant) in list(self.idle.items()):
            if kept_key != key or deal in self.deals.get(participant, set()):
                continue
            del self.idle[ident]
            if participant.keepable:
                return participant
            # It ended while idle (e.g. asked for reuse, then exited at `match-end` anyway): the
            # next match gets a fresh process rather than a dead one and a forfeit.
            close_all([participant], 0)
            return None
        return None

    def forget(self, deal: int) -> None:
        """Stop every idle process that has played `deal` (before another plays it)."""
        seen = [ident for ident, (_, p) in self.idle.items() if deal in self.deals.get(p, set())]
        close_all([self.idle.pop(ident)[1] for ident in seen], 0)

    def give(
        self, key: tuple[Any, ...], participant: Participant, grace: float, deal: int | None = None
    ) -> None:
        if deal is not None:
            self.deals.setdefault(participant, set()).add(deal)
        self.idle[id(participant)] = (key, participant)
        while len(self.idle) > self.capacity:
            _, (_, oldest) = self.idle.popitem(last=False)
            close_all([oldest], grace)

    def close(self, grace: float = 0.5) -> None:
        """End every kept participant as a match end would: stdin closed, grace, group killed."""
        idle, self.idle = [p for _, p in self.idle.values()], OrderedDict()
        close_all(idle, grace)


class _WorkerThread(threading.local):
    pool: KeptParticipants | None = None


_local = _WorkerThread()


def kept_participants() -> KeptParticipants:
    """This worker thread's pool of reusable participants."""
    if _local.pool is None:
        _local.pool = KeptParticipants()
    return _local.pool


def close_kept() -> None:
    """Stop this worker thread's reusable participants (at worker exit)."""
    if _local.pool is not None:
        _local.pool.close()


def _reuse_key(seat: Entrant, config: Config) -> tuple[Any, ...]:
    limits = config.limits
    return (
        seat.name,
        seat.command,
        str(seat.cwd),
        tuple(sorted(seat.env.items())),
        limits.max_line_bytes,
        limits.stderr_bytes,
        limits.memory_mib,
    )


def play_task(task: MatchTask) -> MatchPlayed:
    """Play one match; never writes a file. A stop requested meanwhile (`arena.base.shutdown`)
    gives a result with outcome `interrupted`; one requested before it starts raises Stopped.

    Raises only for a failure of the arena itself (a bug), never because of a participant.
    """
    if shutdown.should_stop():
        raise shutdown.Stopped
    config = task.config
    # A CPU-time limit is per process: a reused process would carry it over between matches.
    reuse = task.reuse and config.limits.cpu_seconds is None
    setup = setup_for(config, task.names, task.deal_seed)
    record, again = _play_once(task, setup, kept_participants() if reuse else None)
    if again:
        # A kept process that ended between matches (it asked for reuse, then exited at
        # `match-end` anyway, faster than the check before reuse could see): the match is
        # played again from the start with fresh processes, as if it had never been kept;
        # every process of the discarded attempt was stopped first (`_play_once`).
        record, _ = _play_once(task, setup, None)
    return _played(task, record)


def _ended_before_init(record: MatchRecord, seat: int) -> bool:
    """Whether `seat`'s process was found gone at its `init` (transcript index `seat`)."""
    return any(
        fault.seat == seat and fault.at == seat and fault.kind is FaultKind.EXITED
        for fault in record.faults
    )


def _play_once(
    task: MatchTask, setup: MatchSetup, pool: KeptParticipants | None
) -> tuple[MatchRecord, bool]:
    """Play the match with kept processes from `pool` where it has them; whether it must be
    played again (a kept process was found gone at its `init`: then no process of this attempt
    lives on, since each has seen the deal the next attempt plays)."""
    config = task.config
    participants: list[Participant] = make_participants(
        task.seats, config.limits, in_process_bots=task.in_process_bots
    )
    keys = [_reuse_key(seat, config) for seat in task.seats]
    reused: set[int] = set()
    if pool is not None:
        pool.forget(task.deal_seed)  # (a kept process that saw this deal: none may run now)
        for index, participant in enumerate(participants):
            if not participant.in_process:
                kept = pool.take(keys[index], task.deal_seed)
                if kept is not None:
                    participants[index] = kept
                    reused.add(index)
    kept_seats: frozenset[int] = frozenset()
    again = False
    try:
        record = play_match(
            setup,
            participants,
            config.limits,
            [s.command for s in task.seats],
            reuse=pool is not None,
            should_stop=shutdown.should_stop,
        )
        again = any(_ended_before_init(record, s) for s in reused) and not shutdown.should_stop()
        if not again and not task.deal_again:
            kept_seats = frozenset(record.kept)
    except MatchInterrupted as stop:
        record = stop.record
    finally:
        # Whatever happened, every process of this match is back in the pool or gone (the
        # match loop has stopped the others; stopping one again is safe).
        for index, participant in enumerate(participants):
            if index in kept_seats and pool is not None:
                pool.give(keys[index], participant, config.limits.close_grace, task.deal_seed)
            else:
                close_all([participant], 0)
    return record, again


def _played(task: MatchTask, record: MatchRecord) -> MatchPlayed:
    extra = {"game": task.match, "dealSeed": task.deal_seed, **dict(task.extra)}
    document = replay.build(record, seed=task.seed, limits=task.config.limits, extra=extra)
    for player, fingerprint in zip(document["players"], task.fingerprints):
        player["fingerprint"] = fingerprint
    invalid = Counter(event.seat for event in record.events if isinstance(event, AskRefused))
    result = record.result
    header = task.header or LineHeader("", "", "", task.seed, tuple(range(len(task.seats))), 0, 0)
    # The luck of each seat, from the engine's own record of the match (docs/luck.md).
    luck = None if result.outcome == Outcome.INTERRUPTED else measure(record.setup, record.events)
    # Keys beyond the model's fields, after them (docs/luck.md; `arena.seats.fingerprint`).
    more: dict[str, Any] = _luck_adjusted(luck, result.scores, result.places)
    if task.fingerprints:
        more["fingerprints"] = list(task.fingerprints)
    # How fast each seat replied (`ReplyTimes`; docs/tournaments.md).
    more["replyTimes"] = [
        None if times is None else times.as_json() for times in record.reply_times
    ]
    # The arena's own values, built here and nowhere else: `results.read` checks a line read back.
    line = ResultLine.model_construct(
        tournament=header.tournament,
        run=header.run,
        stamp=header.stamp,
        seed=header.seed,
        match=task.match,
        seating=list(task.names),
        seats=list(header.seats),
        group=header.group,
        rotation=header.rotation,
        match_seed=task.seed,
        deal_seed=task.deal_seed,
        outcome=result.outcome,
        scores=list(result.scores),
        places=list(result.places),
        faults=record.fault_counts(),
        invalid_asks=[invalid[seat] for seat in range(len(task.seats))],
        seconds=round(record.seconds, 3),
        replay=_stem(header.stamp, task) + ".json",
        **more,
    )
    transcript = record.transcript
    return MatchPlayed(
        line=line,
        faults=tuple(
            FaultSeen(
                fault,
                str(transcript[fault.at].message.get("type"))
                if 0 <= fault.at < len(transcript)
                else None,
            )
            for fault in record.faults
        ),
        confinement=tuple(record.confinement),
        document=replay.dumps(document),
        logs=tuple(record.logs),
    )


def _luck_adjusted(
    luck: Luck | None, scores: Sequence[int], places: Sequence[int]
) -> dict[str, Any]:
    """The results line's `luckAdjusted`: each seat's win share and books with the luck of the
    cards taken out (docs/luck.md), and V's version; nothing for an interrupted match."""
    if luck is None:
        return {}
    return {
        "luckAdjusted": {
            "winShare": [round(x, 6) for x in luck.adjusted_shares(win_shares(places))],
            "books": [round(x, 6) for x in luck.adjusted_books(scores)],
            "v": luck.version,
        }
    }


def _stem(stamp: str, task: MatchTask) -> str:
    return replay.file_stem(stamp, task.match, task.names)


# -- the client side --------------------------------------------------------------------


def write_replay(folder: Path, played: MatchPlayed, stamp: str | None = None) -> Path:
    """Write a played match's replay and non-empty stderr logs, never overwriting a file.

    Its name is the line's (`stamp` gives another prefix). Raises WriteError. An interrupted
    match is named `…-interrupted.json`: a resumed run plays that match again under the usual
    name.
    """
    stem = (
        played.line.replay.removesuffix(".json")
        if stamp is None
        else replay.file_stem(stamp, played.match, played.names)
    )
    if played.interrupted:
        stem += "-interrupted"
    return replay.write(folder, stem, played.document, played.logs)


def play_one_match(
    config: Config,
    seats: Sequence[Entrant],
    *,
    match: int,
    seed: int,
    folder: Path,
    stamp: str,
    in_process_bots: bool = False,
    deal_seed: int | None = None,
) -> RecordedMatch:
    """Play one match with `seats` in seat order, here, and write its replay.

    `deal_seed` (default `seed`) picks the shuffle and starting seat, so that duplicate deals
    can share one. Raises MatchStopped (replay written) on Ctrl-C, WriteError if the
    replay cannot be written.
    """
    task = MatchTask(
        config,
        tuple(seats),
        match,
        seed,
        seed if deal_seed is None else deal_seed,
        in_process_bots=in_process_bots,
        header=LineHeader("", "", stamp, seed, tuple(range(len(seats))), match, 0),
    )
    played = play_task(task)
    path = write_replay(folder, played)
    summary = RecordedMatch(played.with_replay(path).line, path)
    if played.interrupted:
        raise MatchStopped(summary)
    return summary
