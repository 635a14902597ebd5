"""The rules' state and its atomic changes (contract §1–3), with no I/O and no randomness.

`Table` holds the hands, the pond and the books. `verify_ask` and `pond_index` are the two
places where a participant's reply becomes a move: everything a reply can be is decided there.
The order in which these changes happen, and who is told what, is `arena.engine.match`.
"""

from __future__ import annotations

import json
import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from fractions import Fraction
from typing import Any

from arena.engine.cards import Card, describe, pack_size, ranks
from arena.engine.settings import CARDS_LIMIT, Sent, about, told
from arena.engine.text import listed, shorten

FULL_BOOK = 0b1111  # one bit per suit


class StartingPlayer(StrEnum):
    RANDOM = "Random"
    FIRST_IN_LINE = "First in line"


class NextPlayer(StrEnum):
    """Who asks after a miss."""

    ASKED = "Asked"  # the seat that was asked
    CLOCKWISE = (
        "Clockwise"  # the seat after the one asked (the reference arena's rule: not the asker's!)
    )
    AFTER_ASKER = "After asker"  # the seat after the asker (the table rule most people know)

    def after_miss(self, asker: int, asked: int, seats: int) -> int:
        if self is NextPlayer.ASKED:
            return asked
        if self is NextPlayer.CLOCKWISE:
            return (asked + 1) % seats
        return (asker + 1) % seats


class RefillWhen(StrEnum):
    """When a hand that emptied draws its fresh hand (`refillEmptyHand`)."""

    AT_ONCE = "At once"
    ON_ITS_TURN = "On its turn"


def deal_for(seats: int) -> int:
    """The deal by table size (`dealBySeats`): 7 cards each for two seats, 5 for three or more."""
    return 7 if seats <= 2 else 5


@dataclass(frozen=True)
class TableRules:
    """The settings of contract §5 `[rules]`, with the reference arena's defaults."""

    starting_player: StartingPlayer = field(
        default=StartingPlayer.RANDOM,
        metadata=about("Who asks first: a seat drawn from the seed, or seat 0."),
    )
    starting_hand_size: int = field(
        default=7, metadata=about("Cards dealt to each seat.", ge=0, le=CARDS_LIMIT)
    )
    min_hand_size: int = field(
        default=1,
        metadata=about(
            "A hand below this many cards picks up from the pond.", ge=0, le=CARDS_LIMIT
        ),
    )
    # "Clockwise" is the reference arena's rule: the seat after the one ASKED (two seats: the asker).
    next_player: NextPlayer = field(
        default=NextPlayer.ASKED,
        metadata=about(
            "Who asks after a miss: the seat asked; the seat after the one asked "
            "(the reference arena's `Clockwise`); or the seat after the asker."
        ),
    )
    # The family rules (off by default: the reference arena's game). See docs/rulings.md.
    lucky_draw: bool = field(
        default=False,
        metadata=about(
            "Go fish and draw the asked rank: `lucky-draw`, and ask again.", sent=Sent.WHEN_ON
        ),
    )
    refill_empty_hand: int = field(
        default=0,
        metadata=about(
            "A hand that empties draws until it holds this many (0: off).",
            ge=0,
            le=CARDS_LIMIT,
            sent=Sent.WHEN_ON,
        ),
    )
    refill_when: RefillWhen = field(
        default=RefillWhen.AT_ONCE,
        metadata=about(
            'When an emptied hand draws its fresh hand ("On its turn" needs minHandSize = 0).',
            sent=Sent.WITH,
            goes_with="refill_empty_hand",
        ),
    )
    draw_when_no_one_to_ask: bool = field(
        default=False,
        metadata=about(
            "When no other seat holds a card you draw (`go-fish`) instead of asking.",
            sent=Sent.WHEN_ON,
        ),
    )
    deal_by_seats: bool = field(
        default=False,
        metadata=about(
            "startingHandSize is 7 for two seats, 5 for three or more (not with startingHandSize).",
            sent=Sent.WHEN_ON,
        ),
    )


@dataclass(frozen=True)
class DeckRules:
    """The settings of contract §5 `[deck]`."""

    number_of_decks: int = field(
        default=1, metadata=about("Decks shuffled together into one pack.", ge=1, le=64)
    )
    knights: bool = field(
        default=False, metadata=about("Each deck has a knight in every suit (14 ranks).")
    )


