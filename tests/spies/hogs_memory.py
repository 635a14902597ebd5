"""Memory through children: each child holds MIB MiB, far more in all than `memoryMiB`.

    python hogs_memory.py CHILDREN MIB

A per-process limit lets each child have its MIB; one ceiling for the participant does not.
Reports how many children held theirs at once (reported as they come: the out-of-memory
killer may take the spy itself).
"""

from __future__ import annotations

import os
import sys
import time
from typing import Any

from _spy import play, report

CHILDREN, MIB = int(sys.argv[1]), int(sys.argv[2])


def on_init(message: dict[str, Any]) -> None:
    report(held=0)
    parent = os.getpid()
    read_end, write_end = os.pipe()
    for _ in range(CHILDREN):
        if os.fork() == 0:
            os.close(read_end)
            block = bytearray(MIB << 20)
            for index in range(0, len(block), 4096):
                block[index] = 1  # touched: resident
            os.write(write_end, b"+")
            deadline = time.monotonic() + 20
            while os.getppid() == parent and time.monotonic() < deadline:
                time.sleep(0.2)
            os._exit(0)
    os.close(write_end)
    held, deadline = 0, time.monotonic() + 4
    os.set_blocking(read_end, False)
    while time.monotonic() < deadline and held < CHILDREN:
        try:
            got = os.read(read_end, 64)
        except BlockingIOError:
            time.sleep(0.05)
            continue
        if not got:
            break
        held += len(got)
        report(held=held)
    # Held at once: those that held theirs and are still alive.
    dead = 0
    while True:
        try:
            pid, _status = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            break
        if pid == 0:
            break
        dead += 1
    report(held=min(held, CHILDREN - dead))


play({"init": on_init})
