"""The only code that touches participant processes.

A participant is a subprocess in its own session (so its whole process group can be killed),
started without a shell, fed one JSON line per message on stdin and read one line per reply
from stdout, every read with a deadline. The arena keeps its own line buffer, so a line is
bounded (`line_cap`) and a flood is a fault rather than a memory spike; stderr is drained
into a bounded log whenever the arena waits on the participant. A participant that times
out, exits, closes stdout or floods is stopped at once; everything it is owed afterwards is
answered "not delivered" without waiting on it again.

Nothing here raises because of what a participant did: every failure is a `Fault` in the
returned `Answer`.
"""

from __future__ import annotations

import atexit
import contextlib
import ctypes
import functools
import json
import os
import resource
import select
import shutil
import signal
import subprocess
import tempfile
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from arena.base import shutdown
from arena.engine.match import NO_REPLY
from arena.seats import seccomp
from arena.seats.replies import (
    GONE,
    RAW_CUT,
    Answer,
    BoundedLog,
    Ending,
    Fault,
    FaultKind,
    cut,
    decode_reply,
    not_json,
)
from arena.seats.sandbox import Confinement, Jail, bwrap_path

_CHUNK = 1 << 16
_FLOOD_SIZE = 1 << 12  # unasked output this large is watched for more (a flood)...
_FLOOD_WAIT = 0.02  # ...for this long
_PR_SET_PDEATHSIG = 1
_EXIT_CHECK = 0.05  # while waiting for a reply, how often to check that the process still runs
_EXIT_WAIT = 0.2  # after stdout closed: how long a process has to end by itself
_REAP_WAIT = 5.0  # after SIGKILL: how long to wait for the kernel before giving up on a reap


@dataclass(frozen=True)
class ResourceLimits:
    """OS limits applied in the child before it runs the participant's program."""

    memory_bytes: int | None = None  # RLIMIT_AS
    cpu_seconds: int | None = None  # RLIMIT_CPU (the kernel sends SIGXCPU, then SIGKILL)


_LIBC = ctypes.CDLL(None, use_errno=True)  # loaded in the parent: nothing to look up after fork


@functools.cache
def _pdeathsig_launcher() -> tuple[str, ...] | None:
    """util-linux's `setpriv`, which sets the parent-death signal and then runs the program.

    Spawning through it takes about half the time of a `preexec_fn`, which makes Python fork
    the whole arena and run Python code in the child (measured: 1.6 ms against 3.2 ms).
    """
    setpriv = shutil.which("setpriv")
    if setpriv is None:
        return None
    try:
        usage = subprocess.run(
            [setpriv, "--help"], capture_output=True, text=True, timeout=5, check=False
        ).stdout
    except (OSError, subprocess.SubprocessError):
        return None
    return (setpriv, "--pdeathsig", "KILL", "--") if "--pdeathsig" in usage else None


def _not_runnable(program: str, env: Mapping[str, str]) -> str | None:
    """Why the kernel would not run `program` (found, executable, an ELF binary or a script
    whose `#!` interpreter is there), in a few words; None when it would."""
    path = program if "/" in program else shutil.which(program, path=env.get("PATH", os.defpath))
    if path is None or not os.path.exists(path):
        return "not found"
    if os.path.isdir(path):
        return "a folder, not a program"
    if not os.path.isfile(path) or not os.access(path, os.X_OK):
        return "not executable"
    try:
        with open(path, "rb") as file:
            head = file.read(256)
    except OSError as error:
        return f"cannot be read: {error.strerror or error}"
    if head.startswith(b"\x7fELF"):
        return None
    if not head.startswith(b"#!"):
        return "neither a script with #! nor a binary"
    words = head[2:].split(b"\n", 1)[0].split()
    interpreter = os.fsdecode(words[0]) if words else ""
    if not interpreter:
        return "a script whose #! line names no interpreter"
    if interpreter.startswith("/") and not (
        os.path.isfile(interpreter) and os.access(interpreter, os.X_OK)
    ):
        return f"its interpreter {interpreter!r} (#!) is not there"
    return None


