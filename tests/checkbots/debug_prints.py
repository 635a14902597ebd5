"""Broken: prints debug text to stdout before answering an ask."""

from good import play, random_ask


def chatty_ask(message, rng):
    print(f"thinking about {len(message['hand'])} cards", flush=True)
    return random_ask(message, rng)


play(ask=chatty_ask)
