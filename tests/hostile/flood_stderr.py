"""Plays sensibly, but writes MEGABYTES of log to stderr with its first replies."""

import sys

from _common import messages, note_pid, reply, sensible

note_pid()
megabytes = int(sys.argv[1])
line = b"flood_stderr: " + b"." * 1000 + b"\n"
for count, message in enumerate(messages()):
    if count < 3:
        for _ in range(megabytes * 1000 // 3):
            sys.stderr.buffer.write(line)
        sys.stderr.buffer.write(b"flood_stderr: end of burst %d\n" % count)
        sys.stderr.buffer.flush()
    reply(sensible(message))
