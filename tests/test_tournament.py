"""Tournaments: fair schedules, duplicate deals, results.jsonl, resume, parallel runs, reuse.

Real participants throughout (built-in bots in-process or as subprocesses, and a small
SDK bot that asks to be reused); the interrupt test kills the real CLI with SIGINT.
"""

from __future__ import annotations

import itertools
import json
import os
import signal
import subprocess
import sys
import time
import uuid
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from command import arena_here, arena_process, arena_started

from arena.base import config as config_module
from arena.base import shutdown
from arena.tournaments import tournament
from arena.tournaments.executors import InlineExecutor
from arena.tournaments.pool import LocalExecutor
from arena.tournaments.runner import MatchPlayed, MatchTask, play_task
from arena.tournaments.schedule import Schedule

ROOT = Path(__file__).resolve().parent.parent

# --- the schedule ------------------------------------------------------------------------


@pytest.mark.parametrize(("players", "seats"), [(2, 2), (3, 2), (4, 3), (4, 4), (5, 3)])
def test_every_seating_is_played_equally_often(players: int, seats: int) -> None:
    schedule = Schedule(players, seats, seed=9)
    expected = set(itertools.permutations(range(players), seats))
    assert schedule.seatings == len(expected)
    counts = Counter(schedule.slot(game).seating for game in range(3 * schedule.seatings))
    assert set(counts) == expected
    assert set(counts.values()) == {3}


@pytest.mark.parametrize(("players", "seats", "games"), [(6, 2, 37), (5, 3, 71), (7, 4, 100)])
def test_a_partial_round_spreads_seatings_and_players_evenly(
    players: int, seats: int, games: int
) -> None:
    schedule = Schedule(players, seats, seed=3)
    slots = [schedule.slot(game) for game in range(games)]
    counts = Counter(slot.seating for slot in slots)
    assert max(counts.values()) - min(counts.values(), default=0) <= 1
    assert max(counts.values()) == 1 or len(counts) == schedule.seatings
    # Each player's number of matches stays within one duplicate group of everyone else's
    # (k matches), far tighter than a random draw would give.
    played = Counter(player for slot in slots for player in slot.seating)
    assert len(played) == players
    assert max(played.values()) - min(played.values()) <= 2 * seats


def test_the_schedule_is_a_function_of_the_seed() -> None:
    first = [Schedule(6, 3, seed=42).slot(game) for game in range(120)]
    again = [Schedule(6, 3, seed=42).slot(game) for game in range(120)]
    other = [Schedule(6, 3, seed=43).slot(game) for game in range(120)]
    assert first == again
    assert [s.seating for s in first] != [s.seating for s in other]
    assert first[0].seating == (
        0,
        1,
        2,
    )  # the first match seats the config's first players in order


def test_duplicate_groups_rotate_the_seats_over_one_deal() -> None:
    schedule = Schedule(4, 3, seed=100)
    for group in range(10):
        slots = [schedule.slot(3 * group + rotation) for rotation in range(3)]
        base = slots[0].seating
        for rotation, slot in enumerate(slots):
            assert slot.seed == 100 + 3 * group + rotation  # contract §5.1: match i plays seed + i
            assert slot.deal_seed == 100 + 3 * group  # the group's first seed
            assert slot.seating == tuple(base[(seat - rotation) % 3] for seat in range(3))
    fresh = Schedule(4, 3, seed=100, duplicate=False)
    assert [fresh.slot(game).deal_seed for game in range(6)] == [100, 101, 102, 103, 104, 105]


# --- helpers for real runs ---------------------------------------------------------------

REUSE_BOT = """\
import os, sys, uuid
sys.path.insert(0, {root!r})
from arena.bots import RandomBot
from arena.sdk import run

TOKEN = uuid.uuid4().hex


class Kept(RandomBot):
    reuse = True

    def on_start(self):
        self.log(f"process {{TOKEN}}")  # not the pid: a pid repeats across sandboxes

run(Kept())
"""


def write_config(folder: Path, body: str, *, name: str = "config.toml") -> Path:
    path = folder / name
    path.write_text(body)
    return path


