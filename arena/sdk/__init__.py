"""The bot writer's SDK: subclass `Bot`, override `choose_ask`, end your script with `run(MyBot())`.

Standard library only, so a bot needs nothing but Python 3.11. The protocol is in
`docs/protocol.md`; this module speaks it for you:

    from arena.sdk import Ask, Bot, run

    class MostHeld(Bot):
        def choose_ask(self) -> Ask:
            rank, cards = max(self.ranks_in_hand().items(), key=lambda item: len(item[1]))
            return Ask(self.rng.choice(self.others_with_cards()), cards[0].id)

    if __name__ == "__main__":
        run(MostHeld())

What the SDK keeps for you, from public information only:

- `hand`: your cards, replaced by every message that carries a `hand`;
- `hand_sizes`: every seat's card count (exact at each of your `ask`s, followed between them
  from the hand-overs and go-fish draws everyone is told about);
- `pond_size`: cards left in the pond, kept the same way;
- `asks`: every `hand-update` so far as an `AskSeen` (who asked whom with which card, how many
  cards moved, whether the asker went fishing);
- `lucky_draws`: every `lucky-draw` so far as a `LuckyDraw` (under the `luckyDraw` rule, a seat
  that fished the rank it asked for shows the card and asks again);
- `books_laid`: the ranks of the books you laid (cards that left your hand without a hand-over);
- `rng`: a `random.Random` seeded from your seat and the ids of your starting hand, so a bot
  that draws its randomness only from it plays the same match the same way on every run.

A `Bot` that overrides nothing plays like the reference arena's random participant.
"""

from __future__ import annotations

import json
import random
import sys
import traceback
from collections import defaultdict
from dataclasses import dataclass
from typing import Any, ClassVar, Literal, NamedTuple, TextIO

from arena.engine.cards import pack_size
from arena.engine.rules import deal_for

__all__ = ["Ask", "AskSeen", "Bot", "Card", "Draw", "LuckyDraw", "pack_size", "run"]

Draw = Literal["go-fish", "pick-up"]  # how a card came from the pond
DRAWN = ("go-fish-result", "pick-up-result")  # the messages that show a card drawn


@dataclass(frozen=True, slots=True)
class Card:
    """One card as the arena shows it (`glyph` is the wire's `card` field)."""

    id: int
    rank: int
    suit: int
    deck: int
    glyph: str

    @classmethod
    def from_json(cls, value: dict[str, Any]) -> Card:
        return cls(
            id=int(value["id"]),
            rank=int(value["rank"]),
            suit=int(value["suit"]),
            deck=int(value.get("deck", 0)),
            glyph=str(value.get("card", "")),
        )


class Ask(NamedTuple):
    """The reply to `ask`: ask `seat` for every card of the rank of your card `card_id`."""

    seat: int
    card_id: int


@dataclass(frozen=True, slots=True)
class AskSeen:
    """One resolved ask, as `hand-update` tells it to every seat."""

    asker: int
    asked: int
    card: Card  # the card asked with: the asker held it
    moved: int  # cards handed over; 0 means the asked seat said go fish
    went_fishing: bool  # a miss while the pond had cards: the asker drew one (unseen by others)

    @property
    def rank(self) -> int:
        return self.card.rank


@dataclass(frozen=True, slots=True)
class LuckyDraw:
    """A seat went fishing and drew the rank it asked for: it shows `card` and asks again."""

    seat: int
    card: Card


