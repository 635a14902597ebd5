"""A control group per sandboxed participant: a process ceiling, one memory ceiling, an equal
share of the CPU.

    problem = cgroups.missing()             # None where groups can be made here
    group = cgroups.Group.make(memory)      # one participant's (None: cannot)
    join = group.joiner()                   # run in the child before it execs bwrap
    ...                                     # the participant is reaped
    group.remove()                          # every process in it killed, then the group

Each participant gets a group of its own under the arena's own group, in each hierarchy the
machine mounts: cgroup v1's `cpu`, `memory` and `pids` controllers (as on the project's
machines), or cgroup v2 with those three delegated. The child joins it before it execs bwrap
(writing "0" to v1's `tasks` or v2's `cgroup.procs` in the forked child, its only thread, from
descriptors opened beforehand), so that every process of the participant is in it from its
first instruction: no race with a fork.

- `pids`: at most PIDS_MAX processes and threads (a fork flood stops there, in its own group).
- memory: `memoryMiB` for the whole group, its children and the pages of its private `/tmp`
  (tmpfs pages are charged to the group that wrote them); swap included where it is counted.
- CPU: every group the same weight as one process of the machine (v1 `cpu.shares` 1024, v2
  `cpu.weight` 100): a participant with sixteen busy children, each in a session of its own,
  gets the CPU of one process, and its neighbours theirs.
- the page cache: the pages of files it brought into the cache (charged to its group) are
  dropped when it is gone (v1 `memory.force_empty`, v2 `memory.reclaim`), before its group is
  removed: which pages of a shared file are cached is left as it found it, so nothing it set
  there is read by the next rotation of its deal (docs/sandbox.md, "Channels").

The module only touches /sys/fs/cgroup (and /proc/self to find its own group).
"""

from __future__ import annotations

import atexit
import contextlib
import functools
import os
import signal
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

PIDS_MAX = 256  # processes and threads of one participant (a JVM starts about 20 threads)
CPU_SHARES = 1024  # v1: the weight of one ordinary process
CPU_WEIGHT = 100  # v2: the same
CONTROLLERS = ("cpu", "memory", "pids")
RECLAIM_ALL = 1 << 40  # v2: bytes asked of `memory.reclaim` (all it holds; it stops there)
_REMOVE_WAIT = 5.0  # how long a group's last processes get to be gone before it is left
_DROP_WAIT = 0.5  # how long `remove` waits for its last processes before leaving it to a thread
_counter = iter(range(1 << 62))
_counter_lock = threading.Lock()


@dataclass(frozen=True)
class Hierarchy:
    """Where the groups go: v1, one folder per controller; v2, one folder for all."""

    version: Literal["v1", "v2"]
    parents: tuple[Path, ...]  # the arena's own group, in each hierarchy

    def describe(self) -> str:
        return f"cgroup {self.version}"


def _mounts() -> list[tuple[str, str, set[str]]]:
    """(mount point, file system type, super options) of each cgroup mount."""
    found = []
    try:
        lines = Path("/proc/self/mountinfo").read_text().splitlines()
    except OSError:
        return []
    for line in lines:
        before, _, after = line.partition(" - ")
        fields, tail = before.split(), after.split()
        if len(fields) >= 5 and len(tail) >= 3 and tail[0] in ("cgroup", "cgroup2"):
            found.append((fields[4], tail[0], set(tail[2].split(","))))
    return found


def _own(version: str, controller: str) -> str:
    """The arena's own group's path in a hierarchy (from /proc/self/cgroup)."""
    try:
        lines = Path("/proc/self/cgroup").read_text().splitlines()
    except OSError:
        return "/"
    for line in lines:
        _, names, path = line.split(":", 2)
        if (version == "v2" and names == "") or controller in names.split(","):
            return path
    return "/"


