"""Passes a starting hand to a live seat of the same match through `sysinfo`'s count of the
machine's shared memory.

    python shared_memory.py

The first seat is the sender: from its starting hand on, in a background thread, it holds
16 MiB of shared memory (a memfd's pages, counted in `sysinfo`'s `sharedram` for the whole
machine) in each period whose bit is set — bit k of a frame of 52 periods is card k of its
hand — and none in the others, frame after frame, periods aligned to the wall clock. The last
seat is the receiver: at its first ask it reads `sysinfo` in each of the next 52 periods. No file, no write outside its memory: only a call every C library makes to
size itself, which the filter cannot refuse.
"""

from __future__ import annotations

import ctypes
import os
import statistics
import threading
import time
from typing import Any

from _spy import play, report

PERIOD = 0.06  # seconds
FRAME = 52  # periods: one per card
HELD = 16 << 20  # bytes of shared memory for a 1


class SysInfo(ctypes.Structure):
    _fields_ = [
        ("uptime", ctypes.c_long),
        ("loads", ctypes.c_ulong * 3),
        ("totalram", ctypes.c_ulong),
        ("freeram", ctypes.c_ulong),
        ("sharedram", ctypes.c_ulong),
        ("bufferram", ctypes.c_ulong),
        ("totalswap", ctypes.c_ulong),
        ("freeswap", ctypes.c_ulong),
        ("procs", ctypes.c_ushort),
        ("pad", ctypes.c_ushort),
        ("totalhigh", ctypes.c_ulong),
        ("freehigh", ctypes.c_ulong),
        ("mem_unit", ctypes.c_uint),
        ("spare", ctypes.c_char * 8),
    ]


LIBC = ctypes.CDLL(None, use_errno=True)
me: dict[str, Any] = {"seat": -1, "read": False}


def shared() -> int:
    info = SysInfo()
    LIBC.sysinfo(ctypes.byref(info))
    return int(info.sharedram) * max(int(info.mem_unit), 1)


def sleep_until(moment: float) -> None:
    if (left := moment - time.time()) > 0:
        time.sleep(left)


def send(cards: set[int]) -> None:
    blob = b"x" * HELD
    while True:
        slot = int(time.time() / PERIOD) + 1
        sleep_until(slot * PERIOD)
        if slot % FRAME in cards:
            fd = os.memfd_create("bit")
            os.write(fd, blob)
            sleep_until((slot + 0.85) * PERIOD)
            os.close(fd)


def on_init(message: dict[str, Any]) -> None:
    me["seat"] = message["seat"]
    me["receiver"] = len(message["players"]) - 1


def on_hand(message: dict[str, Any]) -> None:
    me["hand"] = sorted(card["id"] for card in message["hand"])
    if me["seat"] == 0:
        threading.Thread(target=send, args=(set(me["hand"]),), daemon=True).start()


def on_ask(message: dict[str, Any]) -> None:
    if me["read"] or me["seat"] != me["receiver"]:
        return
    me["read"] = True
    first = int(time.time() / PERIOD) + 1
    readings = {}
    for slot in range(first, first + FRAME):  # (slot k of a frame is card k)
        sleep_until((slot + 0.4) * PERIOD)
        seen = []
        while time.time() < (slot + 0.8) * PERIOD:
            seen.append(shared())
        readings[slot % FRAME] = statistics.median(seen) if seen else 0
    floor = statistics.median(readings.values())  # (most periods are 0 bits)
    decoded = sorted(card for card, value in readings.items() if value - floor > HELD // 2)
    report(seat=me["seat"], hand=me["hand"], decoded=decoded)


def on_hand_report(message: dict[str, Any]) -> None:
    on_hand(message)
    if me["seat"] == 0:
        report(seat=0, hand=me["hand"])


play({"init": on_init, "starting-hand": on_hand_report, "ask": on_ask})