class Bot:
    """A Go Fish player. Override `choose_ask`, and whichever hooks you need.

    Per-match state belongs in `reset()` (call `super().reset()` first): it runs at every
    `init`, so a bot kept alive between matches (`reuse = True`) starts each one clean.
    """

    # Reply `{"reuse": true}` to `init`: ask the arena to keep this process for later matches.
    reuse: ClassVar[bool] = False

    def __init__(self) -> None:
        self.reset()

    def reset(self) -> None:
        self.seat = 0
        self.names: list[str] = []
        self.settings: dict[str, Any] = {}
        self.hand: list[Card] = []
        self.hand_sizes: list[int] = []
        self.pond_size = 0
        self.asks: list[AskSeen] = []
        self.lucky_draws: list[LuckyDraw] = []
        self.books_laid: list[int] = []
        self.scores: list[int] | None = None  # set by `match-end`
        self.rng = random.Random(0)
        self._known_cards: dict[int, Card] = {}  # a card never changes within a match
        # Per rank: cards that left the hand other than by a hand-over (see `_sync_hand`).
        self._unplaced: dict[int, int] = defaultdict(int)

    # --- what to override -------------------------------------------------------------

    def choose_ask(self) -> Ask:
        """Your turn: which seat to ask, with which card of your hand (never empty here)."""
        card = self.rng.choice(self.hand)
        return Ask(self.rng.choice(self.others()), card.id)

    def choose_pond_index(self, pond_size: int) -> int:
        """Which pond card to take (go-fish or pick-up). The pond's order is hidden from everyone."""
        return self.rng.randrange(pond_size) if pond_size > 0 else 0

    def on_start(self) -> None:
        """The starting hand has arrived (`self.hand`, `self.rng` are set)."""

    def on_ask_seen(self, seen: AskSeen) -> None:
        """An ask was resolved (`self.asks`, `self.hand_sizes` already include it)."""

    def on_draw(self, card: Card, via: Draw) -> None:
        """You took `card` from the pond; `via` is `"go-fish"` or `"pick-up"`."""

    def on_lucky_draw(self, lucky: LuckyDraw) -> None:
        """A seat (perhaps you) fished the rank it asked for; it asks again."""

    def on_match_end(self, scores: list[int], places: list[int]) -> None:
        """The match is over."""

    # --- helpers ----------------------------------------------------------------------

    @property
    def seats(self) -> int:
        return len(self.hand_sizes)

    def others(self) -> list[int]:
        return [seat for seat in range(self.seats) if seat != self.seat]

    def others_with_cards(self) -> list[int]:
        """Seats worth asking; all other seats if none seems to hold a card (sizes are estimates)."""
        holding = [seat for seat in self.others() if self.hand_sizes[seat] > 0]
        return holding or self.others()

    def refill_target(self, held: int) -> int:
        """How many cards a hand of `held` cards draws up to at once (`minHandSize`, and
        `refillEmptyHand` for an empty hand when `refillWhen` is "At once")."""
        rules = self.settings.get("rules", {})
        target = int(rules.get("minHandSize", 1))
        refill = int(rules.get("refillEmptyHand", 0))
        if held == 0 and refill and rules.get("refillWhen", "At once") == "At once":
            target = max(target, refill)
        return target

    def ranks_in_hand(self) -> dict[int, list[Card]]:
        """Your cards grouped by rank, in hand order."""
        groups: dict[int, list[Card]] = defaultdict(list)
        for card in self.hand:
            groups[card.rank].append(card)
        return dict(groups)

    def log(self, *parts: object) -> None:
        """Write a line to your log (stderr): stdout is reserved for replies."""
        print(*parts, file=sys.stderr, flush=True)

    # --- the protocol -----------------------------------------------------------------

    def handle(self, message: dict[str, Any]) -> Any:
        """The reply to one arena message. `run` and the arena's in-process bots both call this."""
        kind = message.get("type")
        if kind == "init":
            return self._init(message)
        if "hand" in message and kind != "hand-update":
            hand = self._cards(message["hand"])
            # Cards that came in: the deal, or a drawn card.
            came = (
                hand
                if kind == "starting-hand"
                else self._cards(message.get("card"))
                if kind in DRAWN
                else []
            )
            moved: dict[int, int] = defaultdict(int)
            for card in came:
                moved[card.rank] += 1
            self._sync_hand(hand, moved)
        if kind == "starting-hand":
            self.rng = random.Random(f"{self.seat}:{sorted(card.id for card in self.hand)}")
            self.on_start()
        elif kind == "ask":
            self._table_seen(message)
            seat, card_id = self.choose_ask()
            return {"player": int(seat), "cardId": int(card_id)}
        elif kind in ("go-fish", "pick-up"):
            pond = message.get("pond")
            self.pond_size = len(pond) if isinstance(pond, list) else int(pond or 0)
            return int(self.choose_pond_index(self.pond_size))
        elif kind in ("go-fish-result", "pick-up-result"):
            self.pond_size = max(self.pond_size - 1, 0)
            via: Draw = "go-fish" if kind == "go-fish-result" else "pick-up"
            for card in self._cards(message.get("card")):
                self.on_draw(card, via)
        elif kind == "hand-update":
            self._hand_update(message)
        elif kind == "lucky-draw":
            lucky = LuckyDraw(int(message["player"]), self._cards([message["card"]])[0])
            self.lucky_draws.append(lucky)
            self.on_lucky_draw(lucky)
        elif kind == "match-end":
            self.scores = list(message.get("scores") or [])
            self.on_match_end(self.scores, list(message.get("ranks") or []))
        return None

    def _cards(self, values: Any) -> list[Card]:
        if not isinstance(values, list):
            return []
        cards = []
        for value in values:
            card = self._known_cards.get(value["id"])
            if card is None:
                card = self._known_cards[value["id"]] = Card.from_json(value)
            cards.append(card)
        return cards

    def _init(self, message: dict[str, Any]) -> Any:
        self.reset()
        self.seat = int(message.get("seat", 0))
        players = message.get("players") or []
        self.names = [str(player.get("name", "")) for player in players]
        self.settings = dict(message.get("settings") or {})
        rules, deck = self.settings.get("rules", {}), self.settings.get("deck", {})
        # Until the first `ask`, everyone holds the deal and the pond holds the rest.
        by_seats = deal_for(len(players))  # `dealBySeats`; `init` says the size anyway
        dealt = int(rules.get("startingHandSize", by_seats if rules.get("dealBySeats") else 7))
        pack = pack_size(int(deck.get("numberOfDecks", 1)), bool(deck.get("knights")))
        self.hand_sizes = [dealt] * len(players)
        self.pond_size = max(pack - dealt * len(players), 0)
        self.rng = random.Random(self.seat)
        return {"reuse": True} if self.reuse else None

    def _table_seen(self, message: dict[str, Any]) -> None:
        """`ask` shows the exact hand sizes (ours is the `null` entry) and the pond."""
        sizes = message.get("opponentsHandSizes")
        if isinstance(sizes, list) and None in sizes:
            self.seat = sizes.index(None)
            self.hand_sizes = [len(self.hand) if n is None else int(n) for n in sizes]
        self.pond_size = len(message.get("pond") or [])

    def _hand_update(self, message: dict[str, Any]) -> None:
        card = self._cards([message["card"]])[0]
        asker, asked = int(message["askingPlayer"]), int(message["playerAsked"])
        moved = int(message.get("result") or 0)
        into_hand = moved if asker == self.seat else -moved if asked == self.seat else 0
        self._sync_hand(self._cards(message.get("hand")), moved={card.rank: into_hand})
        sizes = self.hand_sizes
        if moved:
            sizes[asker] += moved
            sizes[asked] -= moved
            # The asked seat refills before anyone is told (contract §2.7).
            refill = min(max(self.refill_target(sizes[asked]) - sizes[asked], 0), self.pond_size)
            sizes[asked] += refill
            self.pond_size -= refill
        went_fishing = moved == 0 and self.pond_size > 0
        if went_fishing and asker != self.seat:
            # The asker draws after this message; our own draw is counted by `go-fish-result`.
            sizes[asker] += 1
            self.pond_size -= 1
        sizes[self.seat] = len(self.hand)
        seen = AskSeen(asker, asked, card, moved, went_fishing)
        self.asks.append(seen)
        self.on_ask_seen(seen)

    def _sync_hand(self, hand: list[Card], moved: dict[int, int]) -> None:
        """Replace the hand; cards that left it other than by a hand-over went into books.

        `moved[rank]` cards of that rank came into the hand (a hit, a draw; negative: handed
        over) since the last hand we saw. Cards that came in may have gone into a book before
        any message showed them (a hit or a draw that completes a book), and a book's cards
        may leave over two messages (a pick-up comes between the hit and its `hand-update`),
        so what is unaccounted for is kept per rank, and every four make a book. A hand-over
        can also be told after the asked seat's pick-up has shown the hand without the cards:
        the count then goes back down, and so does the book it seemed to make.
        """
        unplaced = self._unplaced
        for card in self.hand:
            unplaced[card.rank] += 1
        for card in hand:
            unplaced[card.rank] -= 1
        for rank, count in moved.items():
            unplaced[rank] += count
        for rank in sorted(unplaced):
            books = max(unplaced[rank], 0) // 4
            while self.books_laid.count(rank) < books:
                self.books_laid.append(rank)
            while self.books_laid.count(rank) > books:
                self.books_laid.reverse()
                self.books_laid.remove(rank)
                self.books_laid.reverse()
        self.hand = hand
        if self.hand_sizes:
            self.hand_sizes[self.seat] = len(hand)


def run(bot: Bot, stdin: TextIO | None = None, stdout: TextIO | None = None) -> None:
    """Play over stdin/stdout until end of input, or `match-end` unless the bot has `reuse`.

    One JSON value per line each way, flushed at once. While the bot's code runs, `print`
    goes to stderr, so a debug print can never be taken for a reply. A bot that raises
    answers `null` (an invalid ask loses the turn; a bad pond index counts as 0) and the
    traceback goes to stderr.
    """
    source = stdin if stdin is not None else sys.stdin
    replies = stdout if stdout is not None else sys.stdout
    while line := source.readline():
        line = line.strip()
        if not line:
            continue
        message: Any = None
        saved, sys.stdout = sys.stdout, sys.stderr
        try:
            message = json.loads(line)
            reply = bot.handle(message) if isinstance(message, dict) else None
            text = json.dumps(reply, allow_nan=False)
        except Exception:  # noqa: BLE001 - a bug in the bot must cost a reply, not the match
            traceback.print_exc(file=sys.stderr)
            text = "null"
        finally:
            sys.stdout = saved
        replies.write(text + "\n")
        replies.flush()
        if isinstance(message, dict) and message.get("type") == "match-end" and not bot.reuse:
            return
