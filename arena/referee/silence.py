"""Why a program gave no reply: the causes `arena check` tells apart from outside.

A program that never answers its first message looks the same from the arena whatever the
cause. Started again and tried two ways, it shows which:

- **held in a buffer**: sent its first message and then many that only inform, with stdin left
  open, it writes once its buffer fills (a Rust `BufWriter`, Java's `BufferedWriter`, C's stdio
  into a pipe): it answers, but does not flush each reply;
- **reads to the end of its input**: silent under that flood, it answers once its stdin is
  closed (`read_to_string`, `readlines()`, `sys.stdin.read()`, Node's `'end'` event);
- **neither**: silent even then, still running (busy, or waiting for something else) or ended.

A program that answered earlier messages and then not one that only informs is told that such
messages want a reply too (`null`): that is seen from the transcript, without a second run.

The probe uses the program's `ParticipantProcess` (`arena.seats.process`), started as the
check started it (same sandbox), and stops it in a `finally`.
"""

from __future__ import annotations

import time
from collections.abc import Collection, Mapping, Sequence
from pathlib import Path
from typing import Any, Final

import orjson

from arena.seats.channel import Stream
from arena.seats.process import ParticipantProcess
from arena.seats.sandbox import Confinement

# Messages that want a decision; every other wants a reply line too, any value (`null`).
DECISIONS: Final = ("ask", "go-fish", "pick-up")
FLOOD: Final = 15_000  # informational lines after the first: ≥ 72 KiB of `null` replies
WATCH: Final = 2.0  # seconds each way of trying is watched for output
_CHUNK: Final = 1 << 16

BUFFERED: Final = (
    "it answers, but holds its replies in a buffer: sent more messages it wrote them all at "
    "once when its buffer filled. Flush stdout after each reply line (Rust: `out.flush()` "
    "after `writeln!`, or no `BufWriter`; Java: `System.out.flush()`; C: `fflush(stdout)`; "
    "Go: `w.Flush()`)"
)
TO_THE_END: Final = (
    "it answers only once its input has ended: it reads all of stdin before replying "
    "(`read_to_string`, `readlines()`, `sys.stdin.read()`, Node's 'end' event), and the "
    "input ends only after the match. Read one line, answer it, then read the next "
    "(Rust: `stdin().lock().lines()`; Java: `readLine()`; Python: `for line in sys.stdin`)"
)


def informational(message_type: str, answered: int) -> str | None:
    """The cause of a silence at a message of `message_type` after `answered` replies, when
    the transcript alone shows it: a message that only informs, after others were answered."""
    if answered and message_type not in DECISIONS:
        return (
            f"it answered {answered} message{'s' if answered > 1 else ''} before, but not this "
            f"`{message_type}`, which only informs: every message wants one reply line, "
            "`null` for those that need no decision (and for any type it does not know)"
        )
    return None


def at_the_start(
    command: Sequence[str],
    cwd: Path,
    env: Mapping[str, str],
    first: Mapping[str, Any],
    informing: Mapping[str, Any],
    *,
    sandbox: Confinement = "none",
    read_only: Sequence[str] = (),
) -> str:
    """Why a program wrote nothing for its `first` message: the program started again, sent
    `first` and then `informing` (a message that only informs) FLOOD times, stdin left open,
    then closed. The cause seen first, in words; or, when neither shows it, what was seen."""
    process = ParticipantProcess(command, cwd, env, sandbox=sandbox, read_only=read_only)
    try:
        if process.start() is not None:
            return "it did not start again to be tried"
        lines = orjson.dumps(first) + b"\n" + (orjson.dumps(informing) + b"\n") * FLOOD
        if _output_while_writing(process, memoryview(lines)):
            return BUFFERED
        process.close_input()
        if _output(process, time.monotonic() + WATCH):
            return TO_THE_END
        if process.has_ended():
            code = process.stop().code
            if code == 0:
                return (
                    "it wrote nothing to stdout at all: it read its input to the end and "
                    "exited (status 0). Write each reply to stdout (not stderr, not a file), "
                    "one line per message, as the message comes"
                )
            return f"it wrote nothing at all and exited (status {code}): see its stderr below"
        return (
            f"it wrote nothing at all, neither sent {FLOOD:,} more messages nor once its input "
            f"had ended ({WATCH:g} s each), and still ran: several causes remain. It may be "
            "busy before its first reply: a slow start-up (`arena check --startup-timeout "
            "SECONDS` allows more; an unoptimised build, as a Rust target/debug, starts many "
            "times slower) or a loop; or it waits for something other than its stdin"
        )
    finally:
        process.stop()
        process.close_output()


def _output_while_writing(process: ParticipantProcess, data: memoryview) -> bool:
    """Write `data` as the program takes it, watching its stdout; whether output came."""
    deadline = time.monotonic() + WATCH
    while data and time.monotonic() < deadline:
        ready = process.wait(0.05, ("stdin", "stdout", "stderr"))
        if _drained(process, ready):
            return True
        if "stdin" in ready:
            try:
                data = data[process.write(data[:_CHUNK]) :]
            except BlockingIOError:
                continue
            except OSError:  # it ended: what it wrote before, if anything, is read below
                break
    return _output(process, deadline)


def _output(process: ParticipantProcess, deadline: float) -> bool:
    """Whether the program writes to stdout before `deadline` (its stderr drained meanwhile)."""
    while (left := deadline - time.monotonic()) > 0:
        if _drained(process, process.wait(min(left, 0.05), ("stdout", "stderr"))):
            return True
        if process.has_ended():  # what it wrote before it ended is in the pipe already
            just_stdout: tuple[Stream, ...] = ("stdout",)
            return _drained(process, process.wait(0, just_stdout))
    return False


def _drained(process: ParticipantProcess, ready: Collection[Stream]) -> bool:
    """Read what is ready (stderr discarded: the check's own run kept it); whether stdout held
    something."""
    streams: tuple[Stream, ...] = ("stderr", "stdout")
    for stream in streams:
        if stream in ready:
            try:
                chunk = process.read(stream)
            except BlockingIOError:
                continue
            if stream == "stdout" and chunk:
                return True
    return False
