"""N games stepped at once, as a Gymnasium vector environment (`pip install '.[rl]'`).

    from arena.env.vector import VectorEnv
    envs = VectorEnv(1024, seats=2, rules="family-two")
    obs, infos = envs.reset(seed=7)           # game i is `arena run`'s deal of seed 7 + i
    while training:
        actions = policy(obs, infos["action_mask"])       # one ask per game
        obs, rewards, terminations, truncations, infos = envs.step(actions)

| | |
| --- | --- |
| games | `num_envs` tables of `seats` seats; one decision per game per step: the ask of the seat to move (`infos["seat"]`), every seat played by the caller (self-play) |
| rules | as `arena.env.raw_env`: a `Rules`, a ready rule set, a TOML file, then keyword settings (`lucky_draw=True`); every setting of the contract and the family rules |
| observations | `(num_envs, L)` float32: the seat to move's `SeatView.vector()` (arena/env/encoding.py), bit for bit |
| actions | `(num_envs,)` integers, `Discrete(seats × 14)` each: `a` asks seat `a // 14` for rank `a % 14`; one outside `infos["action_mask"]` is refused by the rules as the AEC environment's is (the turn passes) |
| draws | not decisions: every go-fish and pick-up takes a pond index from the game's own generator (seeded from the deal's seed); `draws="choose"` is refused (use `arena.env.raw_env`) |
| rewards | `(num_envs,)`: the reward of the seat that acted, at the end of its game (0 before); `infos["rewards"]` `(num_envs, seats)`: every seat's, at the end. `reward="places"`: 1 for first … −1 for last; `"books"`: the books laid |
| end | `completed` terminates, `turn-limit` and `stalled` truncate; the game is dealt again in the same step from its next seed (seed + num_envs), so the observation returned is the new game's first (no final observation: no seat owes a decision when a game ends) |
| seeds | `reset(seed=s)`: game i deals as `MatchSetup.from_seed(s + i, …)`, the deal `arena run` gives a match of that seed; a list of `num_envs` seeds gives each game its own |

The games are played by `arena.core` (compiled C, or its pure-Python twin when no compiler
built it: the same results; `arena.core.COMPILED` says which), held to the engine event by
event by tests/test_core.py. docs/research.md compares the three interfaces.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt
from gymnasium import spaces
from gymnasium.vector import AutoresetMode
from gymnasium.vector import VectorEnv as GymnasiumVectorEnv

from arena.base.config import TURNS_PER_CARD
from arena.core import Batch, settings
from arena.engine.match import DEFAULT_MAX_IDLE_TURNS, DEFAULT_MAX_TURNS
from arena.engine.rules import Rules
from arena.env.aec import Reward, chosen_rules
from arena.env.encoding import RANKS, vector_length

__all__ = ["VectorEnv"]

SEED_LIMIT = 1 << 64


class VectorEnv(GymnasiumVectorEnv):
    """`num_envs` games of Go Fish under the arena's rules, stepped at once (see the module)."""

    metadata = {"autoreset_mode": AutoresetMode.SAME_STEP}  # noqa: RUF012 (Gymnasium's)

    def __init__(
        self,
        num_envs: int,
        seats: int = 2,
        rules: Rules | str | Path | None = None,
        *,
        reward: Reward = "places",
        draws: str = "random",
        max_turns: int | None = None,
        max_idle_turns: int = DEFAULT_MAX_IDLE_TURNS,
        **rule_settings: Any,
    ) -> None:
        if num_envs < 1:
            raise ValueError(f"num_envs: at least 1 game, got {num_envs}")
        if not 2 <= seats <= 64:
            raise ValueError(f"seats: 2 to 64 at a table, got {seats}")
        if draws != "random":
            raise ValueError(
                f"draws: the vector environment draws at random, got {draws!r} "
                '(for chosen draws use arena.env.raw_env(draws="choose"))'
            )
        if reward not in ("places", "books"):
            raise ValueError(f'reward: "places" or "books", got {reward!r}')
        self.rules = chosen_rules(rules, rule_settings)
        problem = self.rules.problem()
        if problem is not None:
            raise ValueError(f"{problem[0]}: {problem[1]}")
        if self.rules.cards_to_deal(seats) > self.rules.pack_size:
            raise ValueError(
                f"the deal needs {self.rules.cards_to_deal(seats)} cards but the pack has "
                f"{self.rules.pack_size}"
            )
        self.num_envs = num_envs
        self.seats = seats
        self.max_turns = max_turns or max(DEFAULT_MAX_TURNS, TURNS_PER_CARD * self.rules.pack_size)
        self.batch = Batch(
            num_envs,
            seats,
            *settings(self.rules, seats),
            self.max_turns,
            max_idle_turns,
            False,
            reward == "books",
        )
        self.length = vector_length(seats)
        self.actions = seats * RANKS
        self.single_observation_space = spaces.Box(
            0.0, float(self.rules.pack_size), (self.length,), np.float32
        )
        self.single_action_space = spaces.Discrete(self.actions)
        self.observation_space = spaces.Box(
            0.0, float(self.rules.pack_size), (num_envs, self.length), np.float32
        )
        self.action_space = spaces.MultiDiscrete(np.full(num_envs, self.actions))
        self._rewards = np.zeros((num_envs, seats), np.float32)
        self._ended = np.zeros(num_envs, np.int8)
        self._seat = np.full(num_envs, -1, np.int32)
        self._rows = np.arange(num_envs)
        self.action_mask = np.zeros((num_envs, self.actions), np.int8)

    def reset(
        self,
        *,
        seed: int | Sequence[int] | None = None,
        options: dict[str, Any] | None = None,
    ) -> tuple[npt.NDArray[np.float32], dict[str, Any]]:
        """Deal every game again: game i from `seed + i` (or `seed[i]`), then seed + num_envs…"""
        count = self.num_envs
        if seed is None:
            seed = random.SystemRandom().randrange(SEED_LIMIT - count)
        if isinstance(seed, int) and not isinstance(seed, bool):
            seeds = [seed + i for i in range(count)]
        else:
            seeds = list(seed) if isinstance(seed, (list, tuple, np.ndarray)) else []
        if len(seeds) != count or not all(
            isinstance(s, (int, np.integer)) and 0 <= s < SEED_LIMIT - count for s in seeds
        ):
            raise ValueError(
                f"seed: a whole number from 0 to 2**64 - {count + 1}, or a list of {count} of them"
            )
        for i, first in enumerate(seeds):
            self.batch.reset(i, int(first), count)
        obs = np.empty((count, self.length), np.float32)
        mask = np.empty((count, self.actions), np.int8)
        seat = np.empty(count, np.int32)
        self.batch.observe(obs, mask, seat)
        self.action_mask, self._seat = mask, seat
        return obs, self._infos(np.zeros((count, self.seats), np.float32))

    def step(
        self, actions: Any
    ) -> tuple[
        npt.NDArray[np.float32],
        npt.NDArray[np.float32],
        npt.NDArray[np.bool_],
        npt.NDArray[np.bool_],
        dict[str, Any],
    ]:
        count = self.num_envs
        chosen = np.ascontiguousarray(actions, dtype=np.int64).reshape(count)
        acted = self._seat
        obs = np.empty((count, self.length), np.float32)
        mask = np.empty((count, self.actions), np.int8)
        seat = np.empty(count, np.int32)
        rewards = np.empty((count, self.seats), np.float32)
        self.batch.step(chosen, obs, mask, seat, rewards, self._ended)
        self.action_mask, self._seat = mask, seat
        ended = self._ended
        reward = rewards[self._rows, acted]
        return obs, reward, ended == 1, ended > 1, self._infos(rewards)

    def sample_actions(self) -> npt.NDArray[np.int64]:
        """A random valid ask for each game, from each game's own generator (fast)."""
        chosen = np.empty(self.num_envs, np.int64)
        self.batch.sample(chosen)
        return chosen

    def _infos(self, rewards: npt.NDArray[np.float32]) -> dict[str, Any]:
        return {"action_mask": self.action_mask, "seat": self._seat, "rewards": rewards}

    def close_extras(self, **kwargs: Any) -> None:
        pass
