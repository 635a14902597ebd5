"""Answers every message with a valid but huge JSON value (a string of KILOBYTES kB)."""

import sys

from _common import messages, note_pid, reply

note_pid()
padding = "x" * (int(sys.argv[1]) * 1000)
for message in messages():
    reply(padding)
