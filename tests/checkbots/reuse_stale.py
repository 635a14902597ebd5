"""Broken when reused: asks to be kept between matches, and keeps the hand it was dealt in its
first match (it asks first for a rank it was dealt then, when it still holds one)."""

import json
import sys

dealt = None  # never forgotten at `init`: the mistake
for line in sys.stdin:
    message = json.loads(line)
    kind = message["type"]
    reply = None
    if kind == "init":
        reply = {"reuse": True}
    elif kind == "starting-hand" and dealt is None:
        dealt = message["hand"]
    elif kind == "ask":
        hand = message["hand"]
        dealt_ranks = {card["rank"] for card in dealt or []}
        card = next((c for c in hand if c["rank"] in dealt_ranks), hand[0])
        sizes = message["opponentsHandSizes"]
        seat = max((s for s, size in enumerate(sizes) if size is not None), key=lambda s: sizes[s])
        reply = {"player": seat, "cardId": card["id"]}
    elif kind in ("go-fish", "pick-up"):
        reply = 0
    print(json.dumps(reply), flush=True)
