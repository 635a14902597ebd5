"""A fingerprint of what a participant runs: SHA-256 over the files its sandbox gives it.

    fingerprint.of(seat)          # 64 hex digits; the same program gives the same digits
    fingerprint.of_all(seats)     # name -> digits, each runtime walked once for all the seats
    fingerprint.of_file(path)     # "sha256 1f0c… executable": one file, to compare across machines

What is hashed, in a stable order (the same whether or not the run is sandboxed):

- the program its command starts and, for a `#!` script, the interpreter it names, located as
  the sandbox locates them (`/usr/bin/python3` → the file it links to): the interpreter's
  identity, even where the system's folders are not otherwise hashed;
- every host path the sandbox binds for it (`Jail.readable`, `sandbox.visible_paths`): the
  files its command names, its own folder and its `readOnly` paths by their contents; its
  runtime's installation outside the system (a virtual environment, a pyenv version) by the
  paths and kinds its folders' listings give, with no call per file (53,000 paths of a pyenv
  Python and a venv: 0.27 s of CPU, against 0.54 s with each file's size and time, and minutes
  to read): an installed, removed or renamed file changes it (pip renames a package's
  `.dist-info` folder as it upgrades it), a file rewritten in place under its name does not;
  walked once for all the seats of a run that share it; not the arena's own package, which
  every participant sees;
- for a built-in bot, its level and the arena's `bots` and `sdk` code, which is what it runs.

Bounded: a folder is walked in sorted order without following links (a link is hashed as the
text it points to), `__pycache__` folders are skipped (Python writes them as it runs), a file
is read up to FILE_BYTES (a larger one counts by its size and modification time), and after
MOST_FILES files or MOST_BYTES bytes the rest count by path, size and time only; a walk stops
after MOST_ENTRIES paths. Nothing
that is not a regular file is opened (a FIFO would block): its kind is hashed instead.
"""

from __future__ import annotations

import hashlib
import os
import stat
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO

import arena
from arena.base.config import Entrant
from arena.seats import sandbox
from arena.seats.programs import named_files

FILE_BYTES = 64 << 20  # a file larger than this counts by its size and modification time
MOST_FILES = 20_000  # files read per participant; later ones count by their metadata
MOST_BYTES = 256 << 20  # bytes read per participant; likewise
MOST_ENTRIES = 200_000  # paths looked at per participant; the rest is "and more"
SKIPPED = frozenset({"__pycache__"})
_MORE = b"and more\n"  # where a walk's paths run out
ARENA = Path(arena.__file__).resolve().parent
BOT_CODE = (ARENA / "bots", ARENA / "sdk")


@dataclass
class _Budget:
    files: int = MOST_FILES
    bytes: int = MOST_BYTES
    entries: int = MOST_ENTRIES


def of(seat: Entrant) -> str:
    """The SHA-256 (hex) of what `seat` runs."""
    return _of(seat, {})


def of_all(seats: Sequence[Entrant]) -> dict[str, str]:
    """Each seat's fingerprint by its name, as `of` gives it; a runtime the seats share (a
    class's Python bots in one virtual environment) is walked once for all of them."""
    runtimes: dict[str, list[bytes]] = {}
    return {seat.name: _of(seat, runtimes) for seat in seats}


def _of(seat: Entrant, runtimes: dict[str, list[bytes]]) -> str:
    """`of`, taking a runtime's walk from `runtimes` (by its path) or adding it there."""
    digest = hashlib.sha256()
    budget = _Budget()
    for label, path in _given(seat):
        digest.update(f"{label}\0{path}\0".encode("utf-8", "surrogateescape"))
        if label in ("bot", "missing"):
            continue  # a name, not a path
        if label == "runtime":  # by metadata only: the walk spends no budget but its paths
            if path not in runtimes:
                runtimes[path] = list(_entries(str(Path(path)), _Budget(), contents=False))
            entries = _spent(runtimes[path], budget)
        else:
            entries = _entries(str(Path(path)), budget, contents=True)
        for entry in entries:
            digest.update(entry)
    return digest.hexdigest()


def _spent(walk: list[bytes], budget: _Budget) -> Iterator[bytes]:
    """A walk made on a full budget, as `_entries` would have given it on what is left of
    `budget`: one entry a path, and "and more" where the paths run out."""
    for entry in walk:
        budget.entries -= 1
        if budget.entries < 0:
            yield _MORE
            return
        yield entry


