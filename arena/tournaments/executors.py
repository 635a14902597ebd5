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

Interrupts. A worker process turns the first SIGINT that arrives during a task into
KeyboardInterrupt, which the match loop turns into an `interrupted` result (every participant
stopped, the replay so far returned); after a SIGINT it plays no further task (one already
queued to it comes back as KeyboardInterrupt, unplayed). `interrupt()`
sends that SIGINT to every worker, so a run stopped by a signal sent to the arena alone
stops its workers' matches too; a Ctrl-C at a terminal reaches them directly.
"""

from __future__ import annotations

import contextlib
import multiprocessing
import multiprocessing.util
import os
import signal
from collections.abc import Callable
from concurrent.futures import Executor, Future, ProcessPoolExecutor
from types import FrameType
from typing import Any, Protocol, TypeVar

from arena.tournaments import runner

T = TypeVar("T")


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

    A KeyboardInterrupt during a task is the task's to handle (a match returns `interrupted`);
    one that escapes it propagates out of `submit`.
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
        super().__init__(max_workers=jobs, mp_context=context, initializer=_worker_started)

    keeps_participants = True

    def submit(self, fn: Callable[..., T], /, *args: Any, **kwargs: Any) -> Future[T]:
        return super().submit(_interruptible, fn, *args, **kwargs)

    def _worker_pids(self) -> list[int]:
        # The pool's own table of its processes: the only handle on them it offers.
        processes = getattr(self, "_processes", None) or {}
        return list(processes)

    def interrupt(self) -> None:
        """Ask every running task to stop: its match ends `interrupted`, its processes stopped."""
        for pid in self._worker_pids():
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGINT)

    def kill(self) -> None:
        """Kill every worker at once (their participants die with them: PDEATHSIG)."""
        for pid in self._worker_pids():
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)
        self.shutdown(wait=True, cancel_futures=True)


def make_executor(jobs: int) -> MatchExecutor:
    return InlineExecutor() if jobs <= 1 else LocalExecutor(jobs)


# -- inside a worker process ------------------------------------------------------------

_in_task = False
_interrupt_raised = False
_stopping = False  # a SIGINT has come: this worker starts no further match


def _worker_started() -> None:
    signal.signal(signal.SIGINT, _on_interrupt)
    # Runs as the worker process exits (after the pool's shutdown), where atexit does not.
    multiprocessing.util.Finalize(None, runner.close_kept, exitpriority=10)


def _on_interrupt(signum: int, frame: FrameType | None) -> None:
    global _interrupt_raised, _stopping
    _stopping = True
    # Once per task: a second signal must not cut short the stopping of its processes.
    if _in_task and not _interrupt_raised:
        _interrupt_raised = True
        raise KeyboardInterrupt


def _interruptible(fn: Callable[..., T], /, *args: Any, **kwargs: Any) -> T:
    global _in_task, _interrupt_raised
    if _stopping:
        # A task the pool had already queued to this worker when the run was interrupted: it
        # cannot be cancelled any more, so it comes back unplayed.
        raise KeyboardInterrupt
    _interrupt_raised = False
    _in_task = True
    try:
        return fn(*args, **kwargs)
    finally:
        _in_task = False
