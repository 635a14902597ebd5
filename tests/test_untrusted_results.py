"""results.jsonl is untrusted: lines are checked, confirmed by their replays, or not believed."""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from command import arena_here, arena_process, arena_started
from resultsmaker import result

from arena.tournaments import results
from arena.tournaments.standings import Standings

CONFIG = """seed = 7
games = {games}
[tournament]
seats = 2
duplicate = true
inProcessBots = true
[[participants]]
name = "ann"
bot = "easy"
[[participants]]
name = "bob"
bot = "random"
[[participants]]
name = "cy"
bot = "medium"
"""


def _arena(folder: Path, *args: str, timeout: float = 120) -> subprocess.CompletedProcess[str]:
    """`arena *args` in `folder`; a run with `--jobs 1` (the matches in its own process: what
    these tests read and forge is the folder, whoever plays; a pool of workers is tested in
    test_cli_run and test_shutdown)."""
    jobs = ["--jobs", "1"] if args[:1] == ("run",) else []
    return arena_here(*args, *jobs, cwd=folder, env={**os.environ, "COLUMNS": "200"})


Runs = Callable[[int, tuple[str, ...]], Path]


def _config(folder: Path, games: int) -> Path:
    path = folder / "config.toml"
    path.write_text(CONFIG.format(games=games), encoding="utf-8")
    return path


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> Runs:
    """`runs(games, options)`: a folder where `arena run config.toml --quiet *options` played
    the config of `games` matches, once per module (read-only: `_played` copies it)."""
    made: dict[tuple[int, tuple[str, ...]], Path] = {}

    def run(games: int, options: tuple[str, ...]) -> Path:
        if (games, options) not in made:
            folder = tmp_path_factory.mktemp("run")
            _config(folder, games)
            done = _arena(folder, "run", "config.toml", "--quiet", *options)
            assert done.returncode == 0, done.stderr
            made[games, options] = folder
        return made[games, options]

    return run


def _played(runs: Runs, tmp_path: Path, games: int, *options: str) -> None:
    """A copy in `tmp_path` of a run of the config of `games` matches (`arena run --quiet
    *options`): its config and its replays folder."""
    shutil.copytree(runs(games, options), tmp_path, dirs_exist_ok=True)


def _lines(folder: Path) -> list[dict[str, Any]]:
    text = (folder / "replays" / "results.jsonl").read_text(encoding="utf-8")
    return [json.loads(line) for line in text.splitlines() if line.strip()]


def _standings(folder: Path) -> dict[str, Any]:
    data: dict[str, Any] = json.loads(
        (folder / "replays" / "standings.json").read_text(encoding="utf-8")
    )
    return data


def _append(folder: Path, *lines: Any) -> None:
    with open(folder / "replays" / "results.jsonl", "a", encoding="utf-8") as file:
        file.writelines(
            (line if isinstance(line, str) else json.dumps(line)) + "\n" for line in lines
        )


def test_a_forged_stamp_never_names_a_file_outside_the_folder(tmp_path: Path, runs: Runs) -> None:
    _played(runs, tmp_path, 4, "--games", "2")
    forged = dict(_lines(tmp_path)[-1], game=3, stamp="../escaped/PWNED")
    _append(tmp_path, forged, dict(forged, stamp="/tmp/PWNED-abs", game=2))
    done = _arena(tmp_path, "run", "config.toml", "--resume", "--quiet")
    assert done.returncode == 0, done.stderr
    assert "2 results line(s) not believed" in done.stderr and "Traceback" not in done.stderr
    assert not (tmp_path / "escaped").exists() and not Path("/tmp/PWNED-abs").exists()
    assert sorted(p.parent for p in tmp_path.rglob("*-g000*.json")) == [tmp_path / "replays"] * 4


