"""Answers `init`, then floods stdout without a newline: when asked (`asked`), or at once,
before anything is asked (`unasked`, with newlines: endless unsolicited lines)."""

import sys
import time

from _common import messages, note_pid, reply, send

note_pid()
mode = sys.argv[1]
block = b"x" * (1 << 16)
for message in messages():
    if message["type"] == "init":
        reply(None)
        if mode == "unasked":
            while True:
                send(b"null\n" * 10_000)
        continue
    while True:
        send(block)
time.sleep(600)
