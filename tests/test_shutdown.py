"""Stopping `arena run` as users and machines do, with the real CLI, a pool and real participants.

Each test starts `python -m arena run --jobs 2` on a config of quick Python bots
(`tests/stopping/bot.py`), acts at a point of the run (a signal, two, SIGKILL, a closed or full
stdout), then checks by pid that no process is left (the arena's whole tree as seen while it ran,
every participant by the pid it noted, and any process carrying the run's marker in its
environment), the exit status and output, and that `results.jsonl` and the replays agree: every
played match recorded once, with its replay. Waits poll for conditions, with generous deadlines,
so that a busy machine makes a test slower, not red.
"""

from __future__ import annotations

import json
import os
import shlex
import signal
import subprocess
import sys
import time
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any

import pytest
from command import arena_process, arena_started, bare_env
from replaymaker import replay_json

from arena.replays import replay

BOT = Path(__file__).parent / "stopping" / "bot.py"
GAMES = 6  # two recorded, two begun when the signal comes, two never begun: resume plays those
# A participant's pause before each reply: a match lasts a second or so, long enough to be
# stopped in the middle.
DELAY = 0.005
DEADLINE = 90.0  # seconds for anything to happen on a busy machine; never expected to be reached


def _config(
    folder: Path,
    marker: str,
    *,
    games: int = GAMES,
    delay: float = DELAY,
    reuse: bool = False,
    sandbox: str = "none",
) -> Path:
    env = f'env = {{ ARENA_STOP_TEST = "{marker}", STOP_PIDS = {json.dumps(str(folder / "pids.jsonl"))} }}'
    seats = ""
    for name in ("alice", "bob"):
        command = [sys.executable, str(BOT), str(delay), *(["reuse"] if reuse else [])]
        seats += f'[[participants]]\nname = "{name}"\ncommand = {json.dumps(command)}\n{env}\n'
    path = folder / "config.toml"
    # Unsandboxed by default: the test follows the pids participants note, which a sandbox's pid
    # namespace hides; the sandboxed case follows the arena's tree and the marker instead.
    path.write_text(
        f"seed = 7\ngames = {games}\n[limits]\nsandbox = '{sandbox}'\n"
        f"[tournament]\nreuse = {str(reuse).lower()}\n{seats}"
    )
    return path


# -- processes, by pid ----------------------------------------------------------------------


def _stat(pid: int) -> tuple[str, int, str] | None:
    """(state, parent pid, start time) of a process, or None when it is gone."""
    try:
        text = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    fields = text.rsplit(")", 1)[1].split()
    return fields[0], int(fields[1]), fields[19]


def _alive(pid: int, start: str) -> bool:
    """Running (not a zombie), and the same process (the pid not reused since)."""
    stat = _stat(pid)
    return stat is not None and stat[0] not in ("Z", "X") and stat[2] == start


def _descendants(root: int) -> dict[int, str]:
    """Every process below `root` now: pid -> start time."""
    children: dict[int, list[tuple[int, str]]] = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit() and (stat := _stat(int(entry.name))) is not None:
            children.setdefault(stat[1], []).append((int(entry.name), stat[2]))
    found: dict[int, str] = {}
    todo = [root]
    while todo:
        for pid, start in children.get(todo.pop(), []):
            found[pid] = start
            todo.append(pid)
    return found


def _marked(marker: str) -> dict[int, str]:
    """Every running process whose environment carries the run's marker."""
    needle = f"ARENA_STOP_TEST={marker}".encode()
    found: dict[int, str] = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit() or int(entry.name) == os.getpid():
            continue
        try:
            environ = (entry / "environ").read_bytes()
        except OSError:
            continue
        stat = _stat(int(entry.name))
        if needle in environ.split(b"\0") and stat is not None and stat[0] not in ("Z", "X"):
            found[int(entry.name)] = stat[2]
    return found


