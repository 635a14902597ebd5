"""Rigged decks and scripted replies for driving `arena.engine.match` in tests.

Cards are named the way a person writes them: rank (`A 2 … 10 J C Q K`, `C` the knight) then
suit (`S H D C`), and `@1` for a card of deck 1: `"7S"`, `"10H"`, `"QC@1"`. A `Pack` turns names
into the card dicts of `arena.engine.cards.new_pack`, and builds a rigged deck (the pond before
the deal) from the hands each seat should be dealt and the pond that should follow.

`run` drives a match generator with scripted replies and records every delivery, so that a test
can assert on the exact messages and the result.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from arena.engine.cards import RANK_NAMES, Card, new_pack
from arena.engine.events import as_json
from arena.engine.match import NO_REPLY, Match, MatchSetup, Result
from arena.engine.rules import NextPlayer, Rules, StartingPlayer

SUIT_LETTERS = "SHDC"


class Pack:
    """The unshuffled pack of some settings, with cards looked up by name."""

    def __init__(self, decks: int = 1, knights: bool = False) -> None:
        self.decks, self.knights = decks, knights
        self.cards = new_pack(decks, knights)
        self._by_key = {(c["deck"], c["suit"], c["rank"]): c for c in self.cards}

    def one(self, name: str) -> Card:
        """The card named `name`, e.g. `"10H"` or `"QS@1"`."""
        face, _, deck = name.partition("@")
        rank = RANK_NAMES.index(face[:-1])
        suit = SUIT_LETTERS.index(face[-1])
        return dict(self._by_key[(int(deck or 0), suit, rank)])  # type: ignore[return-value]

    def __call__(self, names: str) -> list[Card]:
        """The cards of a space-separated list of names, in that order."""
        return [self.one(name) for name in names.split()]

    def ids(self, names: str) -> list[int]:
        return [card["id"] for card in self(names)]

    def deck(self, hands: Sequence[str], pond: str = "") -> tuple[Card, ...]:
        """The pond before the deal: each seat's dealt hand in seat order, then the pond."""
        cards = [card for hand in hands for card in self(hand)] + self(pond)
        ids = [card["id"] for card in cards]
        assert len(set(ids)) == len(ids), f"a card is rigged twice: {hands} {pond}"
        return tuple(cards)

    def full_deck(self, hands: Sequence[str], pond: str = "") -> tuple[Card, ...]:
        """Like `deck`, with the rest of the pack after the named pond cards, in pack order."""
        named = self.deck(hands, pond)
        used = {card["id"] for card in named}
        return named + tuple(dict(c) for c in self.cards if c["id"] not in used)  # type: ignore[misc]


def rules(
    hand: int,
    minimum: int = 1,
    *,
    next_player: NextPlayer = NextPlayer.ASKED,
    decks: int = 1,
    knights: bool = False,
    **family: Any,
) -> Rules:
    """Seat 0 starts; `family` takes the family rules' fields (`lucky_draw=True`, …)."""
    return Rules(
        starting_player=StartingPlayer.FIRST_IN_LINE,
        starting_hand_size=hand,
        min_hand_size=minimum,
        next_player=next_player,
        number_of_decks=decks,
        knights=knights,
        **family,
    )


def setup(
    deck: Sequence[Card], settings: Rules, seats: int = 2, starting: int = 0, **options: Any
) -> MatchSetup:
    names = tuple("abcdefgh"[:seats])
    return MatchSetup(settings, names, tuple(deck), starting, **options)


def ask(player: Any, card: Card | int) -> dict[str, Any]:
    """An ask reply: the seat asked and the card asked with (a card or its id)."""
    return {"player": player, "cardId": card if isinstance(card, int) else card["id"]}


@dataclass
class Sent:
    seat: int
    message: dict[str, Any]
    reply: Any

    @property
    def type(self) -> str:
        return str(self.message["type"])


@dataclass
class Played:
    match: Match
    transcript: list[Sent] = field(default_factory=list)
    result: Result | None = None  # None: stopped at an `ask` with no scripted reply left

    def types(self, start: int = 0) -> list[tuple[int, str]]:
        """(seat, type) of every delivery from `start` on."""
        return [(sent.seat, sent.type) for sent in self.transcript[start:]]

    def after_deal(self) -> list[Sent]:
        """Every delivery after the `init` and `starting-hand` messages."""
        return [s for s in self.transcript if s.type not in ("init", "starting-hand")]

    def of_type(self, kind: str) -> list[Sent]:
        return [sent for sent in self.transcript if sent.type == kind]

    @property
    def last(self) -> Sent:
        return self.transcript[-1]


def run(
    match_setup: MatchSetup,
    asks: Iterable[Any] = (),
    draws: Iterable[Any] = (),
    *,
    limit: int = 100_000,
) -> Played:
    """Play with scripted replies: `asks` answer `ask` in turn, `draws` answer `go-fish` and
    `pick-up` in turn (then 0, the top of the pond), informational messages get `None`.

    Stops at the first `ask` once the scripted asks are used up (that `ask` is recorded, with
    reply `NO_REPLY`), or when the match returns its result.
    """
    match = Match(match_setup)
    played = Played(match)
    ask_replies, draw_replies = iter(asks), iter(draws)
    game = match.play()
    reply: Any = None
    try:
        delivery = next(game)
        for _ in range(limit):
            kind = delivery.message["type"]
            if kind == "ask":
                reply = next(ask_replies, _END)
                if reply is _END:
                    played.transcript.append(Sent(delivery.seat, delivery.message, NO_REPLY))
                    game.close()
                    return played
            elif kind in ("go-fish", "pick-up"):
                reply = next(draw_replies, 0)
            else:
                reply = None
            played.transcript.append(Sent(delivery.seat, delivery.message, reply))
            delivery = game.send(reply)
        raise AssertionError(f"the match did not end within {limit} deliveries")
    except StopIteration as stop:
        played.result = stop.value
        return played


_END = object()


def events_of(match: Match) -> list[dict[str, Any]]:
    """A match's events as a replay records them."""
    return [as_json(event) for event in match.events]
