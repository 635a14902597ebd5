"""The optional extras of `pyproject.toml` and what to say when one is missing.

`pip install .` gives `arena run`, `check`, `play`, the replays and tournaments; the rest needs
an extra. A command whose extra is missing says which in one line, exit 2, never a traceback:

    arena league needs the league extra: pip install 'gofish-arena[league]'

The CLI turns a `ModuleNotFoundError` of an extra's module into that line (`missing_extra`);
a package of the arena that needs an extra calls `require` before its imports.
"""

from __future__ import annotations

import importlib.util
import sys
from typing import Final

# Each extra's requirements (as pyproject.toml names them) and the modules they are imported by.
EXTRAS: Final[dict[str, dict[str, tuple[str, ...]]]] = {
    "league": {
        "starlette": ("starlette",),
        "uvicorn": ("uvicorn",),
        "jinja2": ("jinja2",),
        "python-multipart": ("multipart", "python_multipart"),
        "httpx": ("httpx",),
    },
    "dask": {"dask": ("dask", "distributed")},
    "rl": {"pettingzoo": ("pettingzoo",), "gymnasium": ("gymnasium",), "numpy": ("numpy",)},
    "openspiel": {"open-spiel": ("pyspiel", "open_spiel"), "numpy": ("numpy",)},
    "parquet": {"pyarrow": ("pyarrow",)},
}


class MissingExtra(ModuleNotFoundError):
    """An extra of gofish-arena is not installed; the message is the one line to show."""


def needed(what: str, extra: str) -> str:
    """The one line: `what` needs `extra`, and how to install it."""
    return f"{what} needs the {extra} extra: pip install 'gofish-arena[{extra}]'"


def extra_of(module: str | None) -> str | None:
    """The extra that brings `module` (a dotted name: its top level counts), or None."""
    top = (module or "").partition(".")[0]
    for extra, requirements in EXTRAS.items():
        if any(top in modules for modules in requirements.values()):
            return extra
    return None


def missing_extra(error: ModuleNotFoundError, what: str) -> str | None:
    """The one line for an import that failed because an extra is missing, or None when the
    missing module is no extra's (a bug to show as it is)."""
    if isinstance(error, MissingExtra):
        return str(error)
    extra = extra_of(error.name)
    return needed(what, extra) if extra is not None else None


def require(extra: str, what: str) -> None:
    """Raise MissingExtra (the one line) unless every module of `extra` can be imported.

    When this process is `python -m` a module of `what` (say `python -m arena.openspiel.bot`),
    the line is written to stderr and the process exits 2 instead: a command, not a traceback.
    """
    if all(any(map(_importable, modules)) for modules in EXTRAS[extra].values()):
        return
    argv = getattr(sys, "orig_argv", [])
    ran = argv[argv.index("-m") + 1] if "-m" in argv[:-1] else ""
    if ran == what or ran.startswith(f"{what}."):
        sys.stderr.write(needed(f"python -m {ran}", extra) + "\n")
        raise SystemExit(2)
    raise MissingExtra(needed(what, extra))


def _importable(module: str) -> bool:
    try:
        return importlib.util.find_spec(module) is not None
    except ValueError:  # imported already, without a spec
        return module in sys.modules
