"""The fingerprint of what a participant runs (arena/seats/fingerprint.py), on real files
resolved as `arena run` resolves them: what changes it, what does not, and what it never
opens or follows."""

from __future__ import annotations

import functools
import hashlib
import json
import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from command import arena_here

from arena.base import config
from arena.base.config import Entrant
from arena.seats import fingerprint


def _seat(tmp_path: Path, table: str) -> Entrant:
    path = tmp_path / "league" / "config.toml"
    path.parent.mkdir(exist_ok=True)
    path.write_text(table + '[[participants]]\nname = "other"\nbot = "random"\n', encoding="utf-8")
    _, seats = config.load(path)
    return seats[0]


@pytest.fixture
def bot(tmp_path: Path) -> Path:
    folder = tmp_path / "alice"
    folder.mkdir()
    (folder / "bot.py").write_text("print('hello')\n", encoding="utf-8")
    (folder / "weights.txt").write_text("1 2 3\n", encoding="utf-8")
    return folder


def _alice(tmp_path: Path, bot: Path, extra: str = "") -> str:
    # Run by the system's shell: its runtime is the system's, not hashed, where a venv's Python
    # would add a walk of its installation (tens of thousands of paths) to every fingerprint.
    seat = _seat(
        tmp_path,
        f'[[participants]]\nname = "alice"\ncommand = ["/bin/sh", "{bot / "bot.py"}"]\n' + extra,
    )
    return fingerprint.of(seat)


def test_the_same_program_gives_the_same_fingerprint(tmp_path: Path, bot: Path) -> None:
    first = _alice(tmp_path, bot)
    assert len(first) == 64 and first == _alice(tmp_path, bot)


@pytest.mark.parametrize("changed", ["bot.py", "weights.txt", "new.txt"])
def test_a_change_to_its_program_or_its_folder_changes_it(
    tmp_path: Path, bot: Path, changed: str
) -> None:
    before = _alice(tmp_path, bot)
    (bot / changed).write_text("something else\n", encoding="utf-8")
    assert _alice(tmp_path, bot) != before


def test_python_caches_do_not_count(tmp_path: Path, bot: Path) -> None:
    before = _alice(tmp_path, bot)
    (bot / "__pycache__").mkdir()
    (bot / "__pycache__" / "bot.cpython-311.pyc").write_bytes(b"\0cache")
    assert _alice(tmp_path, bot) == before


def test_read_only_contents_count(tmp_path: Path, bot: Path) -> None:
    data = tmp_path / "book"
    data.mkdir()
    (data / "openings.txt").write_text("a\n", encoding="utf-8")
    extra = f'readOnly = ["{data}"]\n'
    before = _alice(tmp_path, bot, extra)
    (data / "openings.txt").write_text("b\n", encoding="utf-8")
    assert _alice(tmp_path, bot, extra) != before


def test_links_are_not_followed_and_fifos_not_opened(tmp_path: Path, bot: Path) -> None:
    outside = tmp_path / "outside.txt"
    outside.write_text("one\n", encoding="utf-8")
    (bot / "link").symlink_to(outside)
    os.mkfifo(bot / "pipe")  # opening it would block for ever
    before = _alice(tmp_path, bot)
    outside.write_text("two\n", encoding="utf-8")
    assert _alice(tmp_path, bot) == before  # what a link points to is not its folder's
    (bot / "link").unlink()
    (bot / "link").symlink_to(tmp_path / "elsewhere")
    assert _alice(tmp_path, bot) != before  # where it points is


