"""Answers every message with something that is not one JSON value (the mode says what)."""

import sys
import time

from _common import messages, note_pid, send

REPLIES = {
    "text": b"this is not json\n",
    "blank": b"\n",
    "nan": b"NaN\n",
    "two-values": b"1 2\n",
    "bytes": b"\xff\xfe\xfd\n",
    "deep": b"[" * 100_000 + b"]" * 100_000 + b"\n",
    "nested": b"[" * 500 + b"]" * 500 + b"\n",
    "digits": b"9" * 5000 + b"\n",
    "long": b'"' + b"x" * (2 << 20) + b'"\n',
    "partial": b'{"player": 1, "cardId"',
}

note_pid()
mode = sys.argv[1]
for message in messages():
    send(REPLIES[mode])
time.sleep(600)
