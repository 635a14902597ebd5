"""The one owner of stopping: signals, the stop token, a lost stdout, dying with the arena.

    shutdown.install_graceful()     # `arena run`: SIGINT, SIGTERM, SIGHUP ask the run to stop
    ...
    if shutdown.should_stop(): ...  # polled by lower layers (the match loop, the transport)

A process has one `token`. In the arena, the first of SIGINT, SIGTERM or SIGHUP *requests* a
stop (start nothing new, stop the running matches, record the finished ones); a second makes it
*urgent* (kill the workers now; what has come back is still recorded). No handler raises: the
code that waits polls the token, so a stop never lands half-way through a write. In a pool worker
every such signal only requests a stop (a Ctrl-C at a terminal reaches both the arena and its
workers, and the arena forwards its own), and a watch on the arena's pid kills the worker the
moment the arena dies, even by SIGKILL; its participants follow it (their parent-death signal).

Interactive commands (`arena play`) keep Python's Ctrl-C: `install_immediate` makes SIGTERM and
SIGHUP raise KeyboardInterrupt as SIGINT does, which the match driver turns into an interrupted
match.

`guard_stdout` makes a closed pipe (`| head -1`) or a full disk (`> /dev/full`) cost only the
output: writes are dropped from then on and `stdout_lost()` says why.
"""

from __future__ import annotations

import contextlib
import contextvars
import errno
import io
import os
import select
import signal
import sys
import threading
from collections.abc import Callable, Iterator
from types import FrameType
from typing import TextIO

STOP_SIGNALS = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)
CHECK_EVERY = 0.05  # seconds: how often a wait looks at the stop token (and whether its peer runs)


class Stopped(Exception):
    """A task refused without being started, because its process is stopping."""


class StopToken:
    """Whether this process was asked to stop, and how urgently. Safe from any thread."""

    def __init__(self) -> None:
        self._requested = threading.Event()
        self._urgent = threading.Event()
        self.signal: int | None = None  # the first signal that asked (None: asked by code)

    def request(self, *, urgent: bool = False, signal_number: int | None = None) -> None:
        if not self._requested.is_set() and self.signal is None:
            self.signal = signal_number
        self._requested.set()
        if urgent:
            self._urgent.set()

    def requested(self) -> bool:
        return self._requested.is_set()

    def urgent(self) -> bool:
        return self._urgent.is_set()

    def clear(self) -> None:
        self._requested.clear()
        self._urgent.clear()
        self.signal = None


token = StopToken()


# A task's own stop flag, for a thread that the process's signals do not speak for: a Dask
# worker runs tasks of any client in its threads, and the arena's stop reaches its task only as
# a flag (`arena.tournaments.cluster`). Set for one thread's context by `also_when`.
_task_flag: contextvars.ContextVar[threading.Event | None] = contextvars.ContextVar(
    "task_flag", default=None
)


def should_stop() -> bool:
    """Whether this process was asked to stop (or this task, see `also_when`): the poll every
    long wait makes."""
    if token.requested():
        return True
    flag = _task_flag.get()
    return flag is not None and flag.is_set()


@contextlib.contextmanager
def also_when(flag: threading.Event) -> Iterator[None]:
    """Within this block, in this thread, `should_stop()` is also true once `flag` is set."""
    reset = _task_flag.set(flag)
    try:
        yield
    finally:
        _task_flag.reset(reset)


def exit_status() -> int:
    """The exit status of a stopped command: 128 + the first signal (130 for Ctrl-C)."""
    return 128 + (token.signal or signal.SIGINT)


# -- the arena's own signals --------------------------------------------------------------


def install_graceful() -> None:
    """First SIGINT/SIGTERM/SIGHUP: request a stop; any further one: make it urgent."""

    def on_signal(signum: int, frame: FrameType | None) -> None:
        token.request(urgent=token.requested(), signal_number=signum)

    for number in STOP_SIGNALS:
        signal.signal(number, on_signal)


def install_immediate() -> None:
    """SIGTERM and SIGHUP raise KeyboardInterrupt, as SIGINT does (an interactive command)."""

    def on_signal(signum: int, frame: FrameType | None) -> None:
        token.signal = token.signal or signum  # for the exit status; nothing polls here
        raise KeyboardInterrupt

    signal.signal(signal.SIGINT, signal.default_int_handler)
    signal.signal(signal.SIGTERM, on_signal)
    signal.signal(signal.SIGHUP, on_signal)


# -- a worker process ----------------------------------------------------------------------


