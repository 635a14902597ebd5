"""Writes a uid-checked kernel setting back with its own value: `fs.file-max`.

    python kernel_write.py

Root's uid passes the kernel's check on /proc/sys even without capabilities; `kernel.core_pattern`
is the same check (and a `|program` there runs as root outside every namespace). The spy never
changes anything: it writes back exactly what it read.
"""

from __future__ import annotations

from typing import Any

from _spy import play, report

SETTING = "/proc/sys/fs/file-max"


def on_hand(message: dict[str, Any]) -> None:
    try:
        with open(SETTING, encoding="ascii") as file:
            value = file.read()
        with open(SETTING, "w", encoding="ascii") as file:
            file.write(value)
    except OSError as error:
        report(wrote=False, error=f"{type(error).__name__}: {error}")
        return
    report(wrote=True)


play({"starting-hand": on_hand})
