"""A submitted archive, unpacked safely, and its manifest `bot.toml`.

    folder = unpack(data, target, limits)    # raises Refused (one line) for anything unsafe
    manifest = read_manifest(folder)         # command = [...], build = [...] (optional)

Nothing of an archive is trusted: a member with an absolute path or `..`, a link, a device or a
FIFO is refused (not skipped), and so are too many members and more unpacked bytes than
allowed (an archive bomb is stopped by counting what is written, not what the header says).
"""

from __future__ import annotations

import io
import os
import stat
import tarfile
import tomllib
import zipfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import IO

MANIFEST = "bot.toml"
_CHUNK = 1 << 16


class Refused(Exception):
    """A submission that will not play, and why (one line, shown to its owner)."""


@dataclass(frozen=True)
class UnpackLimits:
    archive_bytes: int = 8 << 20  # the upload itself
    unpacked_bytes: int = 64 << 20  # all its files together, as written
    members: int = 2000


@dataclass(frozen=True)
class Manifest:
    command: tuple[str, ...]
    build: tuple[str, ...] | None


# What a computer adds to an archive on its own (macOS Finder's resource forks and folder
# settings, Windows' thumbnails): skipped, never the bot's.
JUNK_FOLDERS = frozenset({"__MACOSX"})
JUNK_FILES = frozenset({".DS_Store", "Thumbs.db", "desktop.ini"})


def _safe_name(name: str) -> PurePosixPath:
    """A member's path. A backslash is a folder separator (some Windows tools write them)
    where the path is otherwise plain; raises Refused for anything else."""
    if "\\" in name and "/" not in name and not name.startswith("\\") and ":" not in name:
        name = name.replace("\\", "/")
    path = PurePosixPath(name)
    if not name or name.startswith("/") or "\\" in name or "\0" in name:
        raise Refused(f"archive member {name!r}: not a plain relative path")
    if any(part == ".." for part in path.parts):
        raise Refused(f"archive member {name!r}: goes outside the folder ('..')")
    return path


def _members(data: bytes) -> Iterator[tuple[PurePosixPath, str, int, Iterator[bytes]]]:
    """(path, kind "file"/"dir", mode, chunks) of each member; raises Refused for the rest."""
    if data[:2] == b"PK":
        try:
            archive = zipfile.ZipFile(io.BytesIO(data))
        except (zipfile.BadZipFile, ValueError) as error:
            raise Refused(f"not a readable zip archive: {error}") from None
        for info in archive.infolist():
            # (a folder written by a tool of backslashes ends in one, not in "/")
            folder = info.is_dir() or (info.filename.endswith("\\") and not info.file_size)
            path = _safe_name(info.filename.rstrip("/\\") if folder else info.filename)
            mode = info.external_attr >> 16
            if mode and stat.S_IFMT(mode) not in (0, stat.S_IFREG, stat.S_IFDIR):
                raise Refused(f"archive member {info.filename!r}: a link or special file")
            if folder:
                yield path, "dir", 0o755, iter(())
            else:
                yield path, "file", mode & 0o777 or 0o644, _zip_chunks(archive, info)
        return
    try:
        archive_tar = tarfile.open(fileobj=io.BytesIO(data), mode="r:*")  # noqa: SIM115 - closed below
    except (tarfile.TarError, OSError, EOFError) as error:
        raise Refused(f"not a readable .tar.gz or .zip archive: {error}") from None
    with archive_tar:
        try:
            for member in archive_tar:
                path = _safe_name(member.name.rstrip("/"))
                if member.isdir():
                    yield path, "dir", 0o755, iter(())
                elif member.isreg():
                    stream = archive_tar.extractfile(member)
                    assert stream is not None
                    yield path, "file", member.mode & 0o777, _stream_chunks(stream)
                else:
                    raise Refused(f"archive member {member.name!r}: a link or special file")
        except (tarfile.TarError, OSError, EOFError, zlib_error()) as error:
            raise Refused(f"archive damaged: {error}") from None


def _zip_chunks(archive: zipfile.ZipFile, info: zipfile.ZipInfo) -> Iterator[bytes]:
    with archive.open(info) as stream:
        while chunk := stream.read(_CHUNK):
            yield chunk


def _stream_chunks(stream: IO[bytes]) -> Iterator[bytes]:
    while chunk := stream.read(_CHUNK):
        yield chunk


