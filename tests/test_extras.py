"""A command whose optional extra is not installed says which in one line, exit 2 (issue 41):
each extra tested in a real virtual environment without its packages."""

from __future__ import annotations

import os
import subprocess
import sys
import sysconfig
import tomllib
from collections.abc import Callable
from pathlib import Path

import pytest

from arena.base import extras

ROOT = Path(__file__).resolve().parent.parent
TWO = "seed = 3\n[[participants]]\nname = 'ann'\nbot = 'random'\n[[participants]]\nname = 'bo'\nbot = 'random'\n"


@pytest.fixture(scope="module")
def without(tmp_path_factory: pytest.TempPathFactory) -> Callable[[str], Path]:
    """`without(extra)`: the python of a virtual environment holding this one's packages but
    those only `extra` brings (its site-packages: links to every entry of ours but theirs)."""
    made: dict[str, Path] = {}
    ours = Path(sysconfig.get_paths()["purelib"])

    def make(extra: str) -> Path:
        if extra not in made:
            folder = tmp_path_factory.mktemp(f"without-{extra}") / "venv"
            subprocess.run(
                [sys._base_executable, "-m", "venv", "--without-pip", str(folder)], check=True
            )
            theirs = Path(
                sysconfig.get_paths(vars={"base": str(folder), "platbase": str(folder)})["purelib"]
            )
            gone = _modules(extra) - set().union(
                *(_modules(e) for e in extras.EXTRAS if e != extra)
            )
            for entry in ours.iterdir():
                if entry.name.split(".")[0].split("-")[0] not in gone:
                    (theirs / entry.name).symlink_to(entry)
            made[extra] = folder / "bin" / "python"
        return made[extra]

    return make


def _modules(extra: str) -> set[str]:
    """What only `extra` brings (numpy stays without rl: openspiel brings it too)."""
    return {module for modules in extras.EXTRAS[extra].values() for module in modules}


def _run(python: Path, *args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV")}
    return subprocess.run(
        [str(python), *args],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


def _config(tmp_path: Path) -> Path:
    (tmp_path / "config.toml").write_text(TWO)
    return tmp_path / "config.toml"


@pytest.mark.parametrize(
    ("extra", "args", "said"),
    [
        ("league", ["-m", "arena", "league", "init", "season"], "arena league init"),
        ("league", ["-m", "arena", "league", "serve", "season"], "arena league serve"),
        ("parquet", ["-m", "arena", "export", "replays", "-o", "d.parquet"], "-o: a .parquet file"),
        (
            "dask",
            ["-m", "arena", "run", "config.toml", "--scheduler", "tcp://127.0.0.1:9"],
            "--scheduler",
        ),
        ("openspiel", ["-m", "arena.openspiel.bot"], "python -m arena.openspiel.bot"),
        ("rl", ["-m", "arena.openspiel.bot"], "python -m arena.openspiel.bot"),
        ("openspiel", ["-c", "import arena.openspiel"], None),
        ("rl", ["-c", "from arena.env import env"], None),
    ],
    ids=[
        "league-init",
        "league-serve",
        "parquet",
        "dask",
        "openspiel",
        "rl",
        "openspiel-import",
        "env-import",
    ],
)
def test_a_missing_extra_is_one_line_naming_it(
    without: Callable[[str], Path], tmp_path: Path, extra: str, args: list[str], said: str | None
) -> None:
    _config(tmp_path)
    (tmp_path / "replays").mkdir()
    if extra == "league" and args[-2] == "serve":
        assert _run(without("league"), "-m", "arena", "league", "init", "season", cwd=tmp_path)
    done = _run(without(extra), *args, cwd=tmp_path)
    hint = f"pip install 'gofish-arena[{extra}]'"
    if said is None:  # an import in a program of one's own: the error names the extra
        assert (
            done.returncode == 1
            and f"MissingExtra: {args[-1].split()[1]} needs the {extra} extra: {hint}"
            in done.stderr
        )
        return
    assert done.returncode == 2, done.stderr
    [line] = done.stderr.splitlines()
    assert line.startswith(said) and line.endswith(hint) and f"[{extra}]" in line, line


def test_the_extras_named_are_those_of_pyproject() -> None:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    declared = {
        extra: sorted(
            requirement.split(">")[0].split("[")[0].split("=")[0] for requirement in listed
        )
        for extra, listed in project["optional-dependencies"].items()
        if extra not in ("test", "lint")
    }
    assert declared == {extra: sorted(known) for extra, known in extras.EXTRAS.items()}


def test_a_missing_module_of_no_extra_is_not_blamed_on_one() -> None:
    error = ModuleNotFoundError("No module named 'arena.gone'", name="arena.gone")
    assert extras.missing_extra(error, "arena run") is None
    assert (
        extras.missing_extra(
            ModuleNotFoundError("No module named 'jinja2'", name="jinja2.ext"), "arena league"
        )
        == "arena league needs the league extra: pip install 'gofish-arena[league]'"
    )
