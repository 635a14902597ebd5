"""A participant's line channel: one JSON line out per message, one line back per reply.

`LineChannel` owns the framing rules, over `Pipes` (a process's three non-blocking pipes:
`arena.seats.process.ParticipantProcess`, or an in-memory peer, `arena.seats.scripted`, with
which the rules are tested without spawning). It keeps its own line buffer, so a line is
bounded (`line_cap`) and a flood is a fault rather than a memory spike; every wait has a
deadline and polls the stop token (`arena.base.shutdown`); output nobody asked for is taken
and described before a message is written; replies of one match are bounded in all
(`reply_cap`); stderr is drained into a bounded log whenever the channel waits. A peer that
times out, ends, closes stdout or floods is stopped at once; everything it is owed afterwards
is answered "not delivered" without waiting on it again.

Nothing here raises because of what a participant did: every failure is a `Fault` in the
returned `Answer`.
"""

from __future__ import annotations

import signal
import time
from collections.abc import Callable, Collection
from dataclasses import dataclass
from typing import Any, Literal, Protocol

from arena.base import shutdown
from arena.engine.match import NO_REPLY
from arena.seats.replies import (
    GONE,
    RAW_CUT,
    Answer,
    BoundedLog,
    Fault,
    FaultKind,
    cut,
    decode_reply,
    not_json,
)

Stream = Literal["stdin", "stdout", "stderr"]
READING: tuple[Stream, ...] = ("stdout", "stderr")
_STDOUT: tuple[Stream, ...] = ("stdout",)
_WRITING: tuple[Stream, ...] = ("stdin", "stderr")
_FLOOD_SIZE = 1 << 12  # unasked output this large is watched for more (a flood)...
_FLOOD_WAIT = 0.02  # ...for this long
_EXIT_WAIT = 0.2  # after stdout closed: how long a peer has to end by itself
NOTE_CAP = 2 << 10  # bytes of stderr kept as one exchange's notes...
NOTES_CAP = 64 << 10  # ...and as all the notes of one match
NOTE_CUT = "… [cut]"  # ends notes that were cut (what was cut is still in the stderr log)


@dataclass(frozen=True)
class Exit:
    """How a stopped peer ended."""

    ended_by_itself: bool | None  # had it ended before it was killed? (None: never started)
    code: int | None  # its exit status (negative: a signal); None when unknown
    sandboxed: bool = False  # it ran inside bwrap, whose own failures look like an exit


class Pipes(Protocol):
    """A peer's stdin, stdout and stderr, non-blocking, and its life.

    `write` and `read` behave as `os.write` and `os.read` on non-blocking pipes: BlockingIOError
    when there is no room or nothing to read, BrokenPipeError when stdin is closed, b"" at the
    end of a stream.
    """

    def write(self, data: bytes | memoryview) -> int: ...

    def read(self, stream: Stream) -> bytes: ...

    def wait(self, seconds: float, streams: Collection[Stream]) -> list[Stream]:
        """Wait up to `seconds` until one of `streams` is ready; which are."""
        ...

    def has_ended(self) -> bool: ...

    def stop(self, grace: float = 0.0) -> Exit:
        """Up to `grace` seconds to end by itself, then killed (its whole group) and reaped."""
        ...

    def close_output(self) -> None:
        """Release stdout and stderr (after `stop`, once what they held was read)."""
        ...


