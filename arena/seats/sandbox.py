"""Each participant process in a bubblewrap sandbox: what it may see, and the `bwrap` argv.

    mode, warning = decide("auto")                  # once per run: "bwrap" or "none"
    jail = Jail.of(seat.command, seat.cwd, env, bot=False, read_only=..., hidden=...)
    argv, env, cwd = jail.argv(bwrap, status_fd, seccomp_fd=fd), jail.env, jail.cwd
    paths = visible_paths(seat.command, seat.cwd, env, ...)  # the host paths it is given

What a sandboxed participant sees (docs/sandbox.md): the system read-only (`/usr`, a few files
of `/etc`), its own program read-only (the command's program and the interpreter or runtime it
resolves to, the folder of its program file when that folder is its own, else only the files
its command names), the arena's code read-only, what the organiser lists for it, a private
`/tmp` (its `HOME` and `TMPDIR`, the only place it may write) that is gone when it ends, a
read-only `/dev` of five devices and a `/proc` that says nothing of the machine. It runs in its
own pid, network, IPC and UTS namespaces with no capabilities, in a session of its own, as a
uid of its own when the arena is root (`arena.seats.uids`), and dies with the arena. The config, the replays and results,
and the other participants' files are masked wherever they lie in what it may read, and never
bound through a link.

Only `arena.seats.process` spawns; this module only builds arguments and looks at files
(and runs `bwrap --version` and a shim's `which` before a run, never a participant's code).
"""

from __future__ import annotations

import functools
import glob
import os
import shutil
import stat
import subprocess
import threading
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

import arena
from arena.base.errors import ConfigError
from arena.seats import cgroups, seccomp, uids
from arena.seats.programs import named_files

Confinement = Literal["bwrap", "none"]

INSTALL_HINT = (
    "install bubblewrap (Debian/Ubuntu: apt-get install bubblewrap; Fedora: dnf install bubblewrap)"
)
REACH_WITHOUT = (
    "participants will run unsandboxed: each can read the config (and its seed), the "
    "replays and results, signal the arena and use the network (see docs/sandbox.md)"
)
REACH_WITHOUT_FILTER = (
    "participants will run sandboxed but may lock shared files (a channel between seats), trace "
    "their own children and use other system calls the filter denies (see docs/sandbox.md)"
)
REACH_WITHOUT_CGROUPS = (
    "a participant's processes are not counted together, so one with many children or busy "
    "sessions can take more CPU and memory than its neighbours, or exhaust processes, and what "
    "it brings into the page cache is not dropped when it ends (a channel to a duplicate deal's "
    "next rotation; see docs/sandbox.md)"
)
REACH_WITHOUT_UIDS = (
    "every participant runs as nobody (uid 65534), so what the kernel counts per user (pending "
    "signals, processes, pipe buffers) is a channel between them (see docs/sandbox.md)"
)
TMP_SIZE = 256 << 20  # bytes of the private /tmp (it is memory)
HOME = "/tmp"  # inside the sandbox: HOME and TMPDIR
# Who a participant is when the arena runs as root and no uid of its own can be had
# (`arena.seats.uids`): `nobody`, never the host's root (whose uid passes the kernel's checks on
# /proc/sys and other files even with no capabilities).
SANDBOX_UID = SANDBOX_GID = 65534
OWN_UID = "uid of its own"  # what a replay records for a participant given one
JAVA_OPTIONS = "-XX:-UsePerfData"  # added to a participant's JAVA_TOOL_OPTIONS (see Jail.of)
# The devices a participant gets (/dev is otherwise read-only and empty; /dev/shm is its /tmp).
DEVICES = ("/dev/null", "/dev/zero", "/dev/full", "/dev/random", "/dev/urandom")
# What /proc would tell of the whole machine (other sandboxes' forks, load, memory, open
# files, locks, pressure): a timing channel between participants and nothing a bot needs.
# Each is shown empty. (Its own processes' /proc/PID stay: runtimes read /proc/self.)
PROC_MASKED_FILES = (
    "stat",
    "loadavg",
    "meminfo",
    "uptime",
    "vmstat",
    "zoneinfo",
    "buddyinfo",
    "pagetypeinfo",
    "diskstats",
    "partitions",
    "interrupts",
    "softirqs",
    "schedstat",
    "locks",
    "swaps",
    "slabinfo",
    "vmallocinfo",
    "key-users",
    "keys",
    "kallsyms",
    "timer_list",
    "sched_debug",
    "sys/fs/file-nr",
    "sys/fs/inode-nr",
    "sys/fs/inode-state",
    "sys/fs/dentry-state",
    "sys/fs/aio-nr",
    "sys/kernel/random/entropy_avail",
    "sys/kernel/pty/nr",
    # how many control groups the machine has: the arena makes one per participant, so it
    # counts other sandboxes starting and ending (one that ends early is a bit)
    "cgroups",
    # what names the host: its boot line, its kernel's modules and build configuration
    "cmdline",
    "bootconfig",
    "modules",
    "config.gz",
)
# (`fs`: the file systems' own counters, e.g. ext4's extent cache hits and misses, which move
# with every file read on the machine; `irq`: each interrupt's counts, which disk reads move.)
PROC_MASKED_FOLDERS = ("pressure", "sysvipc", "driver", "tty", "fs", "irq")
SYSTEM = ("/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32")
# From /etc, only what programs need to start and to read time and text; never its secrets.
ETC = (
    "/etc/ld.so.cache",
    "/etc/ld.so.conf",
    "/etc/ld.so.conf.d",
    "/etc/localtime",
    "/etc/timezone",
    "/etc/passwd",
    "/etc/group",
    "/etc/nsswitch.conf",
    "/etc/hosts",
    "/etc/host.conf",
    "/etc/ssl",
    "/etc/ca-certificates",
    "/etc/alternatives",
    "/etc/locale.alias",
    "/etc/mime.types",
    "/etc/os-release",
    "/etc/python3",
    "/etc/fonts",
)
JAVA_ETC = "/etc/java-*"  # a JDK's configuration (Debian links its conf/ there)
_SHIM_TOOLS = ("pyenv", "rbenv", "nodenv", "jenv", "goenv", "plenv")
_PROBE_TIMEOUT = 10.0
_HEAD = 512  # bytes read to tell a script (and its `#!` line) from a binary


