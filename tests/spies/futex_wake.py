"""Two seats meet on a futex of a file every sandbox maps (`/usr/bin/env`), not private.

    python futex_wake.py

A futex that is not private on a page of a file is keyed by the file and the offset, not by
the process or its namespaces. Seat 1, at its `init`, waits on it in a thread (up to 4 s, or the match's end);
seat 0, at its first ask, wakes it (`FUTEX_WAKE`, which says how many waiters it woke) until
it has woken one, for up to 2 s. A waiter woken, or a count above 0, is one bit through the
wall, exact; the issue's thief passed a whole starting hand so in under a millisecond.
"""

from __future__ import annotations

import ctypes
import mmap
import os
import threading
import time
from typing import Any

from _spy import play, report

SHARED = "/usr/bin/env"
SYS_FUTEX = 202  # x86-64
FUTEX_WAIT, FUTEX_WAKE = 0, 1
libc = ctypes.CDLL(None, use_errno=True)
libc.mmap.restype = ctypes.c_void_p
libc.mmap.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int, ctypes.c_int]
libc.mmap.argtypes += [ctypes.c_int, ctypes.c_long]
libc.syscall.restype = ctypes.c_long
me: dict[str, Any] = {"seat": -1}


class Timespec(ctypes.Structure):
    _fields_ = [("sec", ctypes.c_long), ("nsec", ctypes.c_long)]


def address() -> int:
    """The first word of the shared file, mapped shared and read-only (kept mapped)."""
    fd = os.open(SHARED, os.O_RDONLY)
    found = libc.mmap(None, 4096, mmap.PROT_READ, mmap.MAP_SHARED, fd, 0)
    me["fd"] = fd
    return int(found)


def futex(where: int, op: int, value: int, timeout: Timespec | None = None) -> tuple[int, int]:
    pointer = ctypes.byref(timeout) if timeout is not None else None
    result = libc.syscall(SYS_FUTEX, ctypes.c_void_p(where), op, value, pointer, None, 0)
    return int(result), ctypes.get_errno()


def wait() -> None:
    where = address()
    value = ctypes.c_uint32.from_address(where).value
    started = time.monotonic()
    result, error = futex(where, FUTEX_WAIT, value, Timespec(4, 0))
    woken = result == 0 and time.monotonic() - started < 3.9
    me["waited"] = True
    report(seat=1, woken=woken, waited=round(time.monotonic() - started, 3), errno=error)


def on_init(message: dict[str, Any]) -> None:
    me["seat"] = message["seat"]
    if me["seat"] == 1:
        threading.Thread(target=wait, daemon=True).start()


def on_ask(message: dict[str, Any]) -> None:
    if me["seat"] != 0 or me.get("woke") is not None:
        return
    where = address()
    woke, deadline = 0, time.monotonic() + 2.0
    while woke == 0 and time.monotonic() < deadline:
        woke = max(0, futex(where, FUTEX_WAKE, 1)[0])
        time.sleep(0.001)
    me["woke"] = woke
    report(seat=0, woke=woke)


def on_end(message: dict[str, Any]) -> None:
    if me["seat"] == 1 and not me.get("waited"):
        report(seat=1, woken=False, waited=None)  # (still waiting when the match ended)


play({"init": on_init, "ask": on_ask, "match-end": on_end})
