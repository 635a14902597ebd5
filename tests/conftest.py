"""Shared fixtures for the engine tests (rigged-deck helpers live in `tests/rigging.py`)."""

from __future__ import annotations

import pytest
from rigging import Pack


@pytest.fixture
def pack() -> Pack:
    """One deck without knights, its cards looked up by name (`pack("7S 10H")`)."""
    return Pack()