def test_well_formed_forged_lines_are_not_believed(tmp_path: Path, runs: Runs) -> None:
    _played(runs, tmp_path, 6, "--games", "2")
    real = _lines(tmp_path)
    # A rival credits itself with wins in matches not yet played, and rewrites a played one.
    forged = []
    for game in range(2, 6):
        line = dict(real[0], game=game)
        line["scores"], line["ranks"] = [13, 0], [1, 2]
        forged.append(line)
    rewritten = dict(real[1], scores=[13, 0], ranks=[1, 2])
    _append(tmp_path, *forged)
    lines_before = len(_lines(tmp_path))
    done = _arena(tmp_path, "run", "config.toml", "--resume", "--quiet")
    assert done.returncode == 0, done.stderr
    assert "4 results line(s) not believed" in done.stderr
    after = _lines(tmp_path)
    assert len(after) == lines_before + 4  # games 2..5 were played for real
    played = {line["game"]: line for line in after if line not in forged}
    assert sorted(played) == list(range(6))
    standings = _standings(tmp_path)
    assert standings["matches"] == 6
    wins = {row["name"]: row["wins"] for row in standings["participants"]}
    real_wins = sum(1.0 for line in played.values() for rank in line["ranks"] if rank == 1)
    assert sum(wins.values()) == pytest.approx(real_wins)
    # The rewritten line of a played match changes nothing either: its replay says otherwise.
    _append(tmp_path, rewritten)
    assert (
        results.confirmed(results.ResultLine.model_validate(rewritten), tmp_path / "replays")
        is not None
    )


@pytest.mark.parametrize(
    "junk",
    [
        {"tournament": "0123456789abcdef", "run": 5, "game": 1},
        "not json at all",
        "[1, 2, 3]",
        '{"tournament": null}',
        "NaN",
        "x" * (2 << 20),
    ],
)
def test_junk_lines_are_skipped_with_a_reason(tmp_path: Path, runs: Runs, junk: Any) -> None:
    _played(runs, tmp_path, 3, "--games", "1")
    first = _lines(tmp_path)[0]
    broken = dict(first, game=1)
    broken.pop("seating")
    _append(tmp_path, junk, broken, dict(first, game=2, ranks=["x", None]), dict(first, run=5))
    done = _arena(tmp_path, "run", "config.toml", "--resume", "--quiet")
    assert done.returncode == 0, done.stderr
    assert "Traceback" not in done.stderr and "not believed" in done.stderr
    assert _standings(tmp_path)["matches"] == 3


def test_a_results_file_that_is_a_link_is_not_followed(tmp_path: Path) -> None:
    _config(tmp_path, 2)
    (tmp_path / "replays").mkdir()
    target = tmp_path / "elsewhere.jsonl"
    target.write_text("", encoding="utf-8")
    (tmp_path / "replays" / "results.jsonl").symlink_to(target)
    done = _arena(tmp_path, "run", "config.toml", "--quiet")
    assert done.returncode == 2
    assert "symbolic link" in done.stderr and len(done.stderr.strip().splitlines()) == 1
    assert target.read_text(encoding="utf-8") == ""
    assert not list((tmp_path / "replays").glob("*.json"))


@pytest.mark.parametrize("resume", [False, True])
@pytest.mark.parametrize("name", ["results.jsonl", "standings.json", "report.html"])
def test_a_folder_where_the_run_writes_a_file_is_refused_before_any_match(
    tmp_path: Path, name: str, resume: bool
) -> None:
    _config(tmp_path, 2)
    (tmp_path / "replays" / name).mkdir(parents=True)
    done = _arena(tmp_path, "run", "config.toml", "--quiet", *(["--resume"] * resume))
    assert done.returncode == 2, done.stderr
    assert done.stderr.strip() == (
        f"{tmp_path / 'replays' / name}: not a regular file (a folder); move it out of the way"
    )
    assert sorted(p.name for p in (tmp_path / "replays").iterdir()) == [".results.lock", name]


def test_a_results_file_that_is_a_fifo_is_refused_without_blocking(tmp_path: Path) -> None:
    _config(tmp_path, 2)
    (tmp_path / "replays").mkdir()
    os.mkfifo(tmp_path / "replays" / "results.jsonl")
    done = _arena(tmp_path, "run", "config.toml", "--quiet", "--resume", timeout=60)
    assert done.returncode == 2, done.stderr
    assert done.stderr.strip().endswith(
        "results.jsonl: not a regular file (a FIFO); move it out of the way"
    )


def test_a_replay_a_results_line_names_that_is_a_folder_plays_again(
    tmp_path: Path, runs: Runs
) -> None:
    _played(runs, tmp_path, 2)
    named = tmp_path / "replays" / _lines(tmp_path)[1]["replay"]
    named.unlink()
    named.mkdir()
    done = _arena(tmp_path, "run", "config.toml", "--quiet", "--resume")
    assert done.returncode == 0, done.stderr
    assert f"its replay {named.name} is not a replay file" in done.stderr
    assert "Traceback" not in done.stderr and named.is_dir()
    assert _standings(tmp_path)["matches"] == 2