@dataclass(frozen=True)
class Rules(DeckRules, TableRules):
    """The engine's settings: `[rules]` and `[deck]` together (`TableRules`, `DeckRules`)."""

    @property
    def pack_size(self) -> int:
        return pack_size(self.number_of_decks, self.knights)

    def hand_size(self, seats: int) -> int:
        """The cards dealt to each of `seats` seats."""
        return deal_for(seats) if self.deal_by_seats else self.starting_hand_size

    def cards_to_deal(self, seats: int) -> int:
        return seats * self.hand_size(seats)

    def check_deal(self, seats: int) -> None:
        """The one check that the deal fits the pack (the config, a league's table sizes,
        `arena play`, the research env). Raises ValueError: "the deal needs 60 cards (2 seats ×
        30) but the pack has 52"."""
        needed = self.cards_to_deal(seats)
        if needed > self.pack_size:
            raise ValueError(
                f"the deal needs {needed} cards ({seats} seats × {self.hand_size(seats)}) "
                f"but the pack has {self.pack_size}"
            )

    def refill_target(self, held: int, *, turn_starts: bool = False) -> int:
        """How many cards a hand of `held` cards draws up to now (it stops when the pond does).

        `minHandSize` keeps every hand at its size; a hand that is empty draws up to
        `refillEmptyHand` instead when that is more, at once or when its turn starts.
        """
        target = self.min_hand_size
        if (
            held == 0
            and self.refill_empty_hand
            and (turn_starts or self.refill_when is RefillWhen.AT_ONCE)
        ):
            target = max(target, self.refill_empty_hand)
        return target

    def problem(self) -> tuple[str, str] | None:
        """(key, why) when two settings contradict each other; None when they fit."""
        if (
            self.refill_empty_hand
            and self.refill_when is RefillWhen.ON_ITS_TURN
            and self.min_hand_size > 0
        ):
            return "refillWhen", (
                f'"On its turn" needs minHandSize = 0 (minHandSize = {self.min_hand_size} '
                "refills an emptied hand at once)"
            )
        return None

    def as_seed_names(self, seats: int | None = None) -> dict[str, dict[str, Any]]:
        """The settings under the reference arena's own section and key names (config, replay,
        `init`).

        The family rules appear only when they are on, so the reference arena's settings read as
        before. With `dealBySeats`, `startingHandSize` is given only for a table of `seats`.
        """
        rules = told(self, TableRules)
        if not self.deal_by_seats or seats is not None:
            rules["startingHandSize"] = self.hand_size(seats or 2)
        else:
            del rules["startingHandSize"]
        return {"rules": rules, "deck": told(self, DeckRules)}


