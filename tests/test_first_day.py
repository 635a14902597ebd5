"""A newcomer's first day (issue 25): what surprised, each through the real `arena` CLI."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

TWO_RANDOM = 'seed = 7\ngames = {games}\n[[participants]]\nname = "ann"\nbot = "random"\n[[participants]]\nname = "bo"\nbot = "random"\n'


def arena(
    *args: str, cwd: Path, umask: int = -1, timeout: float = 120
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "arena", *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
        umask=umask,
    )


def played(tmp_path: Path, games: int = 2, text: str = TWO_RANDOM) -> Path:
    """The replays folder of a run of `text` in tmp_path."""
    (tmp_path / "config.toml").write_text(text.format(games=games))
    run = arena("run", "config.toml", "--quiet", cwd=tmp_path)
    assert run.returncode == 0, run.stderr
    return tmp_path / "replays"


@pytest.mark.parametrize("umask", [0o022, 0o027])
def test_every_file_the_arena_writes_has_the_mode_of_any_new_file(
    tmp_path: Path, umask: int
) -> None:
    (tmp_path / "config.toml").write_text(TWO_RANDOM.format(games=2))
    assert arena("run", "config.toml", "--quiet", cwd=tmp_path, umask=umask).returncode == 0
    replays = tmp_path / "replays"
    [first, *_] = sorted(replays.glob("*g0*.json"))
    page = tmp_path / "one.html"
    assert arena("report", "replays", cwd=tmp_path, umask=umask).returncode == 0
    assert (
        arena("replay", "html", str(first), "-o", str(page), cwd=tmp_path, umask=umask).returncode
        == 0
    )
    written = [*replays.glob("*.json"), replays / "report.html", page]
    assert len(written) >= 4, written
    modes = {path.name: oct(path.stat().st_mode & 0o777) for path in written}
    assert set(modes.values()) == {oct(0o666 & ~umask)}, modes
