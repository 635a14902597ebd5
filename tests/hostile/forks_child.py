"""Forks a child that sleeps for ten minutes holding stdout and stderr open.

Then: `plays` plays sensibly to the end; `exits` exits before answering anything;
`exits-after-init` answers `init` and exits. The child must not outlive the match.
"""

import os
import sys
import time

from _common import messages, note_pid, reply, sensible

note_pid()
if os.fork() == 0:
    note_pid("child")
    time.sleep(600)
    os._exit(0)
mode = sys.argv[1]
if mode == "exits":
    sys.exit(0)
for message in messages():
    reply(sensible(message))
    if mode == "exits-after-init":
        sys.exit(0)
