"""Shared fixtures for the engine tests (rigged-deck helpers live in `tests/rigging.py`), the
golden runs (`tests/golden/golden.py`) and the browser (`test_viewer.Browser`)."""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING

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


@pytest.fixture(scope="session")
def chromium(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Browser]:
    """One headless Chromium per pytest-xdist worker (about a second of CPU to start and stop),
    for the tests that open pages in it; each has a tab of its own (test_viewer's `browser`)."""
    from test_viewer import CHROMIUM, Browser

    if CHROMIUM is None:
        pytest.skip("chromium is not installed (CI installs it: apt-get install -y chromium)")
    started = Browser(tmp_path_factory.mktemp("chromium") / "profile")
    try:
        yield started
    finally:
        started.close()
