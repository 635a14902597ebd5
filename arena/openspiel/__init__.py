"""The arena's rules as an OpenSpiel game (`pip install '.[openspiel]'`).

    import pyspiel
    import arena.openspiel  # registers "gofish_arena"

    game = pyspiel.load_game("gofish_arena", {"players": 4, "rules": "family-table"})

`arena.openspiel.game` is the game (docs/research.md); `python -m arena.openspiel.bot` seats
OpenSpiel's information-set MCTS in `arena run` as a participant speaking the protocol.
"""

from __future__ import annotations

from arena.base import extras

# One line naming the extra, not a traceback of the first import that fails (docs/research.md):
extras.require("openspiel", "arena.openspiel")  # OpenSpiel itself
extras.require("rl", "arena.openspiel")  # arena.env's encoding of a seat's view

from arena.openspiel.game import NAME, GofishArenaGame, GofishArenaState, deal_world, resampler

__all__ = ["NAME", "GofishArenaGame", "GofishArenaState", "deal_world", "resampler"]
