"""Plays sensibly, every reply padded with spaces and tabs and ended by CR LF (accepted)."""

import json

from _common import messages, note_pid, send, sensible

note_pid()
for message in messages():
    send(b" \t " + json.dumps(sensible(message)).encode() + b" \t\r\n")
