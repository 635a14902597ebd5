"""The spy gallery (`tests/spies/`): participants written to cheat, each against the real CLI.

Every test asserts that the spy's attempt failed AND that its match still ended normally with
a replay that verifies. They are meant to fail without the sandbox: run them so once with

    ARENA_SPY_SANDBOX=none python -m pytest -q tests/test_spies.py

(every spy test but the last fails), and `test_the_gallery_detects_an_unsandboxed_run` keeps
showing, on every run, that a spy does succeed where nothing stops it.
"""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import uuid
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from command import arena_started, bare_env
from replaymaker import replay_json

from arena.replays import replay

SPIES = Path(__file__).parent / "spies"
MODE = os.environ.get("ARENA_SPY_SANDBOX", "bwrap")

# (conftest: skipped and counted without it; ARENA_SPY_SANDBOX=none shows the spies unconfined)
needs_bwrap = pytest.mark.needs(*(["bwrap"] if MODE == "bwrap" else []))


@dataclass
class Played:
    result: subprocess.CompletedProcess[str]
    replays: list[dict[str, Any]]
    reports: list[dict[str, dict[str, Any]]]  # per match: name -> what its spy reported
    folder: Path
    pid: int  # the arena's process (its control groups are named after it)

    def report(self, name: str = "spy", match: int = 0) -> dict[str, Any]:
        return self.reports[match][name]


def spy(script: str, *args: str) -> list[str]:
    return [sys.executable, str(SPIES / script), *args]


def run(
    tmp_path: Path,
    seats: list[tuple[str, list[str] | None]],
    *,
    mode: str = MODE,
    games: int = 1,
    config_text: str = "",
    limits_text: str = "",
) -> Played:
    """Play `games` matches of `seats` (name, command; None for the built-in random bot)
    through `arena run`; check that each ended normally with a valid replay."""
    folder = tmp_path / "organiser"
    folder.mkdir(parents=True, exist_ok=True)
    text = f"seed = 42\ngames = {games}\n{config_text}[limits]\nreplyTimeout = 5.0\nsandbox = {json.dumps(mode)}\n{limits_text}"
    for name, command in seats:
        text += f"[[participants]]\nname = {json.dumps(name)}\n"
        text += f"command = {json.dumps(command)}\n" if command else "bot = 'random'\n"
    (folder / "config.toml").write_text(text)
    with arena_started(
        "run",
        "config.toml",
        "--quiet",
        "--jobs",
        "1",
        cwd=folder,
        env=bare_env(NO_COLOR="1"),
    ) as arena:
        try:
            stdout, stderr = arena.communicate(timeout=120)
        except subprocess.TimeoutExpired:
            arena.kill()
            raise
    result = subprocess.CompletedProcess(arena.args, arena.returncode, stdout, stderr)
    assert result.returncode == 0, result.stderr
    paths = sorted((folder / "replays").glob("*-g*.json"))
    assert len(paths) == games, result.stdout
    documents, reports = [], []
    for path in paths:
        data = replay_json(path)
        assert replay.verify(replay.from_json(data)) is None
        assert data["result"]["outcome"] != "interrupted"
        assert not [f for f in data["faults"] if f["kind"] == "start-failed"], data["faults"]
        commands = dict(seats)
        for player in data["players"]:
            assert player["sandbox"] == ("in-process" if commands[player["name"]] is None else mode)
        documents.append(data)
        found: dict[str, dict[str, Any]] = {}
        for seat, player in enumerate(data["players"]):
            log = path.with_name(f"{path.stem}.seat{seat}.stderr.log")
            lines = log.read_text().splitlines() if log.exists() else []
            spied = [json.loads(line[4:]) for line in lines if line.startswith("SPY ")]
            if spied:
                found[player["name"]] = spied[-1]
        reports.append(found)
    return Played(result, documents, reports, folder, arena.pid)


@needs_bwrap
@pytest.mark.parametrize("where", ["apart", "beside the config"])
def test_the_config_cannot_be_read_and_the_deal_not_rebuilt(tmp_path: Path, where: str) -> None:
    script = spy("reads_config.py", str(tmp_path / "organiser" / "config.toml"))
    if where == "beside the config":  # its own folder holds the config: masked there
        (tmp_path / "organiser").mkdir()
        for name in ("reads_config.py", "_spy.py"):
            (tmp_path / "organiser" / name).write_text((SPIES / name).read_text())
        script[1] = "reads_config.py"
        script.append("_spy.py")  # beside its config it sees only the files it names
    played = run(tmp_path, [("spy", script), ("random", None)])
    found = played.report()
    assert found["rebuilt"] is False
    assert found.get("seed") is None, found


@needs_bwrap
def test_the_replays_folder_cannot_be_listed(tmp_path: Path) -> None:
    replays = tmp_path / "organiser" / "replays"
    played = run(
        tmp_path, [("spy", spy("lists_replays.py", str(replays))), ("random", None)], games=2
    )
    for match in range(2):  # the second match runs when the first one's replay is written
        assert played.report(match=match)["names"] == [], played.report(match=match)