def test_a_large_file_counts_by_size_and_time(
    tmp_path: Path, bot: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(fingerprint, "FILE_BYTES", 8)
    big = bot / "big.bin"
    big.write_bytes(b"A" * 100)
    os.utime(big, ns=(10**18, 10**18))
    before = _alice(tmp_path, bot)
    big.write_bytes(b"B" * 100)  # same size; the time is set back below
    os.utime(big, ns=(10**18, 10**18))
    assert _alice(tmp_path, bot) == before
    os.utime(big, ns=(2 * 10**18, 2 * 10**18))
    assert _alice(tmp_path, bot) != before


def test_built_in_bots_are_their_level_and_the_arena_code_they_run(tmp_path: Path) -> None:
    hard = _seat(tmp_path, '[[participants]]\nname = "h"\nbot = "hard"\n')
    again = _seat(tmp_path, '[[participants]]\nname = "h2"\nbot = "hard"\n')
    easy = _seat(tmp_path, '[[participants]]\nname = "e"\nbot = "easy"\n')
    assert fingerprint.of(hard) == fingerprint.of(again) != fingerprint.of(easy)


def test_a_runtime_counts_by_its_listings(tmp_path: Path, bot: Path) -> None:
    """A virtual environment a bot runs from is its runtime: a package added to it, or one
    renamed (pip renames a `.dist-info` folder as it upgrades), changes the fingerprint; a file
    rewritten in place under its own name does not (docs/tournaments.md says so)."""
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True)
    table = f'[[participants]]\nname = "alice"\ncommand = ["{venv / "bin" / "python"}", "{bot / "bot.py"}"]\n'
    runtime = [p for label, p in fingerprint._given(_seat(tmp_path, table)) if label == "runtime"]
    assert str(venv) in runtime, runtime
    packages = next(venv.glob("lib/python*/site-packages"))
    before = fingerprint.of(_seat(tmp_path, table))
    (packages / "tool-1.0.dist-info").mkdir()
    added = fingerprint.of(_seat(tmp_path, table))
    (packages / "tool-1.0.dist-info").rename(packages / "tool-1.1.dist-info")
    upgraded = fingerprint.of(_seat(tmp_path, table))
    assert len({before, added, upgraded}) == 3
    (packages / "tool.py").write_text("A = 1\n", encoding="utf-8")
    with_file = fingerprint.of(_seat(tmp_path, table))
    (packages / "tool.py").write_text("A = 22\n", encoding="utf-8")  # in place: not seen
    assert fingerprint.of(_seat(tmp_path, table)) == with_file != upgraded


def _plainly(seat: Entrant) -> str:
    """The fingerprint as the module's docstring defines it, written plainly: every given path
    walked in order on one budget, a runtime's installation too."""
    digest = hashlib.sha256()
    budget = fingerprint._Budget()
    for label, path in fingerprint._given(seat):
        digest.update(f"{label}\0{path}\0".encode("utf-8", "surrogateescape"))
        if label not in ("bot", "missing"):
            for entry in fingerprint._entries(path, budget, contents=label != "runtime"):
                digest.update(entry)
    return digest.hexdigest()


@pytest.mark.parametrize("paths", [60, fingerprint.MOST_ENTRIES])
def test_seats_sharing_a_runtime_walk_it_once_and_get_what_each_would_alone(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, paths: int
) -> None:
    # Two Python bots in this virtual environment: its installation is their runtime. With 60
    # paths the budget runs out inside it, where the shared walk must stop as a lone one does.
    monkeypatch.setattr(
        fingerprint, "_Budget", functools.partial(fingerprint._Budget, entries=paths)
    )
    table = ""
    for name in ("alice", "bob"):
        (tmp_path / name).mkdir()
        (tmp_path / name / "bot.py").write_text(f"print('{name}')\n", encoding="utf-8")
        table += f'[[participants]]\nname = "{name}"\ncommand = ["{sys.executable}", "{tmp_path / name / "bot.py"}"]\n'
    path = tmp_path / "config.toml"
    path.write_text(table, encoding="utf-8")
    seats = config.load(path)[1]
    runtimes = [p for label, p in fingerprint._given(seats[0]) if label == "runtime"]
    assert runtimes and runtimes == [
        p for label, p in fingerprint._given(seats[1]) if label == "runtime"
    ]
    walks: list[str] = []
    entries = fingerprint._entries

    def counted(top: str, budget: Any, *, contents: bool) -> Iterator[bytes]:
        if not contents:
            walks.append(top)
        return entries(top, budget, contents=contents)

    monkeypatch.setattr(fingerprint, "_entries", counted)
    together = fingerprint.of_all(seats)
    assert sorted(walks) == sorted(runtimes)  # once each, for both seats
    monkeypatch.setattr(fingerprint, "_entries", entries)
    assert together == {seat.name: _plainly(seat) for seat in seats}
    assert together["alice"] != together["bob"] and together["alice"] == fingerprint.of(seats[0])


# --- The program is part of the record, through the real CLI: each results line and replay carry
# each participant's fingerprint; `--resume` refuses a participant whose program changed, and a
# changed config refuses to replace another tournament's standings, unless `--new-run`.


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
