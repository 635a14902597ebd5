"""Running a tournament's matches on a Dask cluster (`arena run --scheduler tcp://HOST:PORT`).

The tournament hands matches to a standard `concurrent.futures.Executor`; this module gives
it one whose tasks run on the workers of a Dask scheduler. The workers only play: every
task returns its finished match to the client, which writes the replays and the results
file itself, as with local processes.

Before the run, and again on every worker that joins later (a restarted one too), each
worker is checked for what the participants need: the config folder they run in, every
program and file their commands name by path (the same bytes as on the client), every
program named bare (on the worker's PATH), and for the arena itself and its built-in bots
the same `arena.__version__`, and when the run is sandboxed (`[limits] sandbox`, decided once
on the client for every worker), a `bwrap` that can build the sandbox.

A worker that dies mid-match is the scheduler's business: it hands the match to another
worker, and the client gets exactly one result per match. (After more than
`distributed.scheduler.allowed-failures` deaths, 3 by default, it gives up: MatchLost.) A
task that raises is not retried: the match would fail the same way again.

Dask is an optional extra (`pip install 'gofish-arena[dask]'`); it is imported only here, and
only when a cluster is asked for.

    ClusterError (a ConfigError)   no Dask, a bad or unreachable address, no worker, or a
                                   worker that lacks what a participant needs; one line, exit 2
    MatchLost (an ArenaError)      a match that took down every worker it was given; exit 1
"""

from __future__ import annotations

import concurrent.futures as cf
import contextlib
import os
import shutil
import socket
import struct
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

import arena
from arena.base import shutdown
from arena.base.config import Entrant
from arena.base.errors import ArenaError, ConfigError
from arena.seats.programs import named_files

# Dask's own types are not annotated; these names say what is meant where `Any` is used.
Client = Any
Future = Any

INSTALL_HINT = "pip install 'gofish-arena[dask]'"
CONNECT_TIMEOUT = 10.0  # seconds to reach the scheduler
WORKER_WAIT = 30.0  # seconds to wait for the first worker to join
STOP_POLL = 0.5  # a running task waits on the run's stop Event this long at a time


class ClusterError(ConfigError):
    """A cluster that cannot run this config: one line naming the scheduler or the worker."""


class NoWorker(ClusterError):
    """The scheduler has no worker (yet) to check or to play on."""


class MatchLost(ArenaError):
    """A match whose task killed every worker it ran on (the scheduler gave up on it)."""


NeedKind = Literal["arena", "folder", "program", "file", "sandbox"]


@dataclass(frozen=True)
class Need:
    """One thing a participant needs on the machine that runs it, and how to recognise it."""

    participant: str  # the seat name, or "" for the arena itself
    kind: NeedKind
    target: str  # a path, a program name, or "" for the arena

    def observe(self) -> str:
        """What this machine has for the need, as a short text to compare with another's."""
        if self.kind == "arena":
            return f"gofish-arena {arena.__version__}"
        if self.kind == "folder":
            return "present" if os.path.isdir(self.target) else "missing"
        if self.kind == "program":
            found = shutil.which(self.target)  # a bare name on PATH, or an absolute path
            return "present" if found else "missing"
        if self.kind == "sandbox":
            from arena.seats import sandbox

            problem = sandbox.probe()
            return "a working bwrap" if problem is None else f"no sandbox ({problem})"
        from arena.seats import fingerprint

        return fingerprint.of_file(self.target)

    def describe(self) -> str:
        owner = f"participant {self.participant!r}" if self.participant else "the arena"
        what = {
            "arena": "",
            "folder": f": folder {self.target}",
            "program": f": program {self.target}",
            "file": f": file {self.target}",
            "sandbox": ": the participants' sandbox",
        }[self.kind]
        return owner + what


