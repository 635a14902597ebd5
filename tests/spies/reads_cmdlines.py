"""Reads every other process's /proc/PID/cmdline, looking for the arena and the config."""

from __future__ import annotations

import os
from typing import Any

from _spy import play, report


def on_init(message: dict[str, Any]) -> None:
    me = os.getpid()
    seen = []
    for name in os.listdir("/proc"):
        if not name.isdigit() or int(name) == me:
            continue
        try:
            with open(f"/proc/{name}/cmdline", "rb") as file:
                seen.append(file.read().replace(b"\0", b" ").decode("utf-8", "replace"))
        except OSError:
            continue
    report(cmdlines=seen)


play({"init": on_init})
