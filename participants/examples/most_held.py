#!/usr/bin/env python3
"""An example Go Fish bot in plain Python 3 (no packages): copy it and make it yours.

    python3 participants/examples/most_held.py

In a config:  command = ["python3", "participants/examples/most_held.py"]

It remembers who asked for what (a seat that asks for a rank holds it; a seat that hands a
rank over or says go fish has none of it), asks a seat known to hold one of its ranks, and
otherwise asks for the rank it holds most of, from the seat with the most cards. It uses no
randomness at all, so it is deterministic. The protocol is in docs/protocol.md.
"""

import json
import sys
from collections import Counter


class MostHeld:
    def __init__(self) -> None:
        self.seat = 0
        self.hand: list[dict] = []
        self.holds: dict[int, set[int]] = {}  # seat -> ranks it is known to hold

    def reply(self, message: dict):
        if isinstance(message.get("hand"), list):
            self.hand = message["hand"]  # every message with a hand carries all of it
        kind = message.get("type")
        if kind == "init":
            self.__init__()  # a new match: forget the last one
            self.seat = message["seat"]
        elif kind == "hand-update":
            rank = message["card"]["rank"]
            self.holds.setdefault(message["askingPlayer"], set()).add(rank)
            self.holds.setdefault(message["playerAsked"], set()).discard(rank)
        elif kind == "ask":
            return self.ask(message["opponentsHandSizes"])
        elif kind in ("go-fish", "pick-up"):
            return 0  # the pond is face down: any index is as good as another
        return None  # informational and unknown messages still need a reply

    def ask(self, sizes: list) -> dict:
        mine = Counter(card["rank"] for card in self.hand)
        others = [s for s, size in enumerate(sizes) if size is not None and s != self.seat]
        holding = [s for s in others if sizes[s] > 0] or others
        for seat in holding:
            for rank in sorted(self.holds.get(seat, set()) & mine.keys()):
                return self.ask_for(seat, rank)
        rank = max(sorted(mine), key=lambda r: mine[r])  # the lowest of the most held
        seat = max(holding, key=lambda s: sizes[s])
        return self.ask_for(seat, rank)

    def ask_for(self, seat: int, rank: int) -> dict:
        # Asking uses a card id from our hand, never the rank itself.
        card = next(card for card in self.hand if card["rank"] == rank)
        return {"player": seat, "cardId": card["id"]}


def main() -> None:
    bot = MostHeld()
    for line in sys.stdin:
        if not line.strip():
            continue
        message = json.loads(line)
        print(json.dumps(bot.reply(message)), flush=True)  # one line per message, flushed
        if message.get("type") == "match-end":
            break


if __name__ == "__main__":
    main()
