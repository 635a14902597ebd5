"""Writing files so that nothing is ever half-written or overwritten.

Every file goes to a temporary name in its folder, is flushed to disk, then linked to its
final name, which fails rather than replace an existing file; `new_path` picks a free name.
Every file is readable as any new file is (0666 less the umask), not only by its owner as a
temporary file is: a report copied to a web server must be readable by it.
"""

from __future__ import annotations

import errno
import os
import re
import stat
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import BinaryIO

from arena.base.errors import ConfigError, WriteError

_UNSAFE = re.compile(r"[^A-Za-z0-9._-]+")


def safe_part(text: str, limit: int = 24) -> str:
    """A piece of a file name from untrusted text: no separators, no dots at the start."""
    cleaned = _UNSAFE.sub("_", text).strip("._") or "x"
    return cleaned[:limit]


NAME_MAX = 255  # bytes in one component of a path (Linux and macOS)


def check_writable(folder: Path) -> None:
    """Raise now if files could not be written into `folder` later. Creates nothing.

    ConfigError for a path that can never be a folder (a component over NAME_MAX bytes, a
    loop of symbolic links); WriteError for one that cannot be written now (a file in the way,
    no permission).
    """
    for part in folder.parts:
        size = len(os.fsencode(part))
        if size > NAME_MAX:
            raise ConfigError(
                f"{folder}: a name of {size} bytes ({part[:24]}…), over the {NAME_MAX} a file name may have"
            )
    existing = next(part for part in (folder, *folder.parents) if _exists(part))
    if not existing.is_dir():
        raise WriteError(f"cannot write into {folder}: {existing} is a file, not a folder")
    if not os.access(existing, os.W_OK | os.X_OK):
        raise WriteError(f"cannot write into {folder}: {existing} is not writable")


def _exists(path: Path) -> bool:
    try:
        os.stat(path)
    except (FileNotFoundError, NotADirectoryError):
        return False
    except OSError as error:
        if error.errno == errno.ELOOP:
            raise ConfigError(f"{path}: a loop of symbolic links") from None
        raise WriteError(f"cannot write into {path}: {error.strerror or error}") from None
    return True


# The process's umask, read once at import, before any thread: reading it means setting it, and
# a thread creating a file in between would get the wrong mode.
_UMASK = os.umask(0o077)
os.umask(_UMASK)
NEW_FILE_MODE = 0o666 & ~_UMASK  # what open(…, "w") would give; mkstemp's is 0600


def _temporary(folder: Path, suffix: str) -> tuple[int, str]:
    """A new temporary file in `folder` (descriptor, path), with the mode of any new file."""
    handle, temporary = tempfile.mkstemp(dir=folder, prefix=".writing-", suffix=suffix)
    os.fchmod(handle, NEW_FILE_MODE)
    return handle, temporary


def write_new(folder: Path, stem: str, suffix: str, data: bytes) -> Path:
    """Write `data` atomically as `folder/stem+suffix`, or `stem-2`, `stem-3`, … if taken."""
    try:
        folder.mkdir(parents=True, exist_ok=True)
        handle, temporary = _temporary(folder, suffix)
        try:
            with os.fdopen(handle, "wb") as file:
                file.write(data)
                file.flush()
                os.fsync(file.fileno())
            target = _link_to_free_name(temporary, folder, stem, suffix)
        finally:
            os.unlink(temporary)
        _sync_folder(folder)  # the new name itself survives a crash, not only the bytes
        return target
    except OSError as error:
        raise WriteError(f"cannot write into {folder}: {_reason(folder, error)}") from None


def _link_to_free_name(temporary: str, folder: Path, stem: str, suffix: str) -> Path:
    for attempt in range(1, 10_000):
        target = folder / f"{stem}{'' if attempt == 1 else f'-{attempt}'}{suffix}"
        try:
            os.link(temporary, target)  # fails, rather than replace, if the name is taken
            return target
        except FileExistsError:
            continue
    raise WriteError(f"{folder}: no free file name for {stem}{suffix}")


