"""Fills the disk within the rules, if it can: a large "anything" reply to every informational
message (they are kept in the replay) and a flood of stderr (kept in its log and as notes)."""

import sys

from _common import messages, note_pid, reply, sensible

note_pid()
big = "x" * (200 << 10)
for message in messages():
    sys.stderr.buffer.write(b"e" * (100 << 10) + b"\n")
    sys.stderr.buffer.flush()
    if message["type"] in ("ask", "go-fish", "pick-up"):
        reply(sensible(message))
    else:
        reply(big)