@pytest.mark.slow
def test_one_writer_per_folder_and_a_killed_run_frees_it(tmp_path: Path) -> None:
    _config(tmp_path, 100000)
    first = arena_started(
        "run",
        "config.toml",
        "--jobs",
        "1",
        "--quiet",
        cwd=tmp_path,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
        text=False,
    )
    try:
        deadline = time.monotonic() + 60
        while not (tmp_path / "replays" / "results.jsonl").exists():
            assert time.monotonic() < deadline, "the first run never recorded a match"
            time.sleep(0.1)
        second = _arena(tmp_path, "run", "config.toml", "--resume", "--quiet")
        assert second.returncode == 2
        assert f"arena process {first.pid} is writing into this replays folder" in second.stderr
        # Memory stays small although 100,000 matches are configured: the schedule is lazy.
        rss_kib = int(
            next(
                line
                for line in Path(f"/proc/{first.pid}/status").read_text().splitlines()
                if line.startswith("VmRSS")
            ).split()[1]
        )
        assert rss_kib < 400_000
    finally:
        os.killpg(first.pid, signal.SIGKILL)
        first.wait(10)
    games = str(len(_lines(tmp_path)) + 2)
    resumed = arena_process(  # as the killed run was: a process (tests/command.py)
        "run", "config.toml", "--resume", "--games", games, "--quiet", "--jobs", "1", cwd=tmp_path
    )
    assert resumed.returncode == 0, resumed.stderr


def test_standings_list_only_the_pairs_that_met() -> None:
    names = [f"p{i}" for i in range(3000)]
    matches = [result(i, (names[2 * i], names[2 * i + 1]), (7, 6), (1, 2)) for i in range(1500)]
    document = Standings.of(names, matches).as_json()
    assert len(document["pairwise"]) == 3000  # each pair both ways, not 3000 × 2999
    assert {(p["first"], p["second"]) for p in document["pairwise"]} == {
        pair
        for m in matches
        for pair in ((m.seating[0], m.seating[1]), (m.seating[1], m.seating[0]))
    }


def test_report_of_a_folder_whose_standings_is_a_fifo_does_not_wait(
    tmp_path: Path, runs: Runs
) -> None:
    _played(runs, tmp_path, 2)
    standings = tmp_path / "replays" / "standings.json"
    standings.unlink()
    os.mkfifo(standings)  # consulted, never believed: it hung opening it
    done = _arena(tmp_path, "report", "replays", timeout=30)
    assert done.returncode == 0, done.stderr
    assert "wrote replays/report.html (2 matches)" in done.stdout


@pytest.mark.parametrize("kind", ["folder", "FIFO"])
def test_a_lock_file_that_is_not_a_file_is_refused_in_one_line(tmp_path: Path, kind: str) -> None:
    _config(tmp_path, 2)
    lock = tmp_path / "replays" / ".results.lock"
    lock.parent.mkdir()
    if kind == "folder":
        lock.mkdir()
    else:
        os.mkfifo(lock)  # flock on it was a traceback (EINVAL)
    done = _arena(tmp_path, "run", "config.toml", "--quiet")
    assert done.returncode == 2, done.stderr
    assert done.stderr.splitlines() == [
        f"{lock}: not a regular file (a {kind}); move it out of the way"
    ]
    assert [p.name for p in lock.parent.iterdir()] == [".results.lock"]


def test_a_replay_named_by_many_lines_is_read_once(
    tmp_path: Path, runs: Runs, monkeypatch: pytest.MonkeyPatch
) -> None:
    # 300 copies of a forged line for a match not yet believed: each was checked by reading its
    # replay again (a 200 MB replay named by 30,000 lines took hours).
    from arena.base import config as config_module
    from arena.tournaments import tournament

    _played(runs, tmp_path, 3)
    lines = _lines(tmp_path)
    forged = dict(next(line for line in lines if line["game"] == 2), scores=[13, 0])
    kept = [line for line in lines if line["game"] != 2]
    (tmp_path / "replays" / "results.jsonl").write_text(
        "".join(json.dumps(line) + "\n" for line in [*kept, *[forged] * 300]), encoding="utf-8"
    )
    reads: list[str] = []
    real = results._recorded
    monkeypatch.setattr(results, "_recorded", lambda f, n: reads.append(n) or real(f, n))
    settings, seats = config_module.load(tmp_path / "config.toml")
    plan = tournament.prepare(tmp_path / "config.toml", settings, seats, resume=True)
    try:
        assert sorted(plan.done) == [0, 1] and len(plan.skipped) == 300
        assert reads.count(forged["replay"]) == 1
    finally:
        if plan.lock is not None:
            plan.lock.release()
