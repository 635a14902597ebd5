"""Broken: plays well, but crashes on a message type it does not know."""

from good import play, reply_to

KNOWN = {
    "init",
    "starting-hand",
    "ask",
    "go-fish",
    "go-fish-result",
    "pick-up",
    "pick-up-result",
    "hand-update",
    "match-end",
}


def strict(message, rng, ask):
    if message["type"] not in KNOWN:
        raise ValueError(f"unknown message type {message['type']}")
    return reply_to(message, rng, ask)


play(reply=strict)
