"""Sets and reads which pages of a shared file are cached, without writing anything.

    python page_cache.py

Which pages of a file are in the page cache outlives the process that loaded them, and every
sandbox reads the same files: a bit a bot sets there in one rotation of a duplicate deal can be
read in the next. It tries what evicts a page (`posix_fadvise(DONTNEED)`, `madvise(PAGEOUT)`
and `madvise(COLD)`) and what tells whether a page is cached without reading it (`mincore`,
`preadv2(RWF_NOWAIT)`), on a library every sandbox maps. Unsandboxed each is done; in the
sandbox each must be refused.
"""

from __future__ import annotations

import ctypes
import errno
import mmap
import os
from typing import Any

from _spy import play, report

SHARED = "/usr/bin/env"
MADV_COLD, MADV_PAGEOUT = 20, 21
libc = ctypes.CDLL(None, use_errno=True)
libc.mmap.restype = ctypes.c_void_p
libc.mmap.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int, ctypes.c_int]
libc.mmap.argtypes += [ctypes.c_int, ctypes.c_long]
libc.mincore.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_char_p]
libc.madvise.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int]


def attempt(call: Any) -> str:
    try:
        result = call()
    except OSError as error:
        return errno.errorcode.get(error.errno or 0, "?")
    if result == -1:
        return errno.errorcode.get(ctypes.get_errno(), "?")
    return "done"


def on_init(message: dict[str, Any]) -> None:
    fd = os.open(SHARED, os.O_RDONLY)
    where = libc.mmap(None, 4096, mmap.PROT_READ, mmap.MAP_SHARED, fd, 0)
    vector = ctypes.create_string_buffer(1)
    buffer = bytearray(16)
    got = {
        "fadvise": attempt(lambda: os.posix_fadvise(fd, 0, 4096, os.POSIX_FADV_DONTNEED)),
        "pageout": attempt(lambda: libc.madvise(where, 4096, MADV_PAGEOUT)),
        "cold": attempt(lambda: libc.madvise(where, 4096, MADV_COLD)),
        "mincore": attempt(lambda: libc.mincore(where, 4096, vector)),
        # (EAGAIN unsandboxed when the page is not cached: the probe worked either way)
        "nowait": attempt(lambda: os.preadv(fd, [buffer], 0, os.RWF_NOWAIT)),
    }
    if got["nowait"] == "EAGAIN":
        got["nowait"] = "done"
    report(got=got)


play({"init": on_init})
