"""Compliant and reused: asks to be kept between matches and starts afresh at every init."""

import json
import random
import sys

from good import random_ask, reply_to

rng = random.Random(7)
for line in sys.stdin:
    message = json.loads(line)
    if message["type"] == "init":
        rng = random.Random(7)  # afresh: the same match plays the same way in any process
        reply = {"reuse": True}
    else:
        reply = reply_to(message, rng, random_ask)
    print(json.dumps(reply), flush=True)
