"""Broken for big tables: written for 2 or 3 players, it gives up when `init` lists 4."""

import json
import random
import sys

from good import random_ask, reply_to

rng = random.Random(7)
for line in sys.stdin:
    message = json.loads(line)
    if message["type"] == "init":
        assert len(message["players"]) <= 3, "written for 2 or 3 players"
    print(json.dumps(reply_to(message, rng, random_ask)), flush=True)
