"""Where matches run: a `MatchExecutor` given `runner.play_task` and a `MatchTask`.

    executor.submit(play_task, task) -> Future[MatchPlayed]
    executor.interrupt()      # stop the matches running now: each ends `interrupted`
    executor.kill()           # end every worker at once
    executor.shutdown(wait=True, cancel_futures=True)

That Protocol is the whole seam. Three executors implement it:

- `InlineExecutor`: runs each task at once, in the calling thread (`--jobs 1`, a single match);
- `LocalExecutor`: a process pool (`--jobs N`), whose workers stop their match when told to;
- `arena.tournaments.cluster.DaskExecutor`: tasks on a Dask cluster. A worker keeps the participants
that ask to be reused (`runner.kept_participants`), one pool per worker thread; call
`runner.close_kept()` when a worker ends.

Stopping (`arena.base.shutdown` owns it). A worker process treats SIGINT, SIGTERM and SIGHUP
alike: its stop token is set, the match it plays ends `interrupted` at the next poll (every
participant stopped, the replay so far returned), and a task it has not begun comes back as
`shutdown.Stopped`, unplayed. `interrupt()` sends SIGINT to every worker, so a run stopped by a
signal sent to the arena alone stops its workers' matches too; a Ctrl-C at a terminal reaches
them directly, and any number of signals there means the same. `kill()` is the urgent stop. A
worker dies the moment the arena does, however it dies (a watch on the arena's pid), and its
participants with it (their parent-death signal).
"""

from __future__ import annotations

import contextlib
import multiprocessing
import multiprocessing.forkserver
import multiprocessing.process
import multiprocessing.resource_tracker
import multiprocessing.util
import os
import signal
import time
from collections.abc import Callable
from concurrent.futures import Executor, Future, ProcessPoolExecutor
from typing import Any, Protocol, TypeVar

from arena.base import shutdown
from arena.tournaments import runner

T = TypeVar("T")
END_SECONDS = 5.0  # how long a pool's shutdown waits for its workers before killing them


class MatchExecutor(Protocol):
    """Where match tasks run, and how they are stopped."""

    @property
    def keeps_participants(self) -> bool:
        """Whether a task's participants that ask for reuse may be kept for the worker's next."""
        ...

    def submit(self, fn: Callable[..., T], /, *args: Any, **kwargs: Any) -> Future[T]:
        """Run `fn(*args)` somewhere; its future."""
        ...

    def interrupt(self) -> None:
        """Ask every running task to stop soon: its match ends `interrupted`, its replay kept."""
        ...

    def kill(self) -> None:
        """End every worker now (their participants die with them)."""
        ...

    def shutdown(self, wait: bool = True, *, cancel_futures: bool = False) -> None: ...


def default_jobs() -> int:
    """The number of cores this process may run on."""
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1


class InlineExecutor(Executor):
    """Runs each task inside `submit`, in this thread: no process, no pickling.

    A stop requested during a task is the task's to handle (a match returns `interrupted`).
    """

    keeps_participants = True

    def submit(self, fn: Callable[..., T], /, *args: Any, **kwargs: Any) -> Future[T]:
        future: Future[T] = Future()
        try:
            result = fn(*args, **kwargs)
        except Exception as error:  # noqa: BLE001 - handed to the caller through the future
            future.set_exception(error)
        else:
            future.set_result(result)
        return future

    def shutdown(self, wait: bool = True, *, cancel_futures: bool = False) -> None:
        runner.close_kept()

    def interrupt(self) -> None:
        """Nothing to do: a task here runs in the thread that takes the signal."""

    def kill(self) -> None:
        runner.close_kept()


class LocalExecutor(ProcessPoolExecutor):
    """A pool of `jobs` worker processes whose matches can be interrupted."""

    def __init__(self, jobs: int) -> None:
        # forkserver: workers fork from a clean single-threaded server, not from the arena
        # (whose progress display runs a thread), and start fast with the arena preloaded.
        context = multiprocessing.get_context("forkserver")
        context.set_forkserver_preload(["arena.tournaments.runner", "arena.tournaments.executors"])
        with shutdown.helpers_deaf():
            super().__init__(
                max_workers=jobs,
                mp_context=context,
                initializer=_worker_started,
                initargs=(os.getpid(),),
            )
            multiprocessing.forkserver.ensure_running()
            multiprocessing.resource_tracker.ensure_running()

    keeps_participants = True

    def interrupt(self) -> None:
        """Ask every running task to stop: its match ends `interrupted`, its processes stopped."""
        for process in self._workers():
            _signal(process, signal.SIGINT)

    def kill(self) -> None:
        """Kill every worker at once (their participants die with them: PDEATHSIG)."""
        for process in self._workers():
            _signal(process, signal.SIGKILL)
        self.shutdown(wait=True, cancel_futures=True)

    def shutdown(self, wait: bool = True, *, cancel_futures: bool = False) -> None:
        """As a pool's, but a wait is bounded: workers not ended within END_SECONDS are killed,
        and any still there as long again after are left to the kernel."""
        workers = self._workers()
        super().shutdown(wait=False, cancel_futures=cancel_futures)
        if not wait:
            return
        deadline = time.monotonic() + END_SECONDS
        for process in workers:
            if process.exitcode is None:
                process.join(max(0.0, deadline - time.monotonic()))
        for process in workers:
            if process.exitcode is None:
                _signal(process, signal.SIGKILL)
        deadline = time.monotonic() + END_SECONDS
        for process in workers:
            process.join(max(0.0, deadline - time.monotonic()))
        manager = getattr(self, "_executor_manager_thread", None)
        if manager is not None:
            manager.join(max(0.0, deadline - time.monotonic()))

    def _workers(self) -> list[multiprocessing.process.BaseProcess]:
        # The pool's own table of its processes: the only handle on them it offers.
        processes = getattr(self, "_processes", None) or {}
        return list(processes.values())


def _signal(process: multiprocessing.process.BaseProcess, number: int) -> None:
    if process.pid is not None and process.exitcode is None:  # not yet reaped: still its pid
        with contextlib.suppress(ProcessLookupError):
            os.kill(process.pid, number)


def make_executor(jobs: int) -> MatchExecutor:
    return InlineExecutor() if jobs <= 1 else LocalExecutor(jobs)


# -- inside a worker process ------------------------------------------------------------


def _worker_started(arena_pid: int) -> None:
    shutdown.install_worker(arena_pid)
    # Runs as the worker process exits (after the pool's shutdown), where atexit does not.
    multiprocessing.util.Finalize(None, runner.close_kept, exitpriority=10)
