"""`arena run --jobs 2` under a TMPDIR too long for a socket's path (issue #25): the pool's
forkserver listens on an AF_UNIX socket in multiprocessing's folder, and a socket's path has at
most 107 bytes. The arena puts that folder somewhere short and plays; with nowhere short to put
it, it says so in one line."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from command import ARENA, said

from arena.tournaments import pool

CONFIG = """seed = 2
games = 3
[rules]
startingHandSize = 4
[[participants]]
name = "a"
bot = "random"
[[participants]]
name = "b"
command = ["python3", "{bot}"]
"""
BOT = Path(__file__).resolve().parent.parent / "participants" / "random_bot.py"
# Run the CLI with no short folder to fall back on (as on a machine without a usable /tmp).
NOWHERE_SHORT = "import sys; from arena.tournaments import pool; pool.SHORT_FOLDERS = (); from arena.ui.cli import main; sys.argv[0] = 'arena'; sys.exit(main())"


def _long_tmpdir(tmp_path: Path) -> Path:
    folder = tmp_path / ("t" * 60) / ("u" * 60)
    folder.mkdir(parents=True)
    assert len(os.fsencode(folder)) + pool.SOCKET_NAME_ROOM > pool.SOCKET_PATH_MOST
    return folder


def _run(tmp_path: Path, *command: str) -> subprocess.CompletedProcess[str]:
    (tmp_path / "config.toml").write_text(CONFIG.format(bot=BOT), encoding="utf-8")
    return subprocess.run(
        [*command, "run", "config.toml", "--jobs", "2", "--quiet"],
        cwd=tmp_path,
        capture_output=True,
        check=False,
        text=True,
        timeout=300,
        env={**os.environ, "TMPDIR": str(_long_tmpdir(tmp_path))},
    )


def test_a_run_with_jobs_plays_under_a_tmpdir_too_long_for_a_socket(tmp_path: Path) -> None:
    done = _run(tmp_path, *ARENA)
    assert done.returncode == 0, done.stderr
    assert "Traceback" not in done.stderr and "too long" not in done.stderr, done.stderr
    lines = (tmp_path / "replays" / "results.jsonl").read_text(encoding="utf-8").splitlines()
    assert len(lines) == 3


def test_with_nowhere_short_for_the_socket_it_says_so_in_one_line(tmp_path: Path) -> None:
    done = _run(tmp_path, sys.executable, "-c", NOWHERE_SHORT)
    assert done.returncode == 2, done.stderr
    told = said(done.stderr.strip())
    assert len(told) == 1 and "Traceback" not in done.stderr, done.stderr
    assert "--jobs 2" in told[0] and "TMPDIR" in told[0] and "--jobs 1" in told[0], told
