"""Asks the kernel to merge its pages with identical ones of other processes (kernel same-page
merging, KSM), and for memory hidden from the kernel itself.

    python merges_pages.py

A page merged with another process's identical page is copied again when written, which takes
longer: a sender that offers a page of given bytes learns whether a receiver holds the same,
wherever the machine runs KSM (`/sys/kernel/mm/ksm/run`). `madvise(MADV_MERGEABLE)` offers a
mapping, `prctl(PR_SET_MEMORY_MERGE)` the whole process; `memfd_secret` makes memory that no
bot needs. Unsandboxed each is done (on a kernel that has them); in the sandbox each is refused.
"""

from __future__ import annotations

import ctypes
import errno
import mmap
from typing import Any

from _spy import play, report

MADV_MERGEABLE, PR_SET_MEMORY_MERGE, PR_GET_MEMORY_MERGE = 12, 67, 68
SYS_MEMFD_SECRET = 447  # (x86-64's number)


def _outcome(result: int) -> str:
    return "done" if result >= 0 else errno.errorcode.get(ctypes.get_errno(), "?")


def on_init(message: dict[str, Any]) -> None:
    libc = ctypes.CDLL(None, use_errno=True)
    libc.syscall.restype = ctypes.c_long
    pages = mmap.mmap(-1, 1 << 20)
    address = ctypes.addressof(ctypes.c_char.from_buffer(pages))
    got = {
        "madvise": _outcome(libc.madvise(ctypes.c_void_p(address), 1 << 20, MADV_MERGEABLE)),
        "prctl": _outcome(libc.prctl(PR_SET_MEMORY_MERGE, 1, 0, 0, 0)),
        "secret": _outcome(libc.syscall(SYS_MEMFD_SECRET, 0)),
    }
    report(got=got, merging=libc.prctl(PR_GET_MEMORY_MERGE, 0, 0, 0, 0))


play({"init": on_init})
