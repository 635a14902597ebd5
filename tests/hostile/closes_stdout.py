"""Answers `init`, closes its stdout, and keeps running (reading its input)."""

import os
import sys
import time

from _common import messages, note_pid, reply

note_pid()
for message in messages():
    if message["type"] == "init":
        reply(None)
        sys.stdout.flush()
        os.close(1)
time.sleep(600)
