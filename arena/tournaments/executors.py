"""Where matches run: a `MatchExecutor` given `runner.play_task` and a `MatchTask`.

    executor.submit(play_task, task) -> Future[MatchPlayed]
    executor.interrupt()      # stop the matches running now: each ends `interrupted`
    executor.kill()           # end every worker at once
    executor.shutdown(wait=True, cancel_futures=True)

That Protocol is the whole seam. Three executors implement it:

- `InlineExecutor`: runs each task at once, in the calling thread (`--jobs 1`, a single match);
- `arena.tournaments.pool.LocalExecutor`: a process pool (`--jobs N`), whose workers stop
their match when told to (imported only for `--jobs 2` and more);
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

import os
from collections.abc import Callable
from concurrent.futures import Executor, Future
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


def make_executor(jobs: int) -> MatchExecutor:
    if jobs <= 1:
        return InlineExecutor()
    from arena.tournaments.pool import LocalExecutor  # (multiprocessing: only for --jobs 2+)

    return LocalExecutor(jobs)
