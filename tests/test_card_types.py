"""One card: the engine's `cards.Card` (the wire's dict) is the definition; the pydantic model
that checks it (on the wire's schema and in a replay's deck) and the SDK's `Card` agree with it
key for key and card for card."""

from __future__ import annotations

from typing import get_type_hints

import pytest
from pydantic import ValidationError

from arena.engine import cards
from arena.replays import models, schema
from arena.sdk import Card as SdkCard


def test_the_model_has_the_engines_keys() -> None:
    assert list(models.Card.model_fields) == list(get_type_hints(cards.Card))
    assert schema.Card is models.Card  # the schema shows the model replays are read with


@pytest.mark.parametrize(("decks", "knights"), [(1, False), (1, True), (3, True)])
def test_every_card_of_a_pack_reads_the_same_three_ways(decks: int, knights: bool) -> None:
    for card in cards.new_pack(decks, knights):
        assert models.Card.model_validate(card).model_dump() == card
        seen = SdkCard.from_json(dict(card))
        assert (seen.id, seen.rank, seen.suit, seen.deck, seen.glyph) == (
            card["id"],
            card["rank"],
            card["suit"],
            card["deck"],
            card["card"],
        )


@pytest.mark.parametrize(
    "change", [{"rank": 14}, {"suit": 4}, {"id": -1}, {"card": "AS"}, {"extra": 1}, {"id": "1"}]
)
def test_a_card_the_engine_never_deals_is_refused(change: dict[str, object]) -> None:
    card = {**cards.new_pack(1, False)[0], **change}
    with pytest.raises(ValidationError):
        models.Card.model_validate(card)
