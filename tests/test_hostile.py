"""A gallery of hostile participants (`tests/hostile/`), each in a real match against a normal bot.

Every test asserts: the match ends in bounded time, its replay verifies, the fault is
recorded with the right kind, and no process of the match (the participants, and any child a
participant forked) is left. Sizes are small (replyTimeout 0.3 s) to keep the gallery fast.
"""

from __future__ import annotations

import json
import os
import sys
import time
import tracemalloc
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from replaymaker import replay_json

from arena.base import config as config_module
from arena.replays import replay
from arena.seats.transport import SubprocessParticipant
from arena.tournaments import runner

HOSTILE = Path(__file__).parent / "hostile"
REPLY_TIMEOUT = 0.3
STARTUP_TIMEOUT = 1.0


def _process_state(pid: int) -> str | None:
    """The state letter of a process (R, S, Z…), or None when there is no such process."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except (FileNotFoundError, ProcessLookupError):
        return None
    return stat.rsplit(")", 1)[1].split()[0]


def _group_members(pgid: int) -> list[int]:
    members = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
            except (FileNotFoundError, ProcessLookupError):
                continue
            if int(fields[2]) == pgid and fields[0] not in ("Z", "X"):
                members.append(int(entry.name))
    return members


def assert_gone(pids: set[int], groups: set[int]) -> None:
    """No process and no process group of the match runs (zombies awaiting init count as gone).

    A SIGKILLed grandchild may take a moment to be scheduled and die: allow one second.
    """
    deadline = time.monotonic() + 1.0
    while True:
        living = {pid for pid in pids if _process_state(pid) not in (None, "Z", "X")}
        crowded = {pgid: _group_members(pgid) for pgid in groups}
        crowded = {pgid: members for pgid, members in crowded.items() if members}
        if not living and not crowded:
            break
        assert time.monotonic() < deadline, f"left running: pids {living}, groups {crowded}"
        time.sleep(0.02)
    for pgid in groups:
        try:
            os.killpg(pgid, 0)
        except ProcessLookupError:
            continue
        # Only zombies are left in it, waiting for init to reap them.
        assert not _group_members(pgid)


@dataclass
class Played:
    replay: dict[str, Any]
    seconds: float
    folder: Path
    notes: list[dict[str, Any]]

    @property
    def faults(self) -> list[dict[str, Any]]:
        return [fault for fault in self.replay["faults"] if fault["seat"] == 0]

    @property
    def kinds(self) -> set[str]:
        return {fault["kind"] for fault in self.faults}

    def entries(self, seat: int = 0) -> list[dict[str, Any]]:
        return [entry for entry in self.replay["transcript"] if entry["seat"] == seat]

    def delivered(self, seat: int = 0) -> list[dict[str, Any]]:
        return [entry for entry in self.entries(seat) if entry.get("delivered", True)]


def _toml(value: Any) -> str:
    if isinstance(value, dict):
        return "{" + ", ".join(f"{key} = {_toml(item)}" for key, item in value.items()) + "}"
    return json.dumps(value)  # strings, numbers, booleans and lists read the same in TOML


def write_config(folder: Path, hostile: list[str], limits: dict[str, Any], seats: int = 2) -> Path:
    # Unsandboxed: these tests follow every pid the match made, which a sandbox's pid namespace
    # hides (tests/test_spies.py plays hostile participants in the sandbox).
    limits = {
        "replyTimeout": REPLY_TIMEOUT,
        "startupTimeout": STARTUP_TIMEOUT,
        "closeGrace": 0.2,
        "sandbox": "none",
        **limits,
    }
    env = {"HOSTILE_PIDS": str(folder / "pids.jsonl")}
    lines = ["seed = 7", "[limits]", *(f"{key} = {_toml(value)}" for key, value in limits.items())]
    lines += [
        "[[participants]]",
        'name = "hostile"',
        f"command = {_toml(hostile)}",
        f"env = {_toml(env)}",
    ]
    for seat in range(1, seats):
        lines += ["[[participants]]", f'name = "random{seat}"', 'bot = "random"']
    path = folder / "config.toml"
    path.write_text("\n".join(lines) + "\n")
    return path


@pytest.fixture
def play(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Any]:
    """Play one match: seat 0 runs a script of `tests/hostile/`, seat 1 the random bot."""
    made: list[SubprocessParticipant] = []
    make = runner.make_participants

    def capture(*args: Any, **kwargs: Any) -> Any:
        participants = make(*args, **kwargs)
        made.extend(p for p in participants if isinstance(p, SubprocessParticipant))
        return participants

    monkeypatch.setattr(runner, "make_participants", capture)

    def run(
        script: str,
        *args: str,
        limits: dict[str, Any] | None = None,
        seats: int = 2,
        hostile: list[str] | None = None,
    ) -> Played:
        command = hostile or [sys.executable, str(HOSTILE / script), *args]
        path = write_config(tmp_path, command, limits or {}, seats)
        config, resolved = config_module.load(path)
        began = time.monotonic()
        played = runner.play_one_match(
            config, resolved, match=0, seed=7, folder=tmp_path / "replays", stamp="t"
        )
        seconds = time.monotonic() - began
        data = replay_json(played.replay)
        assert replay.verify(replay.from_json(data)) is None
        notes_file = tmp_path / "pids.jsonl"
        notes = (
            [json.loads(line) for line in notes_file.read_text().splitlines()]
            if notes_file.exists()
            else []
        )
        pids = {p.pid for p in made if p.pid} | {note["pid"] for note in notes}
        assert_gone(pids, pids | {note["pgid"] for note in notes})
        assert all(p.proc is None or p.proc.returncode is not None for p in made), "not reaped"
        return Played(data, seconds, tmp_path / "replays", notes)

    yield run


def test_never_answers(play: Any) -> None:
    played = play("never_answers.py")
    [fault] = played.faults
    assert (fault["kind"], fault["at"]) == ("timeout", 0)
    assert f"{STARTUP_TIMEOUT:g} s" in fault["detail"]
    # Stopped at once: nothing after `init` is written to it, nor waited for.
    assert all(entry.get("delivered") is False for entry in played.entries()[1:])
    assert played.replay["result"]["outcome"] == "completed"
    assert played.seconds < STARTUP_TIMEOUT + 2.0


def test_never_answers_after_init(play: Any) -> None:
    played = play("never_answers.py", "after-init")
    [fault] = played.faults
    assert (fault["kind"], fault["at"]) == ("timeout", 2)  # its starting-hand
    assert f"{REPLY_TIMEOUT:g} s" in fault["detail"]
    assert played.seconds < REPLY_TIMEOUT + 2.0


@pytest.mark.parametrize(
    "mode", ["text", "blank", "nan", "two-values", "bytes", "deep", "nested", "digits"]
)
def test_garbage_is_not_json(play: Any, mode: str) -> None:
    played = play("garbage.py", mode)
    assert played.kinds == {"not-json"}
    # Every message was delivered (garbage does not stop a participant) and answered NO_REPLY.
    delivered = played.delivered()
    assert len(delivered) == len(played.entries()) == len(played.faults)
    assert all("noReply" in entry and entry["reply"] is None for entry in delivered)
    assert all(len(fault.get("raw", "")) < 400 for fault in played.faults)
    assert played.replay["result"]["outcome"] == "completed"


def test_line_over_the_cap(play: Any) -> None:
    played = play("garbage.py", "long")
    [fault] = played.faults
    assert fault["kind"] == "line-too-long" and fault["at"] == 0
    assert fault["raw"].startswith('"xxx') and len(fault["raw"]) < 400
    assert all(entry.get("delivered") is False for entry in played.entries()[1:])


def test_huge_valid_replies_are_capped_per_match(play: Any) -> None:
    # 500 kB per reply is under the line cap, but the transcript keeps every reply: a match's
    # total is capped (here 2 MB), or a bot could make the arena hold gigabytes.
    played, peak = _traced_peak(
        lambda: play("verbose.py", "500", limits={"maxReplyBytes": 2_000_000})
    )
    # (Its string replies that were read also broke the rules: those are counted faults of their own.)
    [fault] = [f for f in played.faults if f["kind"] not in ("refused-ask", "bad-pond-index")]
    assert fault["kind"] == "too-much-output" and len(fault["raw"]) < 400
    accepted = [entry for entry in played.entries() if entry["reply"] is not None]
    assert len(accepted) == 3  # 4 × 500 kB is over the cap
    assert all(entry.get("delivered") is False for entry in played.entries()[4:])
    assert peak < 24 << 20


def test_partial_line_then_silence(play: Any) -> None:
    played = play("garbage.py", "partial")
    [fault] = played.faults
    assert (fault["kind"], fault["at"]) == ("timeout", 0)


def test_dies_after_init(play: Any) -> None:
    played = play("dies_after_init.py")
    [fault] = played.faults
    assert (fault["kind"], fault["at"], fault["exitCode"]) == ("exited", 2, 3)
    assert "exit code 3" in fault["detail"]
    assert "goodbye" in fault["stderrTail"]
    assert all(entry.get("delivered") is False for entry in played.entries()[2:])


@pytest.mark.parametrize("code", [0, 5])
def test_exits_at_once(play: Any, code: int) -> None:
    played = play("exits_at_once.py", str(code), limits={"startupTimeout": 5.0})
    [fault] = played.faults
    assert (fault["kind"], fault["at"], fault["exitCode"]) == ("exited", 0, code)
    assert played.seconds < 2.0  # noticed at once, not after the start-up time


def _traced_peak(action: Any) -> tuple[Any, int]:
    tracemalloc.start()
    try:
        result = action()
        return result, tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def test_flood_without_newline(play: Any) -> None:
    played, peak = _traced_peak(lambda: play("flood_stdout.py", "asked"))
    [fault] = played.faults
    assert (fault["kind"], fault["at"]) == ("line-too-long", 2)
    assert fault["raw"].startswith("xxxx") and len(fault["raw"]) < 400
    assert peak < 12 << 20, f"the arena's Python heap peaked at {peak >> 20} MiB"


def test_flood_when_nothing_was_asked(play: Any) -> None:
    played, peak = _traced_peak(lambda: play("flood_stdout.py", "unasked"))
    [fault] = played.faults
    assert (fault["kind"], fault["at"]) == ("unsolicited-output", 2)
    assert "stopped" in fault["detail"] and fault["raw"].startswith("null")
    # Nothing of it was taken as a reply: the message was never written.
    assert played.entries()[1].get("delivered") is False
    assert peak < 12 << 20


def test_flood_on_stderr(play: Any) -> None:
    played, peak = _traced_peak(lambda: play("flood_stderr.py", "8", limits={"stderrBytes": 65536}))
    # The cap reached is recorded once (log-full), and the seat plays on.
    assert played.kinds == {"log-full"} and len(played.faults) == 1
    assert played.replay["result"]["outcome"] == "completed"
    [log] = played.folder.glob("*.seat0.stderr.log")
    text = log.read_text()
    assert len(text) < 65536 + 4096
    assert "[arena: log cut here at 65536 bytes;" in text
    assert text.rstrip().endswith("end of burst 2")  # the tail is kept
    assert peak < 12 << 20


def test_answers_twice(play: Any) -> None:
    played = play("answers_twice.py")
    assert played.kinds == {"unsolicited-output"}
    assert all(fault["raw"].startswith('"extra"') for fault in played.faults)
    # Never taken as a reply; found before every later message, and once after the last.
    assert all(entry["reply"] != "extra" for entry in played.replay["transcript"])
    assert len(played.faults) == len(played.entries())
    assert played.faults[-1]["at"] == len(played.replay["transcript"])
    assert played.replay["result"]["outcome"] == "completed"


def test_closes_stdout_and_keeps_running(play: Any) -> None:
    played = play("closes_stdout.py")
    [fault] = played.faults
    assert (fault["kind"], fault["at"]) == ("exited", 2)
    assert "closed its stdout but kept running; stopped" in fault["detail"]
    assert "exitCode" not in fault


def test_forked_child_is_killed_with_the_match(play: Any) -> None:
    played = play("forks_child.py", "plays")
    assert played.faults == []
    assert played.replay["result"]["outcome"] == "completed"
    assert {note["role"] for note in played.notes} == {"bot", "child"}


@pytest.mark.parametrize(("mode", "at"), [("exits", 0), ("exits-after-init", 2)])
def test_exits_leaving_a_child_holding_stdout(play: Any, mode: str, at: int) -> None:
    played = play("forks_child.py", mode, limits={"startupTimeout": 5.0, "replyTimeout": 5.0})
    [fault] = played.faults
    assert (fault["kind"], fault["at"], fault["exitCode"]) == ("exited", at, 0)
    assert played.seconds < 2.0  # the open pipe is not waited on


def test_slow_inside_the_limit(play: Any) -> None:
    played = play("slow.py", "0.2", limits={"maxTurns": 2})
    assert played.faults == []
    assert played.replay["result"]["outcome"] == "turn-limit"
    timing = played.replay["timings"][0]
    assert (
        200 <= timing["meanMs"] and timing["maxMs"] < STARTUP_TIMEOUT * 1000
    )  # init: start-up time


def test_late_reply_is_a_timeout(play: Any) -> None:
    played = play("slow.py", "0.5", limits={"maxTurns": 4})
    [fault] = played.faults
    assert (fault["kind"], fault["at"]) == ("timeout", 2)


def test_time_bank_pays_for_late_replies(play: Any) -> None:
    # Each reply is 0.2 s late: a bank of 0.5 s pays for two, and the third times out.
    played = play("slow.py", "0.5", limits={"timeBank": 0.5, "maxTurns": 20})
    [fault] = played.faults
    assert fault["kind"] == "timeout"
    answered = [entry for entry in played.delivered() if "noReply" not in entry]
    assert len(answered) == 1 + 2  # init (start-up time) and two paid by the bank


def test_padded_replies_are_accepted(play: Any) -> None:
    played = play("padded.py")
    assert played.faults == []
    asks = [entry for entry in played.entries() if entry["message"]["type"] == "ask"]
    assert asks and all(isinstance(entry["reply"], dict) for entry in asks)
    assert played.replay["result"]["outcome"] == "completed"


def test_memory_limit(play: Any) -> None:
    played = play("memory_hog.py", "1000", limits={"memoryMiB": 200})
    [fault] = played.faults
    assert (fault["kind"], fault["at"], fault["exitCode"]) == ("exited", 0, 1)
    assert "MemoryError" in fault["stderrTail"]


def test_cpu_limit(play: Any) -> None:
    played = play("cpu_hog.py", limits={"cpuSeconds": 1, "startupTimeout": 10.0})
    [fault] = played.faults
    assert (fault["kind"], fault["at"]) == ("exited", 0)
    assert "SIGXCPU" in fault["detail"] or "SIGKILL" in fault["detail"]
    assert played.seconds < 5.0


def test_stubborn_bot_is_killed_after_the_grace(play: Any) -> None:
    played = play("stubborn.py", limits={"closeGrace": 0.3})
    assert played.faults == []
    assert played.replay["result"]["outcome"] == "completed"


def test_start_failure_is_a_fault(play: Any, tmp_path: Path) -> None:
    script = tmp_path / "not-a-program"
    script.write_text("no shebang here\n")
    script.chmod(0o755)
    played = play("", hostile=[str(script)])
    [fault] = played.faults
    assert (fault["kind"], fault["at"]) == ("start-failed", 0)
    assert all(entry.get("delivered") is False for entry in played.entries())


def test_every_seat_silent_ends_stalled(tmp_path: Path) -> None:
    command = [sys.executable, str(HOSTILE / "never_answers.py")]
    lines = [
        "seed = 3",
        "[limits]",
        "replyTimeout = 0.3",
        "startupTimeout = 0.3",
        "maxIdleTurns = 10",
        'sandbox = "none"',
    ]  # it follows pids (see write_config)
    for name in ("a", "b", "c"):
        lines += [
            "[[participants]]",
            f'name = "{name}"',
            f"command = {_toml(command)}",
            f"env = {_toml({'HOSTILE_PIDS': str(tmp_path / 'pids.jsonl')})}",
        ]
    path = tmp_path / "config.toml"
    path.write_text("\n".join(lines) + "\n")
    config, seats = config_module.load(path)
    began = time.monotonic()
    played = runner.play_one_match(
        config, seats, match=0, seed=3, folder=tmp_path / "replays", stamp="t"
    )
    assert time.monotonic() - began < 3 * 0.3 + 2.0
    data = replay_json(played.replay)
    assert replay.verify(replay.from_json(data)) is None
    assert data["result"]["outcome"] == "stalled"
    assert [count.get("timeout") for count in data["faultCounts"]] == [1, 1, 1]
    notes = [json.loads(line) for line in (tmp_path / "pids.jsonl").read_text().splitlines()]
    assert len(notes) == 3
    assert_gone({n["pid"] for n in notes}, {n["pgid"] for n in notes})