@functools.lru_cache(maxsize=64)
def _jail(
    command: tuple[str, ...],
    cwd: Path,
    env: tuple[tuple[str, str], ...],
    bot: bool,
    read_only: tuple[str, ...],
    hidden: tuple[str, ...],
) -> Jail | None:
    """A participant's sandbox, found once per process: every match of a run starts the same
    participants, and finding what each may read (links, `#!` lines, folders) costs more
    than the rest of a start in the arena."""
    return Jail.of(command, cwd, dict(env), bot=bot, read_only=read_only, hidden=hidden)


class _Sweeper:
    """Removes stopped participants' temporary folders in a thread of its own.

    Removing even an empty folder can take milliseconds (ext4 mounted with `discard`: 2-4 ms
    on this project's machine, more than a reply), and each match ends two or more; the next
    match need not wait for it. `wait` (at exit, and at a pool worker's end) waits until every
    folder given is gone.
    """

    def __init__(self) -> None:
        self._folders: list[str] = []
        self._busy = threading.Condition()
        self._thread: threading.Thread | None = None

    def remove(self, folder: str) -> None:
        with self._busy:
            self._folders.append(folder)
            self._busy.notify_all()
            if self._thread is None or not self._thread.is_alive():
                if self._thread is None:
                    atexit.register(self.wait)
                self._thread = threading.Thread(
                    target=self._work, name="arena-tmp-sweeper", daemon=True
                )
                self._thread.start()

    def _work(self) -> None:
        while True:
            with self._busy:
                while not self._folders:
                    self._busy.wait()
                folder = self._folders[0]
            shutil.rmtree(folder, ignore_errors=True)
            with self._busy:
                self._folders.pop(0)
                self._busy.notify_all()

    def wait(self, seconds: float = 10.0) -> None:
        """Wait, at most `seconds`, until every folder given to `remove` is gone."""
        deadline = time.monotonic() + seconds
        with self._busy:
            while self._folders and (left := deadline - time.monotonic()) > 0:
                self._busy.wait(left)


_SWEEPER = _Sweeper()


def wait_for_removals() -> None:
    """Wait until every stopped participant's temporary folder is removed (bounded)."""
    _SWEEPER.wait()


# The process groups this process has started and not yet killed, and a lock held while one is
# spawned. A parent-death signal is armed in the child, after the fork (by `setpriv`, bwrap's
# --die-with-parent or `_child_setup`): a pool worker that dies with its arena in that moment
# would leave that child behind. So a dying worker first kills every group it started, once
# any spawn in flight has finished (`shutdown.before_dying`).
_STARTED: set[int] = set()
_SPAWNING = threading.Lock()


def _kill_started() -> None:
    _SPAWNING.acquire(timeout=2.0)  # and kept: nothing more is spawned here
    for group in list(_STARTED):
        with contextlib.suppress(OSError):
            os.killpg(group, signal.SIGKILL)


shutdown.before_dying(_kill_started)


def _child_setup(limits: ResourceLimits) -> Callable[[], None]:
    libc = _LIBC
    parent = os.getpid()

    def setup() -> None:
        # Die with the arena (or the pool worker that spawns it), even if it is killed without
        # a chance to clean up. A parent that died between the fork and this call sends no
        # signal: then the child is already an orphan, and ends here.
        libc.prctl(_PR_SET_PDEATHSIG, signal.SIGKILL)
        if os.getppid() != parent:
            os._exit(127)
        if limits.memory_bytes is not None:
            resource.setrlimit(resource.RLIMIT_AS, (limits.memory_bytes, limits.memory_bytes))
        if limits.cpu_seconds is not None:
            hard = limits.cpu_seconds + 1
            resource.setrlimit(resource.RLIMIT_CPU, (limits.cpu_seconds, hard))

    return setup