class Table:
    """Hands, pond and books of one match. Every card is in exactly one of them."""

    def __init__(self, seats: int, pond: list[Card], knights: bool) -> None:
        self.hands: list[list[Card]] = [[] for _ in range(seats)]
        self.pond: list[Card] = list(pond)
        # What seats may know of the pond: each card's deck, kept beside it so that an
        # `ask` or `go-fish` message copies one list instead of building it card by card.
        self.pond_decks: list[int] = [card["deck"] for card in self.pond]
        self.books: list[int] = [0] * seats
        self.ranks = ranks(knights)
        # Only a card coming in can complete a book, so a hand found free of books is not
        # scanned again until it gains a card (most book checks are of unchanged hands).
        self._may_hold_book: list[bool] = [False] * seats

    @property
    def seats(self) -> int:
        return len(self.hands)

    def deal(self, hand_size: int) -> None:
        """Seat 0 takes the first `hand_size` cards of the pond, then seat 1, and so on."""
        for hand in self.hands:
            hand.extend(self.pond[:hand_size])
            del self.pond[:hand_size]
            del self.pond_decks[:hand_size]
        self._may_hold_book = [True] * self.seats

    def draw(self, seat: int, index: int) -> Card:
        """Move pond card `index` (already wrapped into range) to the end of `seat`'s hand."""
        card = self.pond.pop(index)
        del self.pond_decks[index]
        self.hands[seat].append(card)
        self._may_hold_book[seat] = True
        return card

    def hand_over(self, asked: int, asker: int, rank: int) -> int:
        """Move every card of `rank` from `asked` to the end of `asker`'s hand; return how many."""
        given = self.hands[asked]
        moving = [card for card in given if card["rank"] == rank]
        if moving:
            given[:] = [card for card in given if card["rank"] != rank]
            self.hands[asker].extend(moving)
            self._may_hold_book[asker] = True
        return len(moving)

    def next_book(self, seat: int, after: int = -1) -> int | None:
        """The lowest rank above `after` of which `seat` holds all four suits, if any."""
        if not self._may_hold_book[seat]:
            return None
        suits = [0] * 14
        for card in self.hands[seat]:
            suits[card["rank"]] |= 1 << card["suit"]
        for rank in self.ranks:
            if rank > after and suits[rank] == FULL_BOOK:
                return rank
        if after < 0:
            self._may_hold_book[seat] = False
        return None

    def lay_book(self, seat: int, rank: int) -> list[Card]:
        """Remove the first card of each suit of `rank` in hand order and score the book."""
        hand = self.hands[seat]
        book: list[Card] = []
        taken: set[int] = set()
        for card in hand:
            if card["rank"] == rank and card["suit"] not in taken:
                taken.add(card["suit"])
                book.append(card)
        laid = {card["id"] for card in book}
        hand[:] = [card for card in hand if card["id"] not in laid]
        self.books[seat] += 1
        return book

    def table_is_empty(self) -> bool:
        return not self.pond and not any(self.hands)

    def places(self) -> list[int]:
        """`ranks[s]` = 1 + the number of seats with more books than seat `s`."""
        return places_of(self.books)

    # What-ifs for the luck correction (arena/luck): the engine stays the one home of a draw.

    def alike(self, index: int) -> list[int]:
        """The pond indices a draw at `index` was as likely to take: those of the same deck.

        The pond's order is hidden from every seat but its decks are not (`go-fish` and `ask`
        list them), so given all a seat can know, the card at `index` is uniform over the pond
        cards of its deck; with one deck, over the whole pond.
        """
        deck = self.pond_decks[index]
        return [i for i, label in enumerate(self.pond_decks) if label == deck]

    def copy(self) -> Table:
        """An independent table in the same state (a hypothetical draw changes only the copy)."""
        twin = Table(0, [], knights=len(self.ranks) == 14)
        twin.hands = [list(hand) for hand in self.hands]
        twin.pond = list(self.pond)
        twin.pond_decks = list(self.pond_decks)
        twin.books = list(self.books)
        twin._may_hold_book = list(self._may_hold_book)
        return twin


def whole_number(value: Any) -> int | None:
    """A JSON number with an integral value, as an int; anything else (bools too) is None."""
    if type(value) is int:
        return value
    if type(value) is float and value.is_integer():
        return int(value)
    return None


@dataclass(frozen=True, slots=True)
class Ask:
    """A valid ask: the seat asked, and the card of the asker's hand it was made with."""

    asked: int
    card: Card


@dataclass(frozen=True, slots=True)
class Refusal:
    """Why an ask reply was refused: `reason` a short kind (`ask-itself`…), `detail` in words
    for the bot's writer."""

    reason: str
    detail: str


