"""The PettingZoo AEC environment: the engine's match generator, driven one decision at a time.

The environment owns no rule: each action becomes the reply a participant would send
(`{"player": q, "cardId": id}` or a pond index) and the engine (arena/engine/match.py) judges
it; every message the engine yields goes to its seat's `SeatView`, and the informational ones
are answered `null`, as a participant may. With `messages=False` (and random draws) no
message is built and the core (arena/core, the rules' second home, held to the engine) plays
the game instead, one `Batch` of one game. The docs are the package's docstring
(arena/env/__init__.py) and docs/research.md.
"""

from __future__ import annotations

import random
from array import array
from collections.abc import Mapping
from pathlib import Path
from typing import Any, ClassVar, Literal

import numpy as np
import numpy.typing as npt
from gymnasium import spaces
from pettingzoo import AECEnv

from arena.base.config import TURNS_PER_CARD, LimitsSection, named_rules, rules_file
from arena.core import RUNNING, Batch
from arena.core import settings as core_settings
from arena.core.differential import OUTCOMES
from arena.engine.match import (
    DEFAULT_MAX_IDLE_TURNS,
    DEFAULT_MAX_TURNS,
    Delivery,
    Match,
    MatchFlow,
    MatchSetup,
    Outcome,
    Result,
)
from arena.engine.rules import NextPlayer, RefillWhen, Rules, StartingPlayer, places_of
from arena.env.encoding import (
    DECISIONS,
    RANKS,
    SeatView,
    action_mask,
    pond_size,
    reply_for,
    vector_length,
)

Draws = Literal["random", "choose"]
Reward = Literal["places", "books"]
NO_MESSAGE: dict[str, Any] = {"type": "none"}
ROWS = 64  # observations (and masks) allocated at once on the core path


class MessageSpace(spaces.Space[dict[str, Any]]):
    """A message of contract §4.3 as the seat was sent it (a JSON object with a `type`)."""

    def __init__(self) -> None:
        super().__init__(shape=None, dtype=None)

    def contains(self, x: Any) -> bool:
        return isinstance(x, dict) and isinstance(x.get("type"), str)

    def sample(self, mask: Any = None, probability: Any = None) -> dict[str, Any]:
        return {"type": "pick-up", "pond": int(self.np_random.integers(1, 52))}

    @property
    def is_np_flattenable(self) -> bool:
        return False

    def __eq__(self, other: object) -> bool:
        return isinstance(other, MessageSpace)

    def __hash__(self) -> int:
        return hash(MessageSpace)


def chosen_rules(rules: Rules | str | Path | None, settings: Mapping[str, Any]) -> Rules:
    """`rules` (a `Rules`, a ready rule set's name, or a TOML file's `[rules]` and `[deck]`),
    then keyword settings under the engine's names (`lucky_draw=True`). Raises ConfigError
    or TypeError (an unknown keyword)."""
    if rules is None:
        base = Rules()
    elif isinstance(rules, Rules):
        base = rules
    elif isinstance(rules, Path) or str(rules).endswith(".toml"):
        base = rules_file(Path(rules))
    else:
        base = named_rules(str(rules))
    if not settings:
        return base
    fields = {name: getattr(base, name) for name in Rules.__dataclass_fields__}
    unknown = sorted(set(settings) - set(fields))
    if unknown:
        raise TypeError(f"unknown rule setting {unknown[0]!r} (known: {', '.join(fields)})")
    chosen = {**fields, **settings}
    for name, kind in (
        ("starting_player", StartingPlayer),
        ("next_player", NextPlayer),
        ("refill_when", RefillWhen),
    ):
        chosen[name] = kind(chosen[name])  # the TOML spelling (`"On its turn"`) is taken too
    return Rules(**chosen)


