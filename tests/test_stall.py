"""No participant stalls a match or the arena's stop: a trickle of unasked output, with the real
CLI and a real process (`tests/hostile/trickle.py`: 4 KiB, then a byte every few ms).

Without a deadline and a stop check on the wait for more unasked output, the match would wait
until the trickle reached `line_cap` (1 MiB: at 500 bytes a second, more than half an hour), and
SIGINT or SIGTERM would be ignored as long. Waits poll for conditions with generous deadlines.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from command import arena_started

TRICKLE = Path(__file__).parent / "hostile" / "trickle.py"
DEADLINE = 90.0  # seconds for anything to happen on a busy machine; never expected to be reached


def _config(folder: Path, reply_timeout: float) -> Path:
    command = [sys.executable, str(TRICKLE), "0.002"]
    path = folder / "config.toml"
    path.write_text(
        f"seed = 7\ngames = 1\n[limits]\nreplyTimeout = {reply_timeout}\nsandbox = 'none'\n"
        f"[[participants]]\nname = 'trickle'\ncommand = {json.dumps(command)}\n"
        f"env = {{ HOSTILE_PIDS = {json.dumps(str(folder / 'pids.jsonl'))} }}\n"
        "[[participants]]\nname = 'r'\nbot = 'random'\n"
    )
    return path


def _arena(folder: Path, *args: str) -> subprocess.Popen[bytes]:
    return arena_started(
        "run",
        "config.toml",
        *args,
        cwd=folder,
        stdin=subprocess.DEVNULL,
        stderr=subprocess.STDOUT,
        start_new_session=True,
        text=False,
    )


def _notes(folder: Path) -> list[dict[str, object]]:
    path = folder / "pids.jsonl"
    return [json.loads(line) for line in path.read_text().splitlines()] if path.exists() else []


def _gone(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return True
    return state in ("Z", "X")


@pytest.mark.slow
def test_a_trickle_of_unasked_output_ends_the_seat_as_a_fault_within_its_reply_limit(
    tmp_path: Path,
) -> None:
    _config(tmp_path, reply_timeout=1)  # the trickle's limit, waited for: short
    arena = _arena(tmp_path)
    try:
        output, _ = arena.communicate(timeout=DEADLINE)
    finally:
        if arena.poll() is None:
            os.killpg(arena.pid, signal.SIGKILL)
            arena.wait()
    assert arena.returncode == 0, output.decode()
    [path] = (tmp_path / "replays").glob("*.json")
    played = json.loads(path.read_text())
    assert played["result"]["outcome"] == "completed"
    faults = [f for f in played["faults"] if f["seat"] == 0]
    # The seat ends at the message after init, within its reply limit, whichever way the
    # trickle reached the arena: as unasked output still coming after 1 s (watched before the
    # message was written), or as a reply line that never ended (a load pause in the trickle
    # let the message be written, and the rest read as its reply).
    assert {f["at"] for f in faults} == {2}, faults
    [ending] = [f for f in faults if "stopped for the rest of the match" in f["detail"]]
    assert (ending["kind"], "1 s" in ending["detail"]) in (
        ("unsolicited-output", True),  # "…, and more still coming after 1 s (its reply limit)"
        ("timeout", True),  # "no reply line within 1 s; …"
    ), ending
    seat_entries = [e for e in played["transcript"] if e["seat"] == 0]
    assert all(not e.get("delivered", True) for e in seat_entries[2:])  # nothing more after
    assert all(_gone(int(str(note["pid"]))) for note in _notes(tmp_path))


@pytest.mark.parametrize(
    ("signum", "status"), [(signal.SIGTERM, 143), (signal.SIGINT, 130)], ids=["SIGTERM", "SIGINT"]
)
def test_a_signal_stops_a_run_with_one_job_while_a_seat_trickles(
    tmp_path: Path, signum: int, status: int
) -> None:
    _config(tmp_path, reply_timeout=600)  # the reply limit would never end the wait
    arena = _arena(tmp_path, "--jobs", "1")
    try:
        deadline = time.monotonic() + DEADLINE
        while not any(note["role"] == "trickling" for note in _notes(tmp_path)):
            assert arena.poll() is None and time.monotonic() < deadline, "never began to trickle"
            time.sleep(0.02)
        time.sleep(0.2)  # the arena is watching the trickle now
        sent = time.monotonic()
        arena.send_signal(signum)
        output, _ = arena.communicate(timeout=DEADLINE)
        stopped = time.monotonic() - sent
        print(f"stopped {stopped:.3f} s after the signal")
    finally:
        if arena.poll() is None:
            os.killpg(arena.pid, signal.SIGKILL)
            arena.wait()
    assert arena.returncode == status, output.decode()
    assert stopped < DEADLINE / 2  # (measured: well under a second; the trickle would take hours)
    assert all(_gone(int(str(note["pid"]))) for note in _notes(tmp_path))
    [path] = (tmp_path / "replays").glob("*-interrupted.json")
    assert json.loads(path.read_text())["result"]["outcome"] == "interrupted"


def test_a_disk_amplifier_stays_under_the_caps_and_is_recorded(tmp_path: Path) -> None:
    """Large "anything" replies and a stderr flood: the replay holds at most maxReplyBytes of its
    replies (then too-much-output stops it), its log stderrBytes plus a 2 KiB tail (then
    log-full is recorded, once), its notes 64 KiB."""
    amplifier = Path(__file__).parent / "hostile" / "disk_amplifier.py"
    reply_cap, log_cap = 1 << 20, 64 << 10
    (tmp_path / "config.toml").write_text(
        f"seed = 7\ngames = 1\n[limits]\nsandbox = 'none'\nmaxReplyBytes = {reply_cap}\n"
        f"stderrBytes = {log_cap}\n"
        f"[[participants]]\nname = 'amp'\ncommand = {json.dumps([sys.executable, str(amplifier)])}\n"
        "[[participants]]\nname = 'r'\nbot = 'random'\n"
    )
    arena = _arena(tmp_path)
    output, _ = arena.communicate(timeout=DEADLINE)
    assert arena.returncode == 0, output.decode()
    [path] = (tmp_path / "replays").glob("*.json")
    played = json.loads(path.read_text())
    kinds = [f["kind"] for f in played["faults"] if f["seat"] == 0]
    assert kinds.count("too-much-output") == 1 and kinds.count("log-full") == 1, kinds
    notes = sum(len(e.get("notes", "")) for e in played["transcript"])
    assert 0 < notes <= (64 << 10) + 100 * len(played["transcript"])
    # The whole replay: the seat's replies up to the cap, its notes, and an ordinary match.
    assert path.stat().st_size < reply_cap + (64 << 10) + (256 << 10)
    log = path.with_name(path.stem + ".seat0.stderr.log")
    assert log.stat().st_size <= log_cap + 2048 + 200
    assert b"log-full" in output or b"stderr log over its cap" in output
