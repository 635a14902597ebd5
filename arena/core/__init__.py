"""The rules a second time, for speed: N games stepped at once (docs/research.md).

`Batch` is the compiled core (arena/core/_core.c, built by `pip install .` when a C compiler is
there) or, without it, its pure-Python twin (arena/core/pure.py): the same methods, the same
results. `ARENA_CORE=python` in the environment chooses the pure one. The engine
(arena/engine/) stays the referee: `arena run`, replays and verification never use this; the
research interfaces (arena/env/vector.py), rollouts and simulations do, and tests/test_core.py
plays it against the engine event by event.

    batch = Batch(games, seats, *settings(rules, seats), max_turns, max_idle, record, books)
    batch.reset(i, seed)             # `MatchSetup.from_seed(seed, …)`'s deal; plays to the first ask
    batch.act(i, action)             # an ask (encoding.py's action numbers); the status after it
    batch.step(actions, obs, mask, seats, rewards, ended)   # every game at once, autoreset
    batch.run(games, seed)           # whole games of random valid asks: (games, asks)

Statuses: RUNNING (0, `seat` owes an ask), COMPLETED, TURN_LIMIT, STALLED (as
`differential.OUTCOMES`). Importing this loads no more of the engine than the SDK does (a
bot's start-up pays nothing for it).
`compiled_rollouts` is `arena.bots.simulator.rollouts_in_python` in C (master's search), or None.
Draws (go-fish, pick-up) are not decisions here: each takes a pond index from the game's own
generator (splitmix64, seeded from the deal's seed).
"""

from __future__ import annotations

import os
from typing import Any

from arena.engine.rules import NextPlayer, RefillWhen, Rules, StartingPlayer

RUNNING, COMPLETED, TURN_LIMIT, STALLED = 0, 1, 2, 3
# The kinds of `Batch.events(i)`'s tuples `(kind, at, seat, a, b, c, d, e)`.
ASKED, REFUSED, FISHED, PICKED, BOOK, LUCKY, NO_ONE = range(7)
REFUSALS = ("ask-not-an-object", "ask-itself", "ask-card-not-in-hand")
_NEXT = {NextPlayer.ASKED: 0, NextPlayer.CLOCKWISE: 1, NextPlayer.AFTER_ASKER: 2}


def _load() -> Any:
    if os.environ.get("ARENA_CORE") == "python":
        return None
    try:
        from arena.core import _core  # type: ignore[attr-defined]
    except ImportError:  # no compiler when installed: the pure twin
        return None
    return _core


_compiled = _load()
COMPILED = _compiled is not None
if COMPILED:
    Batch: Any = _compiled.Batch
else:
    from arena.core.pure import Batch
# `arena.bots.simulator.rollouts` in C (the same floats), or None: the search's rollouts.
compiled_rollouts: Any = _compiled.rollouts if COMPILED else None

__all__ = ["COMPILED", "RUNNING", "Batch", "compiled_rollouts", "settings"]


def settings(rules: Rules, seats: int) -> tuple[Any, ...]:
    """`Batch`'s rule arguments for `rules` at a table of `seats` (from `hand_size` to
    `random_start`)."""
    return (
        rules.hand_size(seats),
        rules.min_hand_size,
        _NEXT[rules.next_player],
        rules.number_of_decks,
        rules.knights,
        rules.lucky_draw,
        rules.refill_empty_hand,
        rules.refill_when is RefillWhen.ON_ITS_TURN,
        rules.draw_when_no_one_to_ask,
        rules.starting_player is StartingPlayer.RANDOM,
    )
