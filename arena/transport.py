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

import contextlib
import ctypes
import json
import os
import resource
import select
import signal
import subprocess
import time
from collections import deque
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from enum import StrEnum
from pathlib import Path
from typing import Any, Protocol

from arena.match import NO_REPLY

RAW_CUT = 300  # characters of an offending line kept in a fault
STDERR_TAIL = 2048  # bytes of stderr kept as the tail beside a fault
_CHUNK = 1 << 16
_PR_SET_PDEATHSIG = 1


class FaultKind(StrEnum):
    START_FAILED = "start-failed"  # the program could not be started
    TIMEOUT = "timeout"  # no reply line within the time allowed
    EXITED = "exited"  # the process ended or closed its stdout
    NOT_JSON = "not-json"  # a reply line that is not one JSON value
    LINE_TOO_LONG = "line-too-long"  # more than `line_cap` bytes without a newline
    UNSOLICITED = "unsolicited-output"  # output waiting when nothing had been asked
    CRASHED = "crashed"  # an in-process bot raised


@dataclass(frozen=True)
class Fault:
    kind: FaultKind
    detail: str
    raw: str | None = None  # the offending output, cut to RAW_CUT characters
    exit_code: int | None = None

    def as_json(self) -> dict[str, Any]:
        data: dict[str, Any] = {"kind": str(self.kind), "detail": self.detail}
        if self.raw is not None:
            data["raw"] = self.raw
        if self.exit_code is not None:
            data["exitCode"] = self.exit_code
        return data


@dataclass(frozen=True)
class Answer:
    """What came back for one message: a JSON value, or `NO_REPLY` with the reason."""

    value: Any
    seconds: float = 0.0
    fault: Fault | None = None  # why there is no reply
    unsolicited: Fault | None = None  # output found waiting before the message was written
    delivered: bool = True  # False: the participant was already gone; nothing was written


GONE = Answer(NO_REPLY, delivered=False)


class Participant(Protocol):
    """One seat's player, whatever runs it."""

    def start(self) -> None: ...

    def exchange(self, line: bytes, timeout: float) -> Answer: ...

    @property
    def alive(self) -> bool: ...

    def stderr_text(self) -> str: ...


def decode_reply(line: bytes) -> Any:
    """One JSON value from a reply line; raises ValueError for anything else.

    The standard module is used (replies are tiny): it keeps JSON integers exact and reads
    numbers beyond a double's range as infinities; NaN and Infinity literals are not JSON.
    """
    return json.loads(line.decode("utf-8"), parse_constant=_not_json)


def _not_json(literal: str) -> Any:
    raise ValueError(f"{literal} is not JSON")


def cut(data: bytes | str, limit: int = RAW_CUT) -> str:
    text = data.decode("utf-8", "replace") if isinstance(data, bytes) else data
    return text if len(text) <= limit else text[:limit] + f"… [{len(text) - limit} more]"


class BoundedLog:
    """A participant's stderr: the first `cap` bytes, a tail, and a count of what was cut."""

    def __init__(self, cap: int) -> None:
        self.cap = cap
        self.head = bytearray()
        self.tail: deque[bytes] = deque()
        self.tail_size = 0
        self.cut_bytes = 0

    def feed(self, data: bytes) -> None:
        room = self.cap - len(self.head)
        if room > 0:
            self.head += data[:room]
            data = data[room:]
        if data:
            self.cut_bytes += len(data)
            self.tail.append(data)
            self.tail_size += len(data)
            while self.tail_size - len(self.tail[0]) >= STDERR_TAIL:
                self.tail_size -= len(self.tail.popleft())

    def last(self, size: int = STDERR_TAIL) -> str:
        data = bytes(self.head) + b"".join(self.tail)
        return data[-size:].decode("utf-8", "replace")

    def text(self) -> str:
        head = self.head.decode("utf-8", "replace")
        if not self.cut_bytes:
            return head
        tail = b"".join(self.tail)[-STDERR_TAIL:]
        kept = len(tail)
        return (
            f"{head}\n[arena: log cut here at {self.cap} bytes; "
            f"{self.cut_bytes - kept} bytes dropped; the last {kept} follow]\n"
            + tail.decode("utf-8", "replace")
        )


@dataclass(frozen=True)
class ResourceLimits:
    """OS limits applied in the child before it runs the participant's program."""

    memory_bytes: int | None = None  # RLIMIT_AS
    cpu_seconds: int | None = None  # RLIMIT_CPU (the kernel sends SIGXCPU, then SIGKILL)


