"""How strong the searching `master` bot is, and how strong the same search would be if it saw.

    python bench/search_strength.py head --games 2000      # master vs expert, 2 and 4 seats
    python bench/search_strength.py levels --games 200     # master vs every level
    python bench/search_strength.py ceiling --games 200    # the search seeing every hand
    python bench/search_strength.py budget --games 300 --seats 4   # strength against the budget

Matches are played as in bench/bot_strength.py (in-process, default rules, seeds `--seed + i`,
the two levels alternating round the table, a match's point to the level whose best seat laid
the most books). The test seeds start at 1; master was tuned on seeds from 100000 on
(`--seed 100000`), so the figures in docs/bots.md are from matches the tuning never saw.
`master` searches only at tables of three or more, so `budget` means something at `--seats 4`.

`perfect` (this bench only) is master's search given the true hands: every world it searches
is the real deal (only the pond's order stays hidden), and it weighs every ask it could make.
Against `expert` and `hard` it shows how far ahead a player could get on the same search with
nothing hidden; master's share of that gap is (master - 0.5) / (perfect - 0.5).
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from collections.abc import Sequence
from pathlib import Path

try:
    import arena  # noqa: F401 - only to learn whether the checkout is importable
except ModuleNotFoundError:
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

sys.path.insert(0, str(Path(__file__).resolve().parent))

from bot_strength import PLAYERS, head_to_head, pairing

from arena.bots import ExpertBot, MasterBot
from arena.bots.simulator import code
from arena.engine.rules import Rules, Table
from arena.sdk import Ask


class PerfectInfo(MasterBot):
    """Master's search on the true hands: a player that sees every card but the pond's order."""

    table: Table | None = None

    def see_table(self, table: Table) -> None:
        self.table = table

    def sample_world(self, rng: random.Random) -> tuple[list[list[int]], list[int]]:
        assert self.table is not None
        hands = [[code(c["rank"], c["suit"]) for c in hand] for hand in self.table.hands]
        pond = [code(c["rank"], c["suit"]) for c in self.table.pond]
        rng.shuffle(pond)
        return hands, pond

    def choose_ask(self) -> Ask:
        choice = ExpertBot.choose_ask(self)  # the count stays up to date for the rollouts
        held = self.ranks_in_hand()
        asks = [(choice.seat, next(c.rank for c in self.hand if c.id == choice.card_id))]
        asks += [
            (s, r) for r in sorted(held) for s in self.others_with_cards() if (s, r) != asks[0]
        ]
        if len(asks) < 2:
            return choice
        seat, rank = self._search(asks)
        return Ask(seat, held[rank][0].id)


PLAYERS["master"] = MasterBot
PLAYERS["perfect"] = PerfectInfo


def budgeted(worlds: int) -> str:
    name = f"master@{worlds}"
    PLAYERS[name] = lambda: MasterBot(worlds=worlds)
    return name


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("section", choices=("head", "levels", "ceiling", "budget"))
    parser.add_argument("--games", type=int, default=200, help="matches per pairing")
    parser.add_argument("--seed", type=int, default=1, help="seed of the first match (default 1)")
    parser.add_argument("--seats", type=int, nargs="+", default=[2, 4], help="table sizes")
    parser.add_argument(
        "--worlds", type=int, nargs="+", default=[0, 10, 20, 40], help="budgets (budget)"
    )
    args = parser.parse_args(argv)
    rules = Rules()
    started = time.perf_counter()
    print(
        "command: python bench/search_strength.py "
        + " ".join(argv if argv is not None else sys.argv[1:]),
        flush=True,
    )
    pairings: list[tuple[str, str]]
    if args.section == "head":
        pairings = [("master", "expert")]
    elif args.section == "levels":
        pairings = [("master", level) for level in ("random", "easy", "medium", "hard", "expert")]
    elif args.section == "ceiling":
        pairings = [("perfect", "expert"), ("perfect", "hard")]
    else:
        pairings = [(budgeted(worlds), "expert") for worlds in args.worlds]
    for seats in args.seats:
        for first, second in pairings:
            tally = pairing(first, second, seats, args.games, args.seed, rules)
            print(head_to_head(tally, seats), flush=True)
    print(f"\n{time.perf_counter() - started:.1f} s", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
