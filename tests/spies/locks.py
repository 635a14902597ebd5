"""Two seats try to talk through file locks on a file every sandbox shares (`/usr/bin/env`).

    python locks.py

Seat 0 takes a lock of each kind at its starting hand (flock, a record lock at offset 100, an
open-file-description lock at offset 200) and keeps it; seat 1, at its first ask, looks for
each one from its own process (flock without blocking, F_GETLK, F_OFD_GETLK) and reports what it
saw. A lock seen is one bit through the wall; a bot doing this in a loop reaches megabits.
"""

from __future__ import annotations

import ctypes
import errno
import fcntl
import os
import struct
from typing import Any

from _spy import play, report

SHARED = "/usr/bin/env"
F_OFD_GETLK, F_OFD_SETLK = 36, 37
SYS_FCNTL = 72  # x86-64
me: dict[str, Any] = {"seat": -1, "held": []}


def lock(kind: int, start: int) -> bytes:
    return struct.pack("hhqqi", kind, os.SEEK_SET, start, 1, 0)


def wide_lock(fd: int, request: bytes) -> None:
    """F_SETLK with a high bit set in the command's 64 bits: the kernel reads an int (the
    command), a filter comparing all 64 bits would not see a lock."""
    libc = ctypes.CDLL(None, use_errno=True)
    libc.syscall.restype = ctypes.c_long
    buffer = ctypes.create_string_buffer(request, len(request))
    command = ctypes.c_long(fcntl.F_SETLK | 1 << 32)
    if libc.syscall(ctypes.c_long(SYS_FCNTL), ctypes.c_long(fd), command, buffer) == -1:
        raise OSError(ctypes.get_errno(), "fcntl")


def on_init(message: dict[str, Any]) -> None:
    me["seat"] = message["seat"]


def on_hand(message: dict[str, Any]) -> None:
    if me["seat"] != 0:
        return
    fd = os.open(SHARED, os.O_RDONLY)
    me["held"].append(fd)  # kept open: the locks live as long as it
    locked, refused = [], {}
    for name, take in (
        ("flock", lambda: fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)),
        ("record", lambda: fcntl.fcntl(fd, fcntl.F_SETLK, lock(fcntl.F_RDLCK, 100))),
        ("ofd", lambda: fcntl.fcntl(fd, F_OFD_SETLK, lock(fcntl.F_RDLCK, 200))),
        ("wide", lambda: wide_lock(fd, lock(fcntl.F_RDLCK, 300))),
    ):
        try:
            take()
            locked.append(name)
        except OSError as error:
            refused[name] = errno.errorcode.get(error.errno or 0, str(error.errno))
    report(locked=locked, refused=refused)


def on_ask(message: dict[str, Any]) -> None:
    if me["seat"] != 1 or me.get("looked"):
        return
    me["looked"] = True
    fd = os.open(SHARED, os.O_RDONLY)
    seen, refused = [], {}
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError as error:
        if error.errno == errno.EWOULDBLOCK:
            seen.append("flock")
        else:
            refused["flock"] = errno.errorcode.get(error.errno or 0, "")
    for name, command, start in (
        ("record", fcntl.F_GETLK, 100),
        ("ofd", F_OFD_GETLK, 200),
        ("wide", fcntl.F_GETLK, 300),
    ):
        try:
            answer = fcntl.fcntl(fd, command, lock(fcntl.F_WRLCK, start))
            if struct.unpack("hhqqi", answer)[0] != fcntl.F_UNLCK:
                seen.append(name)
        except OSError as error:
            refused[name] = errno.errorcode.get(error.errno or 0, "")
    os.close(fd)
    report(seen=seen, refused=refused)


play({"init": on_init, "starting-hand": on_hand, "ask": on_ask})
