"""The docs point where they say: every "contract §N.M" names a section of docs/contract.md,
no file cites a SPEC.md the repository does not carry, and every relative link in the docs
leads to a file that exists; a docstring (in arena/, bench/, tests/), the docs, the README
and pyproject.toml name only modules and paths that exist; the docs' lists (the built-in levels,
the buffering advice per language) are whole."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
CONTRACT = ROOT / "docs" / "contract.md"
CITED = re.compile(r"contract (§[\d.–, §]+)")


def _texts() -> list[Path]:
    found = [ROOT / "README.md", *(ROOT / "docs").glob("*.md")]
    for folder in ("arena", "tests", "bench", "participants"):
        found += [p for p in (ROOT / folder).rglob("*") if p.suffix in {".py", ".md", ".js", ".c"}]
    return [p for p in found if p.is_file() and p != Path(__file__)]


def _sections() -> set[str]:
    text = CONTRACT.read_text(encoding="utf-8")
    numbers = set(re.findall(r"^## (\d+)\. ", text, re.MULTILINE))
    numbers |= set(re.findall(r"^\*\*(\d+\.\d+) ", text, re.MULTILINE))
    numbers |= set(re.findall(r"^\*\*(\d+\.\d+\.\d+) ", text, re.MULTILINE))
    # §2.5's numbered steps: "§2.5.2" names the second of them.
    steps = re.search(r"\*\*2\.5 .*?\n\n(.*?)\n\n\*\*2\.6", text, re.DOTALL)
    assert steps is not None
    numbers |= {f"2.5.{n}" for n in re.findall(r"^(\d+)\. ", steps.group(1), re.MULTILINE)}
    return numbers


def test_every_contract_citation_names_a_section() -> None:
    sections = _sections()
    assert {"1", "2", "2.6", "2.7", "3.3", "4.5", "5.1", "6.1"} <= sections
    wrong = []
    for path in _texts():
        for match in CITED.finditer(path.read_text(encoding="utf-8")):
            for cited in re.findall(r"\d+(?:\.\d+)*", match.group(1)):
                if cited not in sections:
                    wrong.append(f"{path.relative_to(ROOT)}: contract §{cited}")
    assert not wrong, wrong


def test_nothing_cites_spec_md() -> None:
    wrong = [
        f"{path.relative_to(ROOT)}:{number}"
        for path in _texts()
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
        if re.search(r"\bSPEC\b", line)
    ]
    assert not wrong, wrong


def test_relative_links_in_docs_lead_to_files() -> None:
    wrong = []
    for doc in [ROOT / "README.md", *(ROOT / "docs").glob("*.md")]:
        for target in re.findall(r"\]\(([^)#\s]+)(?:#[^)]*)?\)", doc.read_text(encoding="utf-8")):
            if "://" in target or target.startswith("mailto:"):
                continue
            if not (doc.parent / target).exists():
                wrong.append(f"{doc.relative_to(ROOT)}: {target}")
    assert not wrong, wrong


def test_the_contract_says_what_a_timeout_costs() -> None:
    # The wrong docs: a timeout does not just lose a turn, it stops the participant.
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert "late) loses the turn" not in readme
    assert "stopped for the rest of the match" in readme
    assert "for the rest of the match" in CONTRACT.read_text(encoding="utf-8")


# A dotted name of the arena, or a path of the repository, as a docstring mentions it.
_DOTTED = re.compile(r"(?<![\w./-])(arena(?:\.[A-Za-z_]\w*)+)")
_PATH = re.compile(
    r"(?<![\w./-])((?:arena|bench|docs|tests|configs|participants|examples)/[\w./-]*\w)"
)


def _defined(module: Path) -> set[str]:
    """The names a module defines or imports at its top level."""
    names: set[str] = set()
    for node in ast.parse(module.read_text(encoding="utf-8")).body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.add(node.name)
        elif isinstance(node, (ast.Assign, ast.AnnAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            names.update(n.id for t in targets for n in ast.walk(t) if isinstance(n, ast.Name))
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            names.update((alias.asname or alias.name).split(".")[0] for alias in node.names)
    return names


def _resolves(dotted: str) -> bool:
    """Whether `arena.x.y[.Name]` is a module of the checkout (and Name one it defines)."""
    parts = dotted.split(".")
    for end in range(len(parts), 0, -1):
        base = ROOT.joinpath(*parts[:end])
        for module in (base.with_suffix(".py"), base / "__init__.py"):
            if module.is_file():
                rest = parts[end:]
                return not rest or rest[0] in _defined(module)
    return False


# Named on purpose though absent: placeholders, a reader's own bot, what `make` builds, and
# `viewer.{html,css,js}` (the pattern stops at the brace).
_NOT_FILES = {
    "arena.x",
    "arena.x.y",
    "participants/alice_fixed.py",
    "participants/examples/most_held",
    "arena/ui/static/viewer",
}


def _missing(text: str) -> list[str]:
    """The dotted names and repository paths `text` mentions that the checkout does not hold."""
    names = [m for m in _DOTTED.findall(text) if m not in _NOT_FILES and not _resolves(m)]
    paths = [p for p in _PATH.findall(text) if p not in _NOT_FILES and not (ROOT / p).exists()]
    return names + paths


def test_docstrings_name_modules_and_paths_that_exist() -> None:
    wrong = []
    for folder in ("arena", "bench", "tests"):
        for source in sorted((ROOT / folder).rglob("*.py")):
            for node in ast.walk(ast.parse(source.read_text(encoding="utf-8"))):
                if not isinstance(
                    node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)
                ):
                    continue
                where = source.relative_to(ROOT)
                wrong += [f"{where}: {m}" for m in _missing(ast.get_docstring(node) or "")]
    assert not wrong, "docstrings name what does not exist:\n" + "\n".join(wrong)


def test_docs_name_modules_and_paths_that_exist() -> None:
    wrong = []
    for doc in [ROOT / "README.md", ROOT / "pyproject.toml", *sorted((ROOT / "docs").glob("*.md"))]:
        wrong += [f"{doc.relative_to(ROOT)}: {m}" for m in _missing(doc.read_text("utf-8"))]
    assert not wrong, "the docs name what does not exist:\n" + "\n".join(wrong)


def test_a_moved_module_is_caught() -> None:
    # The check itself can fail: names of modules that moved away are found missing.
    assert _missing("`arena.match`, `arena.ui.schema`, arena/bots.py, bench/codec.py") == [
        "arena.match",
        "arena.ui.schema",
        "arena/bots.py",
        "bench/codec.py",
    ]
    assert _missing("`arena.engine.match.play`, arena/replays/schema.py, docs/contract.md") == []


DOCS = ROOT / "docs"


def test_the_vs_levels_in_the_docs_are_every_built_in_level() -> None:
    from arena.bots import BOTS

    text = " ".join((DOCS / "testing-a-bot.md").read_text().split())
    said = text.split("a built-in level (", 1)[1].split(")", 1)[0]
    assert sorted(word.strip("` ") for word in said.split(",")) == sorted(BOTS)


@pytest.mark.parametrize(
    ("language", "advice"), [("Perl", "$| = 1;"), ("Ruby", "$stdout.sync = true")]
)
def test_the_buffering_advice_covers_perl_and_ruby(language: str, advice: str) -> None:
    for page in ("protocol.md", "check.md"):
        text = " ".join((DOCS / page).read_text().split())
        assert f"`{advice}` in {language}" in text or f"{language} (`{advice}`)" in text, page
