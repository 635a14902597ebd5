"""End to end: the real `arena` CLI on each example config, with real subprocesses."""

from __future__ import annotations

import json
import shutil
import uuid
from pathlib import Path

import pytest
from command import arena_process

from arena.engine.match import MatchSetup
from arena.engine.rules import Rules

ROOT = Path(__file__).resolve().parent.parent
CONFIGS = sorted((ROOT / "configs").glob("*.toml"))


def replay_files(folder: Path) -> list[Path]:
    """The replays in a folder (beside them may lie standings and results files)."""
    return sorted(p for p in folder.glob("*.json") if '"transcript"' in p.read_text())


def copy_config(config: Path, tmp_path: Path) -> Path:
    """The config as it stands, but writing its replays under tmp_path."""
    text = config.read_text()
    replays = tmp_path / "replays"
    lines = [line for line in text.splitlines() if not line.startswith("replays")]
    # Beside the original (its paths are relative to it), under a name no other test process
    # can take at the same time: tmp_path's own name repeats across pytest-xdist's workers.
    copied = config.parent / f".test-{uuid.uuid4().hex[:12]}-{config.name}"
    copied.write_text(f'replays = "{replays}"\n' + "\n".join(lines) + "\n")
    return copied


@pytest.mark.skipif(shutil.which("node") is None, reason="node is not installed")
@pytest.mark.parametrize("config", CONFIGS, ids=[c.stem for c in CONFIGS])
def test_each_example_config_plays_and_its_replay_verifies(config: Path, tmp_path: Path) -> None:
    copied = copy_config(config, tmp_path)
    try:
        # From another working directory: paths in a config are relative to the config file.
        played = arena_process("run", str(copied), cwd=tmp_path)
    finally:
        copied.unlink()
    assert played.returncode == 0, played.stderr
    replays = replay_files(tmp_path / "replays")
    assert len(replays) == 1
    data = json.loads(replays[0].read_text())
    assert data["result"]["outcome"] == "completed"
    assert data["faults"] == [], data["faults"]
    names = [p["name"] for p in data["players"]]
    for name in names:
        assert name in played.stdout
    assert sum(data["result"]["scores"]) == len(data["deck"]) // 4
    verified = arena_process("replay", "verify", str(replays[0]), cwd=tmp_path)
    assert verified.returncode == 0, verified.stdout + verified.stderr
    assert "ok" in verified.stdout


def test_a_tampered_replay_is_refused_at_its_first_difference(tmp_path: Path) -> None:
    config = tmp_path / "c.toml"
    config.write_text(
        'seed = 5\n[[participants]]\nname = "a"\nbot = "random"\n[[participants]]\nname = "b"\nbot = "random"\n'
    )
    assert arena_process("run", str(config), cwd=tmp_path).returncode == 0
    [replay] = replay_files(tmp_path / "replays")
    data = json.loads(replay.read_text())
    index = next(i for i, e in enumerate(data["transcript"]) if e["message"]["type"] == "ask")
    entry = data["transcript"][index]
    entry["reply"] = {
        "player": entry["seat"],
        "cardId": -1,
    }  # an invalid ask instead of the real one
    tampered = tmp_path / "tampered.json"
    tampered.write_text(json.dumps(data))
    refused = arena_process("replay", "verify", str(tampered), cwd=tmp_path)
    assert refused.returncode == 1
    assert f"transcript[{index + 1}]" in refused.stderr

    data = json.loads(replay.read_text())
    data["result"]["scores"][0] += 1
    tampered.write_text(json.dumps(data))
    refused = arena_process("replay", "verify", str(tampered), cwd=tmp_path)
    assert refused.returncode == 1
    assert "result" in refused.stderr

    data = json.loads(replay.read_text())
    data["deck"][0], data["deck"][1] = data["deck"][1], data["deck"][0]
    tampered.write_text(json.dumps(data))
    assert arena_process("replay", "verify", str(tampered), cwd=tmp_path).returncode == 1


def test_runs_never_overwrite_earlier_replays(tmp_path: Path) -> None:
    config = tmp_path / "c.toml"
    config.write_text(
        'seed = 5\n[[participants]]\nname = "a"\nbot = "random"\n[[participants]]\nname = "b"\nbot = "random"\n'
    )
    for _ in range(2):
        assert arena_process("run", str(config), cwd=tmp_path).returncode == 0
    replays = replay_files(tmp_path / "replays")
    assert len(replays) == 2
    first, second = (json.loads(p.read_text()) for p in replays)
    assert first["transcript"] == second["transcript"]  # same seed, deterministic bots


def test_games_and_seed_options_play_seed_plus_i(tmp_path: Path) -> None:
    config = tmp_path / "c.toml"
    config.write_text(
        '[[participants]]\nname = "a"\nbot = "easy"\n[[participants]]\nname = "b"\nbot = "easy"\n'
    )
    played = arena_process("run", str(config), "--seed", "100", "--games", "3", cwd=tmp_path)
    assert played.returncode == 0, played.stderr
    replays = [json.loads(p.read_text()) for p in replay_files(tmp_path / "replays")]
    assert sorted(r["seed"] for r in replays) == [100, 101, 102]
    # contract §5.4: without a [tournament] table, match i is dealt from seed + i (no duplicate deals).
    rules = Rules()
    for r in replays:
        assert r.get("dealSeed", r["seed"]) == r["seed"]
        assert r["deck"] == list(MatchSetup.from_seed(r["seed"], ["a", "b"], rules).deck)