class raw_env(AECEnv):  # type: ignore[misc]  # (PettingZoo's name; it ships no types)
    """Go Fish under the arena's rules, one seat per agent `seat_0 … seat_{n-1}`.

    `messages=False`: no `message` observation and no `messages` info, and where the core
    covers the settings with random draws, the game stepped by `arena.core` (a `Batch` of one
    game; the draws from its generator) at about ten times the engine path's games/s
    (bench/env.py: 0.53-0.86x OpenSpiel's go_fish at 2 seats, 0.51-0.70x at 4; 0.05x with
    messages).
    The package's docstring says what differs."""

    metadata: ClassVar[dict[str, Any]] = {
        "name": "gofish_arena_v0",
        "render_modes": ["ansi"],
        "is_parallelizable": False,
    }

    def __init__(
        self,
        seats: int = 2,
        rules: Rules | str | Path | None = None,
        *,
        draws: Draws = "random",
        reward: Reward = "places",
        max_turns: int | None = None,
        max_idle_turns: int = DEFAULT_MAX_IDLE_TURNS,
        names: tuple[str, ...] | None = None,
        render_mode: str | None = None,
        messages: bool = True,
        **settings: Any,
    ) -> None:
        super().__init__()
        if seats < 2:
            raise ValueError(f"seats: a match needs at least 2 seats, got {seats}")
        if draws not in ("random", "choose"):
            raise ValueError(f'draws: "random" or "choose", got {draws!r}')
        if reward not in ("places", "books"):
            raise ValueError(f'reward: "places" or "books", got {reward!r}')
        self.rules = chosen_rules(rules, settings)
        problem = self.rules.problem()
        if problem is not None:
            raise ValueError(f"{problem[0]}: {problem[1]}")
        self.rules.check_deal(seats)
        self.seats = seats
        self.draws = draws
        self.reward_kind = reward
        self.names = names or tuple(f"seat_{seat}" for seat in range(seats))
        self.max_turns = max_turns or max(DEFAULT_MAX_TURNS, TURNS_PER_CARD * self.rules.pack_size)
        self.max_idle_turns = max_idle_turns
        self.render_mode = render_mode
        self.possible_agents = [f"seat_{seat}" for seat in range(seats)]
        self.asks = seats * RANKS
        self.actions = self.asks + (self.rules.pack_size if draws == "choose" else 0)
        length = vector_length(seats)
        self.observation_spaces = {
            agent: spaces.Dict(
                {
                    "observation": spaces.Box(
                        0.0, float(self.rules.pack_size), (length,), np.float32
                    ),
                    "action_mask": spaces.Box(0, 1, (self.actions,), np.int8),
                    **({"message": MessageSpace()} if messages else {}),
                }
            )
            for agent in self.possible_agents
        }
        self.action_spaces = {
            agent: spaces.Discrete(self.actions) for agent in self.possible_agents
        }
        self._rng = random.Random()
        self.setup: MatchSetup | None = None
        self.result: Result | None = None
        self.messages = messages
        self.length = length
        # Without messages, the core plays (arena/core) when it covers the settings; else the engine.
        self.batch: Any = None if messages or draws != "random" else self._core(record=False)
        self._to_move = array("i", [0])  # the core's `seats` out-argument
        self._row = ROWS

    def observation_space(self, agent: str) -> spaces.Space[Any]:
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Space[Any]:
        return self.action_spaces[agent]

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        """A new match dealt as `arena run` deals a match of this seed (a random seed if None)."""
        if seed is None:
            seed = random.SystemRandom().randrange(2**63)
        if self.batch is not None and not 0 <= seed < 2**64:
            raise ValueError(f"seed: a whole number from 0 to 2**64 - 1, got {seed}")
        self.agents = list(self.possible_agents)
        self.rewards = {agent: 0.0 for agent in self.agents}
        self._cumulative_rewards = {agent: 0.0 for agent in self.agents}
        self.terminations = {agent: False for agent in self.agents}
        self.truncations = {agent: False for agent in self.agents}
        self.infos: dict[str, dict[str, Any]] = {agent: {} for agent in self.agents}
        self.result = None
        if self.batch is not None:
            self.seen: list[npt.NDArray[np.float32] | None] = [None] * self.seats
            self._core_moved(self.batch.reset(0, seed))
            return
        self._rng = random.Random(f"draws:{seed}")  # draws made at random, apart from the deal
        self.setup = MatchSetup.from_seed(
            seed,
            self.names,
            self.rules,
            limits={**LimitsSection().told_to_seats(), "maxTurns": self.max_turns},
            max_turns=self.max_turns,
            max_idle_turns=self.max_idle_turns,
        )
        self.views = [
            SeatView(seat, self.seats, self.rules.pack_size) for seat in range(self.seats)
        ]
        self.inbox: list[list[dict[str, Any]]] = [[] for _ in range(self.seats)]
        self.last_message: list[dict[str, Any]] = [NO_MESSAGE] * self.seats
        self.match = Match(self.setup)
        self._flow: MatchFlow = self.match.play()
        self._move(self._send(None, first=True))

    def observe(self, agent: str) -> dict[str, Any]:
        seat = self.possible_agents.index(agent)
        if self.batch is not None:
            return self._core_observe(seat)
        if not self.messages:
            return {"observation": self.views[seat].vector(), "action_mask": self._mask(seat)}
        return {
            "observation": self.views[seat].vector(),
            "action_mask": self._mask(seat),
            "message": self.last_message[seat],
        }

    def step(self, action: int | None) -> None:
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        self._cumulative_rewards[agent] = 0.0
        self.rewards = dict.fromkeys(self.agents, 0.0)
        if self.batch is not None:
            self._core_moved(self.batch.act(0, -1 if action is None else int(action)))
            self._accumulate_rewards()
            return
        seat = self._seat
        self.inbox[seat] = []
        self._move(self._send(self._reply(seat, action)))
        self._accumulate_rewards()

    def render(self) -> str | None:
        if self.render_mode != "ansi":
            return None
        if self.batch is not None:
            _, _, books, hands, pond, _ = self.batch.state(0)
            lines = [f"pond: {len(pond)} cards; books: {books}"]
            lines += [f"seat_{seat}: {len(hand)} cards" for seat, hand in enumerate(hands)]
            return "\n".join(lines)
        if self.setup is None:
            return None
        table = self.match.table
        lines = [f"pond: {len(table.pond)} cards; books: {table.books}"]
        for seat, hand in enumerate(table.hands):
            cards = " ".join(str(card["card"]) for card in hand)
            lines.append(f"seat_{seat}: {cards}")
        return "\n".join(lines)

    def close(self) -> None:
        pass

    # --- driving the engine ---------------------------------------------------------

    def _reply(self, seat: int, action: int | None) -> Any:
        return reply_for(self.views[seat], self.last_message[seat], action)

    def _send(self, reply: Any, *, first: bool = False) -> Delivery | None:
        """Answer the engine until it asks a seat for a decision; None when the match is over."""
        flow, views, inbox = self._flow, self.views, self.inbox
        try:
            delivery = next(flow) if first else flow.send(reply)
            while True:
                seat, message = delivery
                views[seat].see(message)
                inbox[seat].append(message)
                self.last_message[seat] = message
                kind = message["type"]
                if kind in DECISIONS:
                    if kind == "ask" or self.draws == "choose":
                        return delivery
                    delivery = flow.send(self._rng.randrange(pond_size(message)))
                    continue
                delivery = flow.send(None)
        except StopIteration as stop:
            self.result = stop.value
            return None

    def _move(self, delivery: Delivery | None) -> None:
        if delivery is not None:
            self._seat = delivery.seat
            self.agent_selection = self.possible_agents[delivery.seat]
            if self.messages:
                self.infos[self.agent_selection] = {"messages": self.inbox[delivery.seat]}
            return
        assert self.result is not None
        self._ended(self.result)

    def _ended(self, result: Result) -> None:
        cut = result.outcome in (Outcome.TURN_LIMIT, Outcome.STALLED)
        for seat, agent in enumerate(self.possible_agents):
            self.rewards[agent] = result.reward(seat, self.reward_kind)
            self.terminations[agent] = not cut
            self.truncations[agent] = cut
            self.infos[agent] = {
                **({"messages": self.inbox[seat]} if self.messages else {}),
                "outcome": str(result.outcome),
                "books": result.scores[seat],
                "place": result.places[seat],
            }

    def _mask(self, seat: int) -> npt.NDArray[np.int8]:
        if self.agent_selection != self.possible_agents[seat] or self.result is not None:
            return np.zeros(self.actions, dtype=np.int8)
        return action_mask(self.views[seat], self.last_message[seat], self.actions)

    # --- driving the core (messages=False) ---------------------------------------------

    def _core(self, *, record: bool) -> Any:
        """A `Batch` of one game for these settings, or None where the core does not cover
        them (the engine plays then)."""
        try:
            return Batch(
                1,
                self.seats,
                *core_settings(self.rules, self.seats),
                self.max_turns,
                self.max_idle_turns,
                record,
                self.reward_kind == "books",
            )
        except ValueError:
            return None

    def _core_moved(self, status: int) -> None:
        """After a reset or an ask: the seat to move's observation and mask, or the end."""
        if status == RUNNING:
            row = self._row
            if row == ROWS:  # a fresh block: no observation handed out is ever written again
                self._observations = np.empty((ROWS, self.length), np.float32)
                self._masks = np.empty((ROWS, self.actions), np.int8)
                row = 0
            self._row = row + 1
            obs, mask, seat = self._observations[row], self._masks[row], self._to_move
            self.batch.observe(obs, mask, seat)
            self._seat = seat[0]
            self.seen[self._seat] = obs
            self._core_mask = mask
            self.agent_selection = self.possible_agents[self._seat]
            return
        _, _, books, _, _, _ = self.batch.state(0)
        places = tuple(places_of(books))
        self.result = Result(OUTCOMES[status], tuple(books), places)
        self._ended(self.result)

    def _core_observe(self, seat: int) -> dict[str, Any]:
        """The seat to move: the core's observation and mask, the engine's bit for bit. Any
        other seat: what it observed at its last decision, no decision owed (zeros before)."""
        if seat == self._seat and self.result is None:
            return {"observation": self.seen[seat], "action_mask": self._core_mask}
        last = self.seen[seat]
        vector = np.zeros(self.length, np.float32) if last is None else last.copy()
        start = RANKS + 2 * self.seats + 2
        vector[start : start + len(DECISIONS)] = 0
        return {"observation": vector, "action_mask": np.zeros(self.actions, np.int8)}
