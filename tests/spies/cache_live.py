"""Passes a starting hand to a live seat of the same match through the page cache.

    python cache_live.py PAGES

PAGES is a file every seat that runs this program can read (the test made it, and left it
uncached), one region of 64 pages (64 KiB apart) per seat. At its starting hand a seat reads
one byte of the page of each card in its hand, in its region: the page comes into the cache,
charged to its own control group. At its first ask (every seat has its hand by then, and
every seat is alive) it times a one-byte read of each page of the other seats' regions: from
memory (a few us, not the disk's 60 us and more) is a card of that seat's starting hand.
No write, no probe, no eviction: only reads, which every sandbox may do.
"""

from __future__ import annotations

import os
import sys
import time
from typing import Any

from _spy import play, report

PAGES = sys.argv[1]
STRIDE = 64 << 10
CARDS = 64
CACHED = 20e-6  # seconds: a read under this came from memory
me: dict[str, Any] = {"seat": -1, "read": False}


def on_init(message: dict[str, Any]) -> None:
    me["seat"] = message["seat"]
    me["seats"] = len(message["players"])
    me["fd"] = os.open(PAGES, os.O_RDONLY)
    os.posix_fadvise(me["fd"], 0, 0, os.POSIX_FADV_RANDOM)  # (one page a read: no readahead)


def on_hand(message: dict[str, Any]) -> None:
    me["hand"] = sorted(card["id"] for card in message["hand"])
    began = time.perf_counter()
    for card in me["hand"]:
        os.pread(me["fd"], 1, (me["seat"] * CARDS + card) * STRIDE)
    me["sent"] = time.perf_counter() - began


def on_ask(message: dict[str, Any]) -> None:
    if me["read"]:
        return
    me["read"] = True
    decoded: dict[str, list[int]] = {}
    began = time.perf_counter()
    for other in range(me["seats"]):
        if other != me["seat"]:
            decoded[str(other)] = []
            for card in range(CARDS):
                start = time.perf_counter()
                os.pread(me["fd"], 1, (other * CARDS + card) * STRIDE)
                if time.perf_counter() - start < CACHED:
                    decoded[str(other)].append(card)
    received = time.perf_counter() - began
    report(seat=me["seat"], hand=me["hand"], decoded=decoded, sent=me["sent"], received=received)


play({"init": on_init, "starting-hand": on_hand, "ask": on_ask})
