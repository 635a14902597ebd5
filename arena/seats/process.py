"""The only code that touches participant processes: spawn, sandbox, kill, reap.

A `ParticipantProcess` is one participant program run in a session of its own (so its whole
process group can be killed), started without a shell, with its stdin, stdout and stderr as
non-blocking pipes, optionally inside a bubblewrap sandbox (`arena.seats.sandbox`), and dying
with the arena. It offers the pipes to `arena.seats.channel.LineChannel`, which owns the
framing (lines, deadlines, caps, unasked output), as the `Pipes` protocol; it knows nothing of
messages or replies. `ParticipantProcess._spawn` is the one place where a participant's argv
and its pid are both known: whatever must follow a spawn (a cgroup attach) goes there.
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
from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TypedDict

from arena.base import shutdown
from arena.seats import cgroups, sandbox, seccomp, uids
from arena.seats.channel import READING, Exit, Stream
from arena.seats.replies import Ending, Fault, FaultKind
from arena.seats.sandbox import Confinement, Jail, bwrap_path, cgroups_on, identity_word

_CHUNK = 1 << 16
_PR_SET_PDEATHSIG = 1
_REAP_WAIT = 5.0  # after SIGKILL: how long to wait for the kernel before giving up on a reap


@dataclass(frozen=True)
class ResourceLimits:
    """OS limits applied in the child before it runs the participant's program."""

    memory_bytes: int | None = None  # RLIMIT_AS
    cpu_seconds: int | None = None  # RLIMIT_CPU (the kernel sends SIGXCPU, then SIGKILL)


class Spawn(TypedDict, total=False):
    """How a `ParticipantProcess` is started, as its keyword arguments (what
    `arena.seats.transport.SubprocessParticipant` hands on)."""

    limits: ResourceLimits
    sandbox: Confinement
    bot: bool
    read_only: Sequence[str]
    hidden: Sequence[str]


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


def _child_setup(
    limits: ResourceLimits, join: Callable[[], None] | None = None
) -> Callable[[], None]:
    """What the forked child does before it execs: die with the arena, join its control group
    (`join`, `arena.seats.cgroups`), set its rlimits."""
    libc = _LIBC
    parent = os.getpid()

    def setup() -> None:
        # Die with the arena (or the pool worker that spawns it), even if it is killed without
        # a chance to clean up. A parent that died between the fork and this call sends no
        # signal: then the child is already an orphan, and ends here.
        libc.prctl(_PR_SET_PDEATHSIG, signal.SIGKILL)
        if os.getppid() != parent:
            os._exit(127)
        if join is not None:
            join()  # before it execs: everything it will start is in its group
        if limits.memory_bytes is not None:
            resource.setrlimit(resource.RLIMIT_AS, (limits.memory_bytes, limits.memory_bytes))
        if limits.cpu_seconds is not None:
            hard = limits.cpu_seconds + 1
            resource.setrlimit(resource.RLIMIT_CPU, (limits.cpu_seconds, hard))

    return setup


