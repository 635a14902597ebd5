"""arena.env.vector.VectorEnv: Gymnasium's vector API over the core, autoreset, seeds, refusals.

The games themselves are held to the engine by tests/test_core.py; here, what the wrapper adds.
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest
from gymnasium import spaces

from arena.engine.match import MatchSetup
from arena.engine.rules import Rules
from arena.env.encoding import RANKS, SeatView, vector_length
from arena.env.vector import VectorEnv


def test_the_spaces_are_gymnasium_s_and_hold_what_is_returned() -> None:
    envs = VectorEnv(5, seats=3, rules="family-table")
    obs, infos = envs.reset(seed=4)
    assert envs.single_action_space == spaces.Discrete(3 * RANKS)
    assert envs.action_space.shape == (5,)
    assert obs.shape == (5, vector_length(3)) and obs.dtype == np.float32
    assert envs.observation_space.contains(obs)
    assert infos["action_mask"].shape == (5, 3 * RANKS)
    assert set(infos["seat"]) <= {0, 1, 2}
    obs, rewards, terminations, truncations, infos = envs.step(envs.sample_actions())
    assert rewards.shape == terminations.shape == truncations.shape == (5,)
    assert infos["rewards"].shape == (5, 3)


def test_a_seed_deals_arena_run_s_match_of_that_seed() -> None:
    """At the first ask (no book dealt at these seeds), the observation is the seat's view of
    `MatchSetup.from_seed(seed + i)`'s deal: its hand, everyone's size, the pond."""
    envs = VectorEnv(6, seats=2)
    obs, infos = envs.reset(seed=40)
    for i in range(6):
        setup = MatchSetup.from_seed(40 + i, ("a", "b"), Rules())
        seat = setup.starting_player
        assert infos["seat"][i] == seat
        view = SeatView(seat, 2, 52)
        hand = list(setup.deck[7 * seat : 7 * seat + 7])
        view.see({"type": "starting-hand", "hand": hand})
        view.see({"type": "ask", "hand": hand, "opponentsHandSizes": [7, 7], "pond": [0] * 38})
        assert np.array_equal(obs[i], view.vector())


def test_an_ended_game_pays_its_seats_and_is_dealt_again_from_its_next_seed() -> None:
    envs = VectorEnv(4, seats=2)
    _, infos = envs.reset(seed=100)
    ended = 0
    for _ in range(400):
        acted = infos["seat"].copy()
        obs, rewards, terminations, truncations, infos = envs.step(envs.sample_actions())
        for i in np.flatnonzero(terminations | truncations):
            paid = infos["rewards"][i]
            assert rewards[i] == paid[acted[i]]
            assert sorted(paid) in ([-1.0, 1.0], [1.0, 1.0])  # a win and a loss, or a tie
            if ended == 0:  # the first game to end in slot i was seed 100 + i: next, 104 + i
                fresh, _ = VectorEnv(1, seats=2).reset(seed=[100 + 4 + int(i)])
                assert np.array_equal(obs[i], fresh[0])
            ended += 1
        assert not rewards[~(terminations | truncations)].any()
    assert ended >= 8


def test_an_action_outside_the_mask_is_refused_and_the_turn_passes() -> None:
    envs = VectorEnv(3, seats=3)
    _, infos = envs.reset(seed=9)
    seat = infos["seat"].copy()
    own = seat * RANKS  # asking oneself
    _, rewards, _, _, infos = envs.step(own)
    assert list(infos["seat"]) == list((seat + 1) % 3)
    assert not rewards.any()


def test_the_same_seed_plays_the_same_games() -> None:
    runs = []
    for _ in range(2):
        envs = VectorEnv(8, seats=4, rules="family-table")
        obs, _ = envs.reset(seed=[3, 1, 4, 1, 5, 9, 2, 6])
        trace = [obs]
        for _ in range(50):
            trace.append(envs.step(envs.sample_actions())[0])
        runs.append(np.stack(trace))
    assert np.array_equal(runs[0], runs[1])


@pytest.mark.parametrize(
    ("kwargs", "says"),
    [
        ({"draws": "choose"}, "draws: the vector environment draws at random"),
        ({"seats": 1}, "seats: 2 to 64"),
        ({"seats": 8}, "the deal needs 56 cards but the pack has 52"),
        ({"refill_empty_hand": 5, "refill_when": "On its turn"}, "refillWhen"),
        ({"reward": "chips"}, "reward"),
        ({"num_envs": 0}, "num_envs"),
    ],
)
def test_what_the_environment_does_not_cover_is_refused_in_one_line(
    kwargs: dict[str, object], says: str
) -> None:
    options: dict[str, object] = {"num_envs": 2, **kwargs}
    with pytest.raises(ValueError, match=says) as refused:
        VectorEnv(**options)  # type: ignore[arg-type]
    assert "\n" not in str(refused.value)


@pytest.mark.parametrize("seed", [-1, 2**64, 1.5, [1, 2]])
def test_a_seed_out_of_range_is_refused(seed: object) -> None:
    with pytest.raises(ValueError, match="seed"):
        VectorEnv(3).reset(seed=seed)  # type: ignore[arg-type]


def test_the_vector_example_reads_the_features_the_aec_example_reads() -> None:
    """examples/learn_vector.py's batched φ is examples/learn.py's, ask by ask; its training
    ends games and moves θ."""
    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "examples"))
    try:
        import learn
        import learn_vector
    finally:
        sys.path.pop(0)
    envs = VectorEnv(16, seats=2)
    obs, infos = envs.reset(seed=5)
    for _ in range(30):
        phi = learn_vector.all_features(obs, 2, infos["seat"])
        for game in range(16):
            legal = infos["action_mask"][game].nonzero()[0].tolist()
            one = learn.features(obs[game], 2, int(infos["seat"][game]), legal)
            assert np.allclose(phi[game, legal], one)
        obs, _, _, _, infos = envs.step(envs.sample_actions())
    theta = learn_vector.train(VectorEnv(8, seats=2), 20, 0.01, np.random.default_rng(0))
    assert np.abs(theta).sum() > 0
