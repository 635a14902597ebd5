"""A participant's own program: the files and folders its command names, and the rule that
every other participant's are hidden from it.

    named = named_files(["python3", "-m", "rivalbot"], folder)  # [folder / "rivalbot"]
    seats = hide_rivals(seats)  # each Entrant's `hidden` gains the others' programs

The one rule of what is a participant's program: its sandbox gives it these
(`arena.seats.sandbox`), every other participant's sandbox masks them, its fingerprint hashes
them (`arena.seats.fingerprint`), a cluster's worker is checked for them
(`arena.tournaments.cluster`), and a league's version is made of them (`arena.league.season`).
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Mapping, Sequence
from pathlib import Path

from arena.base.config import Entrant

# The options by which a Java command names its class path (`-cp DIR:app.jar`).
CLASS_PATH_OPTIONS = ("-cp", "-classpath", "--class-path")
JAVA_PROGRAMS = ("java",)


def named_files(
    command: Sequence[str], folder: Path, env: Mapping[str, str] | None = None
) -> list[Path]:
    """The files and folders a command names as its own, absolute: its program, a script, a
    data file, the entries of a Java class path (`-cp DIR:app.jar`, and `.` when a `java`
    command gives none), and the module `python -m NAME` runs (found in the folder, in
    `PYTHONPATH` and in the interpreter's `site-packages`; `env`: the participant's, for its
    PATH). The one rule of what is a participant's program: its sandbox gives it these, every
    other participant's sandbox masks them (`arena.seats.sandbox`).

    An argument counts when it names an existing file or folder relative to `folder` (or
    absolutely); options (`-m`, `--flag`) never do; the folder itself and the folders above it
    never do (they are the organiser's: a class path `.` there names the class files in it).
    """
    found: list[Path] = []
    for index, part in enumerate(command):
        if not part or "\0" in part or (index and part.startswith("-")):
            continue
        if index == 0 and "/" not in part:
            continue  # a program found on PATH is a runtime, not the participant's own file
        if index and command[index - 1] in CLASS_PATH_OPTIONS:
            continue  # (below, entry by entry)
        candidate = _existing(folder, part)
        if candidate is not None and not _holds(candidate, folder):
            found.append(candidate)
    found += _class_path(command, folder, env)
    found += _module(command, folder, env)
    return list(dict.fromkeys(found))


def _holds(candidate: Path, folder: Path) -> bool:
    """Whether `candidate` is the organiser's folder or a folder above it (never a
    participant's own: it holds the config and everyone's files)."""
    here = os.path.abspath(folder)
    top = str(candidate).rstrip("/")
    return candidate.is_dir() and (here == str(candidate) or here.startswith(f"{top}/"))


def _existing(folder: Path, part: str) -> Path | None:
    try:
        candidate = Path(os.path.abspath(folder / part))
        return candidate if candidate.is_file() or candidate.is_dir() else None
    except (OSError, ValueError):
        return None


def _class_path(command: Sequence[str], folder: Path, env: Mapping[str, str] | None) -> list[Path]:
    """A `java` command's class path entries (a folder, a jar); `.` when it names none (nor
    CLASSPATH, nor -jar); a class path that is the organiser's folder names its class files."""
    if not command or os.path.basename(command[0]) not in JAVA_PROGRAMS or "-jar" in command:
        return []
    given = [command[i + 1] for i, part in enumerate(command[:-1]) if part in CLASS_PATH_OPTIONS]
    if not given:
        given = [(env or {}).get("CLASSPATH") or os.environ.get("CLASSPATH") or "."]
    found: list[Path] = []
    here = Path(os.path.abspath(folder))
    for entries in given:
        for entry in entries.split(os.pathsep):
            if not entry or "*" in entry or (path := _existing(folder, entry)) is None:
                continue
            if path == here:  # the organiser's folder: its class files only
                found += sorted(p for p in here.glob("*.class") if p.is_file())
            elif not _holds(path, folder):
                found.append(path)
    return found


def _module(command: Sequence[str], folder: Path, env: Mapping[str, str] | None) -> list[Path]:
    """The package or module `python -m NAME` runs, where it lies; [] for the arena's own."""
    if "-m" not in command[1:-1]:
        return []
    name = command[command.index("-m", 1) + 1].split(".")[0]
    if not name or name == "arena" or "/" in name:
        return []
    places = [Path(os.path.abspath(folder))]
    places += [Path(p) for p in (env or {}).get("PYTHONPATH", "").split(os.pathsep) if p]
    program = command[0]
    path = (env or {}).get("PATH") or os.environ.get("PATH", os.defpath)
    located = (
        os.path.abspath(folder / program) if "/" in program else shutil.which(program, path=path)
    )
    if located is not None:
        for prefix in dict.fromkeys(
            (Path(located).parent.parent, Path(os.path.realpath(located)).parent.parent)
        ):
            for packages in ("site-packages", "dist-packages"):
                places += sorted(prefix.glob(f"lib/python3*/{packages}"))
    for place in places:
        for candidate in (place / name, place / f"{name}.py"):
            if candidate.is_dir() or candidate.is_file():
                return [Path(os.path.abspath(candidate))]
    return []


def hide_rivals(seats: Sequence[Entrant]) -> list[Entrant]:
    """Each seat with every other participant's named files that are not its own added to what
    it must not see (after the organiser's files `config.load` hides)."""
    owned = [
        set()
        if seat.bot is not None
        else {str(file) for file in named_files(seat.command, seat.cwd, seat.env)}
        for seat in seats
    ]
    result = []
    for index, seat in enumerate(seats):
        others = (
            set().union(*(files for other, files in enumerate(owned) if other != index))
            - owned[index]
        )
        result.append(seat.model_copy(update={"hidden": (*seat.hidden, *sorted(others))}))
    return result
