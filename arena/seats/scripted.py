"""An in-memory peer for a `LineChannel`: the framing rules without a process.

`ScriptedPipes` implements `arena.seats.channel.Pipes` on a clock of its own, which moves
only when the channel waits: a timeout of 2 s takes microseconds, and what arrives when is
exactly what the script says. The peer answers each complete line it reads with `answer(line)`
(outputs, each after a delay); `emit` writes unasked, `end` makes it exit, `close_stdin` and
`stop_reading` make it stop taking input. (python-chess tests its engine protocols the same
way, with a `MockTransport`.)

    peer = ScriptedPipes(lambda line: [Output(line)])  # an echo
    channel = LineChannel(peer, clock=peer.clock)
    assert channel.exchange(b"7\\n", 1.0).value == 7
"""

from __future__ import annotations

import heapq
import itertools
import signal
from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass
from typing import Literal

from arena.seats.channel import Exit, Stream

_CHUNK = 1 << 16


@dataclass(frozen=True)
class Output:
    """Bytes the peer writes, `after` seconds after the line that caused them."""

    data: bytes
    stream: Literal["stdout", "stderr"] = "stdout"
    after: float = 0.0


def silent(line: bytes) -> Sequence[Output]:
    return ()


class ScriptedPipes:
    """A peer that answers from a script, on a clock that moves only while it is waited on."""

    def __init__(
        self,
        answer: Callable[[bytes], Sequence[Output]] = silent,
        *,
        stdin_room: int = 1 << 16,
    ) -> None:
        self.answer = answer
        self.now = 0.0
        self.lines: list[bytes] = []  # every complete line it read
        self.stdin_room = stdin_room  # bytes its stdin still holds before a write blocks
        self.reading = True  # False: it takes no more input (the pipe fills up)
        self._stdin_closed = False
        self._partial = bytearray()
        self._pending: list[tuple[float, int, Output]] = []  # (when, order, what)
        self._order = itertools.count()
        self._ready: dict[str, bytearray] = {"stdout": bytearray(), "stderr": bytearray()}
        self._ends_at: float | None = None
        self._code = 0
        self._closed = False
        self._stopped: Exit | None = None

    # -- the script -------------------------------------------------------------------------

    def clock(self) -> float:
        return self.now

    def emit(
        self, data: bytes, stream: Literal["stdout", "stderr"] = "stdout", after: float = 0.0
    ) -> None:
        """Write `data` (unasked), `after` seconds from now."""
        heapq.heappush(self._pending, (self.now + after, next(self._order), Output(data, stream)))

    def end(self, code: int = 0, after: float = 0.0) -> None:
        """Exit with `code` (negative: killed by that signal), `after` seconds from now."""
        self._ends_at, self._code = self.now + after, code

    def close_stdin(self) -> None:
        """Close its stdin, and keep running."""
        self._stdin_closed = True

    def stop_reading(self) -> None:
        """Read no more input: a write blocks once `stdin_room` is full."""
        self.reading = False

    # -- `Pipes` ----------------------------------------------------------------------------

    def write(self, data: bytes | memoryview) -> int:
        if self._stdin_closed or self._ended():
            raise BrokenPipeError
        size = len(data) if self.reading else min(len(data), self.stdin_room)
        if not size:
            raise BlockingIOError
        if not self.reading:
            self.stdin_room -= size
            return size
        self._partial += data[:size]
        while (newline := self._partial.find(b"\n")) >= 0:
            line = bytes(self._partial[: newline + 1])
            del self._partial[: newline + 1]
            self.lines.append(line)
            for output in self.answer(line):
                self.emit(output.data, output.stream, output.after)
        return size

    def read(self, stream: Stream) -> bytes:
        if self._closed or stream == "stdin":
            return b""
        self._arrive()
        ready = self._ready[stream]
        if ready:
            chunk = bytes(ready[:_CHUNK])
            del ready[:_CHUNK]
            return chunk
        if self._ended() and not any(o.stream == stream for _, _, o in self._pending):
            return b""
        raise BlockingIOError

    def wait(self, seconds: float, streams: Collection[Stream]) -> list[Stream]:
        ready = self._ready_now(streams)
        if ready or seconds <= 0:
            return ready
        until = self.now + seconds
        moments = [self._pending[0][0]] if self._pending else []  # (a heap: the next first)
        if self._ends_at is not None and not self._ended():
            moments.append(self._ends_at)
        self.now = min([until, *(m for m in moments if m > self.now)])
        return self._ready_now(streams)

    def has_ended(self) -> bool:
        return self._ended()

    def stop(self, grace: float = 0.0) -> Exit:
        if self._stopped is None:
            if (
                not self._ended()
                and self._ends_at is not None
                and self._ends_at <= self.now + grace
            ):
                self.now = self._ends_at
            ended_by_itself = self._ended()
            if not ended_by_itself:
                self._ends_at, self._code = self.now, -signal.SIGKILL
            self._stopped = Exit(ended_by_itself, self._code)
        return self._stopped

    def close_output(self) -> None:
        self._closed = True

    # -- inside -------------------------------------------------------------------------------

    def _ended(self) -> bool:
        return self._ends_at is not None and self._ends_at <= self.now

    def _arrive(self) -> None:
        while self._pending and self._pending[0][0] <= self.now:
            _, _, output = heapq.heappop(self._pending)
            self._ready[output.stream] += output.data

    def _ready_now(self, streams: Collection[Stream]) -> list[Stream]:
        self._arrive()
        ready: list[Stream] = []
        for stream in streams:
            if stream == "stdin":
                if self._stdin_closed or self._ended() or self.reading or self.stdin_room:
                    ready.append(stream)
            elif not self._closed and (self._ready[stream] or self._ended()):
                ready.append(stream)
        return ready