class ParticipantProcess:
    """One participant program as a process, its three pipes non-blocking (`Pipes`).

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
        self.limits = limits
        self.proc: subprocess.Popen[bytes] | None = None
        self.exit_code: int | None = None  # the status it was reaped with (negative: a signal)
        self.ended_by_itself: bool | None = None  # known once it is killed: had it ended already?
        self._status_fd: int | None = None  # bwrap's status (the read end of its pipe)
        self._status = b""
        self._tmp: str | None = None  # unsandboxed: its own temporary folder
        self._group: cgroups.Group | None = None  # sandboxed: its control group
        self._lease: uids.Lease | None = None  # sandboxed as root: its uid (`uids`)
        self._uid: int | None = None  # who it ran as, as root
        self._grouped = False  # whether it was started in one
        self._reaped = False
        self._fds: dict[Stream, int] = {}
        self._names: dict[int, Stream] = {}
        self._poll = select.poll()  # stdout and stderr, while they are open

    # -- starting -----------------------------------------------------------------------

    def start(self) -> Fault | None:
        """Spawn it; the fault when it cannot be started (then nothing runs)."""
        if self.sandbox == "bwrap":
            return self._start_sandboxed()
        return self._start_unsandboxed()

    def _cannot_start(self, why: str) -> Fault:
        return Fault(FaultKind.START_FAILED, f"could not start {self.command[0]!r}: {why}")

    def _start_unsandboxed(self) -> Fault | None:
        argv: list[str] = self.command
        setup: Callable[[], None] | None = _child_setup(self.limits)
        launcher = _pdeathsig_launcher()
        # The fast path needs no rlimits, and a program known to exist: a program that
        # cannot start is then still an error of Popen here, not an exit of the launcher.
        why = _not_runnable(self.command[0], self.env)
        if why is not None:
            # Said now: through the launcher it would be an exit (127) that looks like its own.
            return self._cannot_start(why)
        if launcher and self.limits == ResourceLimits():
            argv, setup = [*launcher, *self.command], None
        env = self.env
        try:
            self._tmp = tempfile.mkdtemp(prefix="arena-seat-")
            env = {**env, "TMPDIR": self._tmp}
        except OSError:
            self._tmp = None
        return self._spawn(argv, env, setup, str(self.cwd))

    def _start_sandboxed(self) -> Fault | None:
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
        unrunnable = unrunnable or (None if jail is None else jail.closed_to_nobody())
        if bwrap is None or jail is None or unrunnable is not None:
            return self._cannot_start(
                "bwrap (bubblewrap) is not installed"
                if bwrap is None
                else unrunnable or "not found or not executable"
            )
        read_end, write_end = os.pipe()
        # The arguments go through a file (`--args`), not the command line: the sandbox's
        # pid 1 is bwrap itself, whose /proc/1/cmdline the participant can read, and the
        # bind list names the config, the replays and the other participants' files.
        arguments = os.memfd_create("arena-bwrap-args")
        syscalls = seccomp.filter_fd()  # (None without libseccomp: `decide` said so)
        passed = (write_end, arguments) + (() if syscalls is None else (syscalls,))
        # As root, a uid no other live sandbox on the machine has (`uids`); else `nobody`.
        self._lease = uids.take()
        self._uid = None if self._lease is None else self._lease.uid
        try:
            options = jail.argv(
                "", write_end, seccomp_fd=syscalls, uid=self._uid or sandbox.SANDBOX_UID
            )[1:]
            command = options.index("--")  # bwrap takes the command itself from its argv only
            os.write(arguments, b"".join(a.encode() + b"\0" for a in options[:command]))
            os.lseek(arguments, 0, os.SEEK_SET)
            # Its control group (`cgroups`): one memory ceiling (`memoryMiB`) for all its
            # processes and its /tmp, which then replaces the per-process RLIMIT_AS.
            group = cgroups.Group.make(self.limits.memory_bytes) if cgroups_on() else None
            limits = self.limits if group is None else replace(self.limits, memory_bytes=None)
            join = None if group is None else group.joiner()
            needed = join is not None or limits != ResourceLimits()
            setup = _child_setup(limits, join) if needed else None
            argv = [bwrap, "--args", str(arguments), *options[command:]]
            fault = self._spawn(argv, jail.env, setup, "/", pass_fds=passed)
            if group is not None:
                group.started()
                self._group, self._grouped = group, self.proc is not None
                if self.proc is None:
                    self._remove_tmp()
        finally:
            for fd in passed:
                os.close(fd)
        if self.proc is None:
            os.close(read_end)
            return fault
        os.set_blocking(read_end, False)
        self._status_fd = read_end
        return None

    def _spawn(
        self,
        argv: list[str],
        env: Mapping[str, str],
        setup: Callable[[], None] | None,
        cwd: str,
        pass_fds: tuple[int, ...] = (),
    ) -> Fault | None:
        """The one place that starts a participant: its whole argv, and then its pid."""
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
            self.proc = None
            self._remove_tmp()
            return self._cannot_start(str(error))
        assert self.proc.stdin and self.proc.stdout and self.proc.stderr
        self._fds = {
            "stdin": self.proc.stdin.fileno(),
            "stdout": self.proc.stdout.fileno(),
            "stderr": self.proc.stderr.fileno(),
        }
        self._names = {fd: name for name, fd in self._fds.items()}
        for fd in self._fds.values():
            os.set_blocking(fd, False)
        self._poll.register(self._fds["stdout"], select.POLLIN)
        self._poll.register(self._fds["stderr"], select.POLLIN)
        return None

    @property
    def pid(self) -> int | None:
        return self.proc.pid if self.proc else None

    @property
    def isolation(self) -> tuple[str, ...]:
        """What confines it besides its sandbox's walls, as its replay records (docs/sandbox.md)."""
        if self.sandbox != "bwrap":
            return ()
        applied = [identity_word(self._uid)]
        if seccomp.program() is not None:
            applied.append("seccomp")
        if self._grouped:
            applied.append(cgroups.describe() or "cgroup")
        return tuple(applied)

    # -- the pipes (`arena.seats.channel.Pipes`) ------------------------------------------

    def write(self, data: bytes | memoryview) -> int:
        return os.write(self._fds["stdin"], data)

    def read(self, stream: Stream) -> bytes:
        """What `stream` holds (b"": its end, or closed); BlockingIOError when nothing waits."""
        fd = self._open_fd(stream)
        if fd is None:
            return b""
        chunk = os.read(fd, _CHUNK)
        if not chunk:
            with contextlib.suppress(KeyError, OSError):
                self._poll.unregister(fd)
        return chunk

    def _open_fd(self, stream: Stream) -> int | None:
        if self.proc is None:
            return None
        pipe = {"stdin": self.proc.stdin, "stdout": self.proc.stdout, "stderr": self.proc.stderr}
        file = pipe[stream]
        return None if file is None or file.closed else self._fds[stream]

    def wait(self, seconds: float, streams: Collection[Stream]) -> list[Stream]:
        """Wait up to `seconds` until one of `streams` is ready (stdin: room to write; the
        others: something to read, or their end); which are."""
        if self.proc is None:
            return []
        if streams == READING:
            waiting = self._poll
        else:
            waiting = select.poll()  # poll, not select: select fails on descriptors above 1023
            for stream in streams:
                fd = self._open_fd(stream)
                if fd is not None:
                    waiting.register(fd, select.POLLOUT if stream == "stdin" else select.POLLIN)
        return [self._names[fd] for fd, _ in waiting.poll(max(0.0, seconds) * 1000)]

    def close_input(self) -> None:
        """Close its stdin: its signal that the match is over."""
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

    def stop(self, grace: float = 0.0) -> Exit:
        """Give it up to `grace` seconds to end by itself (for its own exit status), then kill
        its whole group and reap it; how it ended. Safe to call again."""
        wait_until = time.monotonic() + grace
        while grace and not self.has_ended() and time.monotonic() < wait_until:
            time.sleep(0.005)
        self.kill()
        return Exit(self.ended_by_itself, self.exit_code, self.sandbox == "bwrap")

    def kill(self) -> None:
        """Kill the whole process group, then reap the process; close its pipes.

        Safe to call again. The group is killed before the reap (see `has_ended`), so a child
        the participant forked dies with it even when the participant itself already ended.
        (What stderr still holds is the channel's to read first: `LineChannel.stop`.)
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
        self.close_input()
        self._remove_tmp()

    def close_output(self) -> None:
        """Close stdout and stderr (after `kill`, once the channel has read what they held)."""
        if self.proc is None:
            return
        for stream in (self.proc.stdout, self.proc.stderr):
            if stream is not None and not stream.closed:
                with contextlib.suppress(KeyError, OSError):
                    self._poll.unregister(stream.fileno())
                stream.close()

    def ending(self, drain: Callable[[], None]) -> Ending | None:
        """What to wait for while it exits by itself (`drain` reads its stderr meanwhile)."""
        if self.proc is None or self.has_ended():
            return None
        fd = self._open_fd("stderr")
        return Ending(self.proc.pid, fd, drain)

    def _remove_tmp(self) -> None:
        if self._status_fd is not None:  # not read: the process was reaped elsewhere
            os.close(self._status_fd)
            self._status_fd = None
        if self._tmp is not None:
            _SWEEPER.remove(self._tmp)
            self._tmp = None
        lease, self._lease = self._lease, None
        if self._group is not None:  # reaped (or never started): its group goes too
            if lease is not None:  # its uid is free once every process of it is gone
                self._group.then(lambda removed: lease.release(clean=removed))
            self._group.remove()
            self._group = None
        elif lease is not None:  # (no group: whoever takes it next sweeps it first)
            lease.release(clean=self.proc is None)

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


def _bwrap_status(data: bytes) -> dict[str, object]:
    """bwrap's JSON status documents (one per line), merged; what does not parse is skipped."""
    merged: dict[str, object] = {}
    for line in data.decode("utf-8", "replace").splitlines():
        with contextlib.suppress(ValueError):
            document = json.loads(line)
            if isinstance(document, dict):
                merged.update(document)
    return merged
