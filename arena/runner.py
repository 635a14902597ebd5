"""Playing the matches a config asks for, and writing their replays.

`play_game` is one independent task (a seating, a seed, a folder): it starts the
participants, plays, writes the replay and returns a small summary. Tournaments and
executors build on it; nothing here prints.
"""

from __future__ import annotations

import secrets
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from arena import replay
from arena.config import Config, Seat
from arena.driver import MatchInterrupted, MatchRecord, make_participants, run_match
from arena.match import MatchSetup


@dataclass(frozen=True)
class PlayedGame:
    """What a finished match tells the run: where its replay is and how it ended."""

    game: int
    seed: int
    names: tuple[str, ...]
    outcome: str
    scores: tuple[int, ...]
    ranks: tuple[int, ...]
    fault_counts: tuple[dict[str, int], ...]
    replay: Path

    def as_json(self) -> dict[str, Any]:
        return {
            "game": self.game,
            "seed": self.seed,
            "names": list(self.names),
            "outcome": self.outcome,
            "scores": list(self.scores),
            "ranks": list(self.ranks),
            "faults": list(self.fault_counts),
            "replay": self.replay.name,
        }


class GameInterrupted(Exception):
    """Ctrl-C during a match; its replay, marked interrupted, is at `played.replay`."""

    def __init__(self, played: PlayedGame) -> None:
        super().__init__("interrupted")
        self.played = played


def run_seed(config: Config) -> int:
    """The config's seed, or a fresh one (recorded in every replay)."""
    return config.seed if config.seed is not None else secrets.randbits(32)


def replays_folder(config_path: Path, config: Config) -> Path:
    return (config_path.resolve().parent / config.replays).resolve()


def setup_for(config: Config, names: Sequence[str], seed: int) -> MatchSetup:
    limits = config.limits
    return MatchSetup.from_seed(
        seed,
        names,
        config.engine_rules,
        limits=limits.told_to_seats(),
        max_turns=limits.maxTurns,
        max_idle_turns=limits.maxIdleTurns,
    )


def play_game(
    config: Config,
    seats: Sequence[Seat],
    *,
    game: int,
    seed: int,
    folder: Path,
    stamp: str,
    in_process_bots: bool = False,
    deck_seed: int | None = None,
) -> PlayedGame:
    """Play one match with `seats` in seat order and write its replay.

    `deck_seed` (default `seed`) picks the shuffle and starting seat, so that duplicate deals
    can share one. Raises GameInterrupted (replay written) on Ctrl-C, WriteError if the
    replay cannot be written.
    """
    names = [seat.name for seat in seats]
    setup = setup_for(config, names, seed if deck_seed is None else deck_seed)
    participants = make_participants(seats, config.limits, in_process_bots=in_process_bots)
    commands = [seat.command for seat in seats]
    try:
        record = run_match(setup, participants, config.limits, commands)
    except MatchInterrupted as stop:
        raise GameInterrupted(_write(config, stop.record, game, seed, folder, stamp)) from None
    return _write(config, record, game, seed, folder, stamp)


def _write(config: Config, record: MatchRecord, game: int, seed: int, folder: Path, stamp: str) -> PlayedGame:
    document = replay.build(record, seed=seed, limits=config.limits, extra={"game": game})
    path = replay.write(folder, replay.file_stem(stamp, game, record.setup.names), document, record.logs)
    return PlayedGame(
        game=game,
        seed=seed,
        names=record.setup.names,
        outcome=str(record.result.outcome),
        scores=record.result.scores,
        ranks=record.result.ranks,
        fault_counts=tuple(record.fault_counts()),
        replay=path,
    )