def install_worker(arena_pid: int) -> None:
    """In a pool worker: every stop signal requests a stop; die when the arena dies."""

    def on_signal(signum: int, frame: FrameType | None) -> None:
        token.request(signal_number=signum)

    for number in STOP_SIGNALS:
        signal.signal(number, on_signal)
    die_with(arena_pid)


@contextlib.contextmanager
def helpers_deaf() -> Iterator[None]:
    """Start a pool's helpers (its forkserver, the resource tracker) inside this block: they
    inherit SIGTERM and SIGHUP ignored, as SIGINT is by their own code, so a signal to the whole
    process group (a terminal's hangup) stops the run through the arena, not by killing them.
    A SIGTERM or SIGHUP that lands during the block (milliseconds, once a run) is lost."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    kept = {
        number: signal.signal(number, signal.SIG_IGN) for number in (signal.SIGTERM, signal.SIGHUP)
    }
    try:
        yield
    finally:
        for number, handler in kept.items():
            signal.signal(number, handler)


# What this process does as it dies with the arena, before its SIGKILL (`before_dying`).
_last_acts: list[Callable[[], None]] = []


def before_dying(act: Callable[[], None]) -> None:
    """Have `act` run when this process dies with the arena (`die_with`), just before."""
    _last_acts.append(act)


def _die() -> None:
    for act in _last_acts:
        with contextlib.suppress(Exception):
            act()
    os.kill(os.getpid(), signal.SIGKILL)


def die_with(pid: int) -> None:
    """Kill this process (SIGKILL) as soon as process `pid` ends, however it ends.

    A worker's parent is the pool's forkserver, not the arena, so the kernel's parent-death
    signal would not do: a thread waits on a pidfd of the arena itself.
    """
    try:
        pidfd = os.pidfd_open(pid)
    except ProcessLookupError:
        _die()
        return
    except (OSError, AttributeError):  # no pidfd (an old kernel): look every half second
        threading.Thread(
            target=_poll_for_death, args=(pid,), name="arena-watch", daemon=True
        ).start()
        return
    threading.Thread(target=_wait_for_death, args=(pidfd,), name="arena-watch", daemon=True).start()


def _wait_for_death(pidfd: int) -> None:
    poller = select.poll()
    poller.register(pidfd, select.POLLIN)
    while not poller.poll():
        pass
    _die()


def _poll_for_death(pid: int) -> None:
    while True:
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            _die()
        except PermissionError:
            pass
        threading.Event().wait(0.5)


# -- stdout -----------------------------------------------------------------------------------

_lost: list[str] = []


def stdout_lost() -> str | None:
    """Why stdout stopped taking output (None while it takes it): 'closed' for a pipe whose
    reader went away, else the error, e.g. 'No space left on device'."""
    return _lost[0] if _lost else None


class _GuardedStream(io.TextIOBase):
    """sys.stdout that drops output, instead of raising, once stdout cannot take it."""

    def __init__(self, stream: TextIO) -> None:
        super().__init__()
        self._stream = stream

    @property
    def encoding(self) -> str:  # type: ignore[override]
        return self._stream.encoding

    @property
    def errors(self) -> str | None:  # type: ignore[override]
        return self._stream.errors

    def isatty(self) -> bool:
        return not _lost and self._stream.isatty()

    def fileno(self) -> int:
        return self._stream.fileno()

    def writable(self) -> bool:
        return True

    def write(self, text: str) -> int:
        if not _lost:
            try:
                self._stream.write(text)
            except OSError as error:
                _lose(self._stream, error)
        return len(text)

    def flush(self) -> None:
        if not _lost:
            try:
                self._stream.flush()
            except OSError as error:
                _lose(self._stream, error)


def _lose(stream: TextIO, error: OSError) -> None:
    _lost.append(
        "closed" if error.errno in (errno.EPIPE, errno.ECONNRESET) else error.strerror or str(error)
    )
    # What is still buffered would fail again at exit ("Exception ignored ... BrokenPipeError"):
    # from now on the descriptor is /dev/null, and the buffer goes there.
    with contextlib.suppress(OSError, ValueError):
        null = os.open(os.devnull, os.O_WRONLY)
        os.dup2(null, stream.fileno())
        os.close(null)
    with contextlib.suppress(OSError, ValueError):
        stream.flush()


def guard_stdout() -> None:
    """From now on a closed or full stdout drops what is printed; see `stdout_lost`."""
    if not isinstance(sys.stdout, _GuardedStream) and sys.stdout is not None:
        sys.stdout = _GuardedStream(sys.stdout)
