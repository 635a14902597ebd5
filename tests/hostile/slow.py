"""Plays sensibly, taking SECONDS before every reply."""

import sys
import time

from _common import messages, note_pid, reply, sensible

note_pid()
seconds = float(sys.argv[1])
for message in messages():
    time.sleep(seconds)
    reply(sensible(message))
