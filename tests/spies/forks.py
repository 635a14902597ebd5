"""A fork flood: as many sleeping children as it can get, up to a number.

    python forks.py COUNT

Reports how many it started. Unsandboxed they die with its process group at the match's end;
sandboxed, with its sandbox.
"""

from __future__ import annotations

import os
import sys
import time
from typing import Any

from _spy import play, report

COUNT = int(sys.argv[1])


def on_init(message: dict[str, Any]) -> None:
    parent, started = os.getpid(), 0
    for _ in range(COUNT):
        try:
            pid = os.fork()
        except OSError:
            break
        if pid == 0:
            deadline = time.monotonic() + 20
            while os.getppid() == parent and time.monotonic() < deadline:
                time.sleep(0.2)
            os._exit(0)
        started += 1
    report(started=started)


play({"init": on_init})
