"""Tournaments on a Dask cluster: a real `LocalCluster` of two worker processes on 127.0.0.1.

The cluster is started once for the module (about 2 s) and shared; a test that kills a worker
waits for its nanny to bring it back before it ends. Without Dask (an optional extra) the
tests that need it skip; those of what is checked, and of the error a missing Dask gives, run.
"""

from __future__ import annotations

import concurrent.futures as cf
import contextlib
import importlib.util
import math
import os
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from command import arena_here, arena_process
from test_cli_run import TWO_RANDOM

import arena
from arena.base.config import Entrant, bot_command
from arena.tournaments.cluster import (
    ClusterError,
    DaskExecutor,
    Need,
    cluster_executor,
    connect,
    needs_of,
    open_cluster,
)

NO_DASK = "Dask is an optional extra: pip install '.[dask]' to run this test"
needs_dask = pytest.mark.skipif(importlib.util.find_spec("distributed") is None, reason=NO_DASK)


@contextlib.contextmanager
def _local_cluster() -> Iterator[Any]:
    """Two worker processes of one thread each under their nannies, on loopback ports of their
    own; a task is given up once it has killed 2 workers (by default, 4), to keep tests short."""
    distributed = pytest.importorskip("distributed", reason=NO_DASK)
    import dask

    with (
        dask.config.set({"distributed.scheduler.allowed-failures": 1}),
        distributed.LocalCluster(
            n_workers=2,
            processes=True,
            threads_per_worker=1,
            host="127.0.0.1",
            # No fixed port: `None` is not "off" (the scheduler's HTTP server then takes Dask's
            # default 8787, and a port already taken is a warning, an error here).
            scheduler_port=0,
            dashboard_address="127.0.0.1:0",
            worker_dashboard_address="127.0.0.1:0",
        ) as local,
    ):
        yield local


@pytest.fixture(scope="module")
def cluster() -> Iterator[Any]:
    with _local_cluster() as local:
        yield local


@pytest.fixture
def address(cluster: Any) -> str:
    return str(cluster.scheduler_address)


def seat(tmp_path: Path, name: str, *command: str, bot: str | None = None) -> Entrant:
    return Entrant(name=name, command=command, cwd=tmp_path, env={}, bot=bot)


# --- what a worker is checked for ------------------------------------------------------------


def test_a_command_named_by_path_is_checked_by_content_and_a_bare_program_by_presence(
    tmp_path: Path,
) -> None:
    (tmp_path / "bots").mkdir()
    script = tmp_path / "bots" / "alice.py"
    script.write_text("print(None)\n")
    binary = tmp_path / "bob"
    binary.write_text("#!/bin/sh\n")
    binary.chmod(0o755)
    seats = [
        seat(tmp_path, "alice", "python3", "bots/alice.py", "--level", "3"),
        seat(tmp_path, "bob", str(binary)),
    ]
    needs = needs_of(seats, in_process_bots=True)
    assert needs == (
        Need("", "arena", ""),
        Need("alice", "folder", str(tmp_path)),
        Need("alice", "program", "python3"),
        Need("alice", "file", str(script)),
        Need("bob", "folder", str(tmp_path)),
        Need("bob", "file", str(binary)),
    )
    seen = [need.observe() for need in needs]
    assert seen[0] == f"gofish-arena {arena.__version__}"
    assert seen[2] == "present"
    assert seen[3].startswith("sha256 ") and not seen[3].endswith("executable")
    assert seen[5].endswith(" executable")
    script.write_text("print(1)\n")
    assert needs[3].observe() != seen[3]
    script.unlink()
    assert needs[3].observe() == "missing"
    # Put back as a FIFO: seen as such at once, never waited on (it was opened and read whole).
    os.mkfifo(script)
    seen_fifo: list[str] = []
    looking = threading.Thread(target=lambda: seen_fifo.append(needs[3].observe()), daemon=True)
    looking.start()
    looking.join(timeout=10)
    if looking.is_alive():  # blocked opening it: a writer that closes at once lets it go
        os.close(os.open(script, os.O_WRONLY | os.O_NONBLOCK))
        looking.join(timeout=10)
    assert seen_fifo == ["not a regular file"]