# -- whether the sandbox works here ---------------------------------------------------------


@functools.cache
def bwrap_path() -> str | None:
    return shutil.which("bwrap")


def as_root() -> bool:
    """Whether the arena runs as root: then bwrap runs privileged, without a user namespace,
    and the participant is made `nobody` (SANDBOX_UID) inside by `setpriv` before it starts."""
    return os.geteuid() == 0


@functools.cache
def _setpriv() -> str | None:
    found = shutil.which("setpriv", path="/usr/bin:/bin")
    return os.path.realpath(found) if found else None


def cgroups_on() -> bool:
    """Whether sandboxed participants get control groups of their own here (`cgroups`)."""
    return cgroups.missing() is None


def identity_word(uid: int | None = None) -> str:
    """Who a sandboxed participant is, in a word or two, as a replay records it (`uid`: the
    uid it was given, as root)."""
    if not as_root():
        return "user namespace"
    return f"uid {SANDBOX_UID}" if uid in (None, SANDBOX_UID) else OWN_UID


def identity() -> str:
    """Who a participant is on the host, in words (docs/sandbox.md)."""
    if as_root():
        return "a uid of its own (arena.seats.uids), in no user namespace, with no capabilities"
    return f"uid {os.geteuid()} (the arena's user), in a user namespace of its own, with no capabilities"


