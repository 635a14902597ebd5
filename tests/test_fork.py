"""`arena replay fork`: a replay continued from one of its messages, with the same or other players."""

from __future__ import annotations

import hashlib
import io
import json
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from command import arena_here, arena_process
from replaymaker import make_replay, quit_game, replay_json
from rich.console import Console
from test_viewer import Browser, browser  # noqa: F401 -- the fixture, shared

from arena.base.errors import ConfigError, ReplayError
from arena.replays import fork, replay
from arena.ui import show, viewer

GOLDEN = Path(__file__).parent / "golden"
Played = Callable[[str], tuple[Path, Path]]
# Every golden config plays deterministic participants: built-in bots and the scripted fake.
FORKED_CONFIGS = sorted(p.stem for p in (GOLDEN / "configs").glob("*.toml"))


@pytest.fixture
def played(tmp_path: Path, golden_run: Callable[[str], Path]) -> Played:
    """`played(name)`: a copy in `tmp_path` of the folder where the golden config `name` was
    run (conftest's `golden_run`); its `configs` folder and its first replay."""

    def copy(name: str) -> tuple[Path, Path]:
        shutil.copytree(
            golden_run(name),
            tmp_path,
            dirs_exist_ok=True,
            ignore=shutil.ignore_patterns("__pycache__"),
        )
        folder = tmp_path / "configs"
        first = min(p for p in (folder / "replays").glob("*.json") if p.name != "standings.json")
        return folder, first

    return copy


def _the_match(document: dict[str, Any]) -> dict[str, Any]:
    """What must be the same in a fork with nobody replaced: every message, reply and fault."""

    def fault(f: dict[str, Any]) -> tuple[Any, ...]:
        return (f["seat"], f["at"], f["kind"], f.get("raw"), f.get("exitCode"))

    def entry(e: dict[str, Any]) -> dict[str, Any]:
        kept = {k: v for k, v in e.items() if k not in ("noReply", "unsolicited")}
        for key in ("noReply", "unsolicited"):
            if key in e:
                kept[key] = e[key]["kind"]
        return kept

    return {
        "deck": document["deck"],
        "startingPlayer": document["startingPlayer"],
        "transcript": [entry(e) for e in document["transcript"]],
        "events": document["events"],
        "result": document["result"],
        "faults": [fault(f) for f in document["faults"]],
        "faultCounts": document["faultCounts"],
    }


@pytest.mark.parametrize(
    ("name", "quarters"),
    # Forked a quarter of the way in, or three quarters, every other config.
    [pytest.param(name, 1 + 2 * (i % 2), id=name) for i, name in enumerate(FORKED_CONFIGS)],
)
def test_a_fork_with_nobody_replaced_is_the_recorded_match(
    played: Played, name: str, quarters: int
) -> None:
    folder, source = played(name)
    document = replay_json(source)
    at = quarters * len(document["transcript"]) // 4
    out = folder / "fork.json"
    path, forked = fork.fork_file(source, str(at), [], out, cwd=folder)
    assert path == out
    assert replay.verify(replay.read(path)) is None
    again = replay_json(path)
    assert _the_match(again) == _the_match(document), f"fork at {at}"
    assert again["fork"]["at"] == at and again["fork"]["replaced"] == []
    # Every live seat was sent each of its messages before the point; their replies are aside.
    live = {s for s, p in enumerate(forked.record.commands) if p}
    assert {(i["at"], i["seat"]) for i in again["fork"]["ignored"]} <= {
        (i, e["seat"]) for i, e in enumerate(document["transcript"][:at]) if e["seat"] in live
    }


def test_a_replaced_seat_plays_live_from_the_point(played: Played) -> None:
    folder, source = played("fault-exit")  # seat 0 exits at its 40th message
    document = replay_json(source)
    done = arena_here(
        "replay",
        "fork",
        str(source),
        "--at",
        "turn:3",
        "--seat",
        "0=hard",
        "-o",
        "fixed.json",
        cwd=folder,
    )
    assert done.returncode == 0, done.stderr
    forked = replay_json(folder / "fixed.json")
    at = forked["fork"]["at"]
    assert forked["fork"]["turn"] == 3 and forked["fork"]["replaced"] == [
        {"seat": 0, "bot": "hard"}
    ]
    assert forked["transcript"][:at] == document["transcript"][:at]
    assert not [f for f in forked["faults"] if f["seat"] == 0 and f["kind"] == "exited"]
    assert arena_here("replay", "verify", "fixed.json", cwd=folder).returncode == 0
    # The bot that replaced seat 0 was sent seat 0's messages before the point, from `init` on.
    ignored = forked["fork"]["ignored"]
    assert [i["at"] for i in ignored if i["seat"] == 0] == [
        i for i, e in enumerate(document["transcript"][:at]) if e["seat"] == 0
    ]
    # The turn is the one `replay show` prints as "turn 3".
    shown = arena_here("replay", "show", str(source), cwd=folder).stdout
    line_after = shown.split("turn 3:", 1)[1].splitlines()[1]
    assert line_after.split()[0] == str(at)
    marked = arena_here("replay", "show", "fixed.json", cwd=folder).stdout
    assert f"forked from {source.name} at message {at}" in marked
    assert f"forked here; seat 0 replaced: live from message {at} on" in marked


