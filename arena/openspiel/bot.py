"""OpenSpiel's information-set MCTS as a participant: `python -m arena.openspiel.bot`.

    [[participants]]
    name = "ismcts"
    command = ["python", "-m", "arena.openspiel.bot", "--simulations", "100"]

It speaks the protocol like any participant (the SDK's `run`), so `arena run` seats it in the
sandbox with its faults recorded. At each `ask` it deals a world from what its seat was told
(`game.deal_world`: its hand and view, every seat's hand size, the pond's size) and runs
OpenSpiel's `ISMCTSBot` with random rollouts over `gofish_arena`, resampling the hidden cards
at every simulation. Which ranks the other seats have booked, which no message says, is
expert's count (`arena.bots.CardCount`); each seat's share of those books is a guess (an even
split), which matters only to the places at the end. Should a search fail, expert's ask is
sent instead (and said on stderr). Draws are any index: the pond's order is hidden.
"""

from __future__ import annotations

import argparse
import random
import sys
from collections.abc import Sequence
from typing import Any

from arena.base.config import DeckSection, RulesSection, engine_rules
from arena.bots import ExpertBot
from arena.engine.cards import new_pack, pack_size
from arena.engine.match import MatchSetup
from arena.env.encoding import RANKS, SeatView
from arena.openspiel.game import GofishArenaGame, deal_world, world_state
from arena.sdk import Ask, run


class ISMCTSParticipant(ExpertBot):
    """Expert's bookkeeping, OpenSpiel's search."""

    def __init__(self, simulations: int = 100, seed: int = 0, uct_c: float = 2.0) -> None:
        self.simulations = simulations
        self.seed = seed
        self.uct_c = uct_c
        super().__init__()

    def reset(self) -> None:
        super().reset()
        self.view: SeatView | None = None
        self.game: GofishArenaGame | None = None
        self.search: Any = None
        self.world_rng = random.Random(self.seed)

    def handle(self, message: dict[str, Any]) -> Any:
        if message.get("type") == "init":
            reply = super().handle(message)
            self._begin()
            return reply
        if self.view is not None:
            self.view.see(message)
        return super().handle(message)

    def _begin(self) -> None:
        from open_spiel.python.algorithms import ismcts, mcts

        rules = engine_rules(
            RulesSection.read(self.settings.get("rules", {})),
            DeckSection.read(self.settings.get("deck", {})),
        )
        seats = len(self.names)
        self.rules = rules
        self.view = SeatView(self.seat, seats, rules.pack_size)
        self.game = GofishArenaGame({"players": seats}, rules=rules)
        evaluator = mcts.RandomRolloutEvaluator(
            n_rollouts=1, random_state=_numpy_rng(self.seed + self.seat)
        )
        self.search = ismcts.ISMCTSBot(
            self.game,
            evaluator,
            uct_c=self.uct_c,
            max_simulations=self.simulations,
            random_state=_numpy_rng(self.seed + 100 + self.seat),
            use_observation_string=True,
            allow_inconsistent_action_sets=True,
        )
        self.search.set_resampler(self._resample)

    def choose_ask(self) -> Ask:
        fallback = super().choose_ask()  # also brings expert's count up to date
        try:
            return self._searched()
        except Exception as error:  # noqa: BLE001 - a failed search must not lose the turn
            self.log(f"search failed ({type(error).__name__}: {error}); expert's ask instead")
            return fallback

    def _searched(self) -> Ask:
        assert self.view is not None and self.search is not None
        state = self._resample(None, self.seat)
        action = int(self.search.step(state))
        asked, rank = divmod(action, RANKS)
        return Ask(asked, self.view.ranks_held()[rank])

    def _resample(self, state: Any, player: int) -> Any:
        """A world this seat cannot tell from the real one (a new one at every call)."""
        assert self.view is not None and self.game is not None
        books, booked = self._books()
        setup = MatchSetup(self.rules, self.game.names, (), 0)
        play = deal_world(self.world_rng, setup, self.view, books, booked)
        return world_state(self.game, play)

    def _books(self) -> tuple[list[int], list[int]]:
        """Each seat's books (the others' an even split) and the ids of cards in books."""
        seats = len(self.names)
        decks = self._decks()
        pack = pack_size(decks, self._knights())
        on_table = sum(self.hand_sizes) + self.pond_size
        total = (pack - on_table) // 4
        mine = len(self.books_laid)
        others = [seat for seat in range(seats) if seat != self.seat]
        books = [0] * seats
        books[self.seat] = mine
        for index in range(max(total - mine, 0)):
            books[others[index % len(others)]] += 1
        ranks = list(self.books_laid)
        for rank in range(14):
            ranks += [rank] * self.count.booked[rank]
        held = {card.id for card in self.hand}
        cards = new_pack(decks, self._knights())
        booked: list[int] = []
        for rank in ranks[:total]:
            for suit in range(4):
                card = next(
                    (
                        c["id"]
                        for c in cards
                        if c["rank"] == rank
                        and c["suit"] == suit
                        and c["id"] not in held
                        and c["id"] not in booked
                    ),
                    None,
                )
                if card is not None:
                    booked.append(card)
        return books, booked


def _numpy_rng(seed: int) -> Any:
    import numpy as np

    return np.random.RandomState(seed)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m arena.openspiel.bot", description=__doc__)
    parser.add_argument("--simulations", type=int, default=100, help="per decision (100)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--uct", type=float, default=2.0, help="UCT's exploration constant")
    args = parser.parse_args(argv)
    if args.simulations < 1:
        print("--simulations: at least 1", file=sys.stderr)
        return 2
    run(ISMCTSParticipant(args.simulations, args.seed, args.uct))
    return 0


if __name__ == "__main__":
    sys.exit(main())