@functools.cache
def probe() -> str | None:
    """None when `bwrap` can build the sandbox here; otherwise why not, in a few words."""
    bwrap = bwrap_path()
    if bwrap is None:
        return "bwrap (bubblewrap) is not installed"
    true = shutil.which("true") or "/bin/true"
    if as_root() and _setpriv() is None:
        return "setpriv (util-linux) is not installed, so a participant would run as root"
    argv = [bwrap, *_namespaces(), *_system_binds(), *_private_binds(TMP_SIZE)]
    syscalls = seccomp.filter_fd()  # the filter too, when there is one: the kernel must take it
    if syscalls is not None:
        argv += ["--seccomp", str(syscalls)]
    argv += ["--", *_become_nobody(), true]
    try:
        done = subprocess.run(
            argv,
            capture_output=True,
            timeout=_PROBE_TIMEOUT,
            check=False,
            stdin=subprocess.DEVNULL,
            pass_fds=() if syscalls is None else (syscalls,),
        )
    except (OSError, subprocess.SubprocessError) as error:
        return f"bwrap cannot run: {error}"
    finally:
        if syscalls is not None:
            os.close(syscalls)
    if done.returncode != 0:
        why = done.stderr.decode("utf-8", "replace").strip().splitlines()
        return "bwrap cannot build a sandbox here" + (f" ({why[-1][:200]})" if why else "")
    return None


_probing: threading.Thread | None = None


def probe_soon() -> None:
    """Start `probe` now, in a thread: its run of bwrap overlaps the rest of a run's start-up
    (reading the config, imports) instead of following it. `decide` waits for it."""
    global _probing
    if _probing is None:
        _probing = threading.Thread(target=probe, name="arena-sandbox-probe", daemon=True)
        _probing.start()


def decide(wanted: str) -> tuple[Confinement, str | None]:
    """What `[limits] sandbox` comes to on this machine, and a warning line for `auto` without it.

    Raises ConfigError (one line, how to install it) when `bwrap` is required and does not work.
    """
    if wanted == "none":
        return "none", None
    if _probing is not None:
        _probing.join()  # (bounded: the probe's own timeout)
    problem = probe()
    if problem is None:
        # The sandbox without its filter or its control groups: said in one line, not refused.
        lacking = []
        if (missing := seccomp.missing()) is not None:
            lacking.append(f"no seccomp filter ({missing}): {REACH_WITHOUT_FILTER}")
        if (missing := cgroups.missing()) is not None:
            lacking.append(f"no control groups ({missing}): {REACH_WITHOUT_CGROUPS}")
        if (missing := uids.missing()) is not None:
            lacking.append(f"no uids of their own ({missing}): {REACH_WITHOUT_UIDS}")
        return "bwrap", ("warning: " + "; ".join(lacking)) if lacking else None
    if wanted == "bwrap":
        raise ConfigError(f'limits.sandbox = "bwrap": {problem}; {INSTALL_HINT}')
    return "none", f"warning: no sandbox ({problem}): {REACH_WITHOUT}"


def resolved(wanted: str) -> Confinement:
    """`decide` without its warning, for callers below the CLI (tests, benchmarks, `check`)."""
    return decide(wanted)[0] if wanted != "bwrap" else "bwrap"


# -- finding the program the command runs ----------------------------------------------------


def locate(program: str, env: Mapping[str, str], cwd: Path) -> str | None:
    """The absolute path of the program a command starts (a shim resolved to what it runs)."""
    if "/" in program:
        found: str | None = os.path.abspath(cwd / program)
    else:
        found = shutil.which(program, path=env.get("PATH", os.defpath))
        found = os.path.abspath(found) if found else None
    if found is None:
        return None
    return _through_shim(found, os.path.basename(program), env, cwd) or found


def _head(path: str) -> bytes:
    try:
        with open(path, "rb") as file:
            return file.read(_HEAD)
    except OSError:
        return b""


def _through_shim(path: str, name: str, env: Mapping[str, str], cwd: Path) -> str | None:
    """What a version manager's shim (pyenv, rbenv, nodenv...) would run, asked of the manager.

    Inside the sandbox a shim would look for its manager under the private HOME and quietly
    run the system's interpreter instead; so the command runs the real one, found here with
    the organiser's environment and the config's folder (which may pin a version).
    """
    head = _head(path)
    if not head.startswith(b"#!"):
        return None
    text = head.decode("utf-8", "replace")
    tool = next((t for t in _SHIM_TOOLS if f'/libexec/{t}" exec' in text), None)
    if tool is None:
        return None
    start = text.find('exec "') + len('exec "')
    manager = text[start : text.find('"', start)]
    return _which(manager, name, str(cwd), tuple(sorted(os.environ.items())))