@dataclass
class Run:
    """One `arena run` in its own process group, watched: every process it ever had."""

    folder: Path
    marker: str
    process: subprocess.Popen[bytes]
    seen: dict[int, str] = field(default_factory=dict)  # pid -> start time

    @property
    def replays(self) -> Path:
        return self.folder / "replays"

    sandboxed: bool = False

    def look(self) -> None:
        self.seen.update(_descendants(self.process.pid))
        if not self.sandboxed:
            for note in self.participants():
                self.seen.setdefault(note["pid"], note["start"])

    def participants(self) -> list[dict[str, Any]]:
        path = self.folder / "pids.jsonl"
        text = path.read_text() if path.exists() else ""
        return [json.loads(line) for line in text.splitlines() if line.endswith("}")]

    def lines(self) -> list[dict[str, Any]]:
        path = self.replays / "results.jsonl"
        return [json.loads(line) for line in path.read_text().splitlines()] if path.exists() else []

    def until(self, condition: Any, what: str) -> None:
        deadline = time.monotonic() + DEADLINE
        while not condition():
            assert self.process.poll() is None, f"the run ended before {what}: {self.output()}"
            assert time.monotonic() < deadline, f"no {what} within {DEADLINE} s"
            self.look()
            # A look reads every process of the machine: ten a second, not fifty, while a
            # match lasts half a second or more (a participant also notes its own pid).
            time.sleep(0.1)
        self.look()

    def in_the_middle(self, *, reuse: bool = False) -> None:
        """Wait until two matches are recorded and the next ones have begun (with `reuse`, the
        same processes play on: two recorded matches are enough)."""
        if self.sandboxed:  # the notes are in the sandboxes' own /tmp: count the sandboxes instead
            self.until(
                lambda: (
                    len(self.lines()) >= 2
                    and sum(_comm(pid) == "bwrap" for pid in _descendants(self.process.pid)) >= 4
                ),
                "two recorded matches and two more begun",
            )
            return
        processes = (lambda: 4) if reuse else (lambda: 2 * (len(self.lines()) + 2))
        self.until(
            lambda: len(self.lines()) >= 2 and len(self.participants()) >= processes(),
            "two recorded matches and two more begun",
        )

    def wait(self) -> tuple[int, float]:
        """The exit status, and how long the arena took to exit."""
        began = time.monotonic()
        status = self.process.wait(DEADLINE)
        return status, time.monotonic() - began

    def left(self, seconds: float = 10.0) -> list[int]:
        """Processes of the run still running after up to `seconds` (polled)."""
        deadline = time.monotonic() + seconds
        while True:
            left = [
                pid
                for pid, start in {**self.seen, **_marked(self.marker)}.items()
                if _alive(pid, start)
            ]
            if not left or time.monotonic() > deadline:
                return left
            time.sleep(0.05)

    def output(self) -> str:
        return "".join(
            p.read_text() for p in (self.folder / "stdout", self.folder / "stderr") if p.exists()
        )

    def stdout(self) -> str:
        return (self.folder / "stdout").read_text()

    def stderr(self) -> str:
        return (self.folder / "stderr").read_text()


@contextmanager
def arena_run(
    folder: Path,
    *args: str,
    stdout: IO[bytes] | int | None = None,
    reuse: bool = False,
    games: int = GAMES,
    delay: float = DELAY,
    sandbox: str = "none",
) -> Iterator[Run]:
    """`arena run config.toml ARGS` started in its own group; whatever it leaves is killed after."""
    marker = uuid.uuid4().hex
    config = _config(folder, marker, games=games, delay=delay, reuse=reuse, sandbox=sandbox)
    env = bare_env(COLUMNS="200", ARENA_STOP_TEST=marker)
    with open(folder / "stderr", "wb") as err, open(folder / "stdout", "wb") as out:
        process = arena_started(
            "run",
            config.name,
            *args,
            cwd=folder,
            env=env,
            stdin=subprocess.DEVNULL,
            stdout=out if stdout is None else stdout,
            stderr=err,
            start_new_session=True,
            text=False,
        )
    run = Run(folder, marker, process, sandboxed=sandbox != "none")
    try:
        yield run
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
        for pid, start in {**run.seen, **_marked(marker)}.items():
            if _alive(pid, start):
                os.kill(pid, signal.SIGKILL)


def _check_records(run: Run, *, orphans_allowed: bool = False) -> list[dict[str, Any]]:
    """results.jsonl and the replays agree: each match once, each with its replay, and
    every replay of a finished match has its line (unless the arena was killed mid-write)."""
    lines = run.lines()
    games = [line["game"] for line in lines]
    assert len(games) == len(set(games)), f"a match recorded twice: {games}"
    named = set()
    for line in lines:
        path = run.replays / line["replay"]
        data = replay_json(path)
        assert data["result"]["outcome"] == line["outcome"] == "completed"
        assert data["game"] == line["game"]
        named.add(path.name)
    for path in run.replays.glob("*-g*.json"):
        data = replay_json(path)
        assert replay.verify(replay.from_json(data)) is None, path
        if path.name.endswith("-interrupted.json"):
            assert data["result"]["outcome"] == "interrupted"
        elif not orphans_allowed:
            assert path.name in named, f"{path.name} has no results line"
    return lines


