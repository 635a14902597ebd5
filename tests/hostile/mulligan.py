"""Asks to be reused, plays a whole match, stays alive, and exits at its next `init` without a
reply: the arena must play that match again with fresh processes, every process of the discarded
attempt stopped first (each has seen the deal the new attempt plays)."""

import json
import sys

from _common import sensible

inits = 0
for line in sys.stdin:
    message = json.loads(line)
    if message["type"] == "init":
        inits += 1
        if inits == 2:
            sys.exit(0)
        reply = {"reuse": True}
    else:
        reply = sensible(message)
    print(json.dumps(reply), flush=True)
