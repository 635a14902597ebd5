"""Tries the system calls no participant needs: a namespace of its own, tracing, keyrings,
turning off address-space randomisation. Each through libc, reporting what it got.

    python forbidden.py

Unsandboxed (as root) each succeeds; in the sandbox each must fail with EPERM, and the spy
must go on playing (a denied call is an error it sees, never a kill).
"""

from __future__ import annotations

import ctypes
import errno
import os
from typing import Any

from _spy import play, report

libc = ctypes.CDLL(None, use_errno=True)
CLONE_NEWUSER = 0x10000000
PTRACE_TRACEME = 0
ADDR_NO_RANDOMIZE = 0x0040000
KEYCTL_GET_KEYRING_ID, KEY_SPEC_SESSION_KEYRING = 0, -3


def attempt(call: Any) -> str:
    """ "done", or the name of the error the call failed with."""
    if call() == -1:
        return errno.errorcode.get(ctypes.get_errno(), "?")
    return "done"


def in_child(call: Any) -> str:
    """`attempt` in a forked child (its namespaces and tracer do not matter to the game)."""
    pid = os.fork()
    if pid == 0:
        os._exit(0 if call() != -1 else ctypes.get_errno())
    code = os.waitpid(pid, 0)[1] >> 8
    return "done" if code == 0 else errno.errorcode.get(code, "?")


def on_hand(message: dict[str, Any]) -> None:
    got = {
        "unshare": in_child(lambda: libc.unshare(CLONE_NEWUSER)),
        "ptrace": in_child(lambda: libc.ptrace(PTRACE_TRACEME, 0, 0, 0)),
        "keyctl": attempt(
            lambda: libc.syscall(250, KEYCTL_GET_KEYRING_ID, KEY_SPEC_SESSION_KEYRING, 0)
        ),
        "personality": in_child(lambda: libc.personality(ADDR_NO_RANDOMIZE)),
    }
    report(got=got)


play({"starting-hand": on_hand})