def _resume(run: Run) -> None:
    """Run the resume command the arena printed, exactly, and check the tournament is whole."""
    hint = [line for line in run.stdout().splitlines() if line.startswith("interrupted: ")]
    assert len(hint) == 1, run.output()
    command = shlex.split(hint[0].split("`")[1])
    assert command[:3] == ["arena", "run", "config.toml"] and command[-1] == "--resume", hint
    resumed = arena_process(*command[1:], cwd=run.folder, env=bare_env(), timeout=DEADLINE * 2)
    assert resumed.returncode == 0, resumed.stdout + resumed.stderr
    lines = _check_records(run)
    assert sorted(line["game"] for line in lines) == list(range(GAMES))


def _signal(run: Run, number: int, target: str) -> None:
    if (
        target == "group"
    ):  # as a terminal's Ctrl-C, or a dropped ssh session's hangup, reaches a job
        os.killpg(run.process.pid, number)
    else:
        run.process.send_signal(number)


# -- one signal -----------------------------------------------------------------------------


@pytest.mark.slow
@pytest.mark.parametrize(
    ("name", "target"),
    [
        ("SIGINT", "arena"),
        ("SIGINT", "group"),
        ("SIGTERM", "arena"),
        ("SIGHUP", "arena"),
        ("SIGHUP", "group"),
    ],
)
def test_one_signal_stops_the_run_records_every_finished_match_and_says_how_to_resume(
    tmp_path: Path, name: str, target: str
) -> None:
    number = signal.Signals[name]
    with arena_run(tmp_path, "--jobs", "2") as run:
        run.in_the_middle()
        _signal(run, number, target)
        status, seconds = run.wait()
        assert status == 128 + number, run.output()
        assert seconds < 15, f"took {seconds:.1f} s to stop"
        assert run.left() == [], "processes left behind"
        assert "Traceback" not in run.stderr()
        lines = _check_records(run)
        assert 2 <= len(lines) < GAMES
        stdout = run.stdout()
        assert f"standings after {len(lines)} of {GAMES} matches" in stdout
        assert f"interrupted: {len(lines)} of {GAMES} matches played; " in stdout
        assert "`arena run config.toml --jobs 2 --resume` plays the rest" in stdout
        interrupted = list(run.replays.glob("*-interrupted.json"))
        assert len(interrupted) <= 2  # the matches in progress (one per worker), stopped and kept
        begun = len(run.participants()) // 2  # two processes a match
        assert begun <= len(lines) + len(interrupted), "a match begun and neither recorded nor kept"
    if (name, target) == ("SIGINT", "group"):  # (the same records whatever the signal)
        _resume(run)


# -- two signals ----------------------------------------------------------------------------


@pytest.mark.slow
@pytest.mark.parametrize("target", ["arena", "group"])
def test_a_second_signal_stops_at_once_and_still_keeps_every_finished_match(
    tmp_path: Path, target: str
) -> None:
    with arena_run(tmp_path, "--jobs", "2") as run:
        run.in_the_middle()
        _signal(run, signal.SIGINT, target)
        _signal(
            run, signal.SIGINT, target
        )  # an impatient Ctrl-C Ctrl-C, or `timeout -s INT` and a user
        status, seconds = run.wait()
        assert status == 130, run.output()
        assert seconds < 15, f"took {seconds:.1f} s to stop"
        assert run.left() == [], "processes left behind"
        assert "Traceback" not in run.stderr()
        lines = _check_records(run)
        assert len(lines) >= 2
        assert "interrupted: " in run.stdout()
    if target == "group":  # a terminal's Ctrl-C Ctrl-C
        _resume(run)


# -- the arena's own death ------------------------------------------------------------------


@pytest.mark.parametrize(
    ("reuse", "sandbox"),
    [
        (False, "none"),
        (True, "none"),
        pytest.param(False, "bwrap", marks=pytest.mark.needs("bwrap")),
        pytest.param(True, "bwrap", marks=pytest.mark.needs("bwrap")),
    ],
)
def test_sigkill_of_the_arena_takes_its_workers_and_participants_with_it(
    tmp_path: Path, reuse: bool, sandbox: str
) -> None:
    with arena_run(tmp_path, "--jobs", "2", reuse=reuse, sandbox=sandbox) as run:
        run.in_the_middle(reuse=reuse)
        kinds = {_comm(pid) for pid in run.seen}
        assert (
            len([pid for pid in run.seen if _stat(pid) and _stat(pid)[1] == run.process.pid]) >= 2
        ), kinds
        killed = time.monotonic()
        run.process.kill()
        run.process.wait()
        left = run.left(10.0)
        seconds = time.monotonic() - killed
        assert left == [], f"left after 10 s: {[(pid, _comm(pid)) for pid in left]}"
        print(
            f"\nSIGKILL of the arena: every one of {len(run.seen)} processes gone in {seconds:.3f} s"
        )
        _check_records(run, orphans_allowed=True)


