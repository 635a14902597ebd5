"""Every message a seat is sent (contract §4), built from the table for that one seat.

Each builder reads the hand of the seat it addresses and nothing of any other seat's hand
but its size; the only other cards a message may show are public ones (the card an ask was
made with) or the seat's own draw. Lists are copied: a message is recorded as sent, so it
must not change when the table does.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from arena.engine.cards import Card
from arena.engine.rules import Rules, Table

Message = dict[str, Any]


def init(seat: int, names: Sequence[str], rules: Rules, limits: Mapping[str, Any]) -> Message:
    return {
        "type": "init",
        "seat": seat,
        "players": [{"seat": s, "name": name} for s, name in enumerate(names)],
        "opponents": [None if s == seat else name for s, name in enumerate(names)],
        "settings": {**rules.as_seed_names(len(names)), "limits": dict(limits)},
    }


def starting_hand(table: Table, seat: int) -> Message:
    return {"type": "starting-hand", "hand": list(table.hands[seat])}


def ask(table: Table, seat: int) -> Message:
    return {
        "type": "ask",
        "hand": list(table.hands[seat]),
        "opponentsHandSizes": [None if s == seat else len(h) for s, h in enumerate(table.hands)],
        "pond": list(table.pond_decks),
    }


def go_fish(table: Table) -> Message:
    return {"type": "go-fish", "pond": list(table.pond_decks)}


def go_fish_result(table: Table, seat: int, drawn: Card) -> Message:
    return {"type": "go-fish-result", "card": [drawn], "hand": list(table.hands[seat])}


def pick_up(table: Table) -> Message:
    return {"type": "pick-up", "pond": len(table.pond)}


def pick_up_result(table: Table, seat: int, drawn: Card) -> Message:
    return {"type": "pick-up-result", "card": [drawn], "hand": list(table.hands[seat])}


def hand_update(table: Table, seat: int, asker: int, asked: int, card: Card, moved: int) -> Message:
    return {
        "type": "hand-update",
        "askingPlayer": asker,
        "playerAsked": asked,
        "card": card,
        "result": moved,
        "hand": list(table.hands[seat]),
    }


def lucky_draw(seat: int, drawn: Card) -> Message:
    """The asked rank came from the pond (`luckyDraw`): the card is shown to every seat."""
    return {"type": "lucky-draw", "player": seat, "card": drawn}


def match_end(scores: Sequence[int], places: Sequence[int]) -> Message:
    return {"type": "match-end", "scores": list(scores), "ranks": list(places)}
