"""Asks to be reused in its `init` reply, then exits at `match-end` all the same."""

import json
import random
import sys

rng = random.Random(1)
for line in sys.stdin:
    message = json.loads(line)
    kind = message["type"]
    reply = None
    if kind == "init":
        reply = {"reuse": True}
    elif kind == "ask":
        sizes = message["opponentsHandSizes"]
        others = [seat for seat, size in enumerate(sizes) if size is not None]
        reply = {"player": rng.choice(others), "cardId": rng.choice(message["hand"])["id"]}
    elif kind == "go-fish":
        reply = rng.randrange(len(message["pond"]))
    elif kind == "pick-up":
        reply = rng.randrange(message["pond"])
    print(json.dumps(reply), flush=True)
    if kind == "match-end":
        break