def needs_of(
    seats: Sequence[Entrant], *, in_process_bots: bool, sandbox: str = "none"
) -> tuple[Need, ...]:
    """Everything the participants of `seats` need on a worker, in a stable order.

    With `sandbox="bwrap"`, every worker must be able to build the sandbox.

    What a command names as its own (`./bot`, `bots/alice.py`, `/opt/bots/bob`: the files of
    `seats.programs.named_files`, the one rule of what is a participant's program) must be the same
    bytes on the worker as on the client (a folder it names need only be there); a program
    named bare (`python3`, `node`) need only be on the worker's PATH, since machines may build
    their interpreters differently.
    """
    needs: list[Need] = [Need("", "arena", "")]
    if sandbox == "bwrap":
        needs.append(Need("", "sandbox", "bwrap"))
    for seat in seats:
        needs.append(Need(seat.name, "folder", str(seat.cwd)))
        if seat.bot is not None:
            needs.append(Need(seat.name, "arena", ""))
            if not in_process_bots:  # the arena's own interpreter, whatever its build
                needs.append(Need(seat.name, "program", seat.command[0]))
            continue
        program = seat.command[0]
        own = named_files(seat.command, seat.cwd, seat.env)  # its program, a script, a model...
        if "/" not in program:
            needs.append(Need(seat.name, "program", program))
        elif (where := Path(os.path.abspath(seat.cwd / program))) not in own:
            needs.append(Need(seat.name, "file", str(where)))  # not there: "missing" for all
        for path in own:
            needs.append(Need(seat.name, "folder" if path.is_dir() else "file", str(path)))
    return tuple(dict.fromkeys(needs))


def observe_all(needs: tuple[Need, ...]) -> tuple[str, ...]:
    return tuple(need.observe() for need in needs)


def first_mismatch(
    worker: str, needs: tuple[Need, ...], expected: tuple[str, ...], seen: tuple[str, ...]
) -> str | None:
    """The first need a worker lacks, as one line naming the worker and the program; or None."""
    for need, want, got in zip(needs, expected, seen, strict=True):
        if want != got:
            return f"worker {worker}: {need.describe()}: {got} there, {want} on the client"
    return None


# On a worker: what this process has already checked, and what it found (a restarted worker
# checks again). Keyed by what the client expects too: two clients may expect differently.
_checked: dict[tuple[tuple[Need, ...], tuple[str, ...]], str | None] = {}
_checked_lock = threading.Lock()


def _check_here(needs: tuple[Need, ...], expected: tuple[str, ...]) -> None:
    with _checked_lock:
        if (needs, expected) not in _checked:
            from distributed import get_worker

            seen = observe_all(needs)
            _checked[needs, expected] = first_mismatch(get_worker().address, needs, expected, seen)
        problem = _checked[needs, expected]
    if problem is not None:
        raise ClusterError(problem)


def run_checked(
    needs: tuple[Need, ...],
    expected: tuple[str, ...],
    stop: Any,
    fn: Callable[..., Any],
    *args: Any,
) -> Any:
    """A task on a worker: check (once per worker process) what the participants need, then run
    `fn(*args)` with `shutdown.should_stop()` also true once the run's `stop` Event is set.

    A task that finds the run stopping before it begins raises `shutdown.Stopped`, unplayed, as
    a stopping pool worker does; one that is playing ends its match `interrupted` at its next
    poll, within STOP_POLL seconds of the arena's stop.
    """
    _check_here(needs, expected)
    if stop.is_set():
        raise shutdown.Stopped
    flag, done = threading.Event(), threading.Event()
    watch = threading.Thread(target=_watch, args=(stop, flag, done), daemon=True)
    watch.start()
    try:
        with shutdown.also_when(flag):
            return fn(*args)
    finally:
        done.set()
        watch.join(STOP_POLL + CONNECT_TIMEOUT)


