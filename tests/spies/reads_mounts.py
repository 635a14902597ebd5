"""Reads the mount table a process is shown: `/proc/self/mountinfo`, `mounts`, `mountstats`.

    python reads_mounts.py

A process's mount table is a file of its own (`/proc/PID/mountinfo`): no bind can mask it for
every process. What it names is what its mount namespace holds. Reports every path named as a
mount point (or a bind's source within its file system) in each of the three files.
"""

from __future__ import annotations

from typing import Any

from _spy import play, report


def named(name: str) -> list[str]:
    try:
        with open(f"/proc/self/{name}") as file:
            lines = file.read().splitlines()
    except OSError as error:
        return [type(error).__name__]
    found = []
    for line in lines:
        words = line.split()
        if name == "mountinfo" and len(words) >= 5:
            found += [words[3], words[4]]  # its root in its file system, its mount point
        elif name == "mounts" and len(words) >= 2:
            found.append(words[1])
        elif name == "mountstats" and "mounted on" in line:
            found.append(line.split(" mounted on ", 1)[1].rsplit(" with fstype ", 1)[0])
    return sorted(set(found))


def on_hand(message: dict[str, Any]) -> None:
    report(**{name: named(name) for name in ("mountinfo", "mounts", "mountstats")})


play({"starting-hand": on_hand})
