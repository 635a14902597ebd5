"""`raw_env(messages=False)`: the AEC environment stepped by the core, held to the engine path.

Each case plays seeded games on the fast path (random actions of the mask, one in eight from
the whole action space: refused as the engine refuses them); the same actions and the core's
draws are played again on the engine path, and at every step the agent to move, its
observation and mask, every reward, termination, truncation and end info must be the engine's.
"""

from __future__ import annotations

import random
import warnings
from pathlib import Path
from typing import Any

import numpy as np
import pytest

pytest.importorskip("pettingzoo", reason="the [rl] extra (pettingzoo, gymnasium) is not installed")

from pettingzoo.test import api_test, seed_test

from arena.base.config import named_rules
from arena.core import FISHED, PICKED
from arena.engine.rules import NextPlayer, RefillWhen, Rules, StartingPlayer
from arena.env import env, raw_env

ROOT = Path(__file__).resolve().parents[1]
ADVICE = (
    "Observation is not a NumPy array",
    "Observation space for each agent probably should be",
)

# (name, seats, raw_env keywords): the settings the core covers, the ends it can reach.
CASES = [
    ("classic-2", 2, {}),
    ("classic-4", 4, {}),
    ("family-two", 2, {"rules": "family-two"}),
    ("family-table-3", 3, {"rules": ROOT / "configs" / "family-table.toml"}),
    ("kitchen-table-4", 4, {"rules": named_rules("kitchen-table")}),
    ("decks-knights-books", 3, {"number_of_decks": 2, "knights": True, "reward": "books"}),
    ("lucky-random-start", 3, {"lucky_draw": True, "starting_player": StartingPlayer.RANDOM}),
    (
        "refill-on-turn-after-asker",
        4,
        {
            "refill_empty_hand": 6,
            "refill_when": RefillWhen.ON_ITS_TURN,
            "min_hand_size": 0,
            "next_player": NextPlayer.AFTER_ASKER,
        },
    ),
    ("draw-when-no-one", 3, {"draw_when_no_one_to_ask": True, "min_hand_size": 0}),
    ("turn-limit", 2, {"max_turns": 12}),
    ("stalled", 2, {"max_idle_turns": 2}),
]


class Replayed:
    """The engine path's draw generator, giving the pond places the core took, in order."""

    def __init__(self, places: list[int]) -> None:
        self.places = iter(places)

    def randrange(self, bound: int) -> int:
        place = next(self.places)
        assert 0 <= place < bound
        return place


class EngineReplay(raw_env):  # type: ignore[misc]
    """The engine path with its draws replaced by given ones."""

    draws_given: Replayed | None = None

    @property
    def _rng(self) -> Any:
        return self.draws_given

    @_rng.setter
    def _rng(self, value: Any) -> None:
        pass


Step = tuple[str, np.ndarray, np.ndarray, float, bool, bool, dict[str, Any], Any]


def play_fast(game: raw_env, seed: int, rng: random.Random) -> tuple[list[Step], list[int]]:
    """A seeded game on the fast path: every `last()` and the action taken, and the draws."""
    game.reset(seed=seed)
    steps: list[Step] = []
    for agent in game.agent_iter(10_000):
        obs, reward, term, trunc, info = game.last()
        if term or trunc:
            action = None
        elif rng.random() < 0.125:
            action = rng.randrange(game.actions)
        else:
            action = int(rng.choice(np.flatnonzero(obs["action_mask"])))
        steps.append(
            (agent, obs["observation"], obs["action_mask"], reward, term, trunc, info, action)
        )
        game.step(action)
    draws = [a for kind, _, _, a, *_ in game.batch.events(0) if kind in (FISHED, PICKED)]
    return steps, draws


def check_on_engine(
    seats: int, options: dict[str, Any], seed: int, steps: list[Step], draws: list[int]
) -> None:
    """The same actions and draws on the engine path: every step must be the fast path's."""
    engine = EngineReplay(seats, **options)
    engine.draws_given = Replayed(draws)
    engine.reset(seed=seed)
    assert engine.batch is None
    for at, (agent, vector, mask, reward, term, trunc, info, action) in enumerate(steps):
        assert engine.agent_selection == agent, at
        obs, e_reward, e_term, e_trunc, e_info = engine.last()
        assert (e_reward, e_term, e_trunc) == (reward, term, trunc), at
        assert {k: v for k, v in e_info.items() if k != "messages"} == info, at
        if not (term or trunc):
            assert np.array_equal(obs["observation"], vector), at
            assert np.array_equal(obs["action_mask"], mask), at
        engine.step(action)
    assert not engine.agents
    assert next(engine.draws_given.places, None) is None  # every draw of the core was the engine's


