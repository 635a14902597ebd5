"""Broken: prints Python values (`print(reply)`) instead of JSON: `None`, `{'player': 1, ...}`."""

import json
import sys

for line in sys.stdin:
    message = json.loads(line)
    if message["type"] == "ask":
        seat = message["opponentsHandSizes"].index(None)
        print({"player": 1 - seat, "cardId": message["hand"][0]["id"]}, flush=True)
    elif message["type"] in ("go-fish", "pick-up"):
        print(0, flush=True)
    else:
        print(None, flush=True)
