"""Writes memory the limits do not count: a file in a writable tmpfs under /dev.

    python fills_dev.py

Reports where under /dev it could write a file that is not on its own /tmp (each file written
is removed at once).
"""

from __future__ import annotations

import os
from typing import Any

from _spy import play, report

PLACES = ("/dev", "/dev/shm", "/dev/mqueue", "/dev/pts")


def on_hand(message: dict[str, Any]) -> None:
    tmp = os.stat("/tmp").st_dev
    wrote = []
    for folder in PLACES:
        path = os.path.join(folder, f"spy-{os.getpid()}")
        try:
            with open(path, "wb") as file:
                file.write(b"x" * 4096)
            on_tmp = os.stat(path).st_dev == tmp
            os.unlink(path)
        except OSError:
            continue
        if not on_tmp:
            wrote.append(folder)
    report(wrote=wrote)


play({"starting-hand": on_hand})