def _watch(stop: Any, flag: threading.Event, done: threading.Event) -> None:
    """Raise `flag` when the run's `stop` Event is set on the scheduler; end with the task."""
    try:
        while not done.is_set():
            if stop.wait(timeout=STOP_POLL):
                flag.set()
                return
    except Exception:  # noqa: BLE001 - the scheduler is gone: the run that would stop us too
        flag.set()


class DaskExecutor(cf.Executor):
    """A `concurrent.futures.Executor` whose tasks run on a Dask cluster.

    Every submission is a distinct task (never merged with an equal one), first checks its
    worker, and resolves a plain `concurrent.futures.Future`, so `as_completed`, `wait` and
    `cancel` behave as with a process pool. `shutdown(cancel_futures=True)` cancels what has
    not finished.

    Dask cannot interrupt a running task, and the arena's signals do not reach a worker, so a
    stop reaches the run's tasks as a flag: `interrupt()` sets a Dask Event of this executor's
    own, which every task of it watches (`run_checked`). A running match ends `interrupted`
    within STOP_POLL seconds and comes back with its replay so far; a task that had not begun
    comes back `shutdown.Stopped`, unplayed, as from a stopping pool worker.

    `keeps_participants` is False: a Dask worker outlives the run, and nothing would stop
    participants kept alive there for a next match, so the run sends its tasks without `reuse`.
    """

    keeps_participants = False

    def __init__(self, client: Client, needs: tuple[Need, ...], expected: tuple[str, ...]) -> None:
        from distributed import Event

        make_event: Callable[..., Any] = Event
        self._client = client
        self._needs = needs
        self._expected = expected
        # Set by `interrupt` and never cleared: a task that outlives the run must still see it
        # (one flag per stopped run stays on the scheduler).
        self._stop: Any = make_event(f"gofish-arena-stop-{os.urandom(16).hex()}", client=client)
        self._pending: dict[Future, cf.Future[Any]] = {}  # keeps each Dask task alive until done
        self._lock = threading.Lock()
        self._shut = False

    def submit(self, fn: Callable[..., Any], /, *args: Any, **kwargs: Any) -> cf.Future[Any]:
        if kwargs:
            raise TypeError("DaskExecutor.submit takes positional arguments only")
        with self._lock:
            if self._shut:
                raise RuntimeError("cannot schedule new futures after shutdown")
            task = self._client.submit(
                run_checked, self._needs, self._expected, self._stop, fn, *args, pure=False
            )
            mine: cf.Future[Any] = cf.Future()
            self._pending[task] = mine
        what = _describe(args)
        mine.add_done_callback(lambda done: _on_cancel(done, task))
        task.add_done_callback(lambda ended: self._settle(ended, what))
        return mine

    def _settle(self, task: Future, what: str) -> None:
        """Runs in a Dask callback thread when a task ends, whichever way."""
        with self._lock:
            mine = self._pending.pop(task, None)
        if mine is None or mine.done():
            return
        status = task.status
        try:
            if status == "finished":
                mine.set_result(task.result())
            elif status == "cancelled":
                _cancel(mine)
            else:
                mine.set_exception(_translate(task.exception(), what))
        except cf.InvalidStateError:
            pass  # the caller cancelled it meanwhile
        except BaseException as error:  # noqa: BLE001 - whatever it is, the caller must see it
            try:
                mine.set_exception(error)
            except cf.InvalidStateError:
                pass

    def shutdown(self, wait: bool = True, *, cancel_futures: bool = False) -> None:
        with self._lock:
            self._shut = True
            outstanding = list(self._pending.items())
        if cancel_futures:
            for task, mine in outstanding:
                task.cancel()
                _cancel(mine)
        if wait:
            cf.wait([mine for _, mine in outstanding])

    def interrupt(self) -> None:
        """Stop every task of this executor: running matches end `interrupted` and come back;
        tasks not yet begun come back unplayed. Each future is marked running, so a caller's
        `cancel()` leaves it to come back by itself, as a pool leaves its running tasks."""
        self._stop.set()
        with self._lock:
            outstanding = list(self._pending.values())
        for mine in outstanding:
            # RuntimeError: it ended meanwhile (a Dask callback thread settles futures).
            with contextlib.suppress(RuntimeError):
                mine.set_running_or_notify_cancel()

    def kill(self) -> None:
        """Drop every task at once. The workers are the cluster's, not the arena's: they are
        not killed; a running match sees the stop Event (if `interrupt` came first) and ends,
        and its result is dropped."""
        self.shutdown(wait=False, cancel_futures=True)