@functools.lru_cache(maxsize=64)
def _which(manager: str, name: str, cwd: str, environ: tuple[tuple[str, str], ...]) -> str | None:
    try:
        done = subprocess.run(
            [manager, "which", name],
            capture_output=True,
            text=True,
            cwd=cwd,
            env=dict(environ),
            timeout=_PROBE_TIMEOUT,
            check=False,
            stdin=subprocess.DEVNULL,
        )
    except (OSError, subprocess.SubprocessError):
        return None
    lines = done.stdout.strip().splitlines()
    if (
        done.returncode != 0
        or not lines
        or not os.path.isabs(lines[-1])
        or not os.path.isfile(lines[-1])
    ):
        return None
    return lines[-1]


def _chain(path: str) -> list[str]:
    """`path` and every link it goes through, to the real file (bounded)."""
    chain = [path]
    current = path
    for _ in range(40):
        if not os.path.islink(current):
            break
        current = os.path.normpath(os.path.join(os.path.dirname(current), os.readlink(current)))
        chain.append(current)
    real = os.path.realpath(path)
    if real not in chain:
        chain.append(real)
    return chain


def _install_root(file: str) -> str:
    """The folder a program needs with it: an installation (a prefix with `lib/`, a venv)
    when it sits in one's `bin/`, else its own folder."""
    folder = os.path.dirname(file)
    parent = os.path.dirname(folder)
    if (
        os.path.basename(folder) in ("bin", "sbin")
        and parent != "/"
        and (
            os.path.isdir(os.path.join(parent, "lib"))
            or os.path.isfile(os.path.join(parent, "pyvenv.cfg"))
        )
    ):
        return parent
    return folder


def _interpreter(path: str, env: Mapping[str, str], cwd: Path) -> str | None:
    """The interpreter a `#!` script names (through `env NAME` too), located as a program."""
    head = _head(os.path.realpath(path))
    if not head.startswith(b"#!"):
        return None
    words = head[2:].split(b"\n", 1)[0].decode("utf-8", "replace").split()
    if not words:
        return None
    if os.path.basename(words[0]) == "env":
        names = [word for word in words[1:] if not word.startswith("-") and "=" not in word]
        return locate(names[0], env, cwd) if names else None
    return words[0] if os.path.isabs(words[0]) else None


def _is_system(path: str) -> bool:
    return any(path == top or path.startswith(top + "/") for top in SYSTEM)


# -- one participant's sandbox ------------------------------------------------------------


