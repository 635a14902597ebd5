"""`replay verify` refuses every kind of tampering, and only that."""

from __future__ import annotations

import copy
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from arena.base import config as config_module
from arena.base.errors import ReplayError
from arena.replays.replay import from_json, read, verify
from arena.tournaments.runner import play_one_match


@pytest.fixture(scope="module")
def replay(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    folder = tmp_path_factory.mktemp("verify")
    path = folder / "c.toml"
    path.write_text(
        'seed = 11\n[rules]\nstartingPlayer = "Random"\n'
        '[[participants]]\nname = "a"\nbot = "easy"\n[[participants]]\nname = "b"\nbot = "random"\n'
    )
    config, seats = config_module.load(path)
    played = play_one_match(config, seats, match=0, seed=11, folder=folder / "replays", stamp="t")
    data: dict[str, Any] = json.loads(played.replay.read_text())
    return data


def first(replay: dict[str, Any], kind: str) -> dict[str, Any]:
    entry: dict[str, Any] = next(e for e in replay["transcript"] if e["message"]["type"] == kind)
    return entry


def test_an_untouched_replay_verifies(replay: dict[str, Any]) -> None:
    assert verify(from_json(replay)) is None


TAMPERINGS: dict[str, tuple[Callable[[dict[str, Any]], None], str]] = {
    "a count become true": (
        lambda r: first(r, "hand-update")["message"].update(result=True),
        "transcript[",
    ),
    "a count become a float": (
        lambda r: first(r, "hand-update")["message"].update(
            result=float(first(r, "hand-update")["message"]["result"])
        ),
        "transcript[",
    ),
    "a seat become false": (
        lambda r: r["transcript"][0]["message"].update(seat=False),
        "transcript[0]",
    ),
    "scores become floats": (
        lambda r: r["result"].update(scores=[float(s) for s in r["result"]["scores"]]),
        "result",
    ),
    "an unknown format": (lambda r: r.update(format="something-else/9"), "format"),
    "a rule of another type": (
        lambda r: r["config"]["rules"].update(startingHandSize="7"),
        "config.rules.startingHandSize: Input should be a valid integer",
    ),
    "a rule that does not exist": (
        lambda r: r["config"]["rules"].update(jokers=True),
        "config.rules.jokers: Extra inputs are not permitted",
    ),
    "another deal seed": (lambda r: r.update(dealSeed=r.get("dealSeed", r["seed"]) + 1), "seed"),
    "another starting seat": (
        lambda r: r.update(startingPlayer=1 - r["startingPlayer"]),
        "startingPlayer",
    ),
    "a swapped deck": (lambda r: r["deck"].insert(0, r["deck"].pop(5)), "deck"),
}


@pytest.mark.parametrize("name", list(TAMPERINGS))
def test_tampering_is_refused(replay: dict[str, Any], name: str) -> None:
    tamper, where = TAMPERINGS[name]
    tampered = copy.deepcopy(replay)
    tamper(tampered)
    try:  # refused as it is read (a value the arena never writes), or when played again
        difference = verify(from_json(tampered))
    except ReplayError as error:
        difference = str(error)
    assert difference is not None, name
    assert where in difference, difference


def test_a_replay_without_a_seed_is_checked_on_its_deck_alone(replay: dict[str, Any]) -> None:
    unseeded = copy.deepcopy(replay)
    unseeded["seed"] = None
    assert verify(from_json(unseeded)) is None


def test_the_written_file_verifies_as_read_back(tmp_path: Path, replay: dict[str, Any]) -> None:
    path = tmp_path / "r.json"
    path.write_text(json.dumps(replay))
    assert verify(read(path)) is None
