"""Shared fixtures for the engine tests (rigged-deck helpers live in `tests/rigging.py`), the
golden runs (`tests/golden/golden.py`) and the browser (`test_viewer.Browser`); and what a test
needs from the machine: `@pytest.mark.needs("bwrap")` (or "chromium", which the `chromium`
fixture implies). Where it is missing the test is skipped with the reason, and the run's end
counts them in one line per tool ("12 tests need bubblewrap: apt-get install bubblewrap")."""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, NamedTuple

import pytest
from rigging import Pack

if TYPE_CHECKING:
    from test_viewer import Browser

sys.path.insert(0, str(Path(__file__).parent / "golden"))
import golden  # (tests/golden: a script's folder, put on the path just above)


@pytest.fixture
def pack() -> Pack:
    """One deck without knights, its cards looked up by name (`pack("7S 10H")`)."""
    return Pack()


@pytest.fixture(scope="session")
def golden_run(tmp_path_factory: pytest.TempPathFactory) -> Callable[[str], Path]:
    """`golden_run(name)`: the folder (`configs`, `fakes`) where the golden config `name` was
    run with the real CLI (`golden.run`), once per pytest-xdist worker for every test that reads
    it. Read-only: a test that writes beside the replays copies the folder first."""
    runs: dict[str, Path] = {}

    def run(name: str) -> Path:
        if name not in runs:
            work = tmp_path_factory.mktemp(f"golden-{name}") / "golden"
            golden.run(name, work)
            runs[name] = work
        return runs[name]

    return run


class Tool(NamedTuple):
    """A program some tests need from the machine (`@pytest.mark.needs(NAME)`)."""

    called: str  # as its package is called
    install: str  # how to get it on Debian/Ubuntu
    missing: Callable[[], str | None]  # None when it works here; otherwise why not, in words


def _no_bwrap() -> str | None:
    from arena.seats import sandbox

    return sandbox.probe()


def _no_chromium() -> str | None:
    from test_viewer import CHROMIUM

    return None if CHROMIUM is not None else "chromium is not installed"


TOOLS = {
    "bwrap": Tool("bubblewrap", "apt-get install bubblewrap", _no_bwrap),
    "chromium": Tool("Chromium", "apt-get install chromium", _no_chromium),
}


def _needed(tool: Tool) -> str:
    """The start of a skip's reason for a missing tool: what the run's last lines count."""
    return f"needs {tool.called}"


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:  # a test that opens a browser needs one
        if "chromium" in getattr(item, "fixturenames", ()):
            item.add_marker(pytest.mark.needs("chromium"))


@pytest.hookimpl(tryfirst=True)  # before the fixtures: a browser is not started to be skipped
def pytest_runtest_setup(item: pytest.Item) -> None:
    for mark in item.iter_markers("needs"):
        for name in mark.args:
            tool = TOOLS[name]
            if (problem := tool.missing()) is not None:
                pytest.skip(f"{_needed(tool)} ({problem}): {tool.install}")


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter) -> None:
    """One line per missing tool at the end of the run. The skips are counted from the
    reports the run's workers sent back (pytest-xdist), so `-n auto` counts them all."""
    reasons = [
        report.longrepr[2]
        for report in terminalreporter.stats.get("skipped", [])
        if isinstance(report.longrepr, tuple) and len(report.longrepr) == 3
    ]
    for tool in TOOLS.values():
        count = sum(reason.startswith(f"Skipped: {_needed(tool)} ") for reason in reasons)
        if count:
            tests = "test needs" if count == 1 else "tests need"
            terminalreporter.write_line(f"{count} {tests} {tool.called}: {tool.install}")


@pytest.fixture(scope="session")
def chromium(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Browser]:
    """One headless Chromium per pytest-xdist worker (about a second of CPU to start and stop),
    for the tests that open pages in it; each has a tab of its own (test_viewer's `browser`)."""
    from test_viewer import Browser

    started = Browser(tmp_path_factory.mktemp("chromium") / "profile")
    try:
        yield started
    finally:
        started.close()