class LineChannel:
    """The framing of one participant's lines over its `Pipes`."""

    def __init__(
        self,
        pipes: Pipes,
        *,
        line_cap: int = 1 << 20,
        stderr_cap: int = 1 << 20,
        reply_cap: int = 8 << 20,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.pipes = pipes
        self.line_cap = line_cap
        # Every reply is kept in the transcript: their total is what bounds the arena's memory.
        self.reply_cap = reply_cap
        self.reply_bytes = 0  # this match's so far (`begin_match` starts again)
        self.log = BoundedLog(stderr_cap)
        self.buffer = bytearray()
        self.exit: Exit | None = None  # once stopped
        self._clock = clock
        self._limit = 1.0  # seconds unasked output is watched for: the last reply limit
        self._note: bytearray | None = None  # stderr written while a message is outstanding
        self._noted = 0  # bytes of stderr written while it is (kept or not)
        self._notes_left = NOTES_CAP  # bytes of notes this match may still keep
        self._log_full_told = False  # whether this match's log-full fault was given
        self._rest_unsolicited = False  # the start of the current line was output nobody asked for

    @property
    def alive(self) -> bool:
        return self.exit is None

    def begin_match(self) -> None:
        """A new match (a reused participant plays several): its reply bytes count from 0, and
        its log holds this match's stderr only."""
        self.reply_bytes = 0
        self.log = BoundedLog(self.log.cap)
        self._notes_left = NOTES_CAP
        self._log_full_told = False

    # -- one message --------------------------------------------------------------------

    def exchange(self, line: bytes, timeout: float) -> Answer:
        """Write one message line and read one reply line within `timeout` seconds.

        Raises shutdown.Stopped when the process is told to stop while it waits.
        """
        if self.exit is not None:
            return GONE
        self._limit = timeout
        unsolicited = None
        waiting = self.pipes.wait(0, READING)  # one poll: output found before writing
        if "stderr" in waiting:
            self.drain_stderr()  # written between messages: the log's, no exchange's notes
        if self.buffer or self._rest_unsolicited or "stdout" in waiting:
            unsolicited, stop = self.take_unsolicited(timeout)
            if self.exit is not None:
                return Answer(NO_REPLY, fault=stop, unsolicited=unsolicited, delivered=False)
        self._note, self._noted = bytearray(), 0
        try:
            started = self._clock()
            value, fault = self._converse(line, started + timeout, timeout)
            seconds = self._clock() - started
        finally:
            notes = self._take_notes()
        return Answer(value, seconds, fault, unsolicited, notes=notes, log_full=self._log_full())

    def _converse(self, line: bytes, deadline: float, timeout: float) -> tuple[Any, Fault | None]:
        """Write the message, read its reply line: the reply, or NO_REPLY and the fault."""
        fault = self._write(line, deadline, timeout)
        reply_line = b""
        if fault is None:
            fault, reply_line = self._read_line(deadline, timeout)
        if fault is not None:
            return NO_REPLY, fault
        try:
            value = decode_reply(reply_line)
        except ValueError as error:
            fault = self._fault(FaultKind.NOT_JSON, not_json(reply_line, error), cut(reply_line))
            return NO_REPLY, fault
        self.reply_bytes += len(reply_line) + 1  # (a reply that is not JSON is kept only cut)
        if self.reply_bytes > self.reply_cap:
            raw = cut(reply_line)
            self.stop()
            detail = f"more than {self.reply_cap} bytes of replies in this match; stopped for the rest of the match"
            return NO_REPLY, self._fault(FaultKind.TOO_MUCH_OUTPUT, detail, raw)
        return value, None

    def _take_notes(self) -> str:
        """What stderr received while the message was outstanding, as this exchange's notes.

        Taken once the reply line is read: what the peer wrote to stderr before writing its
        reply is in the stderr pipe by then (a write to a pipe is complete when it returns),
        so one more read that does not wait takes it. Kept up to NOTE_CAP bytes per exchange
        and NOTES_CAP per match, a cut marked with NOTE_CUT.
        """
        if self.exit is None:
            self.drain_stderr()
        note, written = self._note, self._noted
        self._note = None
        if not written or note is None:
            return ""
        kept = min(len(note), self._notes_left)
        self._notes_left -= kept
        text = note[:kept].decode("utf-8", "replace")
        return text if kept == written else text + NOTE_CUT

    def leftover(self) -> Fault | None:
        """Output written after the last reply (nobody asked for it), taken and described."""
        if self.exit is not None:
            return None
        leftover, _ = self.take_unsolicited(self._limit)
        return leftover or self._log_full()

    def _log_full(self) -> Fault | None:
        """The fault for this match's stderr over its cap, the first time it is seen."""
        if self._log_full_told or not self.log.cut_bytes:
            return None
        self._log_full_told = True
        detail = (
            f"more than {self.log.cap} bytes written to stderr in this match: its log keeps the "
            "first of them and the last 2 KiB (limits.stderrBytes); it plays on"
        )
        return Fault(FaultKind.LOG_FULL, detail)

    def _write(self, line: bytes, deadline: float, timeout: float) -> Fault | None:
        pipes = self.pipes
        written = 0
        try:
            written = pipes.write(line)
            if written == len(line):  # the usual case: the pipe had room for it all
                return None
        except BlockingIOError:
            pass
        except (BrokenPipeError, ConnectionResetError):
            return self._gone("closed its stdin")
        view = memoryview(line)[written:]
        next_check = self._clock() + shutdown.CHECK_EVERY
        while view:
            try:
                view = view[pipes.write(view) :]
                continue
            except BlockingIOError:
                pass
            except (BrokenPipeError, ConnectionResetError):
                return self._gone("closed its stdin")
            # The participant is not reading its stdin: wait for room, draining stderr meanwhile.
            if shutdown.should_stop():
                raise shutdown.Stopped
            now = self._clock()
            if now >= deadline:
                return self._timeout(timeout, "it was not reading its input")
            if now >= next_check:
                next_check = now + shutdown.CHECK_EVERY
                if pipes.has_ended():
                    return self._gone("ended")
            if "stderr" in pipes.wait(min(deadline - now, shutdown.CHECK_EVERY), _WRITING):
                self.drain_stderr()
        return None

    def _read_line(self, deadline: float, timeout: float) -> tuple[Fault | None, bytes]:
        buffer, pipes = self.buffer, self.pipes
        scanned = 0
        ended = False
        next_check = self._clock() + shutdown.CHECK_EVERY
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
            now = self._clock()
            if now >= deadline:
                return self._timeout(timeout), b""
            for stream in pipes.wait(min(deadline - now, shutdown.CHECK_EVERY), READING):
                if stream == "stdout":
                    ended = self._read_stdout() is None
                elif stream == "stderr":
                    self.drain_stderr()
            if not ended and self._clock() >= next_check:
                next_check = self._clock() + shutdown.CHECK_EVERY
                if pipes.has_ended():
                    # It ended, but a child it left holds stdout open: no EOF will come. Take
                    # what it wrote before it ended, then stop.
                    while len(buffer) <= self.line_cap and self._read_stdout():
                        pass  # until nothing more is waiting, or end of file
                    ended = True

    def _read_stdout(self) -> int | None:
        """Append what stdout holds to the buffer: how many bytes (0: none waiting), None at EOF."""
        try:
            chunk = self.pipes.read("stdout")
        except BlockingIOError:
            return 0
        if not chunk:
            return None
        self.buffer += chunk
        return len(chunk)

    def take_unsolicited(self, limit: float) -> tuple[Fault | None, Fault | None]:
        """Discard output that was waiting before a message was written, and say what it was.

        Much of it, with more still coming, is watched for at most `limit` seconds (the seat's
        reply limit) and never once the arena is stopping: a flood, or a trickle that would keep
        the arena reading, stops the participant. Returns what was discarded (or None) and, if
        the participant had to be stopped (it closed stdout), why.
        """
        head = bytes(self.buffer[: 4 * RAW_CUT])
        size = len(self.buffer)
        last = bytes(self.buffer[-1:])
        self.buffer.clear()
        closed = trickled = False
        pipes = self.pipes
        deadline = self._clock() + limit
        while size <= self.line_cap:
            try:
                chunk = pipes.read("stdout")
            except BlockingIOError:
                # Much output nobody asked for: if more keeps coming, it is a flood, to be
                # stopped now rather than have its lines read as replies; if it keeps coming
                # slowly, for longer than a reply may take, it is stopped all the same.
                if size < _FLOOD_SIZE or shutdown.should_stop():
                    break
                left = deadline - self._clock()
                if left <= 0:
                    trickled = True
                    break
                if pipes.wait(min(left, _FLOOD_WAIT), _STDOUT):
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
            self.stop()
            detail = f"more than {self.line_cap} bytes written when nothing was asked; stopped for the rest of the match"
            return self._fault(FaultKind.UNSOLICITED, detail, cut(head)), None
        if trickled:  # it would not stop either, only more slowly
            self.stop()
            detail = (
                f"{size} bytes written when nothing was asked, and more still coming after "
                f"{limit:g} s (its reply limit); stopped for the rest of the match"
            )
            return self._fault(FaultKind.UNSOLICITED, detail, cut(head)), None
        if size:
            detail = f"{size} bytes written when nothing was asked (discarded)"
            unsolicited = self._fault(FaultKind.UNSOLICITED, detail, cut(head))
        if closed:
            return unsolicited, self._gone("closed its stdout")
        return unsolicited, None

    def drain_stderr(self) -> None:
        for _ in range(64):  # bounded: a flood is drained again on the next wait
            try:
                chunk = self.pipes.read("stderr")
            except OSError:  # BlockingIOError: nothing waiting
                return
            if not chunk:
                return
            self.log.feed(chunk)
            if self._note is not None:
                self._noted += len(chunk)
                self._note += chunk[: NOTE_CAP - len(self._note)]

    # -- stopping ---------------------------------------------------------------------------

    def stop(self, grace: float = 0.0) -> Exit:
        """Stop the peer (after up to `grace` seconds to end by itself); keep what stderr still
        holds. Safe to call again."""
        if self.exit is None:
            self.exit = self.pipes.stop(grace)
            self.drain_stderr()
            self.pipes.close_output()
            self.buffer = bytearray()
        return self.exit

    @property
    def sandbox_failed(self) -> bool:
        """Whether bwrap ended without starting the program: status 1, and its own error
        (`bwrap: …`) first on stderr. (A program that imitates it only hurts itself.)"""
        return (
            self.exit is not None
            and self.exit.sandboxed
            and self.exit.code == 1
            and self.log.text().startswith("bwrap: ")
        )

    # -- faults that stop the participant ---------------------------------------------------

    def _fault(
        self, kind: FaultKind, detail: str, raw: str | None = None, exit_code: int | None = None
    ) -> Fault:
        self.drain_stderr()
        return Fault(kind, detail, raw, exit_code, self.log.last(RAW_CUT) or None)

    def _timeout(self, timeout: float, why: str = "") -> Fault:
        """`why`: what it was doing instead of replying, when the arena knows."""
        partial = bytes(self.buffer[: 4 * RAW_CUT])
        size = len(self.buffer)
        self.stop()
        because = f" ({why})" if why else ""
        detail = f"no reply line within {timeout:g} s{because}; stopped for the rest of the match"
        if partial:
            # The commonest cause: a reply written without its newline, or not flushed in full.
            detail += f"; {size} bytes came without a newline: end each reply with one"
            return self._fault(FaultKind.TIMEOUT, detail, cut(partial))
        return self._fault(
            FaultKind.TIMEOUT,
            detail + "; is its output flushed after each reply, and does it answer each line as it "
            "comes (not reading to the end of its input first)?",
        )

    def _too_long(self) -> Fault:
        raw = cut(bytes(self.buffer[: 4 * RAW_CUT]))
        self.stop()
        detail = (
            f"more than {self.line_cap} bytes without a newline; stopped for the rest of the match"
        )
        return self._fault(FaultKind.LINE_TOO_LONG, detail, raw)

    def _gone(self, what: str) -> Fault:
        """It ended, or closed a pipe: give it a moment to end by itself (for its exit
        status), stop it, and say which."""
        ended = self.stop(_EXIT_WAIT)
        code = ended.code
        if self.sandbox_failed and ended.ended_by_itself:
            why = self.log.last(300).strip().splitlines()
            detail = "the sandbox could not start it" + (f": {why[-1]}" if why else "")
            return self._fault(FaultKind.START_FAILED, detail)
        if not ended.ended_by_itself or code is None:
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
