"""Plays sensibly, ignores SIGTERM and SIGINT, and keeps running after its input is closed."""

import signal
import time

from _common import messages, note_pid, reply, sensible

note_pid()
signal.signal(signal.SIGTERM, signal.SIG_IGN)
signal.signal(signal.SIGINT, signal.SIG_IGN)
for message in messages():
    reply(sensible(message))
time.sleep(600)