def test_a_seat_stopped_before_the_point_stays_stopped(played: Played) -> None:
    folder, source = played("fault-hang")  # seat 0 stops answering: timed out, stopped
    document = replay_json(source)
    stopped_at = next(f["at"] for f in document["faults"] if f["kind"] == "timeout")
    path, forked = fork.fork_file(
        source, str(stopped_at + 5), [], folder / "later.json", cwd=folder
    )
    again = replay_json(path)
    assert _the_match(again) == _the_match(document)
    assert all(
        e.get("delivered") is False for e in again["transcript"][stopped_at + 1 :] if e["seat"] == 0
    )
    assert forked.origin["ignored"] and all(i["seat"] == 1 for i in forked.origin["ignored"])


def test_a_command_replaces_a_seat(played: Played) -> None:
    folder, source = played("classic")
    out = folder / "cmd.json"
    bot = f"{sys.executable} {GOLDEN / 'fakes' / 'scripted.py'}"
    path, _ = fork.fork_file(source, "30", [f"1={bot}"], out, cwd=folder)
    again = replay_json(path)
    assert again["players"][1]["command"][1].endswith("scripted.py")
    assert again["fork"]["replaced"] == [
        {"seat": 1, "command": [sys.executable, str(GOLDEN / "fakes" / "scripted.py")]}
    ]
    assert replay.verify(replay.read(path)) is None
    # Written next to an existing file, a fork never overwrites it.
    second, _ = fork.fork_file(source, "30", [], out, cwd=folder)
    assert second.name == "cmd-2.json" and replay_json(path) == again


@pytest.mark.parametrize(
    ("at", "seats", "error", "words"),
    [
        ("100000", [], ReplayError, "the replay has messages 0.."),
        ("turn:9999", [], ReplayError, "the replay has turns 1.."),
        ("turn:0", [], ReplayError, "the replay has turns 1.."),
        ("t7", [], ReplayError, "give a message index (57) or a turn (turn:7)"),
        ("-3", [], ReplayError, "give a message index"),
        ("5", ["7=hard"], ConfigError, "--seat 7: the replay has seats 0..1"),
        ("5", ["x=hard"], ConfigError, "write SEAT=LEVEL or SEAT=COMMAND"),
        ("5", ["1=./no-such-bot"], ConfigError, "not found"),
        ("5", ["1='unclosed"], ConfigError, "cannot split"),
    ],
)
def test_bad_points_and_seats_are_one_line(
    played: Played, at: str, seats: list[str], error: type[Exception], words: str
) -> None:
    folder, source = played("classic")
    with pytest.raises(error, match=None) as raised:
        fork.fork_file(source, at, seats, folder / "x.json", cwd=folder)
    assert words in str(raised.value) and "\n" not in str(raised.value)
    assert not (folder / "x.json").exists()


def test_the_cli_refuses_a_replay_that_does_not_verify(played: Played) -> None:
    folder, source = played("classic")
    document = json.loads(source.read_text(encoding="utf-8"))
    document["deck"][0], document["deck"][1] = document["deck"][1], document["deck"][0]
    bad = folder / "edited.json"
    bad.write_text(json.dumps(document), encoding="utf-8")
    done = arena_here("replay", "fork", str(bad), "--at", "20", "-o", "out.json", cwd=folder)
    assert done.returncode == 2
    assert (
        "does not verify, so it cannot be forked" in done.stderr and "Traceback" not in done.stderr
    )
    assert len(done.stderr.strip().splitlines()) == 1
    assert not (folder / "out.json").exists()