def _child_setup(limits: ResourceLimits) -> Callable[[], None]:
    libc = ctypes.CDLL(None, use_errno=True)  # loaded in the parent: nothing to look up after fork

    def setup() -> None:
        # Die with the arena, even if it is killed without a chance to clean up.
        libc.prctl(_PR_SET_PDEATHSIG, signal.SIGKILL)
        if limits.memory_bytes is not None:
            resource.setrlimit(resource.RLIMIT_AS, (limits.memory_bytes, limits.memory_bytes))
        if limits.cpu_seconds is not None:
            hard = limits.cpu_seconds + 1
            resource.setrlimit(resource.RLIMIT_CPU, (limits.cpu_seconds, hard))

    return setup


class SubprocessParticipant:
    """A participant program run as a subprocess, speaking JSON lines."""

    def __init__(
        self,
        command: Sequence[str],
        cwd: Path,
        env: Mapping[str, str],
        *,
        line_cap: int = 1 << 20,
        stderr_cap: int = 1 << 20,
        limits: ResourceLimits = ResourceLimits(),
    ) -> None:
        self.command = list(command)
        self.cwd = cwd
        self.env = dict(env)
        self.line_cap = line_cap
        self.limits = limits
        self.log = BoundedLog(stderr_cap)
        self.proc: subprocess.Popen[bytes] | None = None
        self.buffer = bytearray()
        self.exit_code: int | None = None
        self.start_fault: Fault | None = None
        self._stopped = False
        self._poll = select.poll()
        self._fds: dict[str, int] = {}

    # -- life cycle ---------------------------------------------------------------------

    def start(self) -> None:
        if self.proc is not None:
            return  # already running: kept alive from an earlier match (reuse)
        try:
            self.proc = subprocess.Popen(
                self.command,
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                cwd=self.cwd,
                env=self.env,
                bufsize=0,
                start_new_session=True,
                preexec_fn=_child_setup(self.limits),
            )
        except (OSError, subprocess.SubprocessError) as error:
            self.start_fault = Fault(FaultKind.START_FAILED, f"could not start {self.command[0]!r}: {error}")
            self._stopped = True
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
    def pid(self) -> int | None:
        return self.proc.pid if self.proc else None

    def stderr_text(self) -> str:
        return self.log.text()

    def end_input(self) -> None:
        """Close the participant's stdin: its signal that the match is over."""
        if self.proc and self.proc.stdin and not self.proc.stdin.closed:
            with contextlib.suppress(OSError):
                self.proc.stdin.close()

    def kill(self) -> None:
        """Kill the whole process group, reap the process, keep what stderr still holds."""
        if self.proc is None:
            return
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(self.proc.pid, signal.SIGKILL)
        self.exit_code = self.proc.wait()
        self.drain_stderr()
        self.end_input()
        for stream in (self.proc.stdout, self.proc.stderr):
            if stream is not None and not stream.closed:
                stream.close()
        self._stopped = True

    # -- one message --------------------------------------------------------------------

    def exchange(self, line: bytes, timeout: float) -> Answer:
        """Write one message line and read one reply line within `timeout` seconds."""
        if self._stopped:
            return GONE
        unsolicited = self._take_unsolicited()
        if self._stopped:
            return Answer(NO_REPLY, fault=self._exit_fault(), unsolicited=unsolicited, delivered=False)
        started = time.monotonic()
        deadline = started + timeout
        if not self._write(line, deadline):
            fault = self._exit_fault() if self._stopped else self._timeout(timeout, "writing")
            return Answer(NO_REPLY, time.monotonic() - started, fault, unsolicited)
        fault, reply_line = self._read_line(deadline, timeout)
        seconds = time.monotonic() - started
        if fault is not None:
            return Answer(NO_REPLY, seconds, fault, unsolicited)
        try:
            value = decode_reply(reply_line)
        except ValueError as error:
            fault = Fault(FaultKind.NOT_JSON, f"reply is not JSON: {error}", cut(reply_line))
            return Answer(NO_REPLY, seconds, fault, unsolicited)
        return Answer(value, seconds, None, unsolicited)

    def _write(self, line: bytes, deadline: float) -> bool:
        fd = self._fds["stdin"]
        view = memoryview(line)
        while view:
            try:
                view = view[os.write(fd, view) :]
                continue
            except BlockingIOError:
                pass
            except (BrokenPipeError, ConnectionResetError):
                self.kill()
                return False
            # The participant is not reading its stdin: wait for room, draining stderr meanwhile.
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                self.kill()
                return False
            ready, _, _ = select.select([self._fds["stderr"]], [fd], [], remaining)
            if ready:
                self.drain_stderr()
        return True

    def _read_line(self, deadline: float, timeout: float) -> tuple[Fault | None, bytes]:
        buffer, stdout, stderr = self.buffer, self._fds["stdout"], self._fds["stderr"]
        scanned = 0
        while True:
            newline = buffer.find(b"\n", scanned)
            if newline >= 0:
                reply = bytes(buffer[:newline])
                del buffer[: newline + 1]
                return None, reply
            scanned = len(buffer)
            if scanned > self.line_cap:
                raw = cut(bytes(buffer[:RAW_CUT]))
                self.kill()
                detail = f"more than {self.line_cap} bytes without a newline"
                return Fault(FaultKind.LINE_TOO_LONG, detail, raw), b""
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                return self._timeout(timeout, "replying"), b""
            for fd, _ in self._poll.poll(remaining * 1000):
                if fd == stdout:
                    chunk = os.read(stdout, _CHUNK)
                    if not chunk:
                        self.kill()
                        return self._exit_fault(), b""
                    buffer += chunk
                elif fd == stderr:
                    self.drain_stderr()

    def _take_unsolicited(self) -> Fault | None:
        """Discard output that was waiting before a message was written, and say what it was."""
        waiting = bytes(self.buffer)
        self.buffer.clear()
        while len(waiting) <= self.line_cap:
            try:
                chunk = os.read(self._fds["stdout"], _CHUNK)
            except BlockingIOError:
                break
            if not chunk:
                self.kill()
                break
            waiting += chunk
        else:
            self.kill()  # a flood: it would never stop
        if not waiting:
            return None
        return Fault(
            FaultKind.UNSOLICITED,
            f"{len(waiting)} bytes written when nothing was asked (discarded)",
            cut(waiting),
        )

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

    def _timeout(self, timeout: float, doing: str) -> Fault:
        self.kill()
        return Fault(FaultKind.TIMEOUT, f"no reply within {timeout:g} s (was {doing}); stopped")

    def _exit_fault(self) -> Fault:
        if self.proc is not None and self.exit_code is None:
            self.kill()
        code = self.exit_code
        detail = "closed its stdout" if code is None else f"process ended (exit code {code})"
        if code is not None and code < 0:
            detail = f"process ended by signal {signal.Signals(-code).name}"
        tail = self.log.last(RAW_CUT)
        return Fault(FaultKind.EXITED, detail + (f"; stderr: {tail}" if tail else ""), exit_code=code)


