"""Asks to be kept between matches, then ends after match-end all the same (as a bot whose own
loop stops at match-end does), a moment later: it is found gone at the next match's init."""

import json
import random
import sys
import time

from good import random_ask, reply_to

rng = random.Random(7)
for line in sys.stdin:
    message = json.loads(line)
    if message["type"] == "init":
        reply = {"reuse": True}
    else:
        reply = reply_to(message, rng, random_ask)
    print(json.dumps(reply), flush=True)
    if message["type"] == "match-end":
        time.sleep(0.3)  # later than the loop looks, before the next init is read
        break