def test_show_and_the_page_mark_the_fork_point(played: Played, browser: Browser) -> None:  # noqa: F811
    folder, source = played("classic")
    path, _ = fork.fork_file(source, "turn:4", ["0=easy"], folder / "f.json", cwd=folder)
    document = replay.read(path)
    assert document.fork is not None
    console = Console(file=io.StringIO(), width=200, record=True)
    console.print(show.render(document))
    assert f"forked here; seat 0 replaced: live from message {document.fork.at} on" in (
        console.export_text()
    )
    page = folder / "f.html"
    page.write_text(viewer.render(document), encoding="utf-8")
    browser.open(page.as_uri())
    mark = browser.js("document.querySelector('#log li.fork-mark').textContent")
    assert f"live from message {document.fork.at}" in mark and "seat 0: easy for hal" in mark
    following = browser.js(
        "(() => { const m = document.querySelector('#log li.fork-mark'); return m.nextElementSibling.value })()"
    )
    assert following >= document.fork.at
    assert not [e for e in browser.events if e["method"] == "Runtime.exceptionThrown"]


def test_a_played_game_forks_only_with_its_person_replaced(tmp_path: Path) -> None:
    # `arena play` records the human seat with no command: nothing can play it again.
    source = quit_game(tmp_path, seed=4)
    refused = arena_here("replay", "fork", str(source), "--at", "3", "-o", "f.json", cwd=tmp_path)
    assert refused.returncode == 2
    assert refused.stderr.strip() == (
        "seat 0 (you) was played by a person (arena play), who cannot be run again: "
        "replace it with --seat 0=LEVEL or --seat 0=COMMAND"
    )
    assert not (tmp_path / "f.json").exists()
    done = arena_here(
        "replay", "fork", str(source), "--at", "3", "--seat", "0=easy", "-o", "f.json", cwd=tmp_path
    )
    assert done.returncode == 0, done.stderr
    assert arena_here("replay", "verify", "f.json", cwd=tmp_path).returncode == 0


@pytest.mark.needs("bwrap")
def test_a_replay_that_says_no_sandbox_does_not_run_its_commands_unconfined(
    tmp_path: Path,
) -> None:
    # A replay anyone may have edited: a seat's command writes outside its folder, and the
    # file says its run was not sandboxed. The fork runs it as `auto` would: confined.
    source = make_replay(tmp_path / "t", ["ada", "hal"])
    document = json.loads(source.read_text(encoding="utf-8"))
    marker = tmp_path / "escaped"
    document["players"][1]["command"] = [
        "sh",
        "-c",
        f"touch {marker}; exec {sys.executable} -m arena.bots random",
    ]
    document["players"][1].pop("inProcess", None)
    document["config"]["limits"]["sandbox"] = "none"
    edited = tmp_path / "edited.json"
    edited.write_text(json.dumps(document), encoding="utf-8")
    done = arena_here("replay", "fork", str(edited), "--at", "5", "-o", "f.json", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert not marker.exists()
    forked = json.loads((tmp_path / "f.json").read_text(encoding="utf-8"))
    assert forked["players"][1]["sandbox"] == "bwrap"
    assert forked["fork"]["sourceSha256"] == hashlib.sha256(edited.read_bytes()).hexdigest()


def _running_under(ancestor: int, mark: str) -> bool:
    """Whether a process descended from `ancestor` has `mark` in its command line."""
    parents: dict[int, int] = {}
    lines: dict[int, bytes] = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                stat = (entry / "stat").read_text()
                parents[int(entry.name)] = int(stat.rsplit(")", 1)[1].split()[1])
                lines[int(entry.name)] = (entry / "cmdline").read_bytes()
            except (OSError, ValueError, IndexError):
                continue
    for pid, line in lines.items():
        seen = parents.get(pid, 0) if pid != ancestor else 0  # not the arena's own line
        while mark.encode() in line and seen > 1:
            if seen == ancestor:
                return True
            seen = parents.get(seen, 0)
    return False


@pytest.mark.parametrize(("stop", "status"), [(signal.SIGINT, 130), (signal.SIGTERM, 143)])
def test_a_fork_stopped_by_a_signal_writes_nothing_and_says_so(
    played: Played, stop: signal.Signals, status: int
) -> None:
    folder, source = played("classic")
    never = Path(__file__).parent / "hostile" / "never_answers.py"
    forking = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "arena",
            "replay",
            "fork",
            str(source),
            "--at",
            "4",
            "--seat",
            f"0={sys.executable} {never}",
            "-o",
            "f.json",
        ],
        cwd=folder,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    # Stopped while it plays, however slowly a busy machine started it: once the seat's
    # program is running under it (a fixed sleep was sometimes before the arena's own start).
    deadline = time.monotonic() + 60
    while not _running_under(forking.pid, str(never)):
        assert forking.poll() is None and time.monotonic() < deadline, forking.communicate()
        time.sleep(0.05)
    forking.send_signal(stop)
    out, err = forking.communicate(timeout=30)
    assert forking.returncode == status, (out, err)
    assert err == "interrupted: the fork was not finished; nothing written to f.json\n"
    assert not (folder / "f.json").exists()