def bots_config(
    folder: Path,
    levels: list[str],
    *,
    header: str = "",
    tournament_section: str = "",
    env: str = "",
) -> Path:
    participants = "".join(
        f'[[participants]]\nname = "{level}{index}"\nbot = "{level}"\n{env}\n'
        for index, level in enumerate(levels)
    )
    return write_config(folder, f"{header}\n[tournament]\n{tournament_section}\n{participants}")


def load(path: Path, **overrides: Any) -> tuple[config_module.Config, list[config_module.Entrant]]:
    return config_module.load(path, **overrides)


def results(folder: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in (folder / "results.jsonl").read_text().splitlines()]


def transcripts(folder: Path) -> dict[int, list[Any]]:
    by_game: dict[int, list[Any]] = {}
    for line in results(folder):
        data = json.loads((folder / line["replay"]).read_text())
        by_game[line["game"]] = data["transcript"]
    return by_game


def processes_marked(marker: str) -> list[int]:
    """Processes whose environment holds `marker` (the CLI, its workers, its participants)."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit() or int(entry.name) == os.getpid():
            continue
        try:
            environ = (entry / "environ").read_bytes()
            state = (entry / "stat").read_text().rsplit(")", 1)[1].split()[0]
        except OSError:
            continue
        if marker.encode() in environ and state != "Z":
            found.append(int(entry.name))
    return found


def wait_for_no_process(marker: str, seconds: float = 5.0) -> list[int]:
    deadline = time.monotonic() + seconds
    while (left := processes_marked(marker)) and time.monotonic() < deadline:
        time.sleep(0.05)
    return left


# --- runs through the library --------------------------------------------------------------


def test_duplicate_deals_share_one_deck_across_rotations(tmp_path: Path) -> None:
    path = bots_config(tmp_path, ["random", "easy", "hard"], header="seed = 5\ngames = 6\n")
    config, seats = load(path)
    plan = tournament.prepare(path, config, seats)
    report = tournament.run(plan, InlineExecutor, window=1)
    assert report.played == 6 and not report.interrupted
    replays = {
        line["game"]: json.loads((plan.folder / line["replay"]).read_text())
        for line in results(plan.folder)
    }
    for group in (0, 1):
        decks = [replays[3 * group + rotation]["deck"] for rotation in range(3)]
        assert decks[0] == decks[1] == decks[2]
        names = [[p["name"] for p in replays[3 * group + r]["players"]] for r in range(3)]
        # Every player holds every seat's hand once.
        for player in names[0]:
            assert sorted(seating.index(player) for seating in names) == [0, 1, 2]
        assert [replays[3 * group + r]["seed"] for r in range(3)] == [
            5 + 3 * group + r for r in range(3)
        ]
    assert replays[0]["deck"] != replays[3]["deck"]


def test_results_lines_and_a_resume_that_plays_exactly_the_missing_matches(tmp_path: Path) -> None:
    path = bots_config(
        tmp_path,
        ["random", "easy", "medium"],
        header="seed = 77\ngames = 16\n",
        tournament_section="seats = 2",
    )
    config, seats = load(path)
    plan = tournament.prepare(path, config, seats)

    class StopAtTheSixthMatch(InlineExecutor):
        def submit(self, fn: Any, /, *args: Any, **kwargs: Any) -> Any:
            if args[0].match == 5:
                shutdown.token.request()  # as the CLI's handler does on Ctrl-C
            return super().submit(fn, *args, **kwargs)

    try:
        report = tournament.run(plan, StopAtTheSixthMatch, window=1)
    finally:
        shutdown.token.clear()
    assert report.interrupted and report.played == 5
    first = results(plan.folder)
    assert [line["game"] for line in first] == [0, 1, 2, 3, 4]
    line = first[1]
    assert line["tournament"] == plan.id == tournament.tournament_id(config, 77)
    assert (line["run"], line["seed"], line["matchSeed"], line["dealSeed"]) == (
        plan.run,
        77,
        78,
        77,
    )
    assert line["seating"] == [seats[i].name for i in line["seats"]] and line["rotation"] == 1
    assert line["outcome"] == "completed" and sum(line["scores"]) == 13
    assert len(line["faults"]) == len(line["invalidAsks"]) == 2
    assert (plan.folder / line["replay"]).is_file()

    config, seats = load(path)
    resumed = tournament.prepare(path, config, seats, resume=True)
    assert (
        resumed.resumed
        and resumed.run == plan.run
        and list(resumed.missing()) == list(range(5, 16))
    )
    assert tournament.run(resumed, InlineExecutor, window=1).played == 11
    lines = results(plan.folder)
    assert sorted(line["game"] for line in lines) == list(range(16))
    assert {line["run"] for line in lines} == {plan.run}
    standings = json.loads(resumed.write_standings().read_text())
    assert standings["matches"] == 16 and standings["complete"] is True

    # The same tournament played straight through gives the same matches.
    straight = tmp_path / "straight"
    straight.mkdir()
    other = write_config(straight, path.read_text())
    config, seats = load(other)
    whole = tournament.prepare(other, config, seats)
    tournament.run(whole, InlineExecutor, window=1)
    assert transcripts(whole.folder) == transcripts(plan.folder)


def test_two_jobs_give_the_transcripts_of_one(tmp_path: Path) -> None:
    path = bots_config(
        tmp_path,
        ["random", "easy", "hard", "expert"],
        header="seed = 1\ngames = 12\n",
        tournament_section="seats = 3",
    )
    config, seats = load(path)
    one = tournament.prepare(path, config, seats)
    tournament.run(one, InlineExecutor, window=1)
    two = tournament.prepare(path, config, seats)
    report = tournament.run(two, lambda: LocalExecutor(2), window=4)
    assert report.played == 12
    by_run: dict[str, dict[int, list[Any]]] = {}
    for line in results(one.folder):
        data = json.loads((one.folder / line["replay"]).read_text())
        by_run.setdefault(line["run"], {})[line["game"]] = data["transcript"]
    assert by_run[one.run] == by_run[two.run]
    assert len(by_run[one.run]) == 12


@pytest.mark.parametrize("levels", [("random", "easy", "medium"), ("hard", "expert", "easy")])
def test_in_process_bots_give_the_very_transcript_of_their_subprocess_form(
    tmp_path: Path, levels: tuple[str, ...]
) -> None:
    path = bots_config(tmp_path, list(levels), header="seed = 2024\n")
    config, seats = load(path)

    def played(in_process: bool) -> MatchPlayed:
        return play_task(MatchTask(config, tuple(seats), 0, 2024, 2024, in_process_bots=in_process))

    inside, outside = played(True), played(False)
    assert json.loads(inside.document)["transcript"] == json.loads(outside.document)["transcript"]
    assert inside.line.outcome == outside.line.outcome == "completed"
    assert json.loads(outside.document)["faults"] == []


@pytest.mark.slow
def test_reused_participants_play_the_same_matches_in_fewer_processes(tmp_path: Path) -> None:
    marker = f"ARENA_TEST_{uuid.uuid4().hex}"
    (tmp_path / "kept.py").write_text(REUSE_BOT.format(root=str(ROOT)))
    participants = "".join(
        f'[[participants]]\nname = "{name}"\ncommand = ["{sys.executable}", "kept.py"]\n'
        f'env = {{ MARK = "{marker}" }}\n'
        for name in ("ann", "bob")
    )
    runs = {}
    for reuse, jobs in ((True, 1), (False, 1), (True, 2)):
        folder = tmp_path / f"reuse-{reuse}-{jobs}"
        folder.mkdir()
        (folder / "kept.py").write_text(REUSE_BOT.format(root=str(ROOT)))
        path = write_config(
            folder,
            f"seed = 8\ngames = 6\n[tournament]\nreuse = {str(reuse).lower()}\n{participants}",
        )
        config, seats = load(path)
        plan = tournament.prepare(path, config, seats)
        executor = InlineExecutor if jobs == 1 else (lambda: LocalExecutor(2))
        assert tournament.run(plan, executor, window=2 * jobs).played == 6
        pids = {log.read_text() for log in plan.folder.glob("*.stderr.log")}
        deals: dict[str, list[int]] = {}
        for log in plan.folder.glob("*.stderr.log"):
            document = json.loads(log.with_name(log.name.split(".seat")[0] + ".json").read_text())
            deals.setdefault(log.read_text(), []).append(document["dealSeed"])
        assert all(len(seeds) == len(set(seeds)) for seeds in deals.values()), (
            deals
        )  # never one deal twice
        # The moves, without the notes: a process's stderr at its start is the note of its first
        # exchange, so notes differ with the processes while the matches do not.
        played = {
            game: [{k: v for k, v in entry.items() if k != "notes"} for entry in entries]
            for game, entries in transcripts(plan.folder).items()
        }
        runs[reuse, jobs] = (played, len(pids))
        assert wait_for_no_process(marker) == []  # the kept ones too: closed at the end of the run
    assert runs[True, 1][0] == runs[False, 1][0] == runs[True, 2][0]
    # No process that has seen a deal lives while another plays it: a process is kept only
    # after the last rotation of its deal, so of 3 groups of 2 rotations, each participant
    # starts afresh for 4 matches (the first group's two, and the second rotation of the
    # others) and plays the other 2 with a kept process.
    assert runs[True, 1][1] == 8
    assert runs[False, 1][1] == 12
    assert 8 <= runs[True, 2][1] <= 12  # as many per worker


# --- the real CLI ---------------------------------------------------------------------------


@pytest.mark.slow
def test_sigint_stops_every_match_and_resume_finishes_the_tournament(tmp_path: Path) -> None:
    marker = f"ARENA_TEST_{uuid.uuid4().hex}"
    path = bots_config(
        tmp_path,
        ["random", "easy", "hard"],
        header="games = 8\n",
        tournament_section="seats = 2\ninProcessBots = false\nreuse = false",
        env=f'env = {{ MARK = "{marker}" }}',
    )
    env = {**os.environ, "MARK": marker}
    process = arena_started("run", str(path), "--jobs", "2", cwd=tmp_path, env=env)
    results_file = tmp_path / "replays" / "results.jsonl"
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and process.poll() is None:
        if results_file.exists() and len(results_file.read_text().splitlines()) >= 2:
            break
        time.sleep(0.02)
    process.send_signal(signal.SIGINT)
    stdout, stderr = process.communicate(timeout=20)
    assert process.returncode == 130, stdout + stderr
    assert wait_for_no_process(marker) == []
    assert "seed" in stdout and "(drawn" in stdout
    first = results(tmp_path / "replays")
    assert 2 <= len(first) < 8
    assert len({line["seed"] for line in first}) == 1

    # As the stopped run was: a process (tests/command.py).
    resumed = arena_process("run", str(path), "--resume", "--jobs", "2", cwd=tmp_path, env=env)
    assert resumed.returncode == 0, resumed.stdout + resumed.stderr
    assert f"{len(first)} of 8 already played" in resumed.stdout
    lines = results(tmp_path / "replays")
    assert sorted(line["game"] for line in lines) == list(range(8))
    assert lines[: len(first)] == first
    assert {line["seed"] for line in lines} == {first[0]["seed"]}
    standings = json.loads((tmp_path / "replays" / "standings.json").read_text())
    assert standings["matches"] == 8 and standings["complete"] is True
    assert wait_for_no_process(marker) == []


def test_a_single_match_prints_as_before(tmp_path: Path) -> None:
    path = bots_config(tmp_path, ["random", "easy"], header="seed = 5\n")
    played = arena_here("run", str(path), cwd=tmp_path)
    assert played.returncode == 0, played.stderr
    lines = played.stdout.splitlines()
    assert len(lines) == 2, played.stdout
    assert lines[0].startswith("game 0  seed 5  completed  random0 ")
    assert lines[1].strip().startswith("replay: replays/") and lines[1].strip().endswith(".json")
    assert not (tmp_path / "replays" / "standings.json").exists()
    assert len(results(tmp_path / "replays")) == 1


def test_usage_errors_exit_2_with_one_line(tmp_path: Path) -> None:
    path = bots_config(tmp_path, ["random", "easy"])
    refused = arena_here("run", str(path), "--resume", cwd=tmp_path)
    assert refused.returncode == 2
    assert "--resume" in refused.stderr and len(refused.stderr.strip().splitlines()) == 1
    assert arena_here("run", str(path), "--jobs", "0", cwd=tmp_path).returncode == 2


def test_a_bot_that_asks_for_reuse_then_exits_never_forfeits(tmp_path: Path) -> None:
    """Its next match gets a fresh process, not a dead one charged as a crash."""
    bot = Path(__file__).parent / "hostile" / "reuse_then_exits.py"
    config = tmp_path / "c.toml"
    config.write_text(
        f'seed = 4\ngames = 6\n[[participants]]\nname = "quitter"\ncommand = ["{sys.executable}", "{bot}"]\n'
        '[[participants]]\nname = "steady"\nbot = "random"\n'
    )
    done = arena_here("run", str(config), "--jobs", "1", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    lines = [
        json.loads(line)
        for line in (tmp_path / "replays" / "results.jsonl").read_text().splitlines()
    ]
    assert len(lines) == 6
    for replay in (tmp_path / "replays").glob("*-g*.json"):
        data = json.loads(replay.read_text())
        assert data["faults"] == [], (replay.name, data["faults"])
        assert data["result"]["outcome"] == "completed"


# --- `[tournament] title`, through the real CLI: a label in the terminal, standings.json and the
# report's heading, refused in one line when unprintable or too long, and not part of the id.


SEATS = (
    "[[participants]]\nname = 'a'\nbot = 'random'\n[[participants]]\nname = 'b'\nbot = 'random'\n"
)
TITLE = "Friday night <b>ladder</b> & co"


def _arena(folder: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "HOME": str(Path.home()),
        "COLUMNS": "200",
    }
    return arena_here(*args, cwd=folder, env=env)


def _config(folder: Path, tournament: str) -> None:
    folder.mkdir()
    (folder / "config.toml").write_text(
        f"seed = 3\ngames = 2\n[rules]\nstartingHandSize = 5\n{tournament}\n{SEATS}"
    )


def test_the_title_labels_the_run_but_not_its_id(tmp_path: Path) -> None:
    _config(tmp_path / "titled", f"[tournament]\ntitle = {json.dumps(TITLE)}")
    _config(tmp_path / "plain", "[tournament]")
    titled = _arena(tmp_path / "titled", "run", "config.toml")
    plain = _arena(tmp_path / "plain", "run", "config.toml")
    assert titled.returncode == 0, titled.stderr
    assert plain.returncode == 0, plain.stderr
    lines = titled.stdout.splitlines()
    assert lines[0] == TITLE  # at the start of the run
    at = [i for i, line in enumerate(lines) if line == TITLE]
    assert len(at) == 2 and "standings after" in lines[at[1] + 1]  # and above its standings
    assert TITLE not in plain.stdout
    titled_doc = json.loads((tmp_path / "titled/replays/standings.json").read_text())
    plain_doc = json.loads((tmp_path / "plain/replays/standings.json").read_text())
    assert titled_doc["title"] == TITLE and "title" not in plain_doc
    assert titled_doc["tournament"] == plain_doc["tournament"]  # a label only
    # The report (written by the run, and again by `arena report`): the title is its heading,
    # as data (escaped in <title>, set as textContent by report.js), never as markup.
    for _ in range(2):
        page = (tmp_path / "titled/replays/report.html").read_text()
        assert "<title>Friday night &lt;b&gt;ladder&lt;/b&gt; &amp; co</title>" in page
        assert "<b>ladder</b>" not in page
        assert '"title":"Friday night' in page.replace('": "', '":"')
        result = _arena(tmp_path / "titled", "report", "replays")
        assert result.returncode == 0, result.stderr


@pytest.mark.parametrize("title", ['"a\\u0007b"', '"a\\u202eb"', json.dumps("x" * 201), "''"])
def test_a_bad_title_is_refused_in_one_line(tmp_path: Path, title: str) -> None:
    _config(tmp_path / "run", f"[tournament]\ntitle = {title}")
    result = _arena(tmp_path / "run", "run", "config.toml")
    assert result.returncode == 2, result.stderr
    assert len(result.stderr.strip().splitlines()) == 1, result.stderr
    assert "title" in result.stderr and "Traceback" not in result.stderr
    assert not (tmp_path / "run/replays").exists()
