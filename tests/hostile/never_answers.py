"""Reads every message and never answers (with `after-init`: answers `init` only)."""

import sys
import time

from _common import messages, note_pid, reply

note_pid()
after_init = sys.argv[1:] == ["after-init"]
for message in messages():
    if after_init and message["type"] == "init":
        reply(None)
time.sleep(600)  # even after its input is closed: the arena must kill it
