"""Broken: asks its own seat (and says so on stderr, which check shows beside the problem)."""

import sys

from good import play


def self_ask(message, rng):
    me = message["opponentsHandSizes"].index(None)
    print(f"asking seat {me}, the one with the most cards", file=sys.stderr, flush=True)
    return {"player": me, "cardId": message["hand"][0]["id"]}


play(ask=self_ask)
