"""The single-seat Gymnasium environment: a real match loop, real levels, real subprocesses."""

from __future__ import annotations

import os
import random
import sys
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("gymnasium", reason="the [rl] extra (pettingzoo, gymnasium) is not installed")

from arena.engine.match import MatchSetup
from arena.engine.rules import Rules
from arena.env.single import SeatEnv
from arena.seats.replies import FaultKind

ROOT = Path(__file__).resolve().parents[1]


def _children() -> set[int]:
    """Processes whose parent is this one (Linux /proc)."""
    found = set()
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                stat = Path(f"/proc/{entry}/stat").read_text()
            except OSError:
                continue
            if int(stat.rsplit(")", 1)[1].split()[1]) == os.getpid():
                found.add(int(entry))
    return found


def _play(table: SeatEnv, seed: int) -> tuple[float, bool, bool, dict[str, Any], int]:
    rng = random.Random(seed)
    observation, _ = table.reset(seed=seed)
    steps = 0
    while True:
        legal = observation["action_mask"].nonzero()[0]
        assert len(legal) and observation["message"]["type"] == "ask"
        action = int(legal[rng.randrange(len(legal))])
        observation, reward, terminated, truncated, info = table.step(action)
        steps += 1
        if terminated or truncated:
            return reward, terminated, truncated, info, steps


def test_a_seat_against_a_level_plays_the_arenas_match() -> None:
    table = SeatEnv(["hard"], seat=1)
    try:
        reward, terminated, truncated, info, steps = _play(table, 3)
    finally:
        table.close()
    record = info["record"]
    assert terminated and not truncated
    assert record.setup.deck == MatchSetup.from_seed(3, ("hard-1", "agent"), Rules()).deck
    assert info["place"] == record.result.places[1] and info["books"] == record.result.scores[1]
    assert reward == (1.0 if info["place"] == 1 else -1.0)
    asks = [e for e in record.transcript if e.seat == 1 and e.message["type"] == "ask"]
    assert len(asks) == steps  # every decision of the seat was a step, answered as sent
    assert all(isinstance(e.reply, dict) for e in asks)
    assert not record.faults


def test_a_command_is_seated_as_arena_run_seats_it_and_its_faults_recorded(tmp_path: Path) -> None:
    quitter = tmp_path / "quitter.py"
    quitter.write_text("import sys\nsys.stdin.readline()\nprint('null', flush=True)\n")
    before = _children()
    table = SeatEnv(
        [
            [sys.executable, str(ROOT / "participants" / "random_bot.py")],
            [sys.executable, str(quitter)],
        ]
    )
    try:
        _, terminated, _, info, _ = _play(table, 8)
    finally:
        table.close()
    record = info["record"]
    assert terminated and record.result.outcome == "completed"
    kinds = {fault.kind for fault in record.faults if fault.seat == 2}
    assert FaultKind.EXITED in kinds  # it quit after its first reply: a recorded fault
    assert not any(fault.seat in (0, 1) for fault in record.faults)
    assert _children() <= before


def test_close_mid_match_stops_and_reaps_every_participant() -> None:
    before = _children()
    table = SeatEnv([[sys.executable, str(ROOT / "participants" / "random_bot.py")]])
    observation, _ = table.reset(seed=2)
    table.step(int(observation["action_mask"].nonzero()[0][0]))
    table.close()
    assert _children() <= before
    observation, _ = table.reset(seed=2)  # and it plays again after
    assert observation["message"]["type"] == "ask"
    table.close()


def test_gymnasiums_own_checker_passes() -> None:
    from gymnasium.utils.env_checker import check_env

    table = SeatEnv(["hard"])
    try:
        check_env(table, skip_render_check=True)  # (warnings are errors here)
    finally:
        table.close()
