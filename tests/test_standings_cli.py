"""`arena standings FOLDER` and `--without`, through the real CLI on a real tournament's folder:
the table, `--json`, `--csv`, merged runs, a participant left out, and bad input."""

from __future__ import annotations

import csv
import io
import itertools
import json
import subprocess
from pathlib import Path
from typing import Any

import pytest
from command import arena_here

CONFIG = """seed = 5
games = {games}
[tournament]
seats = 2
[[participants]]
name = "random"
bot = "random"
[[participants]]
name = "easy"
bot = "easy"
[[participants]]
name = "hard"
bot = "hard"
"""


GAMES = 30  # a run's matches; the folder holds two runs


def _arena(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return arena_here(*args, cwd=cwd)


@pytest.fixture(scope="module")
def league(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Two runs of one tournament (GAMES matches each) in one folder: a merged folder."""
    folder = tmp_path_factory.mktemp("league")
    (folder / "league.toml").write_text(CONFIG.format(games=GAMES), encoding="utf-8")
    for _ in range(2):
        done = _arena("run", "league.toml", "-q", "--jobs", "1", cwd=folder)
        assert done.returncode == 0, done.stderr
    return folder


def _json(league: Path, *options: str) -> dict[str, Any]:
    done = _arena("standings", "replays", "--json", *options, cwd=league)
    assert done.returncode == 0, done.stderr
    document: dict[str, Any] = json.loads(done.stdout)
    return document


def test_json_has_every_match_of_every_run_in_the_fits_order(league: Path) -> None:
    document = _json(league)
    assert document["format"] == "gofish-arena-standings/3"
    assert (document["matches"], document["runs"]) == (2 * GAMES, 2)
    rows = document["participants"]
    assert sum(row["matches"] for row in rows) == 2 * 2 * GAMES
    ratings = [row["rating"]["elo"] for row in rows]
    assert ratings == sorted(ratings, reverse=True)
    assert abs(sum(ratings)) < 0.01  # against the field's mean
    # At two seats, a bot ahead of another head to head and in win share is ranked above it.
    position = {row["name"]: n for n, row in enumerate(rows)}
    share = {row["name"]: row["winShare"] for row in rows}
    ahead = {(p["first"], p["second"]): p["share"] for p in document["pairwise"]}
    for a, b in itertools.permutations(position, 2):
        if share[a] > share[b] and ahead[a, b] > 0.5:
            assert position[a] < position[b]


def test_the_table_and_the_csv_say_the_same(league: Path) -> None:
    document = _json(league)
    table = _arena("standings", "replays", cwd=league)
    assert table.returncode == 0, table.stderr
    assert "2 runs merged" in table.stdout and "cannot be told apart" in table.stdout
    shown = [line.split()[1] for line in table.stdout.splitlines()[3:6]]
    assert shown == [row["name"] for row in document["participants"]]
    done = _arena("standings", "replays", "--csv", cwd=league)
    assert done.returncode == 0, done.stderr
    rows = list(csv.DictReader(io.StringIO(done.stdout)))
    assert [row["name"] for row in rows] == shown
    for row, expected in zip(rows, document["participants"]):
        assert row["place"] == expected["rating"]["place"]
        assert float(row["rating"]) == pytest.approx(expected["rating"]["elo"], abs=1e-3)
        assert int(row["matches"]) == expected["matches"]


def test_without_a_participant_every_figure_is_as_if_it_had_not_played(league: Path) -> None:
    lines = [
        json.loads(line) for line in (league / "replays" / "results.jsonl").read_text().splitlines()
    ]
    with_random = sum(1 for line in lines if "random" in line["seating"])
    done = _arena("standings", "replays", "--json", "--without", "random", cwd=league)
    assert done.returncode == 0, done.stderr
    document = json.loads(done.stdout)
    assert document["without"] == {"name": "random", "droppedMatches": with_random}
    assert f"without random: {with_random} matches dropped" in done.stderr
    assert document["matches"] == len(lines) - with_random
    assert {row["name"] for row in document["participants"]} == {"easy", "hard"}
    easy_hard = [line for line in lines if "random" not in line["seating"]]
    hard_wins = sum(1 for line in easy_hard if line["ranks"][line["seating"].index("hard")] == 1)
    hard = next(row for row in document["participants"] if row["name"] == "hard")
    assert hard["wins"] == hard_wins and hard["matches"] == len(easy_hard)
    report = _arena("report", "replays", "--without", "random", "-o", "out.html", cwd=league)
    assert report.returncode == 0, report.stderr
    assert f"without random: {with_random} matches dropped" in report.stdout
    assert f"wrote out.html ({len(easy_hard)} matches)" in report.stdout


@pytest.mark.parametrize(
    ("arguments", "message"),
    [
        (["nowhere"], "nowhere: no such folder"),
        (["replays", "--without", "nobody"], "--without nobody: no such participant"),
        (["replays", "--json", "--csv"], "--json and --csv: give one"),
        (["replays", "--tournament", "0123456789abcdef"], "--tournament 0123456789abcdef: not in"),
    ],
)
def test_bad_input_is_one_line_and_exit_2(league: Path, arguments: list[str], message: str) -> None:
    done = _arena("standings", *arguments, cwd=league)
    assert done.returncode == 2
    assert message in done.stderr and len(done.stderr.strip().splitlines()) == 1, done.stderr
    assert done.stdout == ""
