"""Reads what /proc says of the whole machine: counters another sandbox moves.

    python reads_proc.py

`/proc/stat`'s fork count and `/proc/loadavg` carry bits from a neighbour that forks or spins;
`/proc/locks` lists every file lock of the machine; `/proc/cgroups` counts the control groups
the arena makes, one per live sandbox. Reports which of them said anything.
"""

from __future__ import annotations

import os
from typing import Any

from _spy import play, report

COUNTERS = (
    "/proc/stat",
    "/proc/loadavg",
    "/proc/meminfo",
    "/proc/vmstat",
    "/proc/locks",
    "/proc/pressure/cpu",
    "/proc/sys/fs/file-nr",
    "/proc/uptime",
    "/proc/cmdline",  # (the machine's boot line)
    "/proc/modules",
    "/proc/cgroups",  # (how many control groups: one per live sandbox)
)


def on_hand(message: dict[str, Any]) -> None:
    spoke = []
    for path in COUNTERS:
        try:
            with open(path, "rb") as file:
                if file.read(4096).strip():
                    spoke.append(path)
        except OSError:
            continue
    report(spoke=spoke, path=os.environ.get("PATH", ""))


play({"starting-hand": on_hand})
