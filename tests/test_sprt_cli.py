"""`arena sprt` for scripts, through the real CLI: its exit status says the verdict (0 better,
1 not better, 3 no decision by the cap, 130 stopped) and `--json` prints one line, with `-q`
too."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest
from command import arena_here, arena_started

ROOT = Path(__file__).resolve().parent.parent
SEEDED = [sys.executable, str(ROOT / "tests" / "sprtbots" / "seeded_random.py")]


def _sprt(tmp_path: Path, *options: str, command: list[str]) -> subprocess.CompletedProcess[str]:
    return arena_here("sprt", "--seed", "3", "--jobs", "1", *options, "--", *command, cwd=tmp_path)


def _line(stdout: str) -> dict[str, Any]:
    """The last line of stdout, which must be the JSON one."""
    document: dict[str, Any] = json.loads(stdout.strip().splitlines()[-1])
    return document


@pytest.mark.parametrize(
    ("options", "status", "decision"),
    [
        # The candidate is the built-in `random` in one process kept for every match, its
        # hypotheses far apart so that raw points decide in a few groups: its share against
        # `random` is about 0.5, clearly 0.4 rather than 0.2; against `medium` about 0.4,
        # clearly 0.6 rather than 0.8.
        (["--raw", "--vs", "random", "--share0", "0.2", "--share1", "0.4"], 0, "H1"),
        (["--raw", "--vs", "medium", "--share0", "0.6", "--share1", "0.8"], 4, "H0"),
        (["--vs", "hard", "--games", "6"], 3, None),
    ],
)
def test_the_exit_status_and_the_json_line_say_the_verdict_even_when_quiet(
    tmp_path: Path, options: list[str], status: int, decision: str | None
) -> None:
    loose = ["--alpha", "0.2", "--beta", "0.2", "--min-groups", "5"] if decision else []
    done = _sprt(tmp_path, "-q", "--json", *options, *loose, command=[*SEEDED, "4"])
    assert done.returncode == status, done.stderr
    assert len(done.stdout.splitlines()) == 1  # -q: only the JSON line
    line = _line(done.stdout)
    assert (line["decision"], line["exit"], line["stopped"]) == (decision, status, False)
    standings = json.loads((tmp_path / "replays" / "standings.json").read_text())
    assert line["llr"] == standings["sprt"]["llr"]
    assert line["groups"] == standings["sprt"]["groups"] and line["played"] == standings["matches"]


def test_without_json_the_tables_come_and_the_status_is_the_same(tmp_path: Path) -> None:
    done = _sprt(tmp_path, "--vs", "hard", "--games", "6", command=[*SEEDED, "4"])
    assert done.returncode == 3, done.stderr
    assert "no decision by the cap of 6 matches" in done.stdout
    with pytest.raises(json.JSONDecodeError):
        _line(done.stdout)


def test_a_stopped_test_exits_130_with_its_json_line(tmp_path: Path) -> None:
    process = arena_started(
        *("sprt", "-q", "--json", "--vs", "random"),
        *("--min-groups", "1000000", "--games", "1000000", "--jobs", "1", "--seed", "1", "--"),
        *SEEDED,
        "1",
        cwd=tmp_path,
        start_new_session=True,
    )
    results = tmp_path / "replays" / "results.jsonl"
    try:
        deadline = time.monotonic() + 120
        while not results.exists() or len(results.read_text().splitlines()) < 4:
            assert time.monotonic() < deadline and process.poll() is None, process.communicate()
            time.sleep(0.05)
        process.send_signal(signal.SIGINT)
        stdout, stderr = process.communicate(timeout=60)
    finally:
        if process.poll() is None:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait()
    assert process.returncode == 130, stderr
    line = _line(stdout)
    assert (line["decision"], line["exit"], line["stopped"]) == (None, 130, True)
    assert line["played"] >= 4


def test_each_new_test_in_the_same_folder_takes_its_standings_over(tmp_path: Path) -> None:
    # The bot writer's loop: test, edit the bot, test again. The second test is a new one (a
    # changed program, another seed): it runs, and says whose standings it replaces.
    bot = tmp_path / "bot.py"
    bot.write_text((ROOT / "tests" / "sprtbots" / "seeded_random.py").read_text())
    first = _sprt(tmp_path, "--vs", "easy", "--games", "2", command=[sys.executable, str(bot)])
    assert first.returncode == 3, first.stderr
    bot.write_text(bot.read_text() + "\n# edited\n")
    again = arena_here(
        *("sprt", "--seed", "4", "--jobs", "1", "--vs", "easy", "--games", "2"),
        *("--", sys.executable, str(bot)),
        cwd=tmp_path,
    )
    assert again.returncode == 3, again.stderr
    assert "standings replace those of the earlier one" in again.stderr
    standings = json.loads((tmp_path / "replays" / "standings.json").read_text())
    assert standings["seed"] == 4


def test_progress_counts_towards_the_decision_not_the_cap(tmp_path: Path) -> None:
    from arena.ui.sprt_view import groups_to_decision

    # Halfway to the upper bound after 20 groups: about 20 more at the same drift.
    assert groups_to_decision(1.5, 20, -3.0, 3.0) == 20
    assert groups_to_decision(-1.0, 20, -3.0, 3.0) == 40  # heading for the lower bound
    assert groups_to_decision(0.0, 20, -3.0, 3.0) is None  # no drift to go by
    assert groups_to_decision(1.0, 3, -3.0, 3.0) is None  # too few groups yet
    done = _sprt(tmp_path, "--vs", "easy", "--games", "6", command=[*SEEDED, "4"])
    assert done.returncode == 3, done.stderr
    assert "up to 6 matches (the cap: the test stops at its decision)" in done.stdout
    progress = [line for line in done.stdout.splitlines() if line.startswith("played ")]
    assert progress and "LLR" in progress[-1] and " of 6 matches" not in progress[-1]


def test_an_opponent_named_on_the_command_line_is_named_so_in_the_tables(
    tmp_path: Path,
) -> None:
    # Two opponents of the same program: `--vs NAME=COMMAND` tells them apart in the tables,
    # where "seeded_random" and "seeded_random-2" could not say which is which.
    done = _sprt(
        tmp_path,
        "--vs",
        f"mine={SEEDED[0]} {SEEDED[1]} 5",
        "--vs",
        "champ=hard",
        "--seats",
        "3",
        "--games",
        "3",
        command=[*SEEDED, "4"],
    )
    assert done.returncode == 3, done.stderr
    standings = json.loads((tmp_path / "replays" / "standings.json").read_text())
    names = {row["name"] for row in standings["participants"]}
    assert names == {"seeded_random", "mine", "champ"}, names
    assert "champ" in done.stdout and "mine" in done.stdout
    clash = _sprt(tmp_path, "--vs", "mine=hard", "--vs", "mine=easy", command=[*SEEDED, "4"])
    assert clash.returncode == 2 and "the name 'mine' is taken already" in clash.stderr
