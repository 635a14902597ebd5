"""The cards (contract §1): the wire shape, the unshuffled pack and the seeded shuffle.

Card dicts are built once per match and shared by every message that shows them, so they
are never mutated after `new_pack` returns.
"""

from __future__ import annotations

import random
from typing import TypedDict

SUITS = ("spades", "hearts", "diamonds", "clubs")
RANK_NAMES = ("A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "C", "Q", "K")
SUIT_SIGNS = "♠♥♦♣"  # by `suit`: spades, hearts, diamonds, clubs
KNIGHT = 11
ALL_RANKS = tuple(range(14))
RANKS_WITHOUT_KNIGHTS = tuple(r for r in ALL_RANKS if r != KNIGHT)


class Card(TypedDict):
    id: int
    card: str
    deck: int
    suit: int
    rank: int


def ranks(knights: bool) -> tuple[int, ...]:
    """The ranks in play, in book-check order."""
    return ALL_RANKS if knights else RANKS_WITHOUT_KNIGHTS


def pack_size(number_of_decks: int, knights: bool) -> int:
    """How many cards the pack of these settings holds."""
    return number_of_decks * len(SUITS) * len(ranks(knights))


def glyph(suit: int, rank: int) -> str:
    """The Unicode playing-card glyph of a suit and rank."""
    return chr(0x1F0A1 + 16 * suit + rank)


def new_pack(number_of_decks: int, knights: bool) -> list[Card]:
    """The unshuffled pack: for deck, for suit, for rank; ids 0, 1, 2, … in that order."""
    pack: list[Card] = []
    for deck in range(number_of_decks):
        for suit in range(len(SUITS)):
            for rank in ranks(knights):
                pack.append(
                    Card(id=len(pack), card=glyph(suit, rank), deck=deck, suit=suit, rank=rank)
                )
    return pack


def shuffled_pack(rng: random.Random, number_of_decks: int, knights: bool) -> list[Card]:
    """The pack shuffled by `rng` (a seeded `random.Random`, the same order on every machine)."""
    pack = new_pack(number_of_decks, knights)
    rng.shuffle(pack)
    return pack


def rank_sign(rank: int) -> str:
    """`7`, `Q`: the rank as a card shows it (`rank 99` for one no pack holds, in an edited
    replay)."""
    return RANK_NAMES[rank] if 0 <= rank < len(RANK_NAMES) else f"rank {rank}"


def describe(card: Card) -> str:
    """A short human name such as `Q♥` (which deck it came from is not shown)."""
    return rank_sign(card["rank"]) + SUIT_SIGNS[card["suit"] % 4]