def _comm(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/comm").read_text().strip()
    except OSError:
        return "?"


# -- stdout that cannot take the output -----------------------------------------------------


def test_a_closed_stdout_costs_no_match_and_shows_no_traceback(tmp_path: Path) -> None:
    """`arena run config.toml --games 3 | head -1`."""
    reader, writer = os.pipe()
    with arena_run(
        tmp_path, "--games", "3", "--jobs", "2", stdout=writer, games=3, delay=0.0
    ) as run:
        os.close(writer)
        with os.fdopen(reader, "rb") as pipe:
            first = pipe.readline()
        assert first.startswith(b"tournament ")
        status, _ = run.wait()
        assert status == 0, run.output()
        assert run.stderr() == ""
        assert run.left() == []
        lines = _check_records(run)
        assert sorted(line["game"] for line in lines) == [0, 1, 2]
        assert (run.replays / "standings.json").is_file()


@pytest.mark.parametrize("games", [1, 3])
def test_a_full_stdout_costs_no_match_and_says_so_in_one_line(tmp_path: Path, games: int) -> None:
    """`arena run config.toml > /dev/full`."""
    with (
        open("/dev/full", "wb") as full,
        arena_run(tmp_path, "--jobs", "2", stdout=full, games=games, delay=0.0) as run,
    ):
        status, _ = run.wait()
        assert status == 1, run.output()
        [line] = run.stderr().splitlines()
        assert line.startswith(
            "cannot write to stdout: No space left on device; every match is recorded"
        )
        assert run.left() == []
        assert sorted(line["game"] for line in _check_records(run)) == list(range(games))


def test_a_closed_stdout_then_a_signal_still_says_how_to_resume(tmp_path: Path) -> None:
    """The stop line goes to stderr when stdout is gone."""
    reader, writer = os.pipe()
    with arena_run(tmp_path, "--jobs", "2", stdout=writer) as run:
        os.close(writer)
        os.close(reader)
        run.in_the_middle()
        run.process.send_signal(signal.SIGTERM)
        status, _ = run.wait()
        assert status == 143, run.output()
        assert "`arena run config.toml --jobs 2 --resume` plays the rest" in run.stderr()
        assert "Traceback" not in run.stderr()
        assert run.left() == []
        _check_records(run)


# -- a worker that dies with its arena: everything it started goes too ----------------------

WORKER = """
import json, os, sys, time
from pathlib import Path
from arena.base import shutdown
from arena.seats.transport import SubprocessParticipant

shutdown.die_with(int(sys.argv[1]))  # as a pool worker does
participant = SubprocessParticipant([sys.executable, sys.argv[2]], Path(sys.argv[3]), {})
participant.start()
print(participant.proc.pid, flush=True)
time.sleep(60)
"""

# A participant that starts a child of its own, in its process group, and both wait for ever.
# The child has no parent-death signal: only the group kill reaches it.
FORKING_BOT = """
import os, sys, time
child = os.fork()
if child == 0:
    time.sleep(600)
    os._exit(0)
print(child, flush=True)
time.sleep(600)
"""


def test_a_worker_dying_with_its_arena_kills_the_groups_it_started(tmp_path: Path) -> None:
    arena = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    (tmp_path / "bot.py").write_text(FORKING_BOT)
    worker = subprocess.Popen(
        [sys.executable, "-c", WORKER, str(arena.pid), str(tmp_path / "bot.py"), str(tmp_path)],
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert worker.stdout is not None
        participant = int(worker.stdout.readline())
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline and not _descendants(participant):
            time.sleep(0.05)
        stat = _stat(participant)
        assert stat is not None
        started = {participant: stat[2], **_descendants(participant)}
        assert len(started) == 2, "the participant's child did not start"
        arena.kill()  # the arena dies: its worker follows, and all the worker started
        arena.wait()
        assert worker.wait(10) == -signal.SIGKILL
        deadline = time.monotonic() + 5
        while time.monotonic() < deadline and any(_alive(*p) for p in started.items()):
            time.sleep(0.05)
        assert not [pid for pid, start in started.items() if _alive(pid, start)]
    finally:
        for process in (arena, worker):
            process.kill()
            process.wait()
        if worker.stdout is not None:
            worker.stdout.close()


# --- An `arena run` killed by SIGKILL leaves nothing on its terminal (issue #25): multiprocessing's
# resource tracker, which outlives it and cleans up the pool's semaphores, used to print "There
# appear to be N leaked semaphore objects to clean up at shutdown" there.


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