def test_a_worker_is_checked_for_the_files_the_sandbox_counts_as_the_participants_own(
    tmp_path: Path,
) -> None:
    # The one rule of a participant's files (seats.programs.named_files): a `python -m` package too.
    package = tmp_path / "carol"
    package.mkdir()
    (package / "__main__.py").write_text("print(None)\n")
    needs = needs_of([seat(tmp_path, "carol", "python3", "-m", "carol")], in_process_bots=True)
    assert needs[1:] == (
        Need("carol", "folder", str(tmp_path)),
        Need("carol", "program", "python3"),
        Need("carol", "folder", str(package)),
    )


def test_built_in_bots_are_checked_by_the_arenas_version_and_in_a_process_by_interpreter(
    tmp_path: Path,
) -> None:
    bots = [
        seat(tmp_path, "a", *bot_command("random"), bot="random"),
        seat(tmp_path, "b", *bot_command("hard"), bot="hard"),
    ]
    inside = needs_of(bots, in_process_bots=True)
    assert [need.kind for need in inside] == ["arena", "folder", "arena", "folder", "arena"]
    apart = needs_of(bots, in_process_bots=False)
    assert Need("a", "program", bot_command("random")[0]) in apart


# --- the executor ------------------------------------------------------------------------------


def test_the_executor_runs_distinct_tasks_and_returns_each_result_once(
    address: str, tmp_path: Path
) -> None:
    with cluster_executor(
        address, [seat(tmp_path, "a", "python3")], in_process_bots=True
    ) as executor:
        futures = [
            executor.submit(math.factorial, 5) for _ in range(6)
        ]  # equal tasks, never merged
        assert [f.result(timeout=30) for f in futures] == [120] * 6
        pids = {executor.submit(os.getpid).result(timeout=30) for _ in range(8)}
        assert os.getpid() not in pids


def test_cancelling_wakes_wait_and_as_completed_like_a_process_pool(
    address: str, tmp_path: Path
) -> None:
    with cluster_executor(
        address, [seat(tmp_path, "a", "python3")], in_process_bots=True
    ) as executor:
        busy = [executor.submit(time.sleep, 1) for _ in range(6)]
        time.sleep(0.3)
        began = time.monotonic()
        executor.shutdown(wait=False, cancel_futures=True)
        done, not_done = cf.wait(busy, timeout=5)
        assert not not_done and all(f.cancelled() for f in done)
        assert time.monotonic() - began < 2
        with pytest.raises(RuntimeError):
            executor.submit(math.factorial, 3)


