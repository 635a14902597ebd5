"""A uid of its own for every sandboxed participant on the machine (when the arena is root).

    lease = uids.take()        # None: not root, or no uid free (then it is `nobody`)
    lease.uid                  # who its processes are, from its first instruction
    lease.release(clean=True)  # once every process of it is gone (its group removed)

What the kernel counts per user (pending signals, `SigQ`; processes and threads, through
`RLIMIT_NPROC`; pipe buffers; POSIX message queue bytes; locked memory; epoll watches) is
shared by every process of one uid, whatever its namespaces: two participants of one uid could
move those counters and read them, a channel between them. So each participant process tree
that runs at the same time as another runs as a uid no other live sandbox has, from a range
the arena reserves (`FIRST_UID` to `FIRST_UID + COUNT - 1`, no account's: docs/sandbox.md).

The range is shared by every arena on the machine (every seat, match, `--jobs` worker and
`arena run`): a uid is taken by locking its file in `RUNTIME` (root's, 0700) with `flock`,
held for as long as the participant lives. The kernel drops a lock when its holder dies, even
by `kill -9`, so no uid stays taken by an arena that is gone; a uid whose file still names a
holder (one that did not say its processes were gone) has whatever of it may still run killed
(`kill -1` as that uid) before it is used again.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import shutil
import subprocess
from dataclasses import dataclass, field

FIRST_UID = 1 << 30  # 1073741824: far above any account's and any subordinate range's
COUNT = 1 << 16  # 65536 participants at once, machine-wide
RUNTIME = "/run/gofish-arena/uids"
_SWEEP_TIMEOUT = 5.0


@dataclass
class Lease:
    """One uid, taken: its lock file's descriptor is open (and locked) while it is held."""

    uid: int
    _fd: int = field(repr=False)

    def release(self, *, clean: bool) -> None:
        """Give it back. `clean`: every process of it is known to be gone (its control group
        was emptied and removed); otherwise whoever takes it next kills what is left first."""
        if self._fd < 0:
            return
        with contextlib.suppress(OSError):
            if clean:
                os.ftruncate(self._fd, 0)
            fcntl.flock(self._fd, fcntl.LOCK_UN)  # (even were the descriptor copied by a fork)
        with contextlib.suppress(OSError):
            os.close(self._fd)
        self._fd = -1


def available() -> bool:
    """Whether uids can be taken here: the arena is root."""
    return os.geteuid() == 0


def missing() -> str | None:
    """As root: None when uids can be taken here; otherwise why not, in a few words. (As a
    user: None; a user namespace is what there is.)"""
    if not available():
        return None
    try:
        os.makedirs(RUNTIME, mode=0o700, exist_ok=True)
    except OSError as error:
        return f"{RUNTIME} cannot be made ({error.strerror})"
    if not os.access(RUNTIME, os.W_OK):
        return f"{RUNTIME} is not writable"
    return None


def take() -> Lease | None:
    """A uid no live sandbox on the machine has, locked for this participant; None when the
    arena is not root, or the runtime folder cannot be made, or every uid is taken."""
    if not available():
        return None
    try:
        os.makedirs(RUNTIME, mode=0o700, exist_ok=True)
    except OSError:
        return None
    for step in range(COUNT):  # the first free: as many lock files as sandboxes ever at once
        uid = FIRST_UID + step
        try:
            fd = os.open(
                os.path.join(RUNTIME, str(uid)), os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o600
            )
        except OSError:
            return None
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            os.close(fd)
            continue
        try:
            if os.pread(fd, 64, 0):  # its last holder did not say its processes were gone
                _sweep(uid)
            os.ftruncate(fd, 0)
            os.pwrite(fd, f"{os.getpid()}\n".encode(), 0)
        except OSError:
            os.close(fd)
            return None
        return Lease(uid, fd)
    return None


def _sweep(uid: int) -> None:
    """Kill every process of `uid` on the machine (what a dead arena's participant left)."""
    setpriv = shutil.which("setpriv", path="/usr/bin:/bin")
    kill = shutil.which("kill", path="/usr/bin:/bin")
    if setpriv is None or kill is None:
        return
    with contextlib.suppress(OSError, subprocess.SubprocessError):
        subprocess.run(
            [setpriv, f"--reuid={uid}", f"--regid={uid}", "--clear-groups", "--", kill, "-9", "-1"],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            timeout=_SWEEP_TIMEOUT,
            check=False,
        )


__all__ = ["COUNT", "FIRST_UID", "RUNTIME", "Lease", "available", "missing", "take"]
