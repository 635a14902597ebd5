"""The program is part of the record, through the real CLI: each results line and replay carry
each participant's fingerprint; `--resume` refuses a participant whose program changed, and a
changed config refuses to replace another tournament's standings, unless `--new-run`."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from command import arena_here

ROOT = Path(__file__).resolve().parent.parent


def _arena(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return arena_here(*args, cwd=cwd)


def _league(tmp_path: Path, seed: int = 1) -> Path:
    bot = tmp_path / "alice"
    bot.mkdir(exist_ok=True)
    shutil.copy(ROOT / "participants" / "random_bot.py", bot / "bot.py")
    config = tmp_path / "league.toml"
    config.write_text(
        f"seed = {seed}\ngames = 4\n[tournament]\nseats = 2\n"
        f'[[participants]]\nname = "alice"\ncommand = ["{sys.executable}", "alice/bot.py"]\n'
        '[[participants]]\nname = "easy"\nbot = "easy"\n',
        encoding="utf-8",
    )
    return config


def _lines(tmp_path: Path) -> list[dict[str, Any]]:
    text = (tmp_path / "replays" / "results.jsonl").read_text(encoding="utf-8")
    return [json.loads(line) for line in text.splitlines()]


def test_lines_and_replays_carry_each_participants_fingerprint(tmp_path: Path) -> None:
    _league(tmp_path)
    done = _arena("run", "league.toml", "-q", "--jobs", "1", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    lines = _lines(tmp_path)
    prints = {
        name: digest
        for line in lines
        for name, digest in zip(line["seating"], line["fingerprints"], strict=True)
    }
    assert set(prints) == {"alice", "easy"} and prints["alice"] != prints["easy"]
    assert all(len(digest) == 64 for digest in prints.values())
    replay = json.loads((tmp_path / "replays" / lines[0]["replay"]).read_text(encoding="utf-8"))
    assert {p["name"]: p["fingerprint"] for p in replay["players"]} == prints
    verified = _arena("replay", "verify", f"replays/{lines[0]['replay']}", cwd=tmp_path)
    assert verified.returncode == 0, verified.stdout + verified.stderr


@pytest.mark.slow
def test_resume_refuses_a_changed_program_unless_told_to_start_a_new_run(tmp_path: Path) -> None:
    _league(tmp_path)
    assert _arena("run", "league.toml", "-q", "--jobs", "1", cwd=tmp_path).returncode == 0
    with (tmp_path / "alice" / "bot.py").open("a", encoding="utf-8") as file:
        file.write("# a new version\n")
    refused = _arena("run", "league.toml", "--games", "8", "--resume", "-q", cwd=tmp_path)
    assert refused.returncode == 2
    assert len(refused.stderr.strip().splitlines()) == 1, refused.stderr
    assert "--resume: 'alice' is not the program run" in refused.stderr
    assert "--new-run" in refused.stderr
    assert len(_lines(tmp_path)) == 4  # nothing played
    again = _arena(
        "run",
        "league.toml",
        "--games",
        "8",
        "--resume",
        "--new-run",
        "-q",
        "--jobs",
        "1",
        cwd=tmp_path,
    )
    assert again.returncode == 0, again.stderr
    lines = _lines(tmp_path)
    assert len(lines) == 4 + 8 and len({line["run"] for line in lines}) == 2  # a new run
    unchanged = _arena(
        "run", "league.toml", "--games", "10", "--resume", "-q", "--jobs", "1", cwd=tmp_path
    )
    assert unchanged.returncode == 0, unchanged.stderr  # the new run resumes with its program
    assert len(_lines(tmp_path)) == 4 + 10


def test_a_changed_config_does_not_replace_another_tournaments_standings(tmp_path: Path) -> None:
    _league(tmp_path, seed=1)
    assert _arena("run", "league.toml", "-q", "--jobs", "1", cwd=tmp_path).returncode == 0
    standings = (tmp_path / "replays" / "standings.json").read_bytes()
    _league(tmp_path, seed=2)  # another seed: another tournament
    for resume in ([], ["--resume"]):
        refused = _arena("run", "league.toml", "-q", *resume, cwd=tmp_path)
        assert refused.returncode == 2
        assert "holds the standings of tournament" in refused.stderr
        assert len(refused.stderr.strip().splitlines()) == 1, refused.stderr
        assert (tmp_path / "replays" / "standings.json").read_bytes() == standings
        assert len(_lines(tmp_path)) == 4
    replaced = _arena("run", "league.toml", "-q", "--new-run", "--jobs", "1", cwd=tmp_path)
    assert replaced.returncode == 0, replaced.stderr
    assert (tmp_path / "replays" / "standings.json").read_bytes() != standings