def zlib_error() -> type[Exception]:
    import zlib

    return zlib.error


def unpack(data: bytes, target: Path, limits: UnpackLimits) -> Path:
    """Unpack `data` into the new folder `target`; the folder holding `bot.toml` (the archive's
    root, or its only top folder). Raises Refused."""
    if len(data) > limits.archive_bytes:
        raise Refused(f"archive too large: over {limits.archive_bytes} bytes")
    target.mkdir()
    target.chmod(0o755)  # (the arena's umask is 077)
    written = count = 0
    for path, kind, mode, chunks in _members(data):
        count += 1
        if count > limits.members:
            raise Refused(f"too many files: over {limits.members}")
        if path == PurePosixPath("."):
            continue
        if JUNK_FOLDERS & set(path.parts) or path.name in JUNK_FILES:
            continue  # (its chunks are never read: nothing of it is written)
        destination = target.joinpath(*path.parts)
        # Every folder on the way is one this function made (no link can be in the tree).
        for parent in reversed(destination.relative_to(target).parents[:-1]):
            folder = target / parent
            if folder.is_symlink() or (folder.exists() and not folder.is_dir()):
                raise Refused(f"archive member {str(path)!r}: its folder is a file")
            folder.mkdir(exist_ok=True)
            folder.chmod(0o755)
        if kind == "dir":
            if destination.exists() and not destination.is_dir():
                raise Refused(f"archive member {str(path)!r}: both a file and a folder")
            destination.mkdir(exist_ok=True)
            destination.chmod(0o755)
            continue
        flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC
        try:
            handle = os.open(destination, flags, 0o600)
        except FileExistsError:
            raise Refused(f"archive member {str(path)!r}: given twice") from None
        with os.fdopen(handle, "wb") as out:
            for chunk in chunks:
                written += len(chunk)
                if written > limits.unpacked_bytes:
                    raise Refused(f"archive unpacks to over {limits.unpacked_bytes} bytes")
                out.write(chunk)
        # Readable by all (the sandbox may run it as nobody); executable as the archive said.
        os.chmod(destination, 0o755 if mode & 0o111 else 0o644)
    return _root(target)


def _root(target: Path) -> Path:
    if (target / MANIFEST).is_file():
        return target
    entries = [entry for entry in target.iterdir()]
    if len(entries) == 1 and entries[0].is_dir() and (entries[0] / MANIFEST).is_file():
        return entries[0]
    files = sorted(str(p.relative_to(target)) for p in target.rglob("*") if p.is_file())
    found = sorted(str(p.relative_to(target)) for p in target.rglob(MANIFEST))
    where = f"; there is one at {found[0]!r}: zip that folder itself" if found else ""
    shown = ", ".join(files[:10]) + (f", … ({len(files)} files)" if len(files) > 10 else "")
    raise Refused(
        f"no {MANIFEST} at the archive's root nor in its only top folder{where} "
        f"(the archive holds: {shown or 'no files'})"
    )


def read_manifest(folder: Path) -> Manifest:
    """`bot.toml`: `command` (a list of strings, its program relative to the folder) and an
    optional `build`. Raises Refused."""
    try:
        data = tomllib.loads((folder / MANIFEST).read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as error:
        raise Refused(f"{MANIFEST}: cannot read: {error}") from None
    unknown = sorted(set(data) - {"command", "build"})
    if unknown:
        raise Refused(f"{MANIFEST}: unknown key {unknown[0]!r} (command, build)")
    command, build = data.get("command"), data.get("build")
    for key, value in (("command", command), ("build", build)):
        if value is None and key == "build":
            continue
        if (
            not isinstance(value, list)
            or not value
            or not all(isinstance(part, str) and part and "\0" not in part for part in value)
        ):
            raise Refused(f"{MANIFEST}: {key} must be a non-empty list of strings")
    assert isinstance(command, list)
    for part in (command[0], *(build[:1] if isinstance(build, list) else ())):
        if part.startswith("/") or ".." in PurePosixPath(part).parts:
            raise Refused(f"{MANIFEST}: {part!r}: a program inside the folder or on PATH")
    return Manifest(tuple(command), tuple(build) if isinstance(build, list) else None)


def folder_bytes(folder: Path) -> int:
    return sum(p.lstat().st_size for p in folder.rglob("*") if p.is_file())
