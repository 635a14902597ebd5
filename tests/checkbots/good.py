"""A compliant participant: the seed's random player, standard library only.

The broken bots beside it reuse `play` with one mistake each.
"""

from __future__ import annotations

import json
import random
import sys
from collections.abc import Callable
from typing import Any

Asker = Callable[[dict[str, Any], random.Random], Any]


def random_ask(message: dict[str, Any], rng: random.Random) -> Any:
    sizes = message["opponentsHandSizes"]
    others = [seat for seat, size in enumerate(sizes) if size is not None]
    return {"player": rng.choice(others), "cardId": rng.choice(message["hand"])["id"]}


def reply_to(message: dict[str, Any], rng: random.Random, ask: Asker) -> Any:
    kind = message.get("type")
    if kind == "ask":
        return ask(message, rng)
    if kind == "go-fish":
        return rng.randrange(len(message["pond"]))
    if kind == "pick-up":
        return rng.randrange(message["pond"])
    return None  # init, results, updates, match-end, and any type this bot does not know


def play(ask: Asker = random_ask, reply: Callable[..., Any] = reply_to) -> None:
    rng = random.Random(7)
    for line in sys.stdin:
        message = json.loads(line)
        print(json.dumps(reply(message, rng, ask)), flush=True)


if __name__ == "__main__":
    play()
