"""Broken: answers go-fish and pick-up with a string instead of a number."""

from good import play, reply_to


def reply(message, rng, ask):
    if message["type"] in ("go-fish", "pick-up"):
        return str(rng.randrange(3))
    return reply_to(message, rng, ask)


play(reply=reply)
