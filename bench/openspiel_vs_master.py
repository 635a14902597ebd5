"""OpenSpiel's information-set MCTS against `master`: an outside anchor for the bot-strength table.

    python bench/openspiel_vs_master.py --seats 2 --games 100 --simulations 2
    python bench/openspiel_vs_master.py --seats 4 --games 40 --simulations 3

One seat is `arena.openspiel.bot.ISMCTSParticipant` (OpenSpiel's `ISMCTSBot`, random rollouts,
worlds dealt from its own view), every other seat `master`; all play in-process through
`Bot.handle` on the engine with the default rules. Match `i` is dealt from seed `--seed + i`
and the searching seat moves round the table (seat `i mod n`). A game's point: 1 for first
place alone, 1/k shared by k seats tied first, else 0; with equal strength the mean is 1/n. The
95% interval is the normal one over the per-game points. The time per decision (per `ask`) of
each side is measured in the same run: `--simulations` sets the search's.
"""

from __future__ import annotations

import argparse
import math
import statistics
import time
from typing import Any

from arena.bots import BOTS
from arena.engine.match import MatchSetup, play_out
from arena.engine.rules import Rules
from arena.openspiel.bot import ISMCTSParticipant


class Timed:
    """A player whose time to answer each `ask` is kept in `spent`."""

    def __init__(self, player: Any) -> None:
        self.player, self.spent = player, list[float]()

    def handle(self, message: dict[str, Any]) -> Any:
        began = time.perf_counter()
        reply = self.player.handle(message)
        if message["type"] == "ask":
            self.spent.append(time.perf_counter() - began)
        return reply


def play(seed: int, players: list[Any]) -> tuple[tuple[int, ...], list[list[float]]]:
    names = tuple(f"seat_{seat}" for seat in range(len(players)))
    timed = [Timed(player) for player in players]
    result = play_out(MatchSetup.from_seed(seed, names, Rules()), timed)
    return result.places, [seat.spent for seat in timed]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--seats", type=int, default=2)
    parser.add_argument("--games", type=int, default=100)
    parser.add_argument("--simulations", type=int, default=2)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    points: list[float] = []
    places: list[int] = []
    search_time: list[float] = []
    master_time: list[float] = []
    for game in range(args.games):
        seat = game % args.seats
        players: list[Any] = [BOTS["master"]() for _ in range(args.seats)]
        players[seat] = ISMCTSParticipant(args.simulations, seed=game)
        finish, spent = play(args.seed + game, players)
        firsts = finish.count(1)
        points.append(1 / firsts if finish[seat] == 1 else 0.0)
        places.append(finish[seat])
        search_time += spent[seat]
        for other, times in enumerate(spent):
            if other != seat:
                master_time += times
    mean = statistics.fmean(points)
    half = 1.96 * statistics.stdev(points) / math.sqrt(len(points)) if len(points) > 1 else 0.0
    print(
        f"{args.seats} seats, {args.games} games, ISMCTS {args.simulations} simulations: "
        f"win share {mean:.3f} ± {half:.3f} (equal strength {1 / args.seats:.3f}), "
        f"mean place {statistics.fmean(places):.2f}"
    )
    print(
        f"time per decision: ISMCTS {1000 * statistics.fmean(search_time):.1f} ms, "
        f"master {1000 * statistics.fmean(master_time):.1f} ms"
    )


if __name__ == "__main__":
    main()
