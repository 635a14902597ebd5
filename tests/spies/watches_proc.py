"""Looks for any file of /proc that says something of the whole machine and moves: reads every
file it can under /proc (its own processes' folders aside) twice, a second apart, while the
first seat works (forks, threads, pipes, sockets, shared memory, files in its /tmp).

    python watches_proc.py

Reports the files whose contents changed between the two reads: each is a counter another
sandbox moves, a channel between them. (`/proc/sys/kernel/random/uuid` is new at each read by
design; `/proc/cpuinfo`'s clock rate follows the CPU's load on hardware that scales it, the
known CPU residual: docs/sandbox.md.)
"""

from __future__ import annotations

import os
import socket
import threading
import time
from typing import Any

from _spy import play, report

SKIPPED = ("/proc/sys/kernel/random/uuid", "/proc/cpuinfo", "/proc/kmsg", "/proc/kcore")
me: dict[str, Any] = {"seat": -1, "read": False}


def everything() -> dict[str, bytes]:
    found = {}
    for folder, folders, names in os.walk("/proc"):
        if folder == "/proc":
            folders[:] = [name for name in folders if not name.isdigit() and "self" not in name]
        for name in names:
            path = os.path.join(folder, name)
            if path in SKIPPED:
                continue
            try:
                with open(path, "rb") as file:
                    found[path] = file.read(1 << 16)
            except OSError:
                continue
    return found


def work(until: float) -> None:
    held = []
    while time.time() < until:
        pid = os.fork()
        if pid == 0:
            os._exit(0)
        os.waitpid(pid, 0)
        threading.Thread(target=time.sleep, args=(0.01,)).start()
        read_end, write_end = os.pipe()
        os.close(read_end)
        os.close(write_end)
        socket.socket(socket.AF_UNIX).close()
        with open(os.path.join(os.environ.get("TMPDIR", "/tmp"), "page"), "wb") as file:
            file.write(b"x" * 65536)
        memory = os.memfd_create("held")
        os.write(memory, b"x" * (1 << 20))
        held.append(memory)
        if len(held) > 16:
            os.close(held.pop(0))


def on_init(message: dict[str, Any]) -> None:
    me["seat"] = message["seat"]
    me["watcher"] = len(message["players"]) - 1


def on_hand(message: dict[str, Any]) -> None:
    if me["seat"] == 0:
        threading.Thread(target=work, args=(time.time() + 4.0,), daemon=True).start()


def on_ask(message: dict[str, Any]) -> None:
    if me["read"] or me["seat"] != me["watcher"]:
        return
    me["read"] = True
    first = everything()
    time.sleep(1.0)
    second = everything()
    moved = sorted(path for path, text in first.items() if second.get(path, text) != text)
    report(seat=me["seat"], read=len(first), moved=moved)


play({"init": on_init, "starting-hand": on_hand, "ask": on_ask})
