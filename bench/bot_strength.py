"""How strong the built-in bots are, from seeded matches anyone can repeat.

    /work/venv/bin/python bench/bot_strength.py              # the figures in docs/bots.md
    /work/venv/bin/python bench/bot_strength.py --games 100  # quicker, wider intervals
    /work/venv/bin/python bench/bot_strength.py --rules family-table   # a ready rule set

Bots play in-process through `Bot.handle` (the same replies as `python -m arena.bots LEVEL`)
on the arena's own match engine with the default rules (7 cards, `Random` starting player,
`Asked`), or with `--rules` a ready rule set (`family-two`, `family-table`) or a config file's. Match `i` of a pairing uses seed `--seed + i`; the levels swap seats every match, so
each sits first as often as the other. A game's point goes to the level of the seat with the
most books (half each on a tie); the win share is the level's mean point, and its 95%
interval is the normal one over the per-game points.
"""

from __future__ import annotations

import argparse
import math
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from itertools import combinations
from pathlib import Path

try:
    import arena  # noqa: F401 - only to learn whether the checkout is importable
except ModuleNotFoundError:
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from arena.base.config import RULE_SETS, named_rules, rules_file
from arena.base.errors import ConfigError
from arena.bots import BOTS
from arena.engine.match import Match, MatchSetup, Result
from arena.engine.rules import Rules
from arena.sdk import Bot

LEVELS = ("random", "easy", "medium", "hard", "expert")

# Who can be seated: the built-in levels, and whatever a bench adds (bench/search_strength.py
# adds a player that sees every hand). A player with a `see_table` method is shown the table.
PLAYERS: dict[str, Callable[[], Bot]] = dict(BOTS)


def play_seeded(seed: int, levels: Sequence[str], rules: Rules) -> Result:
    """One match, one fresh bot per seat, every message answered through `Bot.handle`."""
    bots = [PLAYERS[level]() for level in levels]
    names = [f"{level}-{seat}" for seat, level in enumerate(levels)]
    match = Match(MatchSetup.from_seed(seed, names, rules))
    for bot in bots:
        see_table = getattr(bot, "see_table", None)
        if see_table is not None:
            see_table(match.table)
    return match.play_out(bots)


@dataclass
class Tally:
    """A pairing of two levels: points, wins, ties and books of the first against the second."""

    first: str
    second: str
    points: list[float]
    wins: int = 0
    losses: int = 0
    ties: int = 0
    books_first: int = 0
    books_second: int = 0

    @property
    def share(self) -> float:
        return sum(self.points) / len(self.points)

    def interval(self) -> tuple[float, float]:
        """The 95% normal interval of the first level's win share."""
        n, mean = len(self.points), self.share
        variance = sum((p - mean) ** 2 for p in self.points) / (n - 1) if n > 1 else 0.0
        half = 1.96 * math.sqrt(variance / n)
        return mean - half, mean + half


def pairing(first: str, second: str, seats: int, games: int, seed: int, rules: Rules) -> Tally:
    """`games` matches at `seats` seats, the two levels alternating round the table."""
    tally = Tally(first, second, [])
    for i in range(games):
        a, b = (first, second) if i % 2 == 0 else (second, first)
        levels = [a if seat % 2 == 0 else b for seat in range(seats)]
        scores = play_seeded(seed + i, levels, rules).scores
        best_first = max(s for s, level in zip(scores, levels, strict=True) if level == first)
        best_second = max(s for s, level in zip(scores, levels, strict=True) if level == second)
        tally.books_first += sum(s for s, lv in zip(scores, levels, strict=True) if lv == first)
        tally.books_second += sum(s for s, lv in zip(scores, levels, strict=True) if lv == second)
        if best_first > best_second:
            tally.wins += 1
            tally.points.append(1.0)
        elif best_first < best_second:
            tally.losses += 1
            tally.points.append(0.0)
        else:
            tally.ties += 1
            tally.points.append(0.5)
    return tally


def head_to_head(tally: Tally, seats: int) -> str:
    low, high = tally.interval()
    return (
        f"{tally.first} vs {tally.second}, {len(tally.points)} games at {seats} seats: "
        f"{tally.first} won {tally.wins}, {tally.second} won {tally.losses}, tied {tally.ties}; "
        f"books {tally.books_first} to {tally.books_second}; "
        f"{tally.first}'s win share {tally.share:.3f} (95% CI {low:.3f}–{high:.3f})"
    )


def table(seats: int, games: int, seed: int, rules: Rules) -> str:
    """A Markdown table: the row level's win share against the column level."""
    share: dict[tuple[str, str], float] = {}
    for first, second in combinations(LEVELS, 2):
        tally = pairing(first, second, seats, games, seed, rules)
        share[first, second] = tally.share
        share[second, first] = 1.0 - tally.share
    lines = [f"| {seats} seats | " + " | ".join(LEVELS) + " |", "|---" * (len(LEVELS) + 1) + "|"]
    for row in LEVELS:
        cells = ["—" if row == col else f"{share[row, col]:.2f}" for col in LEVELS]
        lines.append(f"| **{row}** | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def rules_of(choice: str | None) -> Rules:
    if choice is None:
        return Rules()
    return named_rules(choice) if choice in RULE_SETS else rules_file(Path(choice))


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=400, help="matches per pairing (default 400)")
    parser.add_argument(
        "--expert-games", type=int, help="expert vs hard matches (default 10x --games)"
    )
    parser.add_argument("--seed", type=int, default=1, help="seed of the first match (default 1)")
    parser.add_argument("--no-table", action="store_true", help="skip the every-level tables")
    parser.add_argument(
        "--rules", metavar="NAME|FILE", help=f"a rule set ({', '.join(RULE_SETS)}) or a config file"
    )
    parser.add_argument(
        "--seats", default="2,4", help="table sizes of the every-level tables (default 2,4)"
    )
    args = parser.parse_args(argv)
    try:
        rules = rules_of(args.rules)
        table_seats = [int(seats) for seats in args.seats.split(",")]
    except (ConfigError, ValueError) as error:
        parser.error(str(error))
    started = time.perf_counter()
    print(
        "command: python bench/bot_strength.py "
        + " ".join(argv if argv is not None else sys.argv[1:])
    )
    print(head_to_head(pairing("hard", "easy", 2, args.games, args.seed, rules), 2))
    expert_games = args.expert_games or 10 * args.games
    print(head_to_head(pairing("expert", "hard", 2, expert_games, args.seed, rules), 2))
    if not args.no_table:
        for seats in table_seats:
            print()
            print(table(seats, args.games, args.seed, rules))
    print(f"\n{time.perf_counter() - started:.1f} s", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
