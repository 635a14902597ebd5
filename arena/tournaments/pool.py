"""`LocalExecutor`: matches played in a pool of worker processes (`--jobs N`).

In a module of its own so that a run of one job (`InlineExecutor`) never imports
multiprocessing. How its workers stop is told in `arena.tournaments.executors`.
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
import sys
import time
from concurrent.futures import ProcessPoolExecutor

from arena.base import shutdown
from arena.seats import transport
from arena.tournaments import runner

END_SECONDS = 5.0  # how long a pool's shutdown waits for its workers before killing them


class LocalExecutor(ProcessPoolExecutor):
    """A pool of `jobs` worker processes whose matches can be interrupted."""

    def __init__(self, jobs: int) -> None:
        # forkserver: workers fork from a clean single-threaded server, not from the arena
        # (whose progress display runs a thread), and start fast with the arena preloaded.
        context = multiprocessing.get_context("forkserver")
        context.set_forkserver_preload(["arena.tournaments.runner", "arena.tournaments.pool"])
        with shutdown.helpers_deaf():
            _start_tracker_unheard()  # before the pool makes its first semaphore
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


def _start_tracker_unheard() -> None:
    """Start multiprocessing's resource tracker with its stderr on /dev/null.

    The tracker outlives an arena killed by SIGKILL (it is not the arena's child in a way the
    kernel ends), unlinks the pool's named semaphores the arena could not, and says so: "There
    appear to be N leaked semaphore objects to clean up at shutdown", a warning about its own
    clean-up, printed on the terminal the user has moved on from. The clean-up is kept, the
    warning is not heard. The tracker takes this process's stderr when it starts, so stderr
    points at /dev/null for that moment (milliseconds, once a run); one already running is kept.
    """
    targets = {2}
    with contextlib.suppress(AttributeError, OSError, ValueError):
        targets.add(sys.stderr.fileno())  # (the descriptor the tracker is handed, if another)
    with contextlib.suppress(AttributeError, OSError, ValueError):
        sys.stderr.flush()
    kept: dict[int, int] = {}
    for fd in targets:
        with contextlib.suppress(OSError):  # (a closed stderr: nothing to hide)
            kept[fd] = os.dup(fd)
    quiet = os.open(os.devnull, os.O_WRONLY | os.O_CLOEXEC)
    try:
        for fd in kept:
            os.dup2(quiet, fd, inheritable=fd <= 2)
        multiprocessing.resource_tracker.ensure_running()
    finally:
        for fd, copy in kept.items():
            os.dup2(copy, fd, inheritable=fd <= 2)
            os.close(copy)
        os.close(quiet)


def _signal(process: multiprocessing.process.BaseProcess, number: int) -> None:
    if process.pid is not None and process.exitcode is None:  # not yet reaped: still its pid
        with contextlib.suppress(ProcessLookupError):
            os.kill(process.pid, number)


# -- inside a worker process ------------------------------------------------------------


def _worker_started(arena_pid: int) -> None:
    shutdown.install_worker(arena_pid)
    # Runs as the worker process exits (after the pool's shutdown), where atexit does not:
    # the kept participants are stopped, then their temporary folders are waited for.
    multiprocessing.util.Finalize(None, runner.close_kept, exitpriority=10)
    multiprocessing.util.Finalize(None, transport.wait_for_removals, exitpriority=5)