class SubprocessParticipant:
    """A participant program run as a subprocess, speaking JSON lines.

    With `sandbox="bwrap"` it runs inside a bubblewrap sandbox (`arena.seats.sandbox`): `bot`,
    `read_only` and `hidden` say what it may and may not see there. Unsandboxed, it still gets
    a temporary folder of its own (TMPDIR), removed when it is stopped.
    """

    def __init__(
        self,
        command: Sequence[str],
        cwd: Path,
        env: Mapping[str, str],
        *,
        line_cap: int = 1 << 20,
        stderr_cap: int = 1 << 20,
        reply_cap: int = 8 << 20,
        limits: ResourceLimits = ResourceLimits(),
        sandbox: Confinement = "none",
        bot: bool = False,
        read_only: Sequence[str] = (),
        hidden: Sequence[str] = (),
    ) -> None:
        self.command = list(command)
        self.cwd = cwd
        self.env = dict(env)
        self.sandbox: Confinement = sandbox
        self.bot = bot
        self.read_only = tuple(read_only)
        self.hidden = tuple(hidden)
        self._status_fd: int | None = None  # bwrap's status (the read end of its pipe)
        self._status = b""
        self._tmp: str | None = None  # unsandboxed: its own temporary folder
        self.line_cap = line_cap
        # Every reply is kept in the transcript: their total is what bounds the arena's memory.
        self.reply_cap = reply_cap
        self.reply_bytes = 0  # this match's so far (`begin_match` starts again)
        self.limits = limits
        self.log = BoundedLog(stderr_cap)
        self.proc: subprocess.Popen[bytes] | None = None
        self.buffer = bytearray()
        self.exit_code: int | None = None  # the status it was reaped with (negative: a signal)
        self.ended_by_itself: bool | None = None  # known once it is killed: had it ended already?
        self.start_fault: Fault | None = None
        self._stopped = False
        self._reaped = False
        self._rest_unsolicited = False  # the start of the current line was output nobody asked for
        self._poll = select.poll()
        self._fds: dict[str, int] = {}

    # -- life cycle ---------------------------------------------------------------------

    def start(self) -> None:
        if self.proc is not None:
            return  # already running: kept alive from an earlier match (reuse)
        if self.sandbox == "bwrap":
            self._start_sandboxed()
        else:
            self._start_unsandboxed()

    def _start_unsandboxed(self) -> None:
        argv: list[str] = self.command
        setup: Callable[[], None] | None = _child_setup(self.limits)
        launcher = _pdeathsig_launcher()
        # The fast path needs no rlimits, and a program known to exist: a program that
        # cannot start is then still an error of Popen here, not an exit of the launcher.
        why = _not_runnable(self.command[0], self.env)
        if why is not None:
            # Said now: through the launcher it would be an exit (127) that looks like its own.
            self.start_fault = Fault(
                FaultKind.START_FAILED, f"could not start {self.command[0]!r}: {why}"
            )
            self._stopped = True
            return
        if launcher and self.limits == ResourceLimits() and why is None:
            argv, setup = [*launcher, *self.command], None
        env = self.env
        try:
            self._tmp = tempfile.mkdtemp(prefix="arena-seat-")
            env = {**env, "TMPDIR": self._tmp}
        except OSError:
            self._tmp = None
        self._spawn(argv, env, setup, str(self.cwd))

    def _start_sandboxed(self) -> None:
        bwrap = bwrap_path()
        jail = _jail(
            tuple(self.command),
            self.cwd,
            tuple(self.env.items()),
            self.bot,
            self.read_only,
            self.hidden,
        )
        # Known before spawning: a program that cannot start is a start failure, not an
        # exit of bwrap that would look like the program's own.
        unrunnable = None if jail is None else _not_runnable(jail.program, self.env)
        if bwrap is None or jail is None or unrunnable is not None:
            why = (
                "bwrap (bubblewrap) is not installed"
                if bwrap is None
                else unrunnable or "not found or not executable"
            )
            self.start_fault = Fault(
                FaultKind.START_FAILED, f"could not start {self.command[0]!r}: {why}"
            )
            self._stopped = True
            return
        read_end, write_end = os.pipe()
        # The arguments go through a file (`--args`), not the command line: the sandbox's
        # pid 1 is bwrap itself, whose /proc/1/cmdline the participant can read, and the
        # bind list names the config, the replays and the other participants' files.
        arguments = os.memfd_create("arena-bwrap-args")
        syscalls = seccomp.filter_fd()  # (None without libseccomp: `decide` said so)
        passed = (write_end, arguments) + (() if syscalls is None else (syscalls,))
        try:
            options = jail.argv("", write_end, seccomp_fd=syscalls)[1:]
            command = options.index("--")  # bwrap takes the command itself from its argv only
            os.write(arguments, b"".join(a.encode() + b"\0" for a in options[:command]))
            os.lseek(arguments, 0, os.SEEK_SET)
            setup = _child_setup(self.limits) if self.limits != ResourceLimits() else None
            argv = [bwrap, "--args", str(arguments), *options[command:]]
            self._spawn(argv, jail.env, setup, "/", pass_fds=passed)
        finally:
            for fd in passed:
                os.close(fd)
        if self.proc is None:
            os.close(read_end)
            return
        os.set_blocking(read_end, False)
        self._status_fd = read_end

    def _spawn(
        self,
        argv: list[str],
        env: Mapping[str, str],
        setup: Callable[[], None] | None,
        cwd: str,
        pass_fds: tuple[int, ...] = (),
    ) -> None:
        try:
            with _SPAWNING:
                self.proc = subprocess.Popen(
                    argv,
                    stdin=subprocess.PIPE,
                    stdout=subprocess.PIPE,
                    stderr=subprocess.PIPE,
                    cwd=cwd,
                    env=env,
                    bufsize=0,
                    start_new_session=True,
                    pass_fds=pass_fds,
                    # Safe with threads here: the hook imports nothing and takes no lock (libc is
                    # loaded beforehand); without `setpriv` it is the only way to set PDEATHSIG
                    # and rlimits in time.
                    preexec_fn=setup,  # noqa: PLW1509
                )
                _STARTED.add(self.proc.pid)
        except (OSError, ValueError, subprocess.SubprocessError) as error:
            self.start_fault = Fault(
                FaultKind.START_FAILED, f"could not start {self.command[0]!r}: {error}"
            )
            self._stopped = True
            self._remove_tmp()
            return
        assert self.proc.stdin and self.proc.stdout and self.proc.stderr
        self._fds = {
            "stdin": self.proc.stdin.fileno(),
            "stdout": self.proc.stdout.fileno(),
            "stderr": self.proc.stderr.fileno(),
        }
        for fd in self._fds.values():
            os.set_blocking(fd, False)
        self._poll.register(self._fds["stdout"], select.POLLIN)
        self._poll.register(self._fds["stderr"], select.POLLIN)

    @property
    def alive(self) -> bool:
        return not self._stopped

    @property
    def in_process(self) -> bool:
        return False

    @property
    def confinement(self) -> str:
        return self.sandbox

    @property
    def keepable(self) -> bool:
        return self.alive and self.proc is not None and not self.has_ended()

    def leftover(self) -> Fault | None:
        if not self.alive:
            return None
        leftover, _ = self.take_unsolicited()
        return leftover

    def ending(self) -> Ending | None:
        if self.proc is None or self.has_ended():
            return None
        stderr = self.proc.stderr
        fd = stderr.fileno() if stderr is not None and not stderr.closed else None
        return Ending(self.proc.pid, fd, self.drain_stderr)

    def begin_match(self) -> None:
        """A new match (a reused participant plays several): its reply bytes count from 0, and
        its log holds this match's stderr only."""
        self.reply_bytes = 0
        self.log = BoundedLog(self.log.cap)

    @property
    def pid(self) -> int | None:
        return self.proc.pid if self.proc else None

    def stderr_text(self) -> str:
        return self.log.text()

    def end_input(self) -> None:
        """Close the participant's stdin: its signal that the match is over."""
        if self.proc and self.proc.stdin and not self.proc.stdin.closed:
            with contextlib.suppress(OSError):
                self.proc.stdin.close()

    def has_ended(self) -> bool:
        """Whether the process has ended, without reaping it.

        An unreaped process keeps its pid, so its process group can still be killed without
        any risk of signalling a stranger that was given the same number.
        """
        if self.proc is None or self._reaped:
            return True
        try:
            return (
                os.waitid(os.P_PID, self.proc.pid, os.WEXITED | os.WNOHANG | os.WNOWAIT) is not None
            )
        except ChildProcessError:
            return True

    def kill(self) -> None:
        """Kill the whole process group, then reap the process; keep what stderr still holds.

        Safe to call again. The group is killed before the reap (see `has_ended`), so a child
        the participant forked dies with it even when the participant itself already ended.
        """
        if self.proc is None:
            return
        _STARTED.discard(self.proc.pid)  # killed now, or reaped already: never again
        if self.proc.returncode is not None:  # reaped elsewhere (Popen.poll): its pid is free
            self._reaped = True
        if not self._reaped:
            if self.ended_by_itself is None:
                self.ended_by_itself = self.has_ended()
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(self.proc.pid, signal.SIGKILL)
            try:
                self.exit_code = self.proc.wait(_REAP_WAIT)
            except subprocess.TimeoutExpired:  # stuck in the kernel: leave it to the OS
                self.exit_code = None
            self._reaped = True
            self.exit_code = self._sandboxed_status(self.exit_code)
        self.drain_stderr()
        self.end_input()
        for stream in (self.proc.stdout, self.proc.stderr):
            if stream is not None and not stream.closed:
                stream.close()
        self.buffer = bytearray()
        self._stopped = True
        self._remove_tmp()

    def _remove_tmp(self) -> None:
        if self._status_fd is not None:  # not read: the process was reaped elsewhere
            os.close(self._status_fd)
            self._status_fd = None
        if self._tmp is not None:
            _SWEEPER.remove(self._tmp)
            self._tmp = None

    def _sandboxed_status(self, code: int | None) -> int | None:
        """The program's own status from bwrap's status output (negative: a signal).

        bwrap exits with 128 + N when the program was killed by signal N, and says so in its
        JSON status as `exit-code`; the arena reports that as the signal, as a shell would.
        """
        fd, self._status_fd = self._status_fd, None
        if fd is None:
            return code
        try:
            with contextlib.suppress(BlockingIOError, OSError):
                while len(self._status) < 1 << 16 and (chunk := os.read(fd, 4096)):
                    self._status += chunk
        finally:
            os.close(fd)
        status = _bwrap_status(self._status)
        reported = status.get("exit-code")
        if code is None or code < 0 or not isinstance(reported, int) or reported != code:
            return code  # killed by the arena, or bwrap's own failure: as it is
        if 128 < reported < 128 + 65:
            with contextlib.suppress(ValueError):
                return -signal.Signals(reported - 128)
        return reported

    @property
    def sandbox_failed(self) -> bool:
        """Whether bwrap ended without starting the program: status 1, and its own error
        (`bwrap: …`) first on stderr. (A program that imitates it only hurts itself.)"""
        return (
            self.sandbox == "bwrap"
            and self._reaped
            and self.exit_code == 1
            and self.log.text().startswith("bwrap: ")
        )

    # -- one message --------------------------------------------------------------------

    def exchange(self, line: bytes, timeout: float) -> Answer:
        """Write one message line and read one reply line within `timeout` seconds.

        Raises shutdown.Stopped when the process is told to stop while it waits.
        """
        if self._stopped:
            return GONE
        unsolicited = None
        if self.buffer or self._rest_unsolicited or self._stdout_waiting():
            unsolicited, stop = self.take_unsolicited()
            if self._stopped:
                return Answer(NO_REPLY, fault=stop, unsolicited=unsolicited, delivered=False)
        started = time.monotonic()
        deadline = started + timeout
        fault = self._write(line, deadline, timeout)
        reply_line = b""
        if fault is None:
            fault, reply_line = self._read_line(deadline, timeout)
        seconds = time.monotonic() - started
        if fault is not None:
            return Answer(NO_REPLY, seconds, fault, unsolicited)
        try:
            value = decode_reply(reply_line)
        except ValueError as error:
            fault = self._fault(FaultKind.NOT_JSON, not_json(reply_line, error), cut(reply_line))
            return Answer(NO_REPLY, seconds, fault, unsolicited)
        self.reply_bytes += len(reply_line) + 1  # (a reply that is not JSON is kept only cut)
        if self.reply_bytes > self.reply_cap:
            raw = cut(reply_line)
            self.kill()
            detail = f"more than {self.reply_cap} bytes of replies in this match; stopped for the rest of the match"
            return Answer(
                NO_REPLY, seconds, self._fault(FaultKind.TOO_MUCH_OUTPUT, detail, raw), unsolicited
            )
        return Answer(value, seconds, None, unsolicited)

    def _stdout_waiting(self) -> bool:
        """Whether output (or the end of stdout) is waiting, before a message is written.

        One poll, where a read that finds nothing costs an exception (this runs for every
        message); `take_unsolicited` reads what is there.
        """
        stdout = self._fds["stdout"]
        return any(fd == stdout for fd, _ in self._poll.poll(0))

    def _write(self, line: bytes, deadline: float, timeout: float) -> Fault | None:
        fd = self._fds["stdin"]
        written = 0
        try:
            written = os.write(fd, line)
            if written == len(line):  # the usual case: the pipe had room for it all
                return None
        except BlockingIOError:
            pass
        except (BrokenPipeError, ConnectionResetError):
            return self._gone("closed its stdin")
        view = memoryview(line)[written:]
        next_check = time.monotonic() + _EXIT_CHECK
        while view:
            try:
                view = view[os.write(fd, view) :]
                continue
            except BlockingIOError:
                pass
            except (BrokenPipeError, ConnectionResetError):
                return self._gone("closed its stdin")
            # The participant is not reading its stdin: wait for room, draining stderr meanwhile.
            if shutdown.should_stop():
                raise shutdown.Stopped
            now = time.monotonic()
            if now >= deadline:
                return self._timeout(timeout, "it was not reading its input")
            if now >= next_check:
                next_check = now + _EXIT_CHECK
                if self.has_ended():
                    return self._gone("ended")
            wait = min(deadline - now, _EXIT_CHECK)
            # poll, not select: select fails outright on descriptors above 1023.
            waiting = select.poll()
            waiting.register(fd, select.POLLOUT)
            waiting.register(self._fds["stderr"], select.POLLIN)
            if any(ready == self._fds["stderr"] for ready, _ in waiting.poll(wait * 1000)):
                self.drain_stderr()
        return None

    def _read_line(self, deadline: float, timeout: float) -> tuple[Fault | None, bytes]:
        buffer, stdout, stderr = self.buffer, self._fds["stdout"], self._fds["stderr"]
        scanned = 0
        ended = False
        next_check = time.monotonic() + _EXIT_CHECK
        skipped = 0  # bytes of a line begun before the message was written
        while True:
            if self._rest_unsolicited:
                newline = buffer.find(b"\n")
                skipped += len(buffer) if newline < 0 else newline + 1
                del buffer[: len(buffer) if newline < 0 else newline + 1]
                self._rest_unsolicited = newline < 0
                scanned = 0
                if skipped > self.line_cap:
                    return self._too_long(), b""
            newline = buffer.find(b"\n", scanned)
            if newline > self.line_cap or (newline < 0 and len(buffer) > self.line_cap):
                return self._too_long(), b""
            if newline >= 0:
                reply = bytes(buffer[:newline])
                del buffer[: newline + 1]
                return None, reply
            scanned = len(buffer)
            if ended:
                return self._gone("closed its stdout"), b""
            if shutdown.should_stop():
                raise shutdown.Stopped
            now = time.monotonic()
            if now >= deadline:
                return self._timeout(timeout), b""
            for fd, _ in self._poll.poll(min(deadline - now, _EXIT_CHECK) * 1000):
                if fd == stdout:
                    ended = self._read_stdout() is None
                elif fd == stderr:
                    self.drain_stderr()
            if not ended and time.monotonic() >= next_check:
                next_check = time.monotonic() + _EXIT_CHECK
                if self.has_ended():
                    # It ended, but a child it left holds stdout open: no EOF will come. Take
                    # what it wrote before it ended, then stop.
                    while len(buffer) <= self.line_cap and self._read_stdout():
                        pass  # until nothing more is waiting, or end of file
                    ended = True

    def _read_stdout(self) -> int | None:
        """Append what stdout holds to the buffer: how many bytes (0: none waiting), None at EOF."""
        try:
            chunk = os.read(self._fds["stdout"], _CHUNK)
        except BlockingIOError:
            return 0
        if not chunk:
            return None
        self.buffer += chunk
        return len(chunk)

    @staticmethod
    def _readable(fd: int, seconds: float) -> bool:
        waiting = select.poll()
        waiting.register(fd, select.POLLIN)
        return bool(waiting.poll(seconds * 1000))

    def take_unsolicited(self) -> tuple[Fault | None, Fault | None]:
        """Discard output that was waiting before a message was written, and say what it was.

        Returns that (or None) and, if the participant had to be stopped (it closed stdout, or
        would not stop writing), why.
        """
        head = bytes(self.buffer[: 4 * RAW_CUT])
        size = len(self.buffer)
        last = bytes(self.buffer[-1:])
        self.buffer.clear()
        closed = False
        stdout = self._fds["stdout"]
        while size <= self.line_cap:
            try:
                chunk = os.read(stdout, _CHUNK)
            except BlockingIOError:
                # Much output nobody asked for: if more keeps coming, it is a flood, to be
                # stopped now rather than have its lines read as replies.
                if size >= _FLOOD_SIZE and self._readable(stdout, _FLOOD_WAIT):
                    continue
                break
            if not chunk:
                closed = True
                break
            if len(head) < 4 * RAW_CUT:
                head += chunk[: 4 * RAW_CUT - len(head)]
            size += len(chunk)
            last = chunk[-1:]
        # The rest of a line begun unasked is not a reply either: `_read_line` skips it.
        self._rest_unsolicited = bool(size) and last != b"\n"
        unsolicited = None
        if size > self.line_cap:  # a flood: it would never stop
            self.kill()
            detail = f"more than {self.line_cap} bytes written when nothing was asked; stopped for the rest of the match"
            return self._fault(FaultKind.UNSOLICITED, detail, cut(head)), None
        if size:
            detail = f"{size} bytes written when nothing was asked (discarded)"
            unsolicited = self._fault(FaultKind.UNSOLICITED, detail, cut(head))
        if closed:
            return unsolicited, self._gone("closed its stdout")
        return unsolicited, None

    def drain_stderr(self) -> None:
        fd = self._fds.get("stderr")
        if fd is None or self.proc is None or self.proc.stderr is None or self.proc.stderr.closed:
            return
        for _ in range(64):  # bounded: a flood is drained again on the next wait
            try:
                chunk = os.read(fd, _CHUNK)
            except (BlockingIOError, OSError):
                return
            if not chunk:
                with contextlib.suppress(KeyError, OSError):
                    self._poll.unregister(fd)
                return
            self.log.feed(chunk)

    # -- faults that stop the participant ---------------------------------------------------

    def _fault(
        self, kind: FaultKind, detail: str, raw: str | None = None, exit_code: int | None = None
    ) -> Fault:
        self.drain_stderr()
        return Fault(kind, detail, raw, exit_code, self.log.last(RAW_CUT) or None)

    def _timeout(self, timeout: float, why: str = "") -> Fault:
        """`why`: what it was doing instead of replying, when the arena knows."""
        partial = bytes(self.buffer[: 4 * RAW_CUT])
        self.kill()
        because = f" ({why})" if why else ""
        detail = f"no reply line within {timeout:g} s{because}; stopped for the rest of the match"
        if partial:
            # The commonest cause: a reply written without its newline, or not flushed in full.
            detail += f"; {len(self.buffer)} bytes came without a newline"
            return self._fault(FaultKind.TIMEOUT, detail, cut(partial))
        return self._fault(
            FaultKind.TIMEOUT,
            detail + "; is its output flushed after each reply, and does it answer each line as it "
            "comes (not reading to the end of its input first)?",
        )

    def _too_long(self) -> Fault:
        raw = cut(bytes(self.buffer[: 4 * RAW_CUT]))
        self.kill()
        detail = (
            f"more than {self.line_cap} bytes without a newline; stopped for the rest of the match"
        )
        return self._fault(FaultKind.LINE_TOO_LONG, detail, raw)

    def _gone(self, what: str) -> Fault:
        """It ended, or closed a pipe: give it a moment to end by itself (for its exit
        status), stop it, and say which."""
        wait_until = time.monotonic() + _EXIT_WAIT
        while not self.has_ended() and time.monotonic() < wait_until:
            time.sleep(0.005)
        self.kill()
        code = self.exit_code
        if self.sandbox_failed and self.ended_by_itself:
            why = self.log.last(300).strip().splitlines()
            detail = "the sandbox could not start it" + (f": {why[-1]}" if why else "")
            return self._fault(FaultKind.START_FAILED, detail)
        if not self.ended_by_itself or code is None:
            return self._fault(
                FaultKind.EXITED, f"{what} but kept running; stopped for the rest of the match"
            )
        if code < 0:
            try:
                name = signal.Signals(-code).name
            except ValueError:
                name = str(-code)
            return self._fault(FaultKind.EXITED, f"process ended by signal {name}", exit_code=code)
        return self._fault(FaultKind.EXITED, f"process ended (exit code {code})", exit_code=code)


