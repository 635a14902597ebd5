"""Answers `init`, says goodbye on stderr, and exits with status 3."""

import sys

from _common import messages, note_pid, reply

note_pid()
for message in messages():
    reply(None)
    sys.stderr.write("dies_after_init: goodbye\n")
    sys.stderr.flush()
    sys.exit(3)
