"""Broken: asks with the rank of a card instead of its id."""

from good import play


def ask_with_rank(message, rng):
    sizes = message["opponentsHandSizes"]
    others = [seat for seat, size in enumerate(sizes) if size is not None]
    return {"player": rng.choice(others), "cardId": rng.choice(message["hand"])["rank"]}


play(ask=ask_with_rank)