def fast_env(seats: int, options: dict[str, Any]) -> raw_env:
    game = raw_env(seats, messages=False, **options)
    game.batch = game._core(record=True)  # the same core, recording its draws
    assert game.batch is not None
    return game


@pytest.mark.parametrize(("name", "seats", "options"), CASES, ids=[c[0] for c in CASES])
def test_fast_path_is_the_engine_path(name: str, seats: int, options: dict[str, Any]) -> None:
    rng = random.Random(name)
    ends = set()
    for seed in range(12):
        game = fast_env(seats, options)
        steps, draws = play_fast(game, seed, rng)
        assert "message" not in steps[0][6] and all("messages" not in s[6] for s in steps)
        ends.add(steps[-1][6]["outcome"])
        check_on_engine(seats, options, seed, steps, draws)
    if name == "turn-limit":
        assert ends == {"turn-limit"}
    if name == "stalled":
        assert "stalled" in ends


class WrongMask:
    """A core whose mask or observation is off by one bit (the mutation the test must catch)."""

    def __init__(self, batch: Any, part: int) -> None:
        self.batch, self.part, self.calls = batch, part, 0

    def __getattr__(self, name: str) -> Any:
        return getattr(self.batch, name)

    def observe(self, obs: Any, mask: Any, seats: Any) -> None:
        self.batch.observe(obs, mask, seats)
        self.calls += 1
        if self.calls == 5:
            target = (obs, mask)[self.part]
            target[0] = 1 - target[0]


@pytest.mark.parametrize("part", [0, 1], ids=["observation", "mask"])
def test_a_wrong_core_is_caught(part: int) -> None:
    game = fast_env(2, {})
    game.batch = WrongMask(game.batch, part)
    steps, draws = play_fast(game, 3, random.Random(1))
    kind = ("float32", "int8")[part]  # the step's observation, or its mask, is caught
    with pytest.raises(AssertionError, match=rf"(?s)array_equal.*dtype={kind}"):
        check_on_engine(2, {}, 3, steps, draws)


@pytest.mark.parametrize(
    ("seats", "options"),
    [
        (2, {"draws": "choose"}),  # chosen draws are decisions: the engine's
        (65, {"number_of_decks": 3, "starting_hand_size": 2}),  # more seats than the core holds
    ],
    ids=["draws-choose", "65-seats"],
)
def test_what_the_core_does_not_cover_falls_back_to_the_engine(
    seats: int, options: dict[str, Any]
) -> None:
    game = raw_env(seats, messages=False, **options)
    assert game.batch is None
    assert "message" not in game.observation_space("seat_0").spaces
    game.reset(seed=5)
    assert set(game.observe(game.agent_selection)) == {"observation", "action_mask"}
    for agent in game.agent_iter(100_000):
        obs, _, term, trunc, info = game.last()
        assert "messages" not in info
        mask = obs["action_mask"]
        game.step(None if term or trunc else int(np.flatnonzero(mask)[0]))
    assert game.result is not None


@pytest.mark.parametrize(
    "options",
    [
        {"seats": 2, "messages": False},
        {"seats": 4, "messages": False, "lucky_draw": True, "reward": "books"},
        {"seats": 2, "messages": False, "draws": "choose"},
    ],
    ids=["fast-2", "fast-4", "engine-choose"],
)
def test_pettingzoo_api_test(options: dict[str, Any]) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        for advice in ADVICE:
            warnings.filterwarnings("ignore", advice)
        api_test(env(**options), num_cycles=200)


def test_pettingzoo_seed_test() -> None:
    seed_test(lambda: env(seats=3, messages=False, lucky_draw=True), num_cycles=200)


def test_a_seed_the_core_cannot_take_is_refused() -> None:
    game = raw_env(2, messages=False)
    with pytest.raises(ValueError, match="seed"):
        game.reset(seed=-1)


def test_messages_stay_by_default() -> None:
    game = raw_env(2, rules=Rules())
    game.reset(seed=1)
    assert game.batch is None and "message" in game.observe(game.agent_selection)