@dataclass(frozen=True)
class Jail:
    """Everything one participant's sandbox is built from (every path absolute)."""

    program: str  # what runs inside: the command's program, located
    arguments: tuple[str, ...]  # the rest of the command, paths made absolute
    cwd: str  # its working directory inside: its program's folder (or its private /tmp)
    env: dict[str, str]
    readable: tuple[str, ...]  # bound read-only, each at its own path
    hidden: tuple[str, ...]  # masked where it lies inside something readable

    @classmethod
    def of(
        cls,
        command: Sequence[str],
        cwd: Path,
        env: Mapping[str, str],
        *,
        bot: bool = False,
        read_only: Iterable[str] = (),
        hidden: Iterable[str] = (),
    ) -> Jail | None:
        """The sandbox of `command` run from `cwd`; None when its program cannot be found."""
        program = locate(command[0], env, cwd)
        if program is None:
            return None
        hidden = tuple(os.path.abspath(path) for path in hidden)
        named = [str(path) for path in named_files(command, cwd, env)]
        # A path in the command means what it meant from the config's folder.
        arguments = tuple(
            absolute if (absolute := os.path.abspath(cwd / part)) in named else part
            for part in command[1:]
        )
        organiser = os.path.realpath(cwd)  # the config's folder: never given as a whole
        runtime: list[str] = []
        path_first: list[str] = []
        files = list(named)  # what it needs of a folder that turns out closed to `nobody`
        for step in (program, _interpreter(program, env, cwd)):
            if step is None:
                continue
            for link in _chain(step):
                files.append(link)
                root = _install_root(link)
                # An installation that holds the config's folder is the organiser's: only
                # the program's own files of it.
                runtime.append(link if _within(organiser, os.path.realpath(root)) else root)
            path_first.append(os.path.dirname(step))
        program_file = _program_file(command, program, named, cwd, bot)
        own = None if program_file is None else os.path.dirname(program_file)
        if program_file is not None and os.path.isdir(program_file):
            own = program_file  # a class path's folder, a package: its own folder
        if own is not None and _within(organiser, os.path.realpath(own)):
            own = None  # kept beside its config (or above it): its own files only, not the folder
        readable = [*runtime, *named, *read_only, str(Path(arena.__file__).resolve().parent)]
        if own is not None:
            readable.append(own)
        readable = [
            path
            for path in dict.fromkeys(readable)
            if path != "/"
            and not _is_system(path)
            and path not in hidden
            and os.path.exists(path)
            and _shown(path, named, organiser, hidden)
        ]
        if as_root():
            # A folder others may not enter (a `mktemp -d`, 0700) would shut `nobody` out of
            # all of it: only the files it needs of it are bound then (each its own mode).
            closed = [path for path in readable if os.path.isdir(path) and _closed(path)]
            needed = [f for f in files if any(_within(f, c) and f != c for c in closed)]
            readable = [path for path in readable if path not in closed]
            readable += [
                f for f in dict.fromkeys(needed) if os.path.isfile(f) and f not in readable
            ]
        # What lies in a folder bound already comes with it (binding it again could fail: a
        # venv's `bin/python` is a link that only resolves inside).
        readable = [
            path
            for path in readable
            if not any(other != path and _within(path, other) for other in readable)
        ]
        inside = dict(env)
        inside["HOME"] = inside["TMPDIR"] = HOME
        # A JVM locks its performance-data file with flock, which the seccomp filter refuses:
        # it would say so on stdout, in the middle of the replies. Nothing reads that data here.
        java = inside.get("JAVA_TOOL_OPTIONS", "")
        inside["JAVA_TOOL_OPTIONS"] = f"{java} {JAVA_OPTIONS}".strip()
        # A minimal PATH: its program's folders, then the system's folders of the organiser's
        # PATH (never its home's: `~/.cargo/bin` says who runs the arena, and is not there).
        folders = [folder for folder in dict.fromkeys(path_first) if not _is_system(folder)]
        system = [d for d in env.get("PATH", os.defpath).split(os.pathsep) if _is_system(d)]
        inside["PATH"] = os.pathsep.join(dict.fromkeys([*folders, *(system or [os.defpath])]))
        here = os.path.dirname(program_file) if program_file is not None else HOME
        return cls(program, arguments, here, inside, tuple(readable), hidden)

    def argv(
        self,
        bwrap: str,
        status_fd: int | None = None,
        tmp_size: int = TMP_SIZE,
        *,
        root: bool | None = None,
        seccomp_fd: int | None = None,
        uid: int = SANDBOX_UID,
    ) -> list[str]:
        """The whole `bwrap` command line that runs the participant in its sandbox.

        `root`: whether bwrap runs as root (default: whether this process does);
        `seccomp_fd`: a descriptor holding the seccomp filter (`arena.seats.seccomp`);
        `uid`: who it runs as when bwrap runs as root (`arena.seats.uids`).
        """
        root = as_root() if root is None else root
        argv = [bwrap, *_namespaces(root), *_system_binds(), *_private_binds(tmp_size)]
        for folder in self._mount_points():
            argv += ["--perms", "0755", "--dir", folder]
        for path in sorted(self.readable, key=_depth):  # a folder before what lies in it
            argv += ["--ro-bind", path, path]
        for secret in sorted(self.hidden, key=_depth):
            # (A link is left alone: masking it would mask what it points to.)
            if (
                any(_within(secret, path) for path in self.readable)
                and os.path.exists(secret)
                and not os.path.islink(secret)
            ):
                if os.path.isdir(secret):
                    argv += ["--tmpfs", secret, "--remount-ro", secret]
                else:
                    argv += ["--ro-bind", "/dev/null", secret]
        # The sandbox's own root (where bwrap made the folders above what is bound) is
        # read-only too: its /tmp is the one place it may write.
        argv += ["--remount-ro", "/"]
        if status_fd is not None:
            argv += ["--json-status-fd", str(status_fd)]
        if seccomp_fd is not None:
            argv += ["--seccomp", str(seccomp_fd)]
        argv += ["--chdir", self.cwd, "--"]
        return [*argv, *_become_nobody(root, uid), self.program, *self.arguments]

    def closed_to_nobody(self) -> str | None:
        """As root: why `nobody` could not run its program or read a file it is given (files
        that keep others out); None when it can, and always as a user."""
        if not as_root():
            return None
        program = os.path.realpath(self.program)
        files = [program, *(a for a in self.arguments if os.path.isabs(a) and os.path.isfile(a))]
        for file in files:
            try:
                mode = os.stat(file).st_mode
            except OSError:
                continue
            needed = stat.S_IROTH | (stat.S_IXOTH if file == program else 0)
            if mode & needed != needed:
                what = "run" if file == program else "read"
                return (
                    f"{file} is closed to others (mode {stat.S_IMODE(mode):04o}), and in the sandbox "
                    f"it runs as a user of its own: it could not {what} it (chmod o+r"
                    f"{'x' if what == 'run' else ''})"
                )
        return None

    def _mount_points(self) -> list[str]:
        """The folders above what is bound, made open to the participant (bwrap would copy
        the host's modes: a 0700 `mktemp -d` above a checkout would shut `nobody` out of it;
        what is bound itself keeps its own modes)."""
        folders: set[str] = set()
        for path in self.readable:
            folder = os.path.dirname(path)
            while folder not in ("/", "") and not _is_system(folder):
                if not any(_within(folder, other) for other in self.readable):
                    folders.add(folder)
                folder = os.path.dirname(folder)
        return sorted(folders, key=_depth)