def _describe(args: tuple[Any, ...]) -> str:
    """The task in a sentence: its first argument as it names itself (a match task: "game N")."""
    return str(args[0]) if args else "a task"


def _on_cancel(mine: cf.Future[Any], task: Future) -> None:
    if mine.cancelled():
        mine.set_running_or_notify_cancel()  # wakes `wait` and `as_completed`, as a pool does
        if not task.done():
            task.cancel()


def _cancel(mine: cf.Future[Any]) -> None:
    """End `mine` as cancelled, even once `interrupt` has marked it running."""
    if not mine.cancel():  # running (or already ended: then this does nothing)
        with contextlib.suppress(cf.InvalidStateError):
            mine.set_exception(cf.CancelledError())


def _translate(error: BaseException | None, what: str) -> BaseException:
    from distributed.scheduler import KilledWorker

    if isinstance(error, KilledWorker):
        return MatchLost(
            f"{what}: every worker that ran it died ({error}); "
            "see the workers' logs (memory limits?), then run again with --resume"
        )
    return (
        error
        if error is not None
        else ArenaError(f"{what}: failed on the cluster without an error")
    )


@dataclass
class Cluster:
    """A connection to a checked Dask cluster; `executor()` gives an executor on it."""

    address: str
    client: Client
    needs: tuple[Need, ...]
    expected: tuple[str, ...]
    workers: list[str]
    slots: int  # worker threads when the run began: matches that can run at once

    def executor(self) -> DaskExecutor:
        return DaskExecutor(self.client, self.needs, self.expected)


@contextmanager
def open_cluster(
    address: str,
    seats: Sequence[Entrant],
    *,
    in_process_bots: bool,
    sandbox: str = "none",
    connect_timeout: float = CONNECT_TIMEOUT,
    worker_wait: float = WORKER_WAIT,
) -> Iterator[Cluster]:
    """Connect to the scheduler at `address` and check every worker for what `seats` need.

    Raises ClusterError (one line) when Dask is not installed, the scheduler cannot be
    reached, no worker joins within `worker_wait` seconds, or a worker lacks what a
    participant needs. The connection is closed on the way out, which cancels every task
    still outstanding.
    """
    client = connect(address, connect_timeout)
    try:
        needs = needs_of(seats, in_process_bots=in_process_bots, sandbox=sandbox)
        expected = observe_all(needs)
        workers = check_workers(client, address, needs, expected, worker_wait)
        threads = client.nthreads()
        yield Cluster(address, client, needs, expected, workers, max(1, sum(threads.values())))
    finally:
        client.close()


@contextmanager
def cluster_executor(
    address: str, seats: Sequence[Entrant], *, in_process_bots: bool, sandbox: str = "none"
) -> Iterator[DaskExecutor]:
    """One executor on a checked cluster (see `open_cluster`), shut down on the way out."""
    with open_cluster(address, seats, in_process_bots=in_process_bots, sandbox=sandbox) as cluster:
        executor = cluster.executor()
        try:
            yield executor
        finally:
            executor.shutdown(wait=False, cancel_futures=True)


