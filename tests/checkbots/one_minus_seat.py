"""Broken beyond two seats: it reckons its one opponent as `1 - seat` (seat 3 asks seat -2)."""

import json
import random
import sys

from good import reply_to

seat = 0


def opposite_ask(message: dict, rng: random.Random) -> dict:
    return {"player": 1 - seat, "cardId": message["hand"][0]["id"]}


rng = random.Random(7)
for line in sys.stdin:
    message = json.loads(line)
    if message["type"] == "init":
        seat = message["seat"]
    print(json.dumps(reply_to(message, rng, opposite_ask)), flush=True)