def visible_paths(
    command: Sequence[str],
    cwd: Path,
    env: Mapping[str, str],
    *,
    bot: bool = False,
    read_only: Iterable[str] = (),
    hidden: Iterable[str] = (),
) -> tuple[str, ...]:
    """The host paths (files and folders) a participant of `command` is given to read in its
    sandbox, besides the system's (`/usr`, a few files of `/etc`): its program, its runtime's
    installation, its own folder or files, its `readOnly` paths and the arena's package.
    Exactly what `Jail.argv` binds; () when its program cannot be found."""
    jail = Jail.of(command, cwd, env, bot=bot, read_only=read_only, hidden=hidden)
    return () if jail is None else jail.readable


def interpreter_of(program: str, env: Mapping[str, str], cwd: Path) -> str | None:
    """The interpreter a located `#!` program runs under (located as a program), or None: part
    of what a participant runs (`arena.seats.fingerprint`)."""
    return _interpreter(program, env, cwd)


def _program_file(
    command: Sequence[str], program: str, named: list[str], cwd: Path, bot: bool
) -> str | None:
    """The participant's own program file: the script of an interpreter command, the binary
    otherwise; None for a built-in bot and a command that names no file of its own."""
    if bot:
        return None  # a built-in bot: the arena's code is readable; it needs no folder
    if "/" in command[0] and _install_root(os.path.realpath(program)) == os.path.dirname(
        os.path.realpath(program)
    ):
        return os.path.abspath(cwd / command[0])  # its own binary or script
    scripts = [path for path in named if path != os.path.abspath(cwd / command[0])]
    return scripts[0] if scripts else None


def _shown(path: str, named: list[str], organiser: str, hidden: tuple[str, ...]) -> bool:
    """Whether `path` may be bound, judged where it leads: never onto one of the organiser's
    hidden files (the config, the replays, another participant's), and a link into the
    config's folder only onto a file the command names itself."""
    real = os.path.realpath(path)
    if any(_within(real, os.path.realpath(secret)) for secret in hidden):
        return False
    if real != os.path.abspath(path) and _within(real, organiser):
        return real in {os.path.abspath(file) for file in named if not os.path.islink(file)}
    return True


def _closed(folder: str) -> bool:
    """Whether others (`nobody`) may not enter `folder`."""
    try:
        return not os.stat(folder).st_mode & stat.S_IXOTH
    except OSError:
        return False


