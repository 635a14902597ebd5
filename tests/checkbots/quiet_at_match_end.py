"""Broken, mildly: plays well, but leaves at `match-end` without the reply it owes."""

import json
import random
import sys

from good import random_ask, reply_to

rng = random.Random(7)
for line in sys.stdin:
    message = json.loads(line)
    if message["type"] == "match-end":
        break
    print(json.dumps(reply_to(message, rng, random_ask)), flush=True)
