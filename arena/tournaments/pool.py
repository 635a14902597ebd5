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
import tempfile
import time
from concurrent.futures import ProcessPoolExecutor

from arena.base import shutdown
from arena.base.errors import ConfigError
from arena.seats import transport
from arena.tournaments import runner

END_SECONDS = 5.0  # how long a pool's shutdown waits for its workers before killing them
SOCKET_PATH_MOST = 107  # bytes of an AF_UNIX socket's path on Linux (sun_path, less its NUL)
SOCKET_NAME_ROOM = 32  # what multiprocessing adds to TMPDIR: /pymp-XXXXXXXX/listener-XXXXXXXX
SHORT_FOLDERS = ("/tmp", "/var/tmp", "/dev/shm")  # where its sockets go when TMPDIR is too long


class LocalExecutor(ProcessPoolExecutor):
    """A pool of `jobs` worker processes whose matches can be interrupted."""

    def __init__(self, jobs: int) -> None:
        # forkserver: workers fork from a clean single-threaded server, not from the arena
        # (whose progress display runs a thread), and start fast with the arena preloaded.
        context = multiprocessing.get_context("forkserver")
        context.set_forkserver_preload(["arena.tournaments.runner", "arena.tournaments.pool"])
        _short_socket_folder()  # before the forkserver makes its socket there
        with shutdown.helpers_deaf():
            _start_tracker_unheard()  # before the pool makes its first semaphore
            super().__init__(
                max_workers=jobs,
                mp_context=context,
                initializer=_worker_started,
                initargs=(os.getpid(),),
            )
            try:
                multiprocessing.forkserver.ensure_running()
            except OSError as error:  # its socket could not be made (no room in its folder…)
                super().shutdown(wait=False)
                raise ConfigError(
                    f"cannot start the pool of workers for --jobs {jobs}: its socket in "
                    f"{multiprocessing.util.get_temp_dir()}: {error.strerror or error}; "
                    "give TMPDIR a short, writable folder, or run with --jobs 1"
                ) from None
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


def _short_socket_folder() -> None:
    """Have multiprocessing make its sockets in a folder whose path leaves room for them.

    The forkserver listens on an AF_UNIX socket `TMPDIR/pymp-XXXXXXXX/listener-XXXXXXXX`, and a
    socket's path is at most SOCKET_PATH_MOST bytes: with a long TMPDIR (a CI runner's, a
    test's) it cannot be made. Then multiprocessing's folder is made in the first short, writable
    one of SHORT_FOLDERS instead (it removes it at exit, as always); the rest of the arena keeps
    TMPDIR. When none is usable the pool says so in one line (`LocalExecutor`).
    """
    base = tempfile.gettempdir()
    if len(os.fsencode(base)) + SOCKET_NAME_ROOM <= SOCKET_PATH_MOST:
        return
    for folder in SHORT_FOLDERS:
        if os.path.isdir(folder) and os.access(folder, os.W_OK | os.X_OK):
            kept = tempfile.tempdir
            tempfile.tempdir = folder  # only while multiprocessing makes its folder
            try:
                multiprocessing.util.get_temp_dir()  # made once per process, then kept
            finally:
                tempfile.tempdir = kept
            return


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