def _depth(path: str) -> tuple[int, str]:
    return path.rstrip("/").count("/"), path


def _within(path: str, folder: str) -> bool:
    return path == folder or path.startswith(folder.rstrip("/") + "/")


def _namespaces(root: bool | None = None) -> list[str]:
    """Its namespaces and privileges. As a user, bwrap maps the user into a user namespace of
    its own (`--unshare-all`); as root, a user namespace would map the participant to the
    host's root, so there is none: bwrap keeps only the right to change uid, and `setpriv`
    makes the participant `nobody` before it runs (`_become_nobody`)."""
    root = as_root() if root is None else root
    if root:
        shared = ["--unshare-ipc", "--unshare-pid", "--unshare-net", "--unshare-uts"]
        shared += ["--unshare-cgroup-try", "--cap-drop", "ALL"]
        shared += ["--cap-add", "CAP_SETUID", "--cap-add", "CAP_SETGID"]
    else:
        # --unshare-all: user (where it can), ipc, pid, net (loopback included), uts, cgroup.
        shared = ["--unshare-all", "--cap-drop", "ALL"]
    return [*shared, "--die-with-parent", "--new-session", "--proc", "/proc"]


def _become_nobody(root: bool | None = None, uid: int = SANDBOX_UID) -> list[str]:
    """As root: the launcher that makes the participant `uid` (its own, or `nobody`), with no
    capabilities left and none to gain (`no_new_privs`), before it runs its program."""
    if not (as_root() if root is None else root):
        return []
    setpriv = _setpriv() or "/usr/bin/setpriv"
    return [
        setpriv,
        f"--reuid={uid}",
        f"--regid={uid}",
        "--clear-groups",
        "--inh-caps=-all",
        "--no-new-privs",
        "--",
    ]


@functools.cache
def _private() -> tuple[str, ...]:
    """A minimal read-only /dev (its `shm` is the private /tmp), and /proc without what it
    says of the whole machine."""
    binds = ["--tmpfs", "/dev"]
    for device in DEVICES:
        if os.path.exists(device):
            binds += ["--dev-bind", device, device]
    for name, target in (("fd", "/proc/self/fd"), ("shm", HOME)):
        binds += ["--symlink", target, f"/dev/{name}"]
    for number, name in enumerate(("stdin", "stdout", "stderr")):
        binds += ["--symlink", f"/proc/self/fd/{number}", f"/dev/{name}"]
    binds += ["--remount-ro", "/dev"]
    for name in PROC_MASKED_FILES:
        if os.path.isfile(f"/proc/{name}"):
            binds += ["--dev-bind", "/dev/null", f"/proc/{name}"]  # (empty when read)
    for name in PROC_MASKED_FOLDERS:
        if os.path.isdir(f"/proc/{name}"):
            binds += ["--tmpfs", f"/proc/{name}", "--remount-ro", f"/proc/{name}"]
    return tuple(binds)


def _private_binds(tmp_size: int) -> list[str]:
    # Its /tmp: writable by it alone (the sandbox's only writable place; 1777 so that
    # `nobody` may write it when bwrap runs as root).
    return [*_private(), "--perms", "1777", "--size", str(tmp_size), "--tmpfs", HOME]


@functools.cache
def _system() -> tuple[str, ...]:
    binds: list[str] = []
    for top in SYSTEM:
        if os.path.islink(top):
            binds += ["--symlink", os.readlink(top), top]
        elif os.path.isdir(top):
            binds += ["--ro-bind", top, top]
    binds += ["--perms", "0755", "--dir", "/etc"]  # (as root, bwrap would make it 0700)
    for path in [*ETC, *sorted(glob.glob(JAVA_ETC))]:
        binds += ["--ro-bind-try", path, path]
    return tuple(binds)


def _system_binds() -> list[str]:
    return list(_system())


__all__ = [
    "SANDBOX_UID",
    "Confinement",
    "Jail",
    "decide",
    "identity",
    "interpreter_of",
    "locate",
    "probe",
    "resolved",
    "visible_paths",
]
