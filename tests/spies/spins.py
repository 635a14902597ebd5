"""A busy neighbour: COUNT children, each in a session of its own, each spinning on the CPU.

    python spins.py COUNT

`setsid` escapes the kernel's per-session CPU grouping (autogroup): sixteen busy sessions take
sixteen shares of the CPU from every other process. They spin until the spy ends (or 8 s).
"""

from __future__ import annotations

import contextlib
import os
import sys
import time
from typing import Any

from _spy import play, report

COUNT = int(sys.argv[1])


def on_init(message: dict[str, Any]) -> None:
    parent = os.getpid()
    for _ in range(COUNT):
        if os.fork() == 0:
            with contextlib.suppress(PermissionError):  # (the sandbox refuses it)
                os.setsid()
            deadline = time.monotonic() + 8
            while os.getppid() == parent and time.monotonic() < deadline:
                for _ in range(10000):
                    pass
            os._exit(0)
    report(spinning=COUNT)


play({"init": on_init})
