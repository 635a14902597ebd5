"""Tournaments on a Dask cluster: a real `LocalCluster` of two worker processes on 127.0.0.1.

The cluster is started once for the module (about 2 s) and shared; a test that kills a worker
waits for its nanny to bring it back before it ends.
"""

from __future__ import annotations

import concurrent.futures as cf
import math
import os
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

distributed = pytest.importorskip(
    "distributed", reason="Dask is an optional extra: pip install '.[dask]' to run these tests"
)

import arena  # noqa: E402
from arena.cluster import ClusterError, DaskExecutor, Need, cluster_executor, connect, needs_of  # noqa: E402
from arena.config import Seat, bot_command  # noqa: E402

pytestmark = [
    # Closing a cluster while a cancelled task is still being torn down makes Dask's comms
    # warn about streams it closes itself; nothing of the arena's is behind these.
    pytest.mark.filterwarnings("ignore:.*[Ss]tream is closed.*"),
    pytest.mark.filterwarnings("ignore::ResourceWarning"),
]


@pytest.fixture(scope="module")
def cluster() -> Iterator[object]:
    with distributed.LocalCluster(
        n_workers=2, processes=True, threads_per_worker=1, host="127.0.0.1", dashboard_address=None
    ) as local:
        yield local


@pytest.fixture
def address(cluster: distributed.LocalCluster) -> str:
    return str(cluster.scheduler_address)


def seat(tmp_path: Path, name: str, *command: str, bot: str | None = None) -> Seat:
    return Seat(name=name, command=command, cwd=tmp_path, env={}, bot=bot)


# --- what a worker is checked for ------------------------------------------------------------


def test_a_command_named_by_path_is_checked_by_content_and_a_bare_program_by_presence(tmp_path: Path) -> None:
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


def test_built_in_bots_are_checked_by_the_arenas_version_and_in_a_process_by_interpreter(tmp_path: Path) -> None:
    bots = [seat(tmp_path, "a", *bot_command("random"), bot="random"),
            seat(tmp_path, "b", *bot_command("hard"), bot="hard")]
    inside = needs_of(bots, in_process_bots=True)
    assert [need.kind for need in inside] == ["arena", "folder", "arena", "folder", "arena"]
    apart = needs_of(bots, in_process_bots=False)
    assert Need("a", "program", bot_command("random")[0]) in apart


# --- the executor ------------------------------------------------------------------------------


def test_the_executor_runs_distinct_tasks_and_returns_each_result_once(address: str, tmp_path: Path) -> None:
    with cluster_executor(address, [seat(tmp_path, "a", "python3")], in_process_bots=True) as executor:
        futures = [executor.submit(math.factorial, 5) for _ in range(6)]  # equal tasks, never merged
        assert [f.result(timeout=30) for f in futures] == [120] * 6
        pids = {executor.submit(os.getpid).result(timeout=30) for _ in range(8)}
        assert os.getpid() not in pids


def test_cancelling_wakes_wait_and_as_completed_like_a_process_pool(address: str, tmp_path: Path) -> None:
    with cluster_executor(address, [seat(tmp_path, "a", "python3")], in_process_bots=True) as executor:
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
    with pytest.raises(ClusterError) as caught:
        with cluster_executor(address, [seat(tmp_path, "carol", "gofish-only-here")], in_process_bots=True):
            pass
    message = str(caught.value)
    assert message.startswith("worker tcp://127.0.0.1:")
    assert "participant 'carol': program gofish-only-here: missing there, present on the client" in message
    assert "\n" not in message


def test_a_worker_running_another_arena_version_is_named_before_the_run(
    address: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(arena, "__version__", "9.9.9")  # the client's; the workers keep theirs
    bots = [seat(tmp_path, "dave", *bot_command("easy"), bot="easy")]
    with pytest.raises(ClusterError, match=r"^worker tcp://\S+: the arena: gofish-arena \S+ there, gofish-arena 9.9.9 on the client$"):
        with cluster_executor(address, bots, in_process_bots=True):
            pass


def test_a_worker_that_joins_later_is_checked_before_its_first_task(address: str, tmp_path: Path) -> None:
    # Passing the up-front check and then meeting a changed worker: each task checks its worker.
    with cluster_executor(address, [seat(tmp_path, "a", "python3")], in_process_bots=True) as executor:
        stale = DaskExecutor(executor._client, (Need("erin", "arena", ""),), ("gofish-arena 0.0.1",))
        with pytest.raises(ClusterError, match=r"^worker tcp://\S+: participant 'erin': gofish-arena \S+ there"):
            stale.submit(math.factorial, 4).result(timeout=30)


def test_an_unreachable_scheduler_is_one_line() -> None:
    began = time.monotonic()
    with pytest.raises(ClusterError, match=r"^cannot reach the Dask scheduler at tcp://127.0.0.1:9: "):
        connect("tcp://127.0.0.1:9", timeout=1)
    assert time.monotonic() - began < 10
