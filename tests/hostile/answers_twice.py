"""Answers every message twice: its reply, then `"extra"`, in one write."""

import json

from _common import messages, note_pid, send, sensible

note_pid()
for message in messages():
    send(json.dumps(sensible(message)).encode() + b'\n"extra"\n')