def _given(seat: Entrant) -> list[tuple[str, str]]:
    """What the participant is given, labelled, in a stable order: the one place that asks the
    sandbox what a participant sees. Its own files come first (they have the first claim on
    the budget); a runtime's installation (a virtual environment) counts by metadata."""
    if seat.bot is not None:
        return [("bot", seat.bot)] + [("code", str(folder)) for folder in BOT_CODE]
    jail = sandbox.Jail.of(
        seat.command, seat.cwd, seat.env, read_only=seat.read_only, hidden=seat.hidden
    )
    if jail is None:
        return [("missing", seat.command[0])]
    given = [("program", os.path.realpath(jail.program))]
    interpreter = sandbox.interpreter_of(jail.program, seat.env, seat.cwd)
    if interpreter is not None:
        given.append(("program", os.path.realpath(interpreter)))
    own = {str(path) for path in named_files(seat.command, seat.cwd, seat.env)} | set(
        seat.read_only
    )
    if jail.cwd != sandbox.HOME:
        own.add(jail.cwd)
    visible = [path for path in jail.readable if not _within(path, str(ARENA))]
    given += [("own", path) for path in sorted(visible) if path in own]
    given += [("runtime", path) for path in sorted(visible) if path not in own]
    return given


def _entries(top: str, budget: _Budget, *, contents: bool) -> Iterator[bytes]:
    """One byte string for `top` and, for a folder, for each path in it (sorted, no links
    followed): files by their contents, or (not `contents`: a runtime) by their names alone,
    as the folder's listing gives them, with no call per file. Paths are strings, not
    `Path`s: a runtime has tens of thousands of them."""
    stack: list[tuple[str, os.DirEntry[str] | None]] = [(top, None)]
    while stack:
        path, listed = stack.pop()
        budget.entries -= 1
        if budget.entries < 0:
            yield _MORE
            return
        name = path.encode("utf-8", "surrogateescape")
        if listed is not None and not contents and listed.is_file(follow_symlinks=False):
            yield name + b"\0file\n"  # (a runtime's file: its name, from the listing)
            continue
        try:
            info = os.lstat(path)
        except OSError as error:
            yield name + f"\0unreadable {error.errno}\n".encode()
            continue
        if stat.S_ISLNK(info.st_mode):
            yield name + b"\0link\0" + os.readlink(path).encode("utf-8", "surrogateescape") + b"\n"
        elif stat.S_ISDIR(info.st_mode):
            try:
                with os.scandir(path) as listing:
                    children = sorted(
                        (entry for entry in listing if entry.name not in SKIPPED),
                        key=lambda entry: entry.name,
                        reverse=True,  # popped in sorted order
                    )
            except OSError as error:
                yield name + b"\0folder\n" + name + f"\0unlisted {error.errno}\n".encode()
                continue
            yield name + b"\0folder\n"
            stack.extend((entry.path, entry) for entry in children)
        elif stat.S_ISREG(info.st_mode):
            found = b"\0" + _file(path, info, budget) if contents else b""
            yield name + b"\0file" + found + b"\n"
        else:
            yield name + f"\0{stat.S_IFMT(info.st_mode):o}\n".encode()


def _file(path: str, info: os.stat_result, budget: _Budget) -> bytes:
    """The file's SHA-256, or its size and time when it is too large or the budget is spent."""
    if info.st_size > FILE_BYTES or budget.files <= 0 or budget.bytes < info.st_size:
        return _metadata(info)
    budget.files -= 1
    budget.bytes -= info.st_size
    try:
        handle = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
    except OSError as error:
        return f"unreadable {error.errno}".encode()
    with os.fdopen(handle, "rb") as file:
        if not stat.S_ISREG(os.fstat(file.fileno()).st_mode):
            return b"changed kind"
        return _sha256(file, FILE_BYTES).encode()


def of_file(path: str) -> str:
    """One file as a short text to compare with the same path on another machine: "sha256"
    and the first 16 hex digits of all its bytes (streamed: a model file may be gigabytes),
    " executable" when it may be run; or "missing", "not a regular file", "unreadable (…)".
    Never blocks on a FIFO. (A cluster's worker is checked with it: `tournaments.cluster`.)"""
    try:
        with open(os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC), "rb") as file:
            if not stat.S_ISREG(os.fstat(file.fileno()).st_mode):
                return "not a regular file"
            digest = _sha256(file)[:16]
    except FileNotFoundError:
        return "missing"
    except OSError as error:
        return f"unreadable ({error.strerror or error})"
    executable = " executable" if os.access(path, os.X_OK) else ""
    return f"sha256 {digest}{executable}"


def _sha256(file: BinaryIO, most: int | None = None) -> str:
    """The SHA-256 (hex) of the first `most` bytes `file` holds (all of them: None), read in
    chunks of a MiB."""
    digest = hashlib.sha256()
    remaining = most
    while remaining is None or remaining > 0:
        chunk = file.read(1 << 20 if remaining is None else min(1 << 20, remaining))
        if not chunk:
            break
        digest.update(chunk)
        if remaining is not None:
            remaining -= len(chunk)
    return digest.hexdigest()


def _metadata(info: os.stat_result) -> bytes:
    return f"{info.st_size}:{info.st_mtime_ns}".encode()


def _within(path: str, folder: str) -> bool:
    return path == folder or path.startswith(folder.rstrip("/") + "/")


__all__ = ["of", "of_all", "of_file"]
