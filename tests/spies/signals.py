"""Signals its parent and every process it can see.

In a pid namespace of its own it really sends SIGSTOP and SIGKILL (there they can reach only
the sandbox); elsewhere it only asks whether it could (signal 0), so that the unsandboxed proof
run harms nothing. Either way it reports the processes outside itself that it could signal.
"""

from __future__ import annotations

import os
import signal
from typing import Any

from _spy import play, report, sandboxed_pids


def could_signal(pid: int, real: bool) -> bool:
    try:
        if real:
            os.kill(pid, signal.SIGSTOP)
            os.kill(pid, signal.SIGKILL)
        else:
            os.kill(pid, 0)
        return True
    except (ProcessLookupError, PermissionError):
        return False


def on_init(message: dict[str, Any]) -> None:
    real = sandboxed_pids()
    me, parent = os.getpid(), os.getppid()
    visible = sorted(int(name) for name in os.listdir("/proc") if name.isdigit())
    # Inside a pid namespace, pid 1 is the sandbox's own init: the kernel shields it from its
    # namespace's signals, and it is no process of the arena's.
    targets = [pid for pid in visible if pid != me and not (real and pid == 1)]
    reached = [pid for pid in targets if could_signal(pid, real)]
    parent_reached = parent != 1 and could_signal(parent, real)
    report(real=real, visible=len(visible), reached=len(reached), parent=parent_reached)


play({"init": on_init})
