"""pydantic's plugin loader, as the arena uses it: no plugin, and nothing imported to find none.

pydantic imports its loader to build any validator (typer builds some for every command's
options), and the loader imports `importlib.metadata` at once: 10 ms of the 0.2 s a short
command may take (bench/startup.py), for a search that `PYDANTIC_DISABLE_PLUGINS` turns off.
While it does, `find_none` makes the loader pydantic imports one whose `get_plugins()` returns
no plugin; anything else asked of it loads pydantic's own.
"""

from __future__ import annotations

import importlib
import os
import sys
from importlib.machinery import ModuleSpec
from types import ModuleType
from typing import TYPE_CHECKING, Any, cast

if TYPE_CHECKING:
    from importlib.abc import Loader

LOADER = "pydantic.plugin._loader"


def find_none() -> None:
    """Serve pydantic's plugin loader from here while PYDANTIC_DISABLE_PLUGINS disables all."""
    if os.environ.get("PYDANTIC_DISABLE_PLUGINS") not in ("__all__", "1", "true"):
        return
    if LOADER not in sys.modules and not any(isinstance(f, _Finder) for f in sys.meta_path):
        sys.meta_path.insert(0, _Finder())


def _no_plugins() -> tuple[()]:
    return ()


class _Finder:
    """An import finder and loader for the one module LOADER."""

    def __init__(self) -> None:
        self.serving = True

    def find_spec(self, name: str, path: Any = None, target: Any = None) -> ModuleSpec | None:
        if name != LOADER or not self.serving:
            return None
        return ModuleSpec(name, cast("Loader", self))  # duck-typed: importlib.abc costs more

    def create_module(self, spec: ModuleSpec) -> None:
        return None  # a plain module

    def exec_module(self, module: ModuleType) -> None:
        module.get_plugins = _no_plugins  # type: ignore[attr-defined]

        def real(name: str) -> Any:
            if name.startswith("__"):  # what the import system looks for (`__path__`...)
                raise AttributeError(name)
            self.serving = False
            if sys.modules.get(LOADER) is module:
                del sys.modules[LOADER]
            return getattr(importlib.import_module(LOADER), name)

        module.__getattr__ = real  # type: ignore[method-assign]
