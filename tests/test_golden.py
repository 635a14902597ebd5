"""The golden replays, played again: the regression net of every setting and fault kind.

A failure here means the arena now plays a recorded match differently. If that is on purpose,
regenerate with `python tests/golden/golden.py --write` and commit the diff with the reason.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import golden  # tests/golden/golden.py, put on the path by conftest
import pytest


@pytest.mark.needs("bwrap")  # the golden replays record their participants' sandbox
@pytest.mark.parametrize("name", golden.names())
def test_golden_replay_plays_the_same(name: str, golden_run: Callable[[str], Path]) -> None:
    recorded = json.loads((golden.RECORDED / f"{name}.json").read_text(encoding="utf-8"))
    played = golden.read(golden_run(name))  # (a run test_fork may read too)
    assert golden.differences(recorded, played) == []


def test_every_golden_config_is_recorded() -> None:
    assert sorted(p.stem for p in golden.RECORDED.glob("*.json")) == golden.names()


def test_the_comparison_can_fail() -> None:
    recorded = {"a": [1, {"b": 2}], "c": "x"}
    assert golden.differences(recorded, {"a": [1, {"b": 2, "new": 0}], "c": "x", "d": 1}) == []
    assert golden.differences(recorded, {"a": [1, {"b": 3}], "c": "x"}) != []
    assert golden.differences(recorded, {"a": [1], "c": "x"}) != []
    assert golden.differences(recorded, {"a": [1, {"b": 2}]}) != []
    assert golden.differences({"n": 1}, {"n": 1.0}) != []
