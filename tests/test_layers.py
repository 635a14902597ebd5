"""The import contract: the folders of `arena/` are layers, and docs/design.md says their order."""

from __future__ import annotations

import ast
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "arena"


def _declared(prefix: str) -> list[str]:
    text = (ROOT / "docs" / "design.md").read_text(encoding="utf-8")
    match = re.search(rf"^{prefix}: (.+)$", text, flags=re.MULTILINE)
    assert match, f"docs/design.md has no line '{prefix}: …'"
    return [name.strip() for name in match.group(1).split(",")]


def _imports(path: Path) -> set[str]:
    """Every module `path` imports (`from arena import x` counts as `arena.x`)."""
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found.add(node.module)
            if node.module == "arena":
                found |= {f"arena.{alias.name}" for alias in node.names}
    return found


def wrong_way(layers: list[str], stdlib_only: set[str]) -> list[str]:
    """Each import that points to a later layer, or out of the standard library where it must not."""
    rank = {name: index for index, name in enumerate(layers)}
    problems = []
    for path in sorted(PACKAGE.rglob("*.py")):
        parts = path.relative_to(PACKAGE).parts
        if len(parts) == 1:
            continue  # arena/__init__.py and __main__.py sit above every layer
        layer = parts[0]
        for module in sorted(_imports(path)):
            top, _, rest = module.partition(".")
            if top == "arena":
                target = rest.split(".")[0]
                if target in rank and rank[target] > rank[layer]:
                    problems.append(
                        f"{path.relative_to(ROOT)} imports {module} (layer {target} is above {layer})"
                    )
            elif (
                layer in stdlib_only and top not in sys.stdlib_module_names and top != "__future__"
            ):
                problems.append(
                    f"{path.relative_to(ROOT)} imports {module}, which is not the standard library"
                )
    return problems


def test_every_folder_is_a_declared_layer() -> None:
    folders = sorted(
        p.name for p in PACKAGE.iterdir() if p.is_dir() and (p / "__init__.py").exists()
    )
    assert sorted(_declared("Layers, lowest first")) == folders


def test_no_import_points_the_wrong_way() -> None:
    assert (
        wrong_way(_declared("Layers, lowest first"), set(_declared("Standard library only"))) == []
    )


def test_the_check_sees_a_wrong_import() -> None:
    # Reversing the order must turn the tree's real imports into complaints.
    layers = _declared("Layers, lowest first")
    assert wrong_way(list(reversed(layers)), set())
    assert any("not the standard library" in p for p in wrong_way(layers, set(layers)))
