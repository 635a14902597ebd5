"""Leaves a double-forked child in a session of its own, to outlive the match.

    python escapes.py MARK

The child keeps MARK in its command line (the test looks for it after the match) and ends by
itself after 20 s, so that the unsandboxed proof run leaves nothing behind for long.
"""

from __future__ import annotations

import contextlib
import os
import sys
import time
from typing import Any

from _spy import play, report


def on_init(message: dict[str, Any]) -> None:
    if os.fork() == 0:
        with contextlib.suppress(PermissionError):  # (the sandbox refuses it)
            os.setsid()
        if os.fork() == 0:
            for fd in (0, 1, 2):
                os.close(fd)
            time.sleep(20)
        os._exit(0)
    os.wait()
    report(forked=True, mark=sys.argv[1])


play({"init": on_init})
