"""An `arena run` killed by SIGKILL leaves nothing on its terminal (issue #25): multiprocessing's
resource tracker, which outlives it and cleans up the pool's semaphores, used to print "There
appear to be N leaked semaphore objects to clean up at shutdown" there."""

from __future__ import annotations

import os
import signal
import subprocess
import time
from pathlib import Path

from command import arena_started

CONFIG = """seed = 1
games = 100000
[rules]
startingHandSize = 4
[[participants]]
name = "a"
bot = "random"
[[participants]]
name = "b"
bot = "easy"
"""


def test_a_killed_run_leaves_no_warning_on_its_stderr(tmp_path: Path) -> None:
    (tmp_path / "long.toml").write_text(CONFIG, encoding="utf-8")
    results = tmp_path / "replays" / "results.jsonl"
    # stderr is a pipe every descendant inherits (the tracker, the forkserver, the workers):
    # it reads to its end only once the last of them has closed it.
    arena = arena_started(
        "run",
        "long.toml",
        "--jobs",
        "2",
        "--quiet",
        cwd=tmp_path,
        stdout=subprocess.DEVNULL,
        text=False,
    )
    try:
        deadline = time.monotonic() + 120
        while not (results.exists() and results.stat().st_size > 0):  # the pool is playing
            assert arena.poll() is None, arena.stderr.read() if arena.stderr else ""
            assert time.monotonic() < deadline, "no match was recorded"
            time.sleep(0.05)
    finally:
        os.kill(arena.pid, signal.SIGKILL)
        arena.wait()
    assert arena.stderr is not None
    with arena.stderr:
        said = arena.stderr.read().decode(errors="replace")  # to its end: every helper gone
    assert "leaked" not in said and "Traceback" not in said and "Warning" not in said, said