@functools.cache
def hierarchy() -> Hierarchy | str:
    """Where participants' groups can be made here, or why not (a few words)."""
    mounts = _mounts()
    v1 = {}
    for point, kind, options in mounts:
        for controller in CONTROLLERS:
            if kind == "cgroup" and controller in options:
                v1[controller] = Path(point) / _own("v1", controller).lstrip("/")
    if len(v1) == len(CONTROLLERS):
        parents = tuple(v1[controller] for controller in CONTROLLERS)
        return _writable(Hierarchy("v1", parents))
    for point, kind, _ in mounts:
        if kind != "cgroup2":
            continue
        parent = Path(point) / _own("v2", "").lstrip("/")
        try:
            offered = set((parent / "cgroup.controllers").read_text().split())
        except OSError:
            continue
        if set(CONTROLLERS) <= offered:
            return _writable(Hierarchy("v2", (parent,)))
    if v1:
        return f"cgroup v1 mounts only {', '.join(sorted(v1))} of {', '.join(CONTROLLERS)}"
    return "no cgroup hierarchy offers the cpu, memory and pids controllers"


def _writable(place: Hierarchy) -> Hierarchy | str:
    """`place` when a group can be made there (and, v2, given the three controllers)."""
    if place.version == "v2":
        control = place.parents[0] / "cgroup.subtree_control"
        try:
            enabled = set(control.read_text().split())
            missing = [c for c in CONTROLLERS if c not in enabled]
            if missing:
                control.write_text(" ".join(f"+{c}" for c in missing))
        except OSError as error:
            return f"cannot give the controllers to groups in {place.parents[0]} ({error.strerror})"
    for parent in place.parents:
        if not os.access(parent, os.W_OK):
            return f"{parent} is not writable (not root, and no delegated cgroup)"
    return place


@functools.cache
def missing() -> str | None:
    """None when participants' groups can be made here; otherwise why not, in a few words."""
    place = hierarchy()
    if isinstance(place, str):
        return place
    _remove_abandoned(place)
    group = Group.make(None)
    if group is None:
        return f"cannot make a group in {place.parents[0]}"
    group.remove()
    return None


def _remove_abandoned(place: Hierarchy) -> None:
    """Remove the empty groups an arena killed without a chance to clean up left behind
    (named after its pid, which no longer runs)."""
    for parent in place.parents:
        for folder in parent.glob("gofish-arena-*-*"):
            pid = folder.name.split("-")[2]
            if pid.isdigit() and not Path(f"/proc/{pid}").exists():
                with contextlib.suppress(OSError):
                    folder.rmdir()


def describe() -> str | None:
    place = hierarchy()
    return None if isinstance(place, str) else place.describe()


