"""Every failure is pointed to where the user looks: `arena run` in a real subprocess, with real
bots that fail to start, break rules or run out of time; the counts agree in the terminal, the
replay, `replay show`, results.jsonl and standings.json."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from command import arena_here
from replaymaker import replay_json

from arena.replays import replay

CHECKBOTS = Path(__file__).parent / "checkbots"
HOSTILE = Path(__file__).parent / "hostile"


def _config(folder: Path, command: list[str], extra: str = "", games: int = 1) -> Path:
    path = folder / "config.toml"
    path.write_text(
        f"seed = 3\ngames = {games}\n{extra}\n"
        f'[[participants]]\nname = "mine"\ncommand = {json.dumps(command)}\n'
        '[[participants]]\nname = "steady"\nbot = "easy"\n'
    )
    return path


def _arena(folder: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "HOME": str(Path.home()),
        "COLUMNS": "300",
    }
    return arena_here(*args, cwd=folder, env=env)


def _one_replay(folder: Path) -> tuple[Path, dict]:
    [path] = (folder / "replays").glob("*.json")
    return path, replay_json(path)


def test_a_seat_that_cannot_start_shows_its_fault_stderr_and_log(tmp_path: Path) -> None:
    _config(tmp_path, ["python3", "no_such_bot.py"])
    result = _arena(tmp_path, "run", "config.toml")
    assert result.returncode == 0, result.stderr
    path, _ = _one_replay(tmp_path)
    log = f"replays/{path.stem}.seat0.stderr.log"
    assert (tmp_path / log).is_file()
    assert "mine: exited at message #0 (init): process ended (exit code 2)" in result.stdout
    assert f"last lines of its stderr ({log}):" in result.stdout
    assert "can't open file" in result.stdout and "no_such_bot.py" in result.stdout


def test_refused_asks_are_faults_everywhere_faults_are_counted(tmp_path: Path) -> None:
    _config(tmp_path, [sys.executable, str(CHECKBOTS / "ranks.py")])
    result = _arena(tmp_path, "run", "config.toml")
    assert result.returncode == 0, result.stderr
    path, data = _one_replay(tmp_path)
    refused = data["faultCounts"][0]["refused-ask"]
    invalid = [e for e in data["events"] if e["event"] == "invalid-ask" and e["seat"] == 0]
    assert refused == len(invalid) > 0
    assert (
        f"(2nd, {refused} faults)" in result.stdout or f"(1st, {refused} faults)" in result.stdout
    )
    assert (
        f"mine: {refused} refused asks; the first, at message #{invalid[0]['at']} (ask): ask-card-not-in-hand"
        in result.stdout
    )
    assert replay.verify(replay.from_json(data)) is None
    line = json.loads((tmp_path / "replays" / "results.jsonl").read_text().splitlines()[0])
    assert line["faults"][0] == {"refused-ask": refused}
    shown = _arena(tmp_path, "replay", "show", str(path))
    assert shown.returncode == 0, shown.stderr
    final = shown.stdout[shown.stdout.index("the final table") :]
    [row] = [r for r in final.splitlines() if "mine" in r]
    assert row.rstrip(" │|").split()[-1] == str(refused)


def test_pond_indices_that_are_not_numbers_are_counted_in_standings(tmp_path: Path) -> None:
    _config(tmp_path, [sys.executable, str(CHECKBOTS / "pond_string.py")], games=2)
    result = _arena(tmp_path, "run", "config.toml", "--jobs", "1")
    assert result.returncode == 0, result.stderr
    lines = [
        json.loads(line)
        for line in (tmp_path / "replays" / "results.jsonl").read_text().splitlines()
    ]
    bad = sum(
        line["faults"][line["seating"].index("mine")].get("bad-pond-index", 0) for line in lines
    )
    assert bad > 0
    standings = json.loads((tmp_path / "replays" / "standings.json").read_text())
    [mine] = [p for p in standings["participants"] if p["name"] == "mine"]
    assert mine["faults"]["byKind"]["bad-pond-index"] == bad
    assert "bad-pond-index" in result.stdout  # the faults table of the run
    # and the reason, after it: the first match with such replies, the first of them
    told = result.stdout.split("invalid replies, each participant's first match with them")[1]
    assert "pond indices that were not numbers; the first, at message #" in told
    assert "reply must be a pond index (a number)" in told


def test_a_timeout_says_the_limit_the_time_taken_and_the_settings(tmp_path: Path) -> None:
    _config(
        tmp_path,
        [sys.executable, str(HOSTILE / "slow.py"), "1.5"],
        extra="[limits]\nreplyTimeout = 0.4\nstartupTimeout = 5\ntimeBank = 0.2\n",
    )
    result = _arena(tmp_path, "run", "config.toml")
    assert result.returncode == 0, result.stderr
    _, data = _one_replay(tmp_path)
    [fault] = [f for f in data["faults"] if f["kind"] == "timeout"]
    assert "within 0.6 s" in fault["detail"]  # the reply timeout and the bank
    assert "stopped for the rest of the match" in fault["detail"]
    assert (
        "limits.replyTimeout (0.4 s)" in fault["detail"]
        and "limits.timeBank (0.2 s)" in fault["detail"]
    )
    assert "stopped after 0.6" in fault["detail"]
    assert "mine: timeout at message #" in result.stdout and "limits.replyTimeout" in result.stdout


def test_replay_show_labels_what_the_bot_wrote(tmp_path: Path) -> None:
    _config(tmp_path, [sys.executable, str(CHECKBOTS / "garbage.py")])
    assert _arena(tmp_path, "run", "config.toml").returncode == 0
    path, _ = _one_replay(tmp_path)
    shown = _arena(tmp_path, "replay", "show", str(path))
    assert "not-json" in shown.stdout and "(it wrote: " in shown.stdout
    assert "(sent: " not in shown.stdout  # the arena sends messages; the bot writes replies


def test_a_run_of_many_matches_tells_each_stopped_participant_once(tmp_path: Path) -> None:
    _config(tmp_path, ["python3", "no_such_bot.py"], games=3)
    result = _arena(tmp_path, "run", "config.toml", "--jobs", "1")
    assert result.returncode == 0, result.stderr
    assert "stopped participants, each at its first time" in result.stdout
    assert result.stdout.count("mine: exited at message #0 (init)") == 1
    assert "can't open file" in result.stdout and ".seat0.stderr.log" in result.stdout


def test_replies_that_are_not_json_are_told_first_with_what_the_bot_wrote(tmp_path: Path) -> None:
    # A debug print before every ask: the print is taken as the reply (not JSON), and the real
    # reply comes when nothing was asked. The first of those is what the writer must see.
    _config(tmp_path, [sys.executable, str(CHECKBOTS / "debug_prints.py")])
    result = _arena(tmp_path, "run", "config.toml")
    assert result.returncode == 0, result.stderr
    _, data = _one_replay(tmp_path)
    [first] = [f for f in data["faults"] if f["kind"] == "not-json"][:1]
    told = [line for line in result.stdout.splitlines() if line.startswith("  mine: ")]
    assert told[0].startswith(
        f"  mine: {data['faultCounts'][0]['not-json']} replies that were not JSON; "
        f"the first, at message #{first['at']} (ask): "
    )
    assert "it wrote 'thinking about" in told[0] and "log to stderr" in told[0]
    # The real reply then comes when nothing was asked: unasked output, told after it whenever
    # the replay recorded it (whether the arena sees it before its next message is timing).
    unasked = data["faultCounts"][0].get("unsolicited-output", 0)
    assert any("outputs nobody asked for" in line for line in told[1:]) == (unasked > 0)


@pytest.mark.skipif(shutil.which("node") is None, reason="needs Node.js")
def test_a_node_crash_shows_its_error_line_not_only_stack_frames(tmp_path: Path) -> None:
    script = tmp_path / "bot.js"
    script.write_text((CHECKBOTS / "unknown_type.js").read_text())
    _config(tmp_path, ["node", "bot.js"], extra="[rules]\nluckyDraw = true\n")
    result = _arena(tmp_path, "run", "config.toml")
    assert result.returncode == 0, result.stderr
    assert "mine: exited at message #" in result.stdout and "(lucky-draw)" in result.stdout
    tail = result.stdout[result.stdout.index("last lines of its stderr") :]
    assert "Error: unknown message lucky-draw" in tail
    assert "more stack lines" in tail


def test_a_stopped_seats_lost_turns_say_it_was_stopped(tmp_path: Path) -> None:
    _config(tmp_path, [sys.executable, str(CHECKBOTS / "crash_after_init.py")])
    assert _arena(tmp_path, "run", "config.toml").returncode == 0
    path, data = _one_replay(tmp_path)
    lost = [e for e in data["events"] if e["event"] == "invalid-ask" and e["seat"] == 0]
    assert lost
    shown = _arena(tmp_path, "replay", "show", str(path))
    assert shown.returncode == 0, shown.stderr
    said = [line for line in shown.stdout.splitlines() if "mine could not ask" in line]
    assert len(said) == len(lost)
    assert " ".join(said[0].split()[1:]) == (
        "mine could not ask: it was stopped earlier; the turn passes"
    )
    assert "was gone" not in shown.stdout


def test_leaving_at_match_end_is_no_fault_to_be_told(tmp_path: Path) -> None:
    # It played the match to its end: no fault, no "stopped" note (docs/rulings.md, Time).
    _config(tmp_path, [sys.executable, str(CHECKBOTS / "quiet_at_match_end.py")])
    result = _arena(tmp_path, "run", "config.toml")
    assert result.returncode == 0, result.stderr
    assert not [line for line in result.stdout.splitlines() if line.startswith("  mine: exited")]
    assert "fault" not in result.stdout.splitlines()[0], result.stdout


@pytest.mark.needs("bwrap")
def test_a_seat_stopped_by_the_sandbox_is_told_what_to_do_instead(tmp_path: Path) -> None:
    # A log file beside the bot: its folder is read-only in the sandbox, as `arena check` says.
    (tmp_path / "bot.py").write_text(
        "import sys\nopen('bot.log', 'a')\nfor line in sys.stdin:\n    print('null', flush=True)\n"
    )
    _config(tmp_path, ["python3", "bot.py"])
    result = _arena(tmp_path, "run", "config.toml")
    assert result.returncode == 0, result.stderr
    # (As root it runs as `nobody`, refused the folder before its read-only mount is seen.)
    assert any(
        f"{why}: 'bot.log'" in result.stdout
        for why in ("Read-only file system", "Permission denied")
    )
    assert any(
        f"    in the sandbox: it {hint}" in result.stdout
        for hint in ("tried to write outside its temporary folder", "was refused a file")
    ), result.stdout
    # Unconfined, the same write works: no such line.
    (tmp_path / "config.toml").write_text(
        (tmp_path / "config.toml")
        .read_text()
        .replace("games = 1\n", 'games = 1\n[limits]\nsandbox = "none"\n')
    )
    result = _arena(tmp_path, "run", "config.toml")
    assert "in the sandbox" not in result.stdout