def _bwrap_status(data: bytes) -> dict[str, object]:
    """bwrap's JSON status documents (one per line), merged; what does not parse is skipped."""
    merged: dict[str, object] = {}
    for line in data.decode("utf-8", "replace").splitlines():
        with contextlib.suppress(ValueError):
            document = json.loads(line)
            if isinstance(document, dict):
                merged.update(document)
    return merged


def wait_for_exits(endings: list[Ending], grace: float) -> None:
    """Wait up to `grace` seconds for every process to end, draining stderr meanwhile.

    Each process is watched through a pidfd, which becomes readable when it ends (without
    reaping it), so the wait ends the moment the last one does.
    """
    poller = select.poll()
    ending: dict[int, Ending] = {}
    logs: dict[int, Ending] = {}
    try:
        for one in endings:
            try:
                pidfd = os.pidfd_open(one.pid)
            except OSError:  # the process is already gone
                continue
            ending[pidfd] = one
            poller.register(pidfd, select.POLLIN)
            if one.stderr_fd is not None:
                logs[one.stderr_fd] = one
                poller.register(one.stderr_fd, select.POLLIN)
        deadline = time.monotonic() + grace
        while ending:
            remaining = deadline - time.monotonic()
            if remaining <= 0 or shutdown.should_stop():  # stopping: no grace
                return
            for fd, event in poller.poll(min(remaining, _EXIT_CHECK) * 1000):
                if fd in ending:
                    poller.unregister(fd)
                    os.close(fd)
                    del ending[fd]
                elif fd in logs:
                    logs[fd].drain()
                    if event & (select.POLLHUP | select.POLLERR):
                        poller.unregister(fd)
                        del logs[fd]
    finally:
        for pidfd in ending:
            os.close(pidfd)