@needs_bwrap
def test_nothing_outside_its_temp_folder_can_be_written(tmp_path: Path) -> None:
    target = tmp_path / "target"
    target.mkdir()
    results = tmp_path / "organiser" / "replays" / "results.jsonl"
    own = SPIES / "spy-was-here.txt"
    own.unlink(missing_ok=True)
    try:
        played = run(
            tmp_path,
            [("spy", spy("writes_outside.py", str(results), str(target))), ("random", None)],
            games=2,
        )
        assert not own.exists() and not (played.folder / "spy-was-here.txt").exists()
    finally:
        own.unlink(missing_ok=True)  # what an unsandboxed run of this test leaves
    for match in range(2):
        found = played.report(match=match)
        assert found["wrote"] == [] and found["temp"] is True, found
    assert not list(target.iterdir())
    lines = [json.loads(line) for line in results.read_text().splitlines()]
    assert [line["game"] for line in lines] == [0, 1] and all(
        line["tournament"] != "forged" for line in lines
    )


@needs_bwrap
def test_a_loopback_listener_cannot_be_reached(tmp_path: Path) -> None:
    with socket.socket() as listener:
        listener.bind(("127.0.0.1", 0))
        listener.listen(1)
        listener.setblocking(False)
        port = listener.getsockname()[1]
        played = run(tmp_path, [("spy", spy("connects.py", str(port))), ("random", None)])
        try:
            connection, _ = listener.accept()
            connection.close()
            accepted = True
        except BlockingIOError:
            accepted = False
    assert played.report()["connected"] is False and not accepted


@needs_bwrap
def test_no_process_outside_can_be_signalled(tmp_path: Path) -> None:
    played = run(tmp_path, [("spy", spy("signals.py")), ("random", None)])
    found = played.report()
    assert found["reached"] == 0 and found["parent"] is False, found
    assert played.replays[0]["result"]["outcome"] == "completed"


@needs_bwrap
def test_other_processes_command_lines_are_out_of_sight(tmp_path: Path) -> None:
    played = run(tmp_path, [("spy", spy("reads_cmdlines.py")), ("random", None)])
    seen = played.report()["cmdlines"]
    # The arena's own command line (`python -m arena run config.toml …`), not any line with
    # "arena" in it: the spy's own path does when the checkout's folder is named gofish-arena.
    marks = ("-m arena run", "config.toml", str(tmp_path))
    assert not [line for line in seen if any(mark in line for mark in marks)], seen


@needs_bwrap
def test_two_seats_cannot_pass_a_hand(tmp_path: Path) -> None:
    tag = uuid.uuid4().hex[:12]
    try:
        played = run(tmp_path, [("a", spy("colludes.py", tag)), ("b", spy("colludes.py", tag))])
    finally:
        for leftover in [
            *Path("/tmp").glob(f"gofish-{tag}-*"),
            *Path("/dev/shm").glob(f"gofish-{tag}-*"),
        ]:
            leftover.unlink()
    for name in ("a", "b"):
        assert played.report(name)["found"] == [], played.report(name)


def _marked(mark: str) -> list[int]:
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                if mark.encode() in (entry / "cmdline").read_bytes():
                    found.append(int(entry.name))
            except OSError:
                continue
    return found


@needs_bwrap
def test_a_setsid_grandchild_is_gone_when_the_match_ends(tmp_path: Path) -> None:
    mark = f"spy-mark-{uuid.uuid4().hex}"
    try:
        played = run(tmp_path, [("spy", spy("escapes.py", mark)), ("random", None)])
        assert played.report()["forked"] is True
        assert _marked(mark) == []
    finally:
        for pid in _marked(mark):  # what the test itself started, should it have escaped
            os.kill(pid, signal.SIGKILL)


@needs_bwrap
def test_the_organisers_terminal_is_out_of_reach(tmp_path: Path) -> None:
    mark = f"spy-mark-{uuid.uuid4().hex}"
    played = run(tmp_path, [("spy", spy("writes_terminal.py", mark)), ("random", None)])
    assert mark not in played.result.stdout and mark not in played.result.stderr


def test_the_gallery_detects_an_unsandboxed_run(tmp_path: Path) -> None:
    """Without the sandbox the spies succeed: the tests above can fail."""
    tag = uuid.uuid4().hex[:12]
    try:
        played = run(
            tmp_path,
            [
                ("a", spy("reads_config.py", str(tmp_path / "organiser" / "config.toml"))),
                ("b", spy("colludes.py", tag)),
                ("c", spy("colludes.py", tag)),
            ],
            mode="none",
            config_text="[tournament]\nseats = 2\nduplicate = false\n",
            games=3,
        )
    finally:
        for leftover in [
            *Path("/tmp").glob(f"gofish-{tag}-*"),
            *Path("/dev/shm").glob(f"gofish-{tag}-*"),
        ]:
            leftover.unlink()
    spies = {name: found for reports in played.reports for name, found in reports.items()}
    assert spies["a"]["seed"] == "42" and spies["a"]["rebuilt"] is True
    assert "tmp/gofish" in spies["b"]["found"] or "tmp/gofish" in spies["c"]["found"]
