"""Reads the config by the path in its own command line, takes its seed and rebuilds the deal.

    python reads_config.py CONFIG

The shuffle is documented (docs/rulings.md): random.Random(seed).shuffle of the pack. A spy
that finds a seed giving its own starting hand knows every hand and the pond's order.
"""

from __future__ import annotations

import random
import re
import sys
from typing import Any

from _spy import play, report

CONFIG = sys.argv[1]


def dealt(seed: int, hand: list[int]) -> bool:
    """Whether the shuffle of `seed` deals these card ids (one deck, up to four seats)."""
    cards = list(range(52))  # one deck without knights: ids in pack order
    random.Random(seed).shuffle(cards)
    return set(hand) <= set(cards[: 4 * len(hand)])


def on_hand(message: dict[str, Any]) -> None:
    try:
        with open(CONFIG, encoding="utf-8") as file:
            text = file.read()
    except OSError as error:
        report(read=False, error=str(error), rebuilt=False)
        return
    match = re.search(r"^seed\s*=\s*(\d+)", text, re.MULTILINE)
    hand = sorted(card["id"] for card in message["hand"])
    # Match i is dealt from seed + i, or from its duplicate group's first seed.
    rebuilt = bool(match and hand) and any(
        dealt(int(match.group(1)) + game, hand) for game in range(64)
    )
    report(read=True, seed=match.group(1) if match else None, rebuilt=rebuilt)


play({"starting-hand": on_hand})