class Group:
    """One participant's group (a folder in each hierarchy)."""

    def __init__(self, place: Hierarchy, folders: tuple[Path, ...]) -> None:
        self.place = place
        self.folders = folders
        self._procs: list[int] = []
        self._after: Callable[[bool], None] | None = None

    def then(self, after: Callable[[bool], None]) -> None:
        """Call `after(True)` once the group is removed (every process of it gone), or
        `after(False)` when that was given up."""
        self._after = after

    @classmethod
    def make(cls, memory_bytes: int | None) -> Group | None:
        """A new group with the ceilings set, or None when it cannot be made."""
        place = hierarchy()
        if isinstance(place, str):
            return None
        with _counter_lock:
            name = f"gofish-arena-{os.getpid()}-{next(_counter)}"
        group = cls(place, tuple(parent / name for parent in place.parents))
        try:
            for folder in group.folders:
                folder.mkdir()
            group._limit(memory_bytes)
        except OSError:
            group.remove()
            return None
        return group

    def _limit(self, memory_bytes: int | None) -> None:
        if self.place.version == "v1":
            cpu, memory, pids = self.folders
            (cpu / "cpu.shares").write_text(str(CPU_SHARES))
            (pids / "pids.max").write_text(str(PIDS_MAX))
            if memory_bytes is not None:
                (memory / "memory.limit_in_bytes").write_text(str(memory_bytes))
                with contextlib.suppress(OSError):  # (only where swap is counted)
                    (memory / "memory.memsw.limit_in_bytes").write_text(str(memory_bytes))
        else:
            [folder] = self.folders
            (folder / "cpu.weight").write_text(str(CPU_WEIGHT))
            (folder / "pids.max").write_text(str(PIDS_MAX))
            if memory_bytes is not None:
                (folder / "memory.max").write_text(str(memory_bytes))
                with contextlib.suppress(OSError):
                    (folder / "memory.swap.max").write_text("0")

    def joiner(self) -> Callable[[], None]:
        """What the forked child runs before it execs: it joins the group (async-signal-safe:
        one write per descriptor, opened here beforehand). In v1 it moves its one thread
        (`tasks`, "0": itself): a whole-process move (`cgroup.procs`) takes a lock every fork
        on the machine waits for, and the first after a quiet spell waits a grace period,
        6-21 ms here, against 0.5 ms (docs/sandbox.md); v2 has only `cgroup.procs`."""
        entry = "tasks" if self.place.version == "v1" else "cgroup.procs"
        self._procs = [os.open(folder / entry, os.O_WRONLY) for folder in self.folders]
        procs = tuple(self._procs)

        def join() -> None:
            for fd in procs:
                os.write(fd, b"0")

        return join

    def started(self) -> None:
        """The child has been spawned: the parent's descriptors are no longer needed."""
        for fd in self._procs:
            with contextlib.suppress(OSError):
                os.close(fd)
        self._procs = []

    def remove(self) -> None:
        """Kill every process left in it (a sandbox's last processes end a moment after its
        bwrap), then remove it; what is still busy is removed in the background (bounded)."""
        self.started()
        # Waited for here (briefly): its page cache is dropped once it is empty, and that must
        # be done before whatever plays next (the next rotation of its deal) starts.
        deadline = time.monotonic() + _DROP_WAIT
        while not self._try_remove():
            if time.monotonic() > deadline:
                _REMOVER.add(self)
                return
            time.sleep(0.002)

    def _try_remove(self) -> bool:
        left = []
        for folder in self.folders:
            if not folder.exists():
                continue
            tasks = ""
            with contextlib.suppress(OSError, ValueError):
                tasks = (folder / "cgroup.procs").read_text()
                for pid in tasks.split():
                    with contextlib.suppress(OSError):
                        os.kill(int(pid), signal.SIGKILL)
            if not tasks:
                self._drop_cache(folder)
            try:
                folder.rmdir()
            except FileNotFoundError:
                pass
            except OSError:
                left.append(folder)
        self.folders = tuple(left)
        if not left:
            self._done(True)
        return not left

    def _drop_cache(self, folder: Path) -> None:
        """Drop the pages charged to the group, once it has no process: the page cache it
        filled (files it read first) and what else it held."""
        if self.place.version == "v1":
            if folder.parent != self.place.parents[CONTROLLERS.index("memory")]:
                return
            name, value = "memory.force_empty", "0"
        else:
            name, value = "memory.reclaim", str(RECLAIM_ALL)
        with contextlib.suppress(OSError):  # (v2 says EAGAIN when it held less: fine)
            (folder / name).write_text(value)

    def _done(self, removed: bool) -> None:
        after, self._after = self._after, None
        if after is not None:
            after(removed)


class _Remover:
    """Removes groups whose last processes are still ending, in a thread of its own."""

    def __init__(self) -> None:
        self._groups: list[tuple[Group, float]] = []
        self._busy = threading.Condition()
        self._thread: threading.Thread | None = None

    def add(self, group: Group) -> None:
        with self._busy:
            self._groups.append((group, time.monotonic() + _REMOVE_WAIT))
            if self._thread is None or not self._thread.is_alive():
                if self._thread is None:
                    atexit.register(self.wait)
                self._thread = threading.Thread(
                    target=self._work, name="arena-cgroup-remover", daemon=True
                )
                self._thread.start()
            self._busy.notify_all()

    def _work(self) -> None:
        while True:
            with self._busy:
                if not self._groups:
                    self._busy.notify_all()
                    return
                groups = list(self._groups)
            time.sleep(0.01)
            done = [(g, d) for g, d in groups if g._try_remove() or time.monotonic() > d]
            for group, _ in done:
                group._done(False)  # (a no-op for one removed: it was told already)
            with self._busy:
                self._groups = [entry for entry in self._groups if entry not in done]

    def wait(self, seconds: float = _REMOVE_WAIT) -> None:
        deadline = time.monotonic() + seconds
        with self._busy:
            while self._groups and (left := deadline - time.monotonic()) > 0:
                self._busy.wait(min(left, 0.05))


_REMOVER = _Remover()


def wait_for_removals() -> None:
    """Wait until every stopped participant's group is removed (bounded)."""
    _REMOVER.wait()


__all__ = ["PIDS_MAX", "Group", "describe", "hierarchy", "missing", "wait_for_removals"]
