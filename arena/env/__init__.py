"""Go Fish under the arena's rules as a PettingZoo AEC environment (`pip install '.[rl]'`).

    from arena.env import env
    game = env(seats=2, rules="family-two", draws="random", reward="places")
    game.reset(seed=7)  # the deal `arena run` gives a match of seed 7
    for agent in game.agent_iter():
        observation, reward, termination, truncation, info = game.last()
        if termination or truncation:
            action = None
        else:
            action = game.action_space(agent).sample(observation["action_mask"])
        game.step(action)

| | |
| --- | --- |
| agents | `seat_0 … seat_{n-1}` (`seats`, at least 2) |
| rules | `rules`: a `Rules`, a ready rule set (`"family-two"`), or a TOML file's `[rules]` and `[deck]` (as `arena play --rules`); then keyword settings under the engine's names (`lucky_draw=True`, `number_of_decks=2`…) |
| actions | `Discrete(n × 14 + P)`: `a < n × 14` asks seat `a // 14` for rank `a % 14` (0 Ace … 13 King); with `draws="choose"`, `n × 14 + i` takes pond card `i` (P = the pack's size), else draws are chance events drawn by the environment's seeded generator |
| observations | a dict: `observation` (float32 vector, arena/env/encoding.py), `action_mask` (int8, 1 for every valid action of the seat to move, all 0 otherwise), `message` (the last message the seat was sent, exactly as the protocol sends it: for the seat to move, its `ask`, `go-fish` or `pick-up`) |
| infos | `messages`: every message the seat was sent since its previous decision, in order (feed them to an SDK `Bot.handle` to play any built-in level); at the end also `outcome`, `books`, `place` |
| `messages=False` | no `message` observation, no `messages` info; with `draws="random"` the game is stepped by `arena.core` (about ten times faster, below) |
| rewards | at the end only: `reward="places"` gives 1 for first place … −1 for last, linear in the place (equal books share a place); `reward="books"` the books the seat laid |
| end | `completed` terminates every agent; `turn-limit` and `stalled` (contract §2.9) truncate them |
| invalid actions | as the contract plays them: an ask outside the mask goes to the engine as that reply and is refused (the turn passes, §2.6); a draw action at an ask, or an ask action at a draw, is the reply `null` |

`reset(seed=s)` deals as `MatchSetup.from_seed(s, …)`: the pond, hands and starting seat of
`arena run` for a match of seed `s`. By default the engine plays: each action becomes the
reply a participant would send, and the engine judges it. A single-seat Gymnasium environment
against built-in levels or participant commands is `arena.env.single.SeatEnv`.

`messages=False` (the fast path): where the core covers the settings (as `VectorEnv`'s: up to
64 seats) and draws are random, one game of the core's `Batch` (arena/core) plays it; the
agent to move, its observation and mask, the rewards, terminations, truncations and end infos
are the engine path's for the same decisions and draws (tests/test_env_fast.py), but the draws come from the
core's generator (seeded from the deal's seed), so a seed's game differs from the engine
path's after the first draw. An agent not to move observes what it observed at its last
decision, no decision owed (zeros before its first), where the engine path keeps updating it
from the messages since. Elsewhere (`draws="choose"`, more than 64 seats) the engine plays,
without the messages. Random play, `bench/env.py` (--only env env-fast aec-empty, two runs):
0.53-0.86x OpenSpiel's `go_fish` games/s at 2 seats and 0.51-0.70x at 4, against 0.05x with
the messages; about half the AEC loop's own ceiling (`aec-empty`, no game) in the same runs.
"""

from __future__ import annotations

from typing import Any

from arena.base import extras

# One line naming the extra, not a traceback of the first import that fails (docs/research.md):
extras.require("rl", "arena.env")

from pettingzoo.utils import wrappers

from arena.env.aec import raw_env

__all__ = ["env", "raw_env"]


def env(**kwargs: Any) -> Any:
    """`raw_env` in PettingZoo's order-enforcing and action-bounds wrappers."""
    wrapped: Any = raw_env(**kwargs)
    wrapped = wrappers.AssertOutOfBoundsWrapper(wrapped)
    return wrappers.OrderEnforcingWrapper(wrapped)
