"""Answers `init`, then never stops writing unasked: 4 KiB at once, then 1 byte every PERIOD
seconds (argument; 0.01 by default).

Every wait of the arena for more unasked output must have a deadline (the seat's reply limit)
and a stop check; without them this keeps a 2 s-limit match, and a SIGTERM, waiting for as long
as it takes to write `line_cap` bytes (1 MiB: hours).
"""

import sys
import time

from _common import messages, note_pid, send

note_pid()
period = float(sys.argv[1]) if len(sys.argv) > 1 else 0.01
for message in messages():
    if message["type"] == "init":
        send(b"null\n" + b"x" * 4096)  # the reply, and right behind it 4 KiB nobody asked for
        note_pid("trickling")
        while True:
            time.sleep(period)
            send(b"x")
sys.exit(0)
