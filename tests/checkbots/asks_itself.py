"""Broken: asks its own seat."""

from good import play


def self_ask(message, rng):
    return {"player": message["opponentsHandSizes"].index(None), "cardId": message["hand"][0]["id"]}


play(ask=self_ask)