def connect(address: str, timeout: float = CONNECT_TIMEOUT) -> Client:
    """A client of the scheduler at `address`. Raises ClusterError."""
    try:
        from distributed import Client as DaskClient
    except ImportError:
        raise ClusterError(
            f"--scheduler needs Dask, which is not installed: {INSTALL_HINT}"
        ) from None
    from distributed.comm.addressing import get_address_host_port

    try:
        # Checked first: a Client given a malformed address fails, then hangs 20 s on exit.
        get_address_host_port(address)
    except ValueError as error:
        raise ClusterError(
            f"{address!r} is not a Dask scheduler address (tcp://HOST:PORT): {error}"
        ) from None
    if "://" not in address or address.startswith("tcp://"):
        # Dask's own handshake waits for ever on a server that accepts and never speaks, and a
        # server that sends noise crashes it and then holds the exit 20 s: a Dask scheduler
        # speaks first, so its first bytes are read here, within the timeout, before Dask is.
        host, port = get_address_host_port(address)
        probe(address, host, port, timeout)
    try:
        client: Client = DaskClient(address, timeout=timeout, set_as_default=False)  # type: ignore[no-untyped-call]
        return client
    except (OSError, TimeoutError, ValueError) as error:
        reason = str(error).splitlines()[0] if str(error) else type(error).__name__
        raise ClusterError(f"cannot reach the Dask scheduler at {address}: {reason}") from None


HANDSHAKE_LIMIT = 1 << 20  # bytes: a scheduler's first message is a few hundred


def probe(address: str, host: str, port: int, timeout: float) -> None:
    """Connect to `host:port` and read the first 16 bytes a Dask scheduler sends (its
    handshake's frame header: total size, then number of frames), within `timeout` seconds
    in all. Raises ClusterError when nothing comes, the connection closes, or the bytes
    cannot be a Dask handshake."""
    deadline = time.monotonic() + timeout
    head = b""
    try:
        with socket.create_connection((host, port), timeout=timeout) as connection:
            while len(head) < 16:
                left = deadline - time.monotonic()
                if left <= 0:
                    raise TimeoutError
                connection.settimeout(left)
                chunk = connection.recv(16 - len(head))
                if not chunk:
                    raise ClusterError(
                        f"the server at {address} closed the connection without a word: "
                        "not a Dask scheduler"
                    )
                head += chunk
    except TimeoutError:
        raise ClusterError(
            f"the server at {address} accepted the connection but said nothing in "
            f"{timeout:g} s: not a Dask scheduler"
        ) from None
    except OSError as error:
        raise ClusterError(
            f"cannot reach the Dask scheduler at {address}: {error.strerror or error}"
        ) from None
    size, frames = struct.unpack("<QQ", head)
    if not (16 <= size <= HANDSHAKE_LIMIT and 1 <= frames <= 64):
        raise ClusterError(
            f"the server at {address} does not speak Dask's protocol "
            "(its first bytes are not a Dask handshake)"
        )


def check_workers(
    client: Client,
    address: str,
    needs: tuple[Need, ...],
    expected: tuple[str, ...],
    worker_wait: float,
) -> list[str]:
    """Check every worker now connected; the workers' addresses. Raises ClusterError."""
    try:
        client.wait_for_workers(1, timeout=worker_wait)
    except TimeoutError:
        raise NoWorker(
            f"the Dask scheduler at {address} has no worker (waited {worker_wait:g} s)"
        ) from None
    seen: dict[str, Any] = client.run(observe_all, needs, on_error="return")
    for worker in sorted(seen):
        observed = seen[worker]
        if isinstance(observed, BaseException):
            raise ClusterError(
                f"worker {worker}: cannot check it ({type(observed).__name__}: {observed}); "
                "is gofish-arena installed there?"
            )
        problem = first_mismatch(worker, needs, expected, tuple(observed))
        if problem is not None:
            raise ClusterError(problem)
    return sorted(seen)


__all__ = [
    "Cluster",
    "ClusterError",
    "DaskExecutor",
    "MatchLost",
    "Need",
    "NoWorker",
    "cluster_executor",
    "needs_of",
    "open_cluster",
]
