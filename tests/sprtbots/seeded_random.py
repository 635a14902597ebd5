"""The built-in `random` bot with its own seed (argv[1]) mixed into its generator, kept alive
between matches: two of these with different seeds are equal in strength, yet never play
the same match twice (real variance, unlike two copies of one deterministic bot)."""

import random
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from arena.bots import RandomBot
from arena.sdk import run


class SeededRandom(RandomBot):
    reuse = True

    def on_start(self) -> None:
        self.rng = random.Random(
            f"{sys.argv[1]}:{self.seat}:{sorted(card.id for card in self.hand)}"
        )


if __name__ == "__main__":
    run(SeededRandom())
