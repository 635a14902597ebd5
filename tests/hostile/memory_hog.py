"""Tries to take MEGABYTES of memory when asked for `init`."""

import sys

from _common import messages, note_pid, reply

note_pid()
megabytes = int(sys.argv[1])
for message in messages():
    hog = bytearray(megabytes << 20)
    reply(len(hog))