def test_the_header_of_a_fork_shows_each_replaced_seats_whole_command(played: Played) -> None:
    # Issue 41: "seat 0 played by rbot for rbot" dropped the arguments that told two runs of
    # one program apart.
    folder, source = played("classic")
    bot = f"{sys.executable} {GOLDEN / 'fakes' / 'scripted.py'} --careful"
    forked, _ = fork.fork_file(source, "30", [f"1={bot}"], folder / "whole.json", cwd=folder)
    shown = arena_here("replay", "show", str(forked), cwd=folder).stdout
    header = " ".join(shown.split("seats:")[0].split())
    command = f"{sys.executable} {GOLDEN / 'fakes' / 'scripted.py'} --careful"
    assert f"seat 1 played by {command} for" in header, header
    assert viewer.page_data(replay.read(forked))["fork"]["replaced"][0]["by"] == command


BOT = Path(__file__).resolve().parent.parent / "participants" / "random_bot.py"


def organised(tmp_path: Path) -> Path:
    """A replay of `mine` (python3 bot.py, relative to its config's folder) against `rnd`."""
    folder = tmp_path / "organiser"
    folder.mkdir()
    (folder / "bot.py").write_text(BOT.read_text())
    (folder / "config.toml").write_text(
        'seed = 3\ngames = 1\n[[participants]]\nname = "mine"\ncommand = ["python3", "bot.py"]\n'
        '[[participants]]\nname = "rnd"\nbot = "random"\n'
    )
    assert arena_process("run", "config.toml", "--quiet", cwd=folder).returncode == 0
    [source] = (folder / "replays").glob("*g0000*.json")
    return source


def test_a_fork_outside_the_config_folder_records_the_missing_program_as_a_fault(
    tmp_path: Path,
) -> None:
    source = organised(tmp_path)
    done = arena_process(
        "replay", "fork", str(source), "--at", "20", "-o", "out.json", cwd=tmp_path
    )
    assert done.returncode == 0, done.stderr
    forked = json.loads((tmp_path / "out.json").read_text())
    [fault] = [f for f in forked["faults"] if f["seat"] == 0]
    assert fault["kind"] == "exited" and fault["at"] >= 20, fault
    assert "bot.py" in fault["stderrTail"]
    assert forked["faultCounts"][0] == {"exited": 1}
    assert "faults of seat 0 (mine): exited 1" in done.stdout
    assert arena_process("replay", "verify", "out.json", cwd=tmp_path).returncode == 0


def test_a_replaced_seat_is_shown_as_its_replacement(tmp_path: Path) -> None:
    source = organised(tmp_path)
    done = arena_process(
        "replay",
        "fork",
        str(source),
        "--at",
        "20",
        "--seat",
        "1=hard",
        "-o",
        "f.json",
        cwd=source.parent.parent,
    )
    assert done.returncode == 0, done.stderr
    assert "seat 1: hard for rnd: " in done.stdout and "-m arena.bots hard" in done.stdout
    shown = arena_process("replay", "show", "f.json", cwd=source.parent.parent).stdout
    assert "seats: 0 mine  1 hard" in shown and "(rnd replaced)" not in shown


@pytest.mark.parametrize("output", ["full", "replays/results.jsonl", "out"])
def test_a_fork_output_that_is_no_replay_name_is_refused(tmp_path: Path, output: str) -> None:
    source = organised(tmp_path)
    folder = source.parent.parent
    (folder / "full").symlink_to("/dev/full")  # as `-o /dev/full`, but a failure writes here
    before = sorted(p.name for p in (folder / "replays").iterdir())
    done = arena_process("replay", "fork", str(source), "--at", "20", "-o", output, cwd=folder)
    assert done.returncode == 2, done.stdout + done.stderr
    assert done.stderr.count("\n") == 1 and f"-o {output}" in done.stderr, done.stderr
    assert sorted(p.name for p in (folder / "replays").iterdir()) == before
    assert not list(folder.glob("out*")) and not list(folder.glob("full?*"))
