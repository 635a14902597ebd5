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

And the channels through kernel objects every sandbox shares (docs/sandbox.md, "Channels"):
`futex_waitv` and `futex_requeue` (their flags are in memory); `setsid` (each call moves the machine's autogroup counter, read in
`/proc/self/autogroup`); every socket family but Unix, IPv4, IPv6 and netlink's routing (no
`AF_VSOCK`, `AF_PACKET`, `AF_ALG`...); and what evicts a page from the page cache or tells
whether one is cached without reading it (`fadvise` `DONTNEED`/`NOREUSE`, `madvise`
`COLD`/`PAGEOUT`, `process_madvise`, `mincore`, `cachestat`, `preadv2`'s `RWF_NOWAIT`, the
kernel's asynchronous I/O); kernel same-page merging (`madvise` `MERGEABLE`, `prctl`
`PR_SET_MEMORY_MERGE`: whether another process holds a page of the same bytes shows in the
time a write takes); `memfd_secret` (ENOSYS). An argument is compared in its low 32 bits where
the kernel reads an int (a high bit set would slip past a 64-bit comparison).

A futex that is not private is left alone: on a page of a file two sandboxes can read it is a
channel between them, but one the filter cannot close. Any read-only page of a file is keyed by
the file (the C library's own code included: no mapping of the bot's is needed), and the kernel
wakes such a futex itself when a thread whose clear-tid address lies there ends; refusing the
waits would make `pthread_join` spin, and making the wakes do nothing hung every program whose
processes share a semaphore (Python's `multiprocessing`). See docs/sandbox.md, "What is left open".
"""

from __future__ import annotations

import ctypes
import ctypes.util
import errno
import functools
import os
import platform
from collections.abc import Callable, Iterable

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
    # shared kernel objects: futexes whose flags live in memory, the autogroup counter
    "futex_waitv",
    "futex_requeue",
    "setsid",
    # the page cache: what evicts others' pages or probes them without reading
    "process_madvise",
    "mincore",
    "cachestat",
    # (i386's multiplexed socket calls: their arguments live in memory)
    "socketcall",
)
# Refused with ENOSYS, so that a runtime falls back to what it would do without them.
# (`memfd_secret`: memory the kernel hides even from itself, unevictable, which no bot needs.)
ABSENT = ("clone3", "io_setup", "io_submit", "io_uring_setup", "memfd_secret")
# Numbers libseccomp may not know yet (x86-64's), denied all the same (ENOSYS).
# (futex2's calls, which glibc does not use yet, among them: their flags would need the rules
# above again.)
NEW_X86_64 = {"futex_waitv": 449, "cachestat": 451, "futex_wake": 454, "futex_wait": 455}
NEW_X86_64 |= {"futex_requeue": 456, "listmount": 458, "statmount": 457, "open_tree_attr": 467}
# Socket families a participant may open: Unix, IPv4, IPv6 (in its empty network namespace),
# netlink (routing only: the C library asks it for the addresses of its interfaces).
AF_UNIX, AF_INET, AF_INET6, AF_NETLINK = 1, 2, 10, 16
SOCKET_FAMILIES = (AF_UNIX, AF_INET, AF_INET6, AF_NETLINK)
NETLINK_ROUTE = 0
FAMILY_LIMIT = 64  # (the kernel knows 46; a larger one it refuses itself)
# fadvise advice that drops or demotes cached pages; madvise advice that does.
POSIX_FADV_DONTNEED, POSIX_FADV_NOREUSE = 4, 5
MADV_COLD, MADV_PAGEOUT = 20, 21
# Kernel same-page merging (KSM): a page merged with another process's identical page is slow
# to write (copied again), so a sandbox that offers a page learns whether another holds the
# same bytes: a channel wherever `/sys/kernel/mm/ksm/run` is on. madvise's advice, prctl's.
MADV_MERGEABLE, PR_SET_MEMORY_MERGE = 12, 67
RWF_NOWAIT = 8
# fadvise64's advice: x86-64 and x32 (and the 64-bit machines) pass it fourth; i386 fifth,
# after a split offset (so there, fadvise64 is refused whole).
_FADVISE_ADVICE = 3
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
_INT = 0xFFFFFFFF  # the bits of an argument the kernel reads as an int
# On x86-64 the 32-bit (int 0x80) and x32 system calls get the same rules (else they would
# be a way around them).
_X86, _X32 = 0x40000003, 0x4000003E  # SCMP_ARCH_X86, SCMP_ARCH_X32


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
    library.seccomp_arch_remove.argtypes = [ctypes.c_void_p, ctypes.c_uint32]
    library.seccomp_arch_native.restype = ctypes.c_uint32
    library.seccomp_merge.argtypes = [ctypes.c_void_p, ctypes.c_void_p]
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
        if not _rules(library, context, i386=False):
            return None
        if platform.machine() == "x86_64":
            library.seccomp_arch_add(context, _X32)
            # i386's calls (int 0x80) get the same rules in a filter of their own, merged in:
            # some of its arguments lie elsewhere (fadvise64's advice).
            i386 = library.seccomp_init(_ALLOW)
            if not i386:
                return None
            merged = False
            try:
                library.seccomp_arch_add(i386, _X86)
                library.seccomp_arch_remove(i386, library.seccomp_arch_native())
                if not _rules(library, i386, i386=True):
                    return None
                merged = library.seccomp_merge(context, i386) == 0
            finally:
                if not merged:
                    library.seccomp_release(i386)
            if not merged:
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


Rule = Callable[[str, int, Iterable[tuple[int, int, int, int]]], bool]


def _rules(library: ctypes.CDLL, context: int, *, i386: bool) -> bool:
    """Add every rule; False when one the filter must have could not be added. (`i386`: the
    filter of i386's calls, whose fadvise64 is refused whole.)"""

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

    eperm, enosys = _errno(errno.EPERM), _errno(errno.ENOSYS)
    done = all(rule(name, eperm, ()) for name in DENIED)
    done &= all(rule(name, enosys, ()) for name in ABSENT)
    if platform.machine() == "x86_64" and not i386:  # (i386's: known to libseccomp or not)
        for number in NEW_X86_64.values():
            done &= _by_number(library, context, enosys, number)
    for flag in NAMESPACE_FLAGS:
        done &= rule("clone", eperm, [(0, _CMP_MASKED_EQ, flag, flag)])
    for call in ("fcntl", "fcntl64"):
        for command in LOCKING_FCNTL:
            done &= rule(call, eperm, [_equal(1, command)])
    # personality: no flag that changes the address space (no ASLR, executable data, page 0…)
    # and no exec domain but Linux's and 32-bit Linux's. (A filter compares an argument once
    # per rule, so each bit is a rule; the query 0xffffffff is refused with them.)
    for bit in PERSONALITY_BITS:
        done &= rule("personality", eperm, [(0, _CMP_MASKED_EQ, bit, bit)])
    return bool(done) and _channel_rules(rule, i386=i386)


def _equal(arg: int, value: int) -> tuple[int, int, int, int]:
    """An int argument equal to `value` (its low 32 bits: the kernel ignores the rest)."""
    return (arg, _CMP_MASKED_EQ, _INT, value)


def _channel_rules(rule: Rule, *, i386: bool) -> bool:
    """The rules that close channels through what every sandbox shares: socket families, the
    page cache (docs/sandbox.md, "Channels")."""
    eperm = _errno(errno.EPERM)
    done = True
    for call in ("socket", "socketpair"):
        for family in range(FAMILY_LIMIT):
            if family not in SOCKET_FAMILIES:
                done &= rule(call, _errno(errno.EAFNOSUPPORT), [_equal(0, family)])
    done &= rule(
        "socket",
        _errno(errno.EPROTONOSUPPORT),
        [_equal(0, AF_NETLINK), (2, _CMP_NE, NETLINK_ROUTE, 0)],
    )
    if i386:
        done &= rule("fadvise64", eperm, ())
    else:
        for advice in (POSIX_FADV_DONTNEED, POSIX_FADV_NOREUSE):
            done &= rule("fadvise64", eperm, [_equal(_FADVISE_ADVICE, advice)])
    done &= rule("fadvise64_64", eperm, ())  # (32-bit: its advice is elsewhere; refused whole)
    done &= rule("arm_fadvise64_64", eperm, ())
    for advice in (MADV_COLD, MADV_PAGEOUT, MADV_MERGEABLE):
        done &= rule("madvise", eperm, [_equal(2, advice)])
    done &= rule("prctl", eperm, [_equal(0, PR_SET_MEMORY_MERGE)])
    for call in ("preadv2", "pwritev2"):
        done &= rule(call, eperm, [(5, _CMP_MASKED_EQ, RWF_NOWAIT, RWF_NOWAIT)])
    return bool(done)


def _by_number(library: ctypes.CDLL, context: int, action: int, number: int) -> bool:
    """A whole call denied by its native number (one libseccomp may not know by name)."""
    pointer = (_Compare * 1)()
    added = int(library.seccomp_rule_add_array(context, action, number, 0, pointer))
    return added == 0 or added == -errno.EEXIST


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
