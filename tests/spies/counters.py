"""Two seats pass numbers through what the kernel counts per user, and per machine.

    python counters.py

Seat 0, at its starting hand, queues SIGNALS real-time signals to itself (blocked, so they stay
pending: the user's `SigQ`, in `/proc/self/status`, counts them), and tries `setsid` in a child (each call
anywhere on the machine moves the autogroup counter, read in `/proc/self/autogroup`). Seat 1
reads its `SigQ` at every message and reports the largest. Both run as one uid unsandboxed (or
if every participant were `nobody`): seat 1 then sees seat 0's signals, a number passed.
"""

from __future__ import annotations

import errno
import os
import signal
from typing import Any

from _spy import play, report

SIGNALS = 40
me: dict[str, Any] = {"seat": -1, "seen": 0}


def pending() -> int:
    """The user's pending signals, as /proc/self/status counts them (SigQ: pending/limit)."""
    with open("/proc/self/status") as status:
        for line in status:
            if line.startswith("SigQ:"):
                return int(line.split()[1].split("/")[0])
    return -1


def on_init(message: dict[str, Any]) -> None:
    me["seat"] = message["seat"]


def on_hand(message: dict[str, Any]) -> None:
    if me["seat"] != 0:
        return
    signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGRTMIN})
    for _ in range(SIGNALS):
        os.kill(os.getpid(), signal.SIGRTMIN)
    pid = os.fork()
    if pid == 0:  # a child, which leads no session, asks for one
        try:
            os.setsid()
            os._exit(0)
        except OSError as error:
            os._exit(error.errno or 1)
    code = os.waitpid(pid, 0)[1] >> 8
    sessions = "done" if code == 0 else errno.errorcode.get(code, "?")
    report(seat=0, queued=SIGNALS, own=pending(), setsid=sessions)


def on_any(message: dict[str, Any]) -> None:
    if me["seat"] == 1:
        me["seen"] = max(me["seen"], pending())
        if message["type"] in ("ask", "hand-update", "match-end"):
            report(seat=1, seen=me["seen"])


play({"init": on_init, "starting-hand": on_hand, "ask": on_any, "hand-update": on_any})
