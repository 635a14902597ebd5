"""What happened in a match: small frozen events, in the past tense, in the game's words.

The engine appends one to `Match.events` for every change of the table that a reply caused
(or that the rules made by themselves). `at` is the transcript index of the last message sent
before it happened: for an ask or a draw, the message whose reply made it happen. An event
becomes JSON (`as_json(event)`, under the contract's names: `asked`, `drew`, `book-laid`,
`invalid-ask`, and under the family rules `lucky-draw`, `no-one-to-ask`) only in a replay.

They are named tuples, immutable and built at the cost of a dict (a frozen dataclass costs four
times as much, a tenth of a whole match); the two draws, alike in shape, compare unequal.
"""

from __future__ import annotations

from typing import Any, NamedTuple, TypeVar

_Event = TypeVar("_Event", bound=tuple[Any, ...])


def _own_kind(event: type[_Event]) -> type[_Event]:
    """An event equal only to one of its own kind: a named tuple is equal to any tuple of the
    same values, so a `WentFishing` would equal the `PickedUp` of the same draw."""

    def equal(self: _Event, other: object) -> bool:
        return type(other) is event and tuple.__eq__(self, other)

    def unequal(self: _Event, other: object) -> bool:
        return not equal(self, other)

    event.__eq__ = equal  # type: ignore[assignment,method-assign]
    event.__ne__ = unequal  # type: ignore[assignment,method-assign]
    event.__hash__ = tuple.__hash__  # type: ignore[method-assign]
    return event


class Asked(NamedTuple):
    """`seat` asked `asked` for `rank` with card `card_id`; `moved` cards were handed over."""

    at: int
    seat: int
    asked: int
    card_id: int
    rank: int
    moved: int


class AskRefused(NamedTuple):
    """`seat`'s ask was not a valid one (`reason` names why; `detail` says it in words)."""

    at: int
    seat: int
    reason: str
    detail: str


class PondReplyRead(NamedTuple):
    """`seat`'s `go-fish` or `pick-up` reply was read but is no finite number: the engine drew
    pond card 0 for it (contract §3). Not a contract event (a replay's `events` lack it): the
    engine's record of a reply it reinterpreted, as `AskRefused` is of one it refused."""

    at: int
    seat: int
    message: str  # "go-fish" or "pick-up"
    reply: Any  # what the seat sent


# What the engine refused or reinterpreted of a reply it could read: each becomes one fault.
Judged = AskRefused | PondReplyRead


@_own_kind
class WentFishing(NamedTuple):
    """`seat` drew pond card `place` (its index in the pond) after a miss (`go-fish`)."""

    at: int
    seat: int
    place: int
    card_id: int
    rank: int


@_own_kind
class PickedUp(NamedTuple):
    """`seat` drew pond card `place` (its index in the pond) to fill its hand (`pick-up`)."""

    at: int
    seat: int
    place: int
    card_id: int
    rank: int


class BookLaid(NamedTuple):
    """`seat` laid a book of `rank`: these four cards, in hand order."""

    at: int
    seat: int
    rank: int
    card_ids: tuple[int, ...]


class LuckyDraw(NamedTuple):
    """`seat`'s go-fish drew `rank`, the rank it asked for (`luckyDraw`): shown, it asks again."""

    at: int
    seat: int
    card_id: int
    rank: int


class NoOneToAsk(NamedTuple):
    """No other seat held a card, so `seat` drew instead of asking (`drawWhenNoOneToAsk`)."""

    at: int
    seat: int


Drew = WentFishing | PickedUp
Event = Asked | AskRefused | WentFishing | PickedUp | BookLaid | LuckyDraw | NoOneToAsk

# Each contract event's name in a replay; a draw also records which message it answered (`via`).
_WIRE: dict[type[tuple[Any, ...]], tuple[str, str | None]] = {
    Asked: ("asked", None),
    AskRefused: ("invalid-ask", None),
    WentFishing: ("drew", "go-fish"),
    PickedUp: ("drew", "pick-up"),
    BookLaid: ("book-laid", None),
    LuckyDraw: ("lucky-draw", None),
    NoOneToAsk: ("no-one-to-ask", None),
}
# The contract's keys where they differ from the fields' names.
_KEYS = {"card_id": "cardId", "card_ids": "cardIds", "place": "index"}


def as_json(event: Event) -> dict[str, Any]:
    """`event` as a replay records it: its contract name, then its fields under the contract's
    keys, a draw's `via` before its pond `index`. Made from the fields, so a field added to an
    event is recorded without another line here."""
    name, via = _WIRE[type(event)]
    document: dict[str, Any] = {"event": name}
    for field, value in zip(event._fields, event, strict=True):
        if via is not None and field == "place":
            document["via"] = via
        document[_KEYS.get(field, field)] = list(value) if isinstance(value, tuple) else value
    return document
