"""Writes to its parent's stdout through /proc/PPID/fd/1 (the organiser's terminal, unsandboxed)."""

from __future__ import annotations

import os
import sys
from typing import Any

from _spy import play, report


def on_init(message: dict[str, Any]) -> None:
    parent = os.getppid()
    mark = sys.argv[1]
    try:
        with open(f"/proc/{parent}/fd/1", "w", encoding="utf-8") as terminal:
            terminal.write(f"\n{mark}\n")
        report(wrote=True, parent=parent)
    except OSError as error:
        report(wrote=False, parent=parent, error=str(error))


play({"init": on_init})
