"""A seat's view as a fixed-size vector, and the actions as integers (docs/research.md).

`SeatView` is fed every message its seat is sent, in order, and nothing else: what it knows
is exactly what a participant speaking the protocol would know. `vector()` encodes it; the
layout, for a table of `n` seats (R = 14 rank slots, 0 Ace … 13 King, 11 the Knight):

| slice | length | what |
| --- | --- | --- |
| `hand` | R | how many cards of each rank the seat holds |
| `me` | n | one-hot: which seat this is |
| `sizes` | n | every seat's hand size (exact at each `ask`; the seat's own always exact) |
| `pond` | 1 | cards in the pond |
| `booked` | 1 | books laid by all seats so far, as conservation tells it at each `ask` |
| `decision` | 3 | one-hot: `ask`, `go-fish`, `pick-up` (all 0 when no decision is owed) |
| `holds` | n × R | 1 where the table was told that seat holds the rank (it asked for it, or a lucky draw showed it) and has not handed it over since |
| `lacks` | n × R | 1 where that seat said go fish for the rank (or handed it over) and has not gone fishing since |

Actions, for `n` seats and a pond action range of `P` (the pack's size when draws are chosen,
else 0): `a < n × R` asks seat `a // R` for rank `a % R` (with the first card of that rank in
the hand, in hand order); `n × R + i` takes pond card `i`.
"""

from __future__ import annotations

from typing import Any, Final

import numpy as np
import numpy.typing as npt

RANKS: Final = 14
DECISIONS: Final = ("ask", "go-fish", "pick-up")

__all__ = [
    "DECISIONS",
    "RANKS",
    "SeatView",
    "action_mask",
    "ask_action",
    "pond_size",
    "reply_for",
    "vector_length",
]


def vector_length(seats: int) -> int:
    return RANKS + seats + seats + 1 + 1 + len(DECISIONS) + 2 * seats * RANKS


def ask_action(asked: int, rank: int) -> int:
    return asked * RANKS + rank


class SeatView:
    """What one seat has been told, kept as counts (see the module's table)."""

    __slots__ = ("books", "decision", "hand", "holds", "lacks", "pack", "pond", "seat", "sizes")

    def __init__(self, seat: int, seats: int, pack: int) -> None:
        self.seat = seat
        self.pack = pack
        self.hand: list[dict[str, Any]] = []
        self.sizes = [0] * seats
        self.pond = pack
        self.books = 0
        self.decision: str | None = None
        self.holds = [[0] * RANKS for _ in range(seats)]
        self.lacks = [[0] * RANKS for _ in range(seats)]

    def see(self, message: dict[str, Any]) -> None:
        """Take in one message sent to this seat."""
        kind = message["type"]
        hand = message.get("hand")
        if hand is not None:
            self.hand = hand
            self.sizes[self.seat] = len(hand)
        self.decision = kind if kind in DECISIONS else None
        if kind == "ask":
            sizes = message["opponentsHandSizes"]
            for seat, size in enumerate(sizes):
                if size is not None:
                    self.sizes[seat] = size
            self.pond = len(message["pond"])
            self.books = (self.pack - sum(self.sizes) - self.pond) // 4
        elif kind == "go-fish":
            self.pond = len(message["pond"])
        elif kind == "pick-up":
            self.pond = message["pond"]
        elif kind in ("go-fish-result", "pick-up-result"):
            self.pond -= 1
        elif kind == "hand-update":
            self._asked(message)
        elif kind == "lucky-draw":
            self.holds[message["player"]][message["card"]["rank"]] = 1
        elif kind == "starting-hand":
            self.pond = self.pack - len(self.hand) * len(self.sizes)
            self.sizes = [len(self.hand)] * len(self.sizes)

    def _asked(self, message: dict[str, Any]) -> None:
        asker, asked = message["askingPlayer"], message["playerAsked"]
        rank, moved = message["card"]["rank"], message["result"]
        self.holds[asker][rank] = 1
        self.lacks[asker][rank] = 0
        self.holds[asked][rank] = 0
        self.lacks[asked][rank] = 1
        if asker != self.seat:
            self.sizes[asker] += moved
        if asked != self.seat:
            self.sizes[asked] -= moved
        if not moved and self.pond:
            self.lacks[asker] = [0] * RANKS  # it goes fishing: the card could be anything

    def vector(self) -> npt.NDArray[np.float32]:
        counts = [0] * RANKS
        for card in self.hand:
            counts[card["rank"]] += 1
        me = [0] * len(self.sizes)
        me[self.seat] = 1
        decision = [int(self.decision == kind) for kind in DECISIONS]
        values = [*counts, *me, *self.sizes, self.pond, self.books, *decision]
        for row in self.holds:
            values += row
        for row in self.lacks:
            values += row
        return np.array(values, dtype=np.float32)

    def copy(self) -> SeatView:
        twin = SeatView.__new__(SeatView)
        twin.seat, twin.pack, twin.books, twin.pond = self.seat, self.pack, self.books, self.pond
        twin.decision = self.decision
        twin.hand = list(self.hand)
        twin.sizes = list(self.sizes)
        twin.holds = [list(row) for row in self.holds]
        twin.lacks = [list(row) for row in self.lacks]
        return twin

    def key(self) -> str:
        """The view as a string: equal for two positions this seat cannot tell apart."""
        hand = ",".join(str(card["id"]) for card in self.hand)
        holds = "".join(map(str, (bit for row in self.holds for bit in row)))
        lacks = "".join(map(str, (bit for row in self.lacks for bit in row)))
        return (
            f"seat {self.seat} {self.decision} hand {hand} sizes {self.sizes} pond {self.pond} "
            f"booked {self.books} holds {holds} lacks {lacks}"
        )

    def ranks_held(self) -> dict[int, int]:
        """Rank → the id of the first card of that rank in the hand (the card an ask is made with)."""
        first: dict[int, int] = {}
        for card in self.hand:
            first.setdefault(card["rank"], card["id"])
        return first


def pond_size(message: dict[str, Any]) -> int:
    """The pond's size a `go-fish` (a list of decks) or `pick-up` (a number) message gives."""
    pond = message["pond"]
    return len(pond) if isinstance(pond, list) else int(pond)


def action_mask(view: SeatView, message: dict[str, Any], actions: int) -> npt.NDArray[np.int8]:
    """1 for each action the rules take as valid for the decision `message` asks of `view`'s
    seat (every other seat × every rank held; every pond card); all 0 for no decision."""
    mask = np.zeros(actions, dtype=np.int8)
    kind = message["type"]
    seats = len(view.sizes)
    if kind == "ask":
        held = list(view.ranks_held())
        for asked in range(seats):
            if asked != view.seat:
                mask[[ask_action(asked, rank) for rank in held]] = 1
    elif kind in ("go-fish", "pick-up"):
        asks = seats * RANKS
        mask[asks : asks + pond_size(message)] = 1
    return mask


def reply_for(view: SeatView, message: dict[str, Any], action: int | None) -> Any:
    """The reply a participant would send for `action` at `message` (the engine judges it).

    An ask of a rank not held is made with card id -1, which the rules refuse (contract §2.6);
    an action of the wrong kind is `null`: a refused ask, or pond card 0 (§3.3)."""
    if action is None:
        return None
    asks = len(view.sizes) * RANKS
    if message["type"] == "ask":
        if not 0 <= action < asks:
            return None
        asked, rank = divmod(action, RANKS)
        return {"player": asked, "cardId": view.ranks_held().get(rank, -1)}
    return action - asks if action >= asks else None
