"""Passes a starting hand to the next rotation of its duplicate deal through the page cache.

    python cache_rotation.py PAGES

PAGES is a file of the bot's own (the test made it, and left it uncached), shared by every
seat that runs this program, one region of 65 pages (64 KiB apart) per seat. At its starting
hand a seat times a read of its region's last page (a marker): read from the disk, this is the
deal's first rotation, and it reads one byte of the page of each card in its hand, in its
region: no write, no probe, only reads. From memory (a few us, not the disk's 60 us and more),
an earlier rotation sat here: it times a one-byte read of each page of the other seats'
regions, and a page from memory is a card of that seat's starting hand, the same deal's.
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
me: dict[str, Any] = {"seat": -1}


def on_init(message: dict[str, Any]) -> None:
    me["seat"] = message["seat"]
    me["seats"] = len(message["players"])


def cached(fd: int, page: int) -> bool:
    """Whether a page was in memory, by timing a one-byte read of it (which caches it)."""
    began = time.perf_counter()
    os.pread(fd, 1, page * STRIDE)
    return time.perf_counter() - began < CACHED


def on_hand(message: dict[str, Any]) -> None:
    fd = os.open(PAGES, os.O_RDONLY)
    os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_RANDOM)  # (one page a read: no readahead)
    seat = me["seat"]
    hand = sorted(card["id"] for card in message["hand"])
    decoded: dict[str, list[int]] = {}
    # Its seat's marker page, cached: an earlier rotation of this deal sat here (and wrote).
    later = cached(fd, seat * (CARDS + 1) + CARDS)
    if later:
        for other in range(me["seats"]):
            if other != seat:
                region = other * (CARDS + 1)
                decoded[str(other)] = [c for c in range(CARDS) if cached(fd, region + c)]
    else:
        for card in hand:  # its hand, for the next rotation
            os.pread(fd, 1, (seat * (CARDS + 1) + card) * STRIDE)
    os.close(fd)
    report(seat=seat, hand=hand, later=later, decoded=decoded)


play({"init": on_init, "starting-hand": on_hand})