@contextmanager
def streamed_new(path: Path) -> Iterator[BinaryIO]:
    """Write a file too large to hold in memory: into a temporary file beside `path`, which
    becomes `path` only when the block ends without an error (never replacing a file there).

    Raises WriteError when the folder cannot be written or `path` exists by then."""
    folder = path.parent
    try:
        handle, temporary = _temporary(folder, path.suffix)
    except OSError as error:
        raise WriteError(f"cannot write into {folder}: {_reason(folder, error)}") from None
    try:
        with os.fdopen(handle, "wb") as file:
            yield file
            file.flush()
            os.fsync(file.fileno())
        try:
            os.link(temporary, path)  # fails, rather than replace, if the name is taken
        except FileExistsError:
            raise WriteError(f"{path}: exists already; give another name") from None
        except OSError as error:
            raise WriteError(f"cannot write {path}: {_reason(folder, error)}") from None
        _sync_folder(folder)
    finally:
        os.unlink(temporary)


def _sync_folder(folder: Path) -> None:
    handle = os.open(folder, os.O_RDONLY | os.O_DIRECTORY)
    try:
        os.fsync(handle)
    finally:
        os.close(handle)


def replace(path: Path, data: bytes) -> None:
    """Write `data` atomically over `path` (for files the arena owns and rewrites, e.g. standings)."""
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        handle, temporary = _temporary(path.parent, path.suffix)
        try:
            with os.fdopen(handle, "wb") as file:
                file.write(data)
                file.flush()
                os.fsync(file.fileno())
            os.replace(temporary, path)
        except BaseException:
            os.unlink(temporary)
            raise
        _sync_folder(path.parent)
    except OSError as error:
        raise WriteError(f"cannot write {path}: {_reason(path.parent, error)}") from None


def _reason(folder: Path, error: OSError) -> str:
    """Why a folder cannot be written to, in words a user acts on."""
    if isinstance(error, (FileExistsError, NotADirectoryError)) and not folder.is_dir():
        blocker = next((part for part in (folder, *folder.parents) if part.exists()), folder)
        return f"{blocker} is a file, not a folder"
    return error.strerror or str(error)


def check_replaceable(path: Path) -> None:
    """Raise ConfigError now if `path`, a file the arena rewrites (standings, its page), is held
    by something `replace` cannot replace: a folder, a FIFO. A missing file or a link is fine."""
    try:
        mode = os.lstat(path).st_mode
    except OSError:
        return  # missing (or its folder is): `check_writable` and the writer say why
    if not (stat.S_ISREG(mode) or stat.S_ISLNK(mode)):
        raise ConfigError(f"{path}: not a regular file (a {kind(mode)}); move it out of the way")


class UnreadableFile(Exception):
    """A file that is not a regular file within its size cap; the message says which."""


def read_capped(path: Path, cap: int) -> bytes:
    """The bytes of the regular file `path`, at most `cap` of them.

    Opened without blocking (a FIFO never blocks the arena) and checked with fstat on the open
    descriptor, so a folder, a device (/dev/zero) or a pipe is refused before anything is read.
    Raises FileNotFoundError, UnreadableFile (a one-line reason, without the path) or OSError.
    """
    handle = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC)
    try:
        status = os.fstat(handle)
        if not stat.S_ISREG(status.st_mode):
            raise UnreadableFile(f"not a regular file (a {kind(status.st_mode)})")
        if status.st_size > cap:
            raise UnreadableFile(f"{status.st_size} bytes, over the limit of {_size(cap)}")
        chunks: list[bytes] = []
        total = 0
        while chunk := os.read(handle, min(1 << 20, cap + 1 - total)):
            chunks.append(chunk)
            total += len(chunk)
            if total > cap:  # it grew while being read
                raise UnreadableFile(f"over the limit of {_size(cap)}")
        return b"".join(chunks)
    finally:
        os.close(handle)


def kind(mode: int) -> str:
    """What a file that is not a regular one is, in a word: `folder`, `FIFO`…"""
    kinds = (
        (stat.S_ISDIR, "folder"),
        (stat.S_ISFIFO, "FIFO"),
        (stat.S_ISCHR, "character device"),
        (stat.S_ISBLK, "block device"),
        (stat.S_ISSOCK, "socket"),
    )
    return next((name for test, name in kinds if test(mode)), "special file")


def _size(count: int) -> str:
    return f"{count >> 20} MiB" if count >= 1 << 20 and count % (1 << 20) == 0 else f"{count} bytes"