def test_a_worker_that_lacks_a_program_is_named_before_the_run(
    address: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The workers were started with the old PATH: a program only the client can find.
    (tmp_path / "bin").mkdir()
    program = tmp_path / "bin" / "gofish-only-here"
    program.write_text("#!/bin/sh\n")
    program.chmod(0o755)
    monkeypatch.setenv("PATH", f"{tmp_path / 'bin'}{os.pathsep}{os.environ['PATH']}")
    with (
        pytest.raises(ClusterError) as caught,
        cluster_executor(
            address, [seat(tmp_path, "carol", "gofish-only-here")], in_process_bots=True
        ),
    ):
        pass
    message = str(caught.value)
    assert message.startswith("worker tcp://127.0.0.1:")
    assert (
        "participant 'carol': program gofish-only-here: missing there, present on the client"
        in message
    )
    assert "\n" not in message


def test_a_worker_running_another_arena_version_is_named_before_the_run(
    address: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(arena, "__version__", "9.9.9")  # the client's; the workers keep theirs
    bots = [seat(tmp_path, "dave", *bot_command("easy"), bot="easy")]
    expected = (
        r"^worker tcp://\S+: the arena: gofish-arena \S+ there, gofish-arena 9.9.9 on the client$"
    )
    with (
        pytest.raises(ClusterError, match=expected),
        cluster_executor(address, bots, in_process_bots=True),
    ):
        pass


def test_a_worker_that_joins_later_is_checked_before_its_first_task(
    address: str, tmp_path: Path
) -> None:
    # Passing the up-front check and then meeting a changed worker: each task checks its worker.
    with cluster_executor(
        address, [seat(tmp_path, "a", "python3")], in_process_bots=True
    ) as executor:
        stale = DaskExecutor(
            executor._client, (Need("erin", "arena", ""),), ("gofish-arena 0.0.1",)
        )
        with pytest.raises(
            ClusterError, match=r"^worker tcp://\S+: participant 'erin': gofish-arena \S+ there"
        ):
            stale.submit(math.factorial, 4).result(timeout=30)


@needs_dask
def test_an_unreachable_scheduler_is_one_line() -> None:
    began = time.monotonic()
    with pytest.raises(
        ClusterError, match=r"^cannot reach the Dask scheduler at tcp://127.0.0.1:9: "
    ):
        connect("tcp://127.0.0.1:9", timeout=1)
    assert time.monotonic() - began < 10


# --- whole tournaments on the cluster ------------------------------------------------------

BOTS_CONFIG = """\
seed = 1234
games = {games}
replays = "{replays}"
[tournament]
seats = 3
[[participants]]
name = "rita"
bot = "random"
[[participants]]
name = "eddie"
bot = "easy"
[[participants]]
name = "meg"
bot = "medium"
[[participants]]
name = "hal"
bot = "hard"
"""

# A deterministic participant that is slow enough to be caught mid-match, and leaves a marker
# named after its parent (the worker process) and itself.
SLOW_BOT = """\
import json, os, pathlib, sys, time
pathlib.Path(os.environ["MARKERS"], f"{os.getppid()}-{os.getpid()}").write_text("")
seat = players = 0
for line in sys.stdin:
    message = json.loads(line)
    kind, reply = message["type"], None
    if kind == "init":
        seat, players = message["seat"], len(message["players"])
    elif kind == "ask":
        time.sleep(0.004)
        reply = {"player": (seat + 1) % players, "cardId": message["hand"][0]["id"]}
    elif kind in ("go-fish", "pick-up"):
        reply = 0
    print(json.dumps(reply), flush=True)
"""

SLOW_CONFIG = """\
seed = 99
games = {games}
replays = "{replays}"
[limits]
sandbox = "none"  # these bots mark or kill their worker on purpose: a sandbox would stop them
[[participants]]
name = "slow-a"
command = ["{python}", "slow_bot.py"]
env = {{ MARKERS = "{markers}" }}  # (an argument naming it would make it the bot's own files)
[[participants]]
name = "slow-b"
command = ["{python}", "slow_bot.py"]
env = {{ MARKERS = "{markers}" }}
"""


def write_config(folder: Path, template: str, **values: object) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / "config.toml"
    path.write_text(template.format(replays=folder / "replays", **values))
    return path


def play(path: Path, make_executor: object, window: int) -> tuple[object, object]:
    from arena.base import config as config_module
    from arena.tournaments import tournament

    settings, seats = config_module.load(path)
    plan = tournament.prepare(path, settings, seats)
    report = tournament.run(plan, make_executor, window=window)  # type: ignore[arg-type]
    plan.write_standings()
    return plan, report


def outcome_of(folder: Path) -> dict[str, object]:
    """What must be the same wherever the matches ran: every result line and replay, by game."""
    import json

    lines = [json.loads(line) for line in (folder / "results.jsonl").read_text().splitlines()]
    games = sorted(line["game"] for line in lines)
    by_game: dict[int, object] = {}
    for line in lines:
        data = json.loads((folder / line["replay"]).read_text())
        by_game[line["game"]] = {
            "line": {
                key: line[key]
                for key in (
                    "seating",
                    "matchSeed",
                    "dealSeed",
                    "outcome",
                    "scores",
                    "ranks",
                    "faults",
                    "invalidAsks",
                    "tournament",
                )
            },
            "replay": {
                key: data[key]
                for key in (
                    "seed",
                    "players",
                    "startingPlayer",
                    "deck",
                    "transcript",
                    "result",
                    "faults",
                    "events",
                    "config",
                )
            },
        }
    standings = json.loads((folder / "standings.json").read_text())
    for key in ("run",):
        standings.pop(key, None)
    for participant in standings["participants"]:
        participant.pop("replyTimes")  # how long replies took: timing, not outcome
    return {"games": games, "by_game": by_game, "standings": standings}


def test_a_tournament_on_the_cluster_plays_exactly_what_jobs_1_plays(
    address: str, tmp_path: Path
) -> None:
    from arena.tournaments.executors import InlineExecutor

    games = 8
    here = write_config(tmp_path / "here", BOTS_CONFIG, games=games)
    there = write_config(tmp_path / "there", BOTS_CONFIG, games=games)
    play(here, InlineExecutor, 1)
    from arena.base import config as config_module

    _, seats = config_module.load(there)
    with open_cluster(address, seats, in_process_bots=True) as cluster:
        _, report = play(there, cluster.executor, 2 * cluster.slots)
    assert report.played == games and not report.interrupted  # type: ignore[attr-defined]
    local, remote = (
        outcome_of(tmp_path / "here" / "replays"),
        outcome_of(tmp_path / "there" / "replays"),
    )
    assert remote["games"] == list(range(games))
    assert remote == local


@pytest.mark.slow
def test_a_worker_killed_mid_match_costs_one_retry_and_nothing_is_lost_or_doubled(
    cluster: Any, address: str, tmp_path: Path
) -> None:
    import signal
    import sys
    import threading

    from arena.base import config as config_module

    games = 4
    markers = tmp_path / "markers"
    markers.mkdir()
    folder = tmp_path / "t"
    path = write_config(folder, SLOW_CONFIG, games=games, python=sys.executable, markers=markers)
    (folder / "slow_bot.py").write_text(SLOW_BOT)
    _, seats = config_module.load(path)
    killed: list[int] = []

    def kill_the_first_worker_that_starts_a_participant() -> None:
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline and not killed:
            for marker in markers.iterdir():
                worker = int(marker.name.split("-")[0])
                os.kill(worker, signal.SIGKILL)
                killed.append(worker)
                return
            time.sleep(0.01)

    with open_cluster(address, seats, in_process_bots=True) as connected:
        killer = threading.Thread(target=kill_the_first_worker_that_starts_a_participant)
        killer.start()
        try:
            _, report = play(path, connected.executor, 2 * connected.slots)
        finally:
            killer.join()
        connected.client.wait_for_workers(2, timeout=30)  # the nanny brings it back for later tests
    assert killed, "no participant started"
    assert report.played == games and not report.interrupted  # type: ignore[attr-defined]
    replays = folder / "replays"
    lines = (replays / "results.jsonl").read_text().splitlines()
    assert sorted(__import__("json").loads(line)["game"] for line in lines) == list(range(games))
    assert len(list(replays.glob("*.json"))) == games + 1  # the replays and standings.json
    # The killed match's participants died with their worker (PDEATHSIG): none is left.
    started = [int(marker.name.split("-")[1]) for marker in markers.iterdir()]
    assert len(started) > 2 * games  # the lost match started its two participants twice
    deadline = time.monotonic() + 5
    while time.monotonic() < deadline and any(_alive(pid) for pid in started):
        time.sleep(0.05)
    assert not [pid for pid in started if _alive(pid)]
    # And the retried match is the same match: the whole run equals one played here.
    from arena.tournaments.executors import InlineExecutor

    here = write_config(
        tmp_path / "here", SLOW_CONFIG, games=games, python=sys.executable, markers=markers
    )
    (tmp_path / "here" / "slow_bot.py").write_text(SLOW_BOT)
    play(here, InlineExecutor, 1)
    assert outcome_of(replays)["by_game"] == outcome_of(tmp_path / "here" / "replays")["by_game"]


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    # A zombie whose parent has not reaped it yet is gone for our purposes.
    try:
        return Path(f"/proc/{pid}/stat").read_text().split(")")[-1].split()[0] != "Z"
    except OSError:
        return False


# --- the command line ------------------------------------------------------------------------


def arena_cli(*args: str, cwd: Path, before: str = "") -> subprocess.CompletedProcess[str]:
    """`arena ARGS` in a fresh interpreter; `before` runs first (to simulate a missing Dask…)."""
    script = f"import sys\n{before}\nfrom arena.ui.cli import main\nsys.argv = ['arena', *sys.argv[1:]]\nmain()\n"
    return subprocess.run(
        [sys.executable, "-c", script, *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


def test_arena_run_with_a_scheduler_writes_what_jobs_1_writes(address: str, tmp_path: Path) -> None:
    here = write_config(tmp_path / "here", BOTS_CONFIG, games=4)
    there = write_config(tmp_path / "there", BOTS_CONFIG, games=4)
    # The address from the config, as `[tournament] scheduler`, works like the option.
    there.write_text(
        there.read_text().replace("[tournament]\n", f'[tournament]\nscheduler = "{address}"\n')
    )
    local = arena_here("run", str(here), "--jobs", "1", cwd=tmp_path)
    remote = arena_here("run", str(there), cwd=tmp_path)
    assert local.returncode == 0, local.stderr
    assert remote.returncode == 0, remote.stderr
    assert f"on the Dask cluster at {address}: 2 workers checked" in remote.stdout
    assert outcome_of(tmp_path / "there" / "replays") == outcome_of(tmp_path / "here" / "replays")


def test_without_dask_a_scheduler_is_one_line_and_exit_2(tmp_path: Path) -> None:
    path = write_config(tmp_path / "t", BOTS_CONFIG, games=2)
    done = arena_cli(
        "run",
        str(path),
        "--scheduler",
        "tcp://127.0.0.1:9",
        cwd=tmp_path,
        before="sys.modules['distributed'] = None  # as if Dask were not installed",
    )
    assert done.returncode == 2
    assert (
        done.stderr.strip()
        == "--scheduler needs Dask, which is not installed: pip install 'gofish-arena[dask]'"
    )
    assert not (tmp_path / "t" / "replays").exists()


def test_a_worker_with_another_arena_version_stops_the_run_before_it_starts(
    address: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = write_config(tmp_path / "t", BOTS_CONFIG, games=2)
    monkeypatch.setattr(arena, "__version__", "9.9.9")  # the client's; the workers keep theirs
    done = arena_here("run", str(path), "--scheduler", address, cwd=tmp_path)
    assert done.returncode == 2, done.stderr
    [line] = done.stderr.strip().splitlines()
    assert line.startswith("worker tcp://127.0.0.1:")
    assert "the arena: gofish-arena" in line and "gofish-arena 9.9.9 on the client" in line
    assert not list((tmp_path / "t").glob("replays/*.json"))


def test_jobs_and_a_scheduler_together_are_a_usage_error(tmp_path: Path) -> None:
    path = write_config(tmp_path / "t", BOTS_CONFIG, games=2)
    done = arena_here(
        "run", str(path), "--scheduler", "tcp://127.0.0.1:9", "--jobs", "2", cwd=tmp_path
    )
    assert done.returncode == 2
    assert "--jobs and --scheduler" in done.stderr


@pytest.mark.parametrize("address", ["", "  "])
def test_an_empty_scheduler_is_refused_not_played_here(tmp_path: Path, address: str) -> None:
    (tmp_path / "config.toml").write_text(TWO_RANDOM.format(games=1))
    refused = arena_process("run", "config.toml", "--scheduler", address, cwd=tmp_path)
    assert refused.returncode == 2 and refused.stdout == "", refused.stdout
    assert refused.stderr.count("\n") == 1 and "--scheduler: an empty address" in refused.stderr
    assert not (tmp_path / "replays").exists()


def test_an_empty_scheduler_in_the_config_is_refused(tmp_path: Path) -> None:
    text = TWO_RANDOM.format(games=1) + '[tournament]\nscheduler = ""\n'
    (tmp_path / "config.toml").write_text(text)
    refused = arena_process("run", "config.toml", cwd=tmp_path)
    assert refused.returncode == 2 and "scheduler" in refused.stderr, refused.stderr
    assert not (tmp_path / "replays").exists()


def _run_on(address: str, path: Path, cwd: Path) -> subprocess.Popen[str]:
    """`arena run CONFIG --scheduler ADDRESS -q` in a process of its own, its output piped."""
    script = (
        "from arena.ui.cli import main\nimport sys\nsys.argv = ['arena', *sys.argv[1:]]\nmain()\n"
    )
    return subprocess.Popen(
        [sys.executable, "-c", script, "run", str(path), "--scheduler", address, "-q"],
        cwd=cwd,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


@pytest.mark.slow
def test_ctrl_c_cancels_the_outstanding_tasks_and_resume_plays_the_rest(
    cluster: Any, address: str, tmp_path: Path
) -> None:
    import json
    import signal

    games = 6
    markers = tmp_path / "markers"
    markers.mkdir()
    folder = tmp_path / "t"
    path = write_config(folder, SLOW_CONFIG, games=games, python=sys.executable, markers=markers)
    (folder / "slow_bot.py").write_text(SLOW_BOT)
    results = folder / "replays" / "results.jsonl"
    running = _run_on(address, path, tmp_path)
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline and not (
        results.exists() and len(results.read_text().splitlines()) >= 2
    ):
        time.sleep(0.05)
    running.send_signal(signal.SIGINT)
    interrupted_at = time.monotonic()
    _, stderr = running.communicate(timeout=30)
    assert running.returncode == 130, stderr
    assert time.monotonic() - interrupted_at < 5
    first = [json.loads(line)["game"] for line in results.read_text().splitlines()]
    assert 2 <= len(first) < games
    # Nothing of the run is left on the cluster once the matches that were running have ended.
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline and cluster.scheduler.tasks:
        time.sleep(0.05)
    assert not cluster.scheduler.tasks
    resumed = arena_cli("run", str(path), "--scheduler", address, "--resume", "-q", cwd=tmp_path)
    assert resumed.returncode == 0, resumed.stderr
    every = [json.loads(line)["game"] for line in results.read_text().splitlines()]
    assert sorted(every) == list(range(games)) and every[: len(first)] == first


SLEEPY_BOT = SLOW_BOT.replace("time.sleep(0.004)", "time.sleep(0.25)")  # a match: a minute


def test_ctrl_c_stops_the_matches_running_on_workers_and_keeps_their_replays(
    cluster: Any, address: str, tmp_path: Path
) -> None:
    import signal

    markers = tmp_path / "markers"
    markers.mkdir()
    folder = tmp_path / "t"
    path = write_config(folder, SLOW_CONFIG, games=4, python=sys.executable, markers=markers)
    (folder / "slow_bot.py").write_text(SLEEPY_BOT)
    running = _run_on(address, path, tmp_path)
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline and len(list(markers.iterdir())) < 4:
        time.sleep(0.05)  # two matches (four participants) running, one per worker
    assert len(list(markers.iterdir())) == 4
    time.sleep(0.5)
    running.send_signal(signal.SIGINT)
    interrupted_at = time.monotonic()
    _, stderr = running.communicate(timeout=30)
    assert running.returncode == 130, stderr
    assert time.monotonic() - interrupted_at < 5
    # Both matches ended on their workers (they had about a minute to go), their participants
    # stopped, and each came back as an interrupted replay.
    deadline = time.monotonic() + 3
    while time.monotonic() < deadline and cluster.scheduler.tasks:
        time.sleep(0.05)
    assert not cluster.scheduler.tasks
    participants = [int(marker.name.split("-")[1]) for marker in markers.iterdir()]
    deadline = time.monotonic() + 3
    while time.monotonic() < deadline and any(_alive(pid) for pid in participants):
        time.sleep(0.05)
    assert not any(_alive(pid) for pid in participants)
    interrupted = sorted((folder / "replays").glob("*-interrupted.json"))
    assert len(interrupted) == 2, stderr
    results = folder / "replays" / "results.jsonl"
    assert not results.exists() or not results.read_text()


@needs_dask
@pytest.mark.parametrize("text", ["foo", "http://127.0.0.1:8786", "tcp://127.0.0.1"])
def test_a_malformed_address_is_one_line_at_once(text: str) -> None:
    began = time.monotonic()
    with pytest.raises(
        ClusterError, match=r"is not a Dask scheduler address \(tcp://HOST:PORT\): "
    ):
        connect(text)
    assert time.monotonic() - began < 1


# A participant that takes down whatever worker runs it (as a bot that eats all memory would).
WORKER_KILLER = """\
import os, signal
os.kill(os.getppid(), signal.SIGKILL)
"""


def test_a_match_that_kills_every_worker_it_is_given_stops_the_run_naming_it(
    tmp_path: Path,
) -> None:
    # A cluster of its own: the module's shared one is never left to its nannies' restarts
    # (once, in a fresh clone's suite, a nanny closed instead of restarting its worker).
    from arena.base import config as config_module
    from arena.tournaments.cluster import MatchLost

    folder = tmp_path / "t"
    path = write_config(folder, SLOW_CONFIG, games=1, python=sys.executable, markers=tmp_path)
    (folder / "slow_bot.py").write_text(WORKER_KILLER)
    _, seats = config_module.load(path)
    with (
        _local_cluster() as own,
        open_cluster(own.scheduler_address, seats, in_process_bots=True) as connected,
    ):
        before = set(connected.client.run(os.getpid).values())
        assert len(before) == 2
        with pytest.raises(MatchLost, match=r"^game 0: every worker that ran it died"):
            play(path, connected.executor, 2)
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline and any(_alive(pid) for pid in before):
            time.sleep(0.05)
        assert not [pid for pid in before if _alive(pid)]  # both were killed
    assert not (folder / "replays" / "results.jsonl").exists()


@pytest.mark.needs("bwrap")
def test_a_sandboxed_run_needs_a_working_bwrap_on_every_worker(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    from arena.seats import sandbox
    from arena.tournaments.cluster import first_mismatch, needs_of

    bots = [seat(tmp_path, "erin", *bot_command("easy"), bot="easy")]
    needs = needs_of(bots, in_process_bots=True, sandbox="bwrap")
    assert ("", "sandbox") in {(need.participant, need.kind) for need in needs}
    assert "sandbox" not in {
        need.kind for need in needs_of(bots, in_process_bots=True, sandbox="none")
    }
    client = tuple(need.observe() for need in needs)
    monkeypatch.setenv("PATH", str(tmp_path))  # a worker without bwrap
    sandbox.probe.cache_clear()
    sandbox.bwrap_path.cache_clear()
    try:
        worker = tuple(need.observe() for need in needs)
    finally:
        sandbox.probe.cache_clear()
        sandbox.bwrap_path.cache_clear()
    problem = first_mismatch("tcp://10.0.0.9:1234", needs, client, worker)
    assert problem == (
        "worker tcp://10.0.0.9:1234: the arena: the participants' sandbox: "
        "no sandbox (bwrap (bubblewrap) is not installed) there, a working bwrap on the client"
    )


@needs_dask
@pytest.mark.needs("bwrap")
def test_workers_with_bwrap_pass_the_sandbox_check(address: str, tmp_path: Path) -> None:
    bots = [seat(tmp_path, "fay", *bot_command("easy"), bot="easy")]
    with cluster_executor(address, bots, in_process_bots=False, sandbox="bwrap") as executor:
        assert executor is not None
