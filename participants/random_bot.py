#!/usr/bin/env python3
"""The seed's random participant, standalone: Python 3 and nothing else.

    python3 participants/random_bot.py

Asks a random other seat for the rank of a random card of its hand and takes a random pond
card. Its randomness is seeded from its seat and the ids of its starting hand, so the same
match plays the same way every run; it makes exactly the choices of `arena.bots`'s `random`.
"""

import json
import random
import sys
from typing import Any


def main() -> None:
    seat, seats, hand = 0, 2, []
    reply: Any
    rng = random.Random(0)
    for line in sys.stdin:
        line = line.strip()
        if not line:
            continue
        try:
            message = json.loads(line)
        except ValueError:
            message = None
        kind = message.get("type") if isinstance(message, dict) else None
        if isinstance(message, dict) and isinstance(message.get("hand"), list):
            hand = message["hand"]
        reply = None
        if kind == "init":
            seat, seats = message["seat"], len(message["players"])
            rng = random.Random(seat)
        elif kind == "starting-hand":
            rng = random.Random(f"{seat}:{sorted(card['id'] for card in hand)}")
        elif kind == "ask":
            sizes = message["opponentsHandSizes"]
            seat, seats = sizes.index(None), len(sizes)  # our own entry is the null one
            card = rng.choice(hand)
            other = rng.choice([s for s in range(seats) if s != seat])
            reply = {"player": other, "cardId": card["id"]}
        elif kind == "go-fish":
            reply = rng.randrange(len(message["pond"]))
        elif kind == "pick-up":
            reply = rng.randrange(message["pond"])
        # Everything else (hand-update, *-result, match-end, unknown types) is answered null.
        sys.stdout.write(json.dumps(reply) + "\n")
        sys.stdout.flush()
        if kind == "match-end":
            return


if __name__ == "__main__":
    main()