def close_all(participants: Iterable[Participant], grace: float) -> None:
    """End a match: close every stdin, give `grace` seconds to exit, kill every group, reap.

    Never waits on a pipe: a forked child that keeps stdout open dies with its group.
    """
    running = [p for p in participants if isinstance(p, SubprocessParticipant) and p.proc]
    for participant in running:
        participant.end_input()
    deadline = time.monotonic() + grace
    while time.monotonic() < deadline and any(
        p.proc is not None and p.proc.poll() is None for p in running
    ):
        for participant in running:
            participant.drain_stderr()
        time.sleep(0.005)
    for participant in running:
        participant.kill()  # also when it exited by itself: its children may live on


class InProcessParticipant:
    """A built-in bot run inside the arena: the same lines in and out as its subprocess form."""

    def __init__(self, handle: Callable[[Any], Any]) -> None:
        self.handle = handle
        self._crashed: Fault | None = None
        self.log = BoundedLog(1 << 16)

    def start(self) -> None:
        pass

    @property
    def alive(self) -> bool:
        return self._crashed is None

    def stderr_text(self) -> str:
        return self.log.text()

    def exchange(self, line: bytes, timeout: float) -> Answer:
        if self._crashed:
            return GONE
        started = time.monotonic()
        try:
            reply = self.handle(json.loads(line))
            # Through JSON and back, as over a pipe: tuples become lists, keys strings.
            value = decode_reply(json.dumps(reply).encode())
        except Exception as error:  # a bot's bug is a fault, like a crash of its process
            self._crashed = Fault(FaultKind.CRASHED, f"{type(error).__name__}: {error}")
            self.log.feed(f"{type(error).__name__}: {error}\n".encode())
            return Answer(NO_REPLY, time.monotonic() - started, self._crashed)
        return Answer(value, time.monotonic() - started)
