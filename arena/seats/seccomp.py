"""The seccomp filter every sandboxed participant runs under: a BPF program for `bwrap --seccomp`.

    program = seccomp.program()        # the filter's bytes (cached), or None without libseccomp
    fd = seccomp.filter_fd()           # a fresh memfd holding it, for one bwrap (caller closes)

Built with libseccomp (Debian's `libseccomp2`, a library every Debian has), called through
ctypes: the Python bindings on offer are either for the system's Python only (Debian's
`python3-seccomp`), without wheels for Python 3.11 (`mephi42-seccomp`), or unmaintained since
2021 and untyped (`pyseccomp`); the few calls below are libseccomp's stable C API.

Everything is allowed but what an untrusted program never needs: Docker's default profile
(moby's `profiles/seccomp/default.json`: what it leaves out of its allow list, and what it allows
only with capabilities a participant does not have), and the channels between sandboxes that it
allows: file locks of every kind (`flock`, `fcntl` record and OFD locks, leases) on the files every
sandbox shares (the interpreter, `/usr/bin/env`), and inotify watches on them. A denied call fails
with EPERM, which the program sees as an error: it is never killed for it. `clone3` fails with
ENOSYS (its flags live in memory a filter cannot read), so that the C library falls back to
`clone`, whose namespace flags are denied.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import errno
import functools
import os
import platform
from collections.abc import Iterable

# Denied outright (EPERM). Docker's default profile leaves these out of its allow list, or
# allows them only to CAP_SYS_ADMIN, CAP_SYS_PTRACE, CAP_SYS_MODULE, CAP_SYS_TIME, CAP_SYS_BOOT,
# CAP_SYS_PACCT, CAP_SYS_RAWIO, CAP_SYS_NICE, CAP_SYSLOG, CAP_SYS_TTY_CONFIG or CAP_BPF.
DENIED = (
    # file locks: a channel through any file two sandboxes can open
    "flock",
    # tracing, introspection and other processes' memory
    "ptrace",
    "process_vm_readv",
    "process_vm_writev",
    "kcmp",
    "perf_event_open",
    "bpf",
    "userfaultfd",
    "lookup_dcookie",
    "fanotify_init",
    "inotify_init",
    "inotify_init1",
    # keyrings
    "add_key",
    "keyctl",
    "request_key",
    # mounts and namespaces
    "mount",
    "umount",
    "umount2",
    "pivot_root",
    "chroot",
    "fsopen",
    "fsconfig",
    "fsmount",
    "fspick",
    "move_mount",
    "open_tree",
    "mount_setattr",
    "unshare",
    "setns",
    "name_to_handle_at",
    "open_by_handle_at",
    # io_uring runs operations the filter never sees
    "io_uring_setup",
    "io_uring_enter",
    "io_uring_register",
    # the machine: modules, kexec, reboot, swap, accounting, quotas, clocks, I/O ports, syslog
    "create_module",
    "init_module",
    "finit_module",
    "delete_module",
    "query_module",
    "get_kernel_syms",
    "kexec_load",
    "kexec_file_load",
    "reboot",
    "swapon",
    "swapoff",
    "acct",
    "quotactl",
    "quotactl_fd",
    "settimeofday",
    "stime",
    "clock_settime",
    "clock_adjtime",
    "adjtimex",
    "iopl",
    "ioperm",
    "syslog",
    "vhangup",
    "nfsservctl",
    "uselib",
    "ustat",
    "sysfs",
    "_sysctl",
    "vm86",
    "vm86old",
    # NUMA placement (CAP_SYS_NICE in Docker's profile)
    "get_mempolicy",
    "set_mempolicy",
    "set_mempolicy_home_node",
    "mbind",
    "move_pages",
    "migrate_pages",
)
# fcntl's commands that lock (record and open-file-description locks) or lease a file.
F_GETLK, F_SETLK, F_SETLKW = 5, 6, 7
F_OFD_GETLK, F_OFD_SETLK, F_OFD_SETLKW = 36, 37, 38
F_SETLEASE, F_GETLEASE = 1024, 1025
LOCKING_FCNTL: tuple[int, ...] = (F_GETLK, F_SETLK, F_SETLKW, F_OFD_GETLK, F_OFD_SETLK)
LOCKING_FCNTL += (F_OFD_SETLKW, F_SETLEASE, F_GETLEASE)
# clone's flags that make a namespace.
CLONE_NEWNS, CLONE_NEWCGROUP, CLONE_NEWUTS, CLONE_NEWIPC = 0x20000, 0x2000000, 0x4000000, 0x8000000
CLONE_NEWUSER, CLONE_NEWPID, CLONE_NEWNET, CLONE_NEWTIME = 0x10000000, 0x20000000, 0x40000000, 0x80
NAMESPACE_FLAGS: tuple[int, ...] = (CLONE_NEWNS, CLONE_NEWCGROUP, CLONE_NEWUTS, CLONE_NEWIPC)
NAMESPACE_FLAGS += (CLONE_NEWUSER, CLONE_NEWPID, CLONE_NEWNET, CLONE_NEWTIME)
# personality's bits denied: its exec domains but PER_LINUX32 (0x8), and the flags but UNAME26
# (0x20000): ADDR_NO_RANDOMIZE, MMAP_PAGE_ZERO, ADDR_COMPAT_LAYOUT, READ_IMPLIES_EXEC, the
# address limits, SHORT_INODE, WHOLE_SECONDS, STICKY_TIMEOUTS, FDPIC_FUNCPTRS, UNAME26's
# neighbours. Docker's profile allows only 0x0, 0x8, 0x20000, 0x20008 and the query.
PERSONALITY_BITS = tuple(1 << bit for bit in range(32) if bit not in (3, 17))

_ALLOW = 0x7FFF0000
_UNKNOWN = -1  # __NR_SCMP_ERROR
_CMP_NE, _CMP_EQ, _CMP_MASKED_EQ = 1, 4, 7
# On x86-64 the 32-bit (int 0x80) and x32 system calls get the same rules (else they would
# be a way around them).
_X86_64_EXTRA = (0x40000003, 0x4000003E)  # SCMP_ARCH_X86, SCMP_ARCH_X32


class _Compare(ctypes.Structure):
    _fields_ = [
        ("arg", ctypes.c_uint),
        ("op", ctypes.c_int),
        ("datum_a", ctypes.c_uint64),
        ("datum_b", ctypes.c_uint64),
    ]


def _errno(number: int) -> int:
    return 0x00050000 | (number & 0xFFFF)  # SCMP_ACT_ERRNO(number)


@functools.cache
def _library() -> ctypes.CDLL | None:
    name = ctypes.util.find_library("seccomp") or "libseccomp.so.2"
    try:
        library = ctypes.CDLL(name, use_errno=True)
    except OSError:
        return None
    library.seccomp_init.restype = ctypes.c_void_p
    library.seccomp_init.argtypes = [ctypes.c_uint32]
    library.seccomp_release.argtypes = [ctypes.c_void_p]
    library.seccomp_arch_add.argtypes = [ctypes.c_void_p, ctypes.c_uint32]
    library.seccomp_syscall_resolve_name.argtypes = [ctypes.c_char_p]
    library.seccomp_rule_add_array.argtypes = [
        ctypes.c_void_p,
        ctypes.c_uint32,
        ctypes.c_int,
        ctypes.c_uint,
        ctypes.POINTER(_Compare),
    ]
    library.seccomp_export_bpf.argtypes = [ctypes.c_void_p, ctypes.c_int]
    return library


def missing() -> str | None:
    """None when the filter can be built here; otherwise why not, in a few words."""
    if _library() is None:
        return "libseccomp is not installed (Debian/Ubuntu: apt-get install libseccomp2)"
    if program() is None:
        return "libseccomp could not build the filter"
    return None


@functools.cache
def program() -> bytes | None:
    """The filter as a BPF program (what `bwrap --seccomp` reads), or None without libseccomp."""
    library = _library()
    if library is None:
        return None
    context = library.seccomp_init(_ALLOW)
    if not context:
        return None
    try:
        if platform.machine() == "x86_64":
            for arch in _X86_64_EXTRA:
                library.seccomp_arch_add(context, arch)  # (already there: -EEXIST, fine)
        if not _rules(library, context):
            return None
        read_end, write_end = os.pipe()
        try:
            if library.seccomp_export_bpf(context, write_end) != 0:
                return None
            os.close(write_end)
            write_end = -1
            chunks = []
            while chunk := os.read(read_end, 1 << 16):
                chunks.append(chunk)
            return b"".join(chunks)
        finally:
            os.close(read_end)
            if write_end >= 0:
                os.close(write_end)
    finally:
        library.seccomp_release(context)


def _rules(library: ctypes.CDLL, context: int) -> bool:
    """Add every rule; False when one the filter must have could not be added."""
    eperm = _errno(errno.EPERM)

    def rule(name: str, action: int, compares: Iterable[tuple[int, int, int, int]] = ()) -> bool:
        number = library.seccomp_syscall_resolve_name(name.encode())
        if number == _UNKNOWN:
            return True  # not a system call libseccomp knows: nothing to deny
        array = [_Compare(*compare) for compare in compares]
        pointer = (_Compare * max(len(array), 1))(*array)
        added = int(library.seccomp_rule_add_array(context, action, number, len(array), pointer))
        # (A negative number is a call of another of the filter's architectures only, e.g.
        # i386's fcntl64: added there; one no architecture here has is nothing to deny.)
        return added == 0 or number < 0

    done = all(rule(name, eperm) for name in DENIED)
    done &= rule("clone3", _errno(errno.ENOSYS))
    for flag in NAMESPACE_FLAGS:
        done &= rule("clone", eperm, [(0, _CMP_MASKED_EQ, flag, flag)])
    for call in ("fcntl", "fcntl64"):
        for command in LOCKING_FCNTL:
            done &= rule(call, eperm, [(1, _CMP_EQ, command, 0)])
    # personality: no flag that changes the address space (no ASLR, executable data, page 0…)
    # and no exec domain but Linux's and 32-bit Linux's. (A filter compares an argument once
    # per rule, so each bit is a rule; the query 0xffffffff is refused with them.)
    for bit in PERSONALITY_BITS:
        done &= rule("personality", eperm, [(0, _CMP_MASKED_EQ, bit, bit)])
    return bool(done)


def filter_fd() -> int | None:
    """A new memfd holding the filter, at its start, for one `bwrap --seccomp` (the caller
    closes it once bwrap has started); None without libseccomp."""
    data = program()
    if data is None:
        return None
    fd = os.memfd_create("arena-seccomp")
    os.write(fd, data)
    os.lseek(fd, 0, os.SEEK_SET)
    return fd


__all__ = ["DENIED", "filter_fd", "missing", "program"]
