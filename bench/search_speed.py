"""CPU time per decision of the searching `master` bot, against `expert` in the same matches.

    python bench/search_speed.py                 # 40 matches at 2 seats, 20 at 4
    python bench/search_speed.py --games 10      # quicker

The goal is at most 10 ms of CPU per decision on average (an `ask`, `go-fish` or `pick-up`
reply). Each bot's replies are timed with the process's CPU clock around `Bot.handle`, every
message included (keeping count costs time too, and `hand-update`s are not decisions), and
divided by its decisions; `expert`, in the same matches, is the floor. Per `ask` alone, the
decision the search is for, is printed too. CPU time, not wall time, so that other programs on
a shared machine cost the figures little.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

try:
    import arena  # noqa: F401 - only to learn whether the checkout is importable
except ModuleNotFoundError:
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

sys.path.insert(0, str(Path(__file__).resolve().parent))

from bot_strength import PLAYERS, pairing

from arena.bots import BOTS
from arena.engine.rules import Rules
from arena.sdk import Bot

DECISIONS = ("ask", "go-fish", "pick-up")
GOAL_MS = 10.0


class Clock:
    """CPU seconds and message counts per level and message type."""

    def __init__(self) -> None:
        self.seconds: dict[tuple[str, str], float] = {}
        self.messages: dict[tuple[str, str], int] = {}

    def timed(self, level: str) -> type[Bot]:
        clock = self

        class Timed(BOTS[level]):  # type: ignore[misc, valid-type]
            def handle(self, message: dict[str, Any]) -> Any:
                started = time.process_time()
                reply = super().handle(message)
                key = (level, str(message.get("type")))
                clock.seconds[key] = clock.seconds.get(key, 0.0) + time.process_time() - started
                clock.messages[key] = clock.messages.get(key, 0) + 1
                return reply

        return Timed

    def per_decision_ms(self, level: str) -> float:
        spent = sum(s for (lv, _), s in self.seconds.items() if lv == level)
        decisions = sum(
            n for (lv, kind), n in self.messages.items() if lv == level and kind in DECISIONS
        )
        return 1000 * spent / max(decisions, 1)

    def per_ask_ms(self, level: str) -> float:
        return (
            1000
            * self.seconds.get((level, "ask"), 0.0)
            / max(self.messages.get((level, "ask"), 0), 1)
        )


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=40, help="matches at 2 seats (half at 4)")
    parser.add_argument("--seed", type=int, default=1, help="seed of the first match (default 1)")
    args = parser.parse_args(argv)
    print(
        "command: python bench/search_speed.py "
        + " ".join(argv if argv is not None else sys.argv[1:]),
        flush=True,
    )
    worst = 0.0
    for seats, games in ((2, args.games), (4, max(args.games // 2, 1))):
        clock = Clock()
        PLAYERS["master"], PLAYERS["expert"] = clock.timed("master"), clock.timed("expert")
        pairing("master", "expert", seats, games, args.seed, Rules())
        master, floor = clock.per_decision_ms("master"), clock.per_decision_ms("expert")
        worst = max(worst, master)
        print(
            f"{seats} seats, {games} matches: master {master:.2f} ms of CPU per decision, "
            f"expert (floor) {floor:.3f} ms, ratio {master / floor:.0f}x; per ask: master "
            f"{clock.per_ask_ms('master'):.2f} ms, expert {clock.per_ask_ms('expert'):.3f} ms"
        )
    verdict = "within" if worst <= GOAL_MS else "OVER"
    print(f"goal: at most {GOAL_MS:.0f} ms per decision on average: {verdict} ({worst:.2f} ms)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