def verify_ask(reply: Any, asker: int, seats: int, hand: Sequence[Card]) -> Ask | Refusal:
    """The ask an `ask` reply makes, or why the rules refuse it (the one place that decides).

    Valid: a JSON object whose `player` is another seat's index and whose `cardId` is the id
    of a card in the asker's hand. Integral floats such as `1.0` count as integers (JSON has
    one number type); extra keys are ignored.
    """
    if type(reply) is not dict:
        return Refusal(
            "ask-not-an-object",
            f'an ask reply is an object {{"player": seat, "cardId": id}}, got {shown(reply)}',
        )
    if "player" not in reply:
        keys = ", ".join(map(str, reply)) or "none"
        return Refusal(
            "ask-no-player", f"no `player` key (keys: {keys}){misspelt(reply, 'player')}"
        )
    player = whole_number(reply["player"])
    if player is None:
        return Refusal(
            "ask-player-not-a-seat", f"player must be a seat number, got {shown(reply['player'])}"
        )
    if not 0 <= player < seats:
        return Refusal(
            "ask-player-not-a-seat", f"player {player} is not a seat (seats are 0..{seats - 1})"
        )
    if player == asker:
        return Refusal("ask-itself", f"asks itself (you are seat {asker}); ask another seat")
    if "cardId" not in reply:
        keys = ", ".join(map(str, reply))
        return Refusal(
            "ask-no-card-id", f"no `cardId` key (keys: {keys}){misspelt(reply, 'cardId')}"
        )
    card_id = reply["cardId"]
    if type(card_id) is dict and "id" in card_id:
        return Refusal("ask-card-not-id", "cardId is a whole card; send only its `id`")
    number = whole_number(card_id)
    if number is None:
        return Refusal(
            "ask-card-id-not-a-number",
            f"cardId must be the id (a number) of a card in your hand, got {shown(card_id)}",
        )
    for card in hand:
        if card["id"] == number:
            return Ask(player, card)
    # One name for one mistake, whatever the number happens to be; the likeliest cause, a rank
    # sent instead of an id, is named in the detail.
    same_rank = [card for card in hand if card["rank"] == card_id]
    if same_rank:
        card = same_rank[0]
        return Refusal(
            "ask-card-not-in-hand",
            f"cardId {shown(card_id)} is not the id of a card in your hand; it is the rank of your "
            f"{describe(card)}: to ask for that rank, send its id {card['id']}",
        )
    ids = listed([str(card["id"]) for card in hand], 8)
    return Refusal(
        "ask-card-not-in-hand",
        f"cardId {shown(card_id)} is not the id of a card in your hand (ids: {ids})",
    )


def misspelt(reply: dict[Any, Any], key: str) -> str:
    """A hint for a reply that lacks `key`: the key it wrote in another case or spelling
    (`Player`, `card_id`, `cardID`), or a rank where the id of a card belongs; else nothing."""
    wanted = key.lower()
    for written in reply:
        if str(written).lower().replace("_", "").replace("-", "") == wanted:
            return f"; keys are exact, case and all: write `{key}`, not `{written}`"
    if key == "cardId" and "rank" in reply:
        return "; ask with the id of a card in your hand (`cardId`), never with a rank"
    return ""


def shown(value: Any, limit: int = 80) -> str:
    """A reply (or part of one) as compact JSON text in a sentence, cut to `limit` characters
    (the last an ellipsis); a value that is no JSON as its repr. The one preview of a reply:
    the engine's refusals, the match loop's faults, `arena check` and the timeline use it."""
    try:
        text = json.dumps(value, separators=(",", ":"), ensure_ascii=False)
    except (TypeError, ValueError):
        text = repr(value)
    return shorten(text, limit)


def is_pond_number(reply: Any) -> bool:
    """Whether a pond-index reply is a finite number; anything else counts as 0."""
    return type(reply) is int or (type(reply) is float and math.isfinite(reply))


def pond_index(reply: Any, pond_size: int) -> int:
    """The pond card a `go-fish` or `pick-up` reply draws (contract §3), always in range.

    Anything but a finite number counts as 0. Numbers wrap into [0, pond_size) with exact
    arithmetic (negatives wrap upward), then a fraction is truncated toward zero.
    """
    if type(reply) is int:
        return reply % pond_size
    if type(reply) is float and math.isfinite(reply):
        if reply.is_integer():
            return int(reply) % pond_size
        return math.floor(Fraction(reply) % pond_size)
    return 0


def places_of(books: Sequence[int]) -> list[int]:
    """Each seat's place from its books: 1 + the number of seats with more (equal books share a
    place). The one rule; arena/core/_core.c computes it again, as this does."""
    return [1 + sum(other > mine for other in books) for mine in books]


def place_reward(place: int, seats: int) -> float:
    """A place as a reward (the research interfaces' `reward="places"`, `Result.reward`): 1 for
    first … −1 for last, linear in the place (seats with equal books share a place). The one
    formula; arena/core/_core.c computes it again, as this does."""
    return 1.0 - 2.0 * (place - 1) / (seats - 1)
