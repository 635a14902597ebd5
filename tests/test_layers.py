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


def _module_name(package: Path, path: Path) -> str:
    parts = list(path.relative_to(package.parent).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _loaded(known: set[str], module: str, names: list[str]) -> set[str]:
    """The modules of `known` that `from module import names` (or `import module`) runs."""
    parts = module.split(".")
    found = {".".join(parts[:n]) for n in range(1, len(parts) + 1)}
    found |= {f"{module}.{name}" for name in names}
    return found & known


def _is_type_checking(node: ast.AST) -> bool:
    return isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test)


def _split_imports(known: set[str], path: Path) -> tuple[set[str], set[str]]:
    """The modules of `known` that `path` imports when it is loaded, and those it imports
    only inside a function (when the function runs); `if TYPE_CHECKING:` imports never run."""
    loaded: set[str] = set()
    deferred: set[str] = set()

    def visit(node: ast.AST, in_function: bool) -> None:
        for child in ast.iter_child_nodes(node):
            if _is_type_checking(child):
                continue
            if isinstance(child, ast.Import):
                for alias in child.names:
                    (deferred if in_function else loaded).update(_loaded(known, alias.name, []))
            elif isinstance(child, ast.ImportFrom) and child.module and child.level == 0:
                names = [alias.name for alias in child.names]
                (deferred if in_function else loaded).update(_loaded(known, child.module, names))
            visit(child, in_function or isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef))

    visit(ast.parse(path.read_text(encoding="utf-8")), False)
    return loaded, deferred


def hidden_circles(package: Path) -> list[str]:
    """Each import inside a function of a module that, when loaded, leads back to that module:
    a circle the function hides (importing it at the top would fail)."""
    graph: dict[str, set[str]] = {}
    deferred: dict[str, set[str]] = {}
    paths = sorted(package.rglob("*.py"))
    known = {_module_name(package, path) for path in paths}
    for path in paths:
        name = _module_name(package, path)
        graph[name], deferred[name] = _split_imports(known, path)

    def reaches(start: str, goal: str) -> bool:
        seen, todo = {start}, [start]
        while todo:
            for nxt in graph.get(todo.pop(), set()) - seen:
                if nxt == goal:
                    return True
                seen.add(nxt)
                todo.append(nxt)
        return False

    return [
        f"{module} imports {target} inside a function, and {target} imports {module} back"
        for module in sorted(deferred)
        for target in sorted(deferred[module])
        if target != module and not target.startswith(module + ".") and reaches(target, module)
    ]


def test_no_import_circle_is_hidden_in_a_function() -> None:
    assert hidden_circles(PACKAGE) == []


def test_the_check_sees_a_hidden_circle(tmp_path: Path) -> None:
    # The shape arena.seats had: replies imports process inside a function; process imports
    # replies (through channel) when it is loaded.
    seats = tmp_path / "arena" / "seats"
    seats.mkdir(parents=True)
    for folder in (tmp_path / "arena", seats):
        (folder / "__init__.py").write_text("")
    (seats / "replies.py").write_text(
        "def close_all():\n    from arena.seats.process import wait_for_exits\n"
    )
    (seats / "channel.py").write_text("from arena.seats.replies import Fault\n")
    (seats / "process.py").write_text("from arena.seats import channel\n")
    assert hidden_circles(tmp_path / "arena") == [
        (
            "arena.seats.replies imports arena.seats.process inside a function,"
            " and arena.seats.process imports arena.seats.replies back"
        )
    ]
    (seats / "channel.py").write_text("import json\n")
    assert hidden_circles(tmp_path / "arena") == []
