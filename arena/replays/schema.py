"""JSON Schema of the wire (contract §4) and of the replay file (contract §6), from pydantic models.

The message models describe exactly what `arena.engine.views` builds: every key, nothing more
(`additionalProperties: false`), strict types (a bool is not an integer). The reply models
describe what `arena.engine.rules` accepts: an ask reply is an object with integral `player` and
`cardId` (extra keys ignored, `1.0` counts as `1`); a pond index is a finite number; any other
message takes any JSON value. Whether an ask is valid *in its situation* (the seat exists,
the card is in the asker's hand) is `arena.engine.rules.verify_ask`'s to say, not a schema's.

Every adapter is built once, at import. `MESSAGE`, `REPLIES` and `REPLAY` validate; `document`
and `files` give the schemas.
"""

from __future__ import annotations

from enum import StrEnum
from typing import Annotated, Any, Final, Literal, get_args

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    PlainValidator,
    TypeAdapter,
    WithJsonSchema,
    field_validator,
)
from pydantic.json_schema import SkipJsonSchema

from arena import __version__
from arena.engine.rules import DeckRules, TableRules, is_pond_number, whole_number
from arena.engine.settings import Limits, Sent, declared
from arena.replays.models import Card, EntryModel, ReplayModel, one_of

SCHEMA_FORMAT: Final = "gofish-arena-schema/1"
_DIALECT: Final = "https://json-schema.org/draft/2020-12/schema"

Seat = Annotated[int, Field(ge=0, description="A seat index, 0 .. players-1.")]
Count = Annotated[int, Field(ge=0)]


def _wire_name(name: str, _: Any) -> str:
    return name  # titles are the keys as they appear on the wire, not "Cardid"


class _Wire(BaseModel):
    model_config = ConfigDict(
        strict=True, frozen=True, extra="forbid", field_title_generator=_wire_name
    )


Hand = Annotated[list[Card], Field(description="Your hand, in order.")]
Drawn = Annotated[list[Card], Field(min_length=1, max_length=1, description="The one card drawn.")]
PondDecks = Annotated[
    list[Count], Field(description="The deck index of every pond card, in pond order.")
]


class PlayerEntry(_Wire):
    seat: Seat
    name: str


# Type forms built from data: checked when the models are built, not by a type checker.
_ANNOTATED: Any = Annotated
_SKIPPED: Any = SkipJsonSchema


def _told(kind: type[Any]) -> dict[str, Any]:
    """A settings model's fields, for its class body, from the settings dataclass that declares
    them (`arena.engine.settings`): one per setting participants are told, by its key, with its
    bounds and description. A setting told only when on is absent otherwise (never null, never
    false): its field takes only an "on" value."""
    annotations: dict[str, Any] = {}
    defaults: dict[str, Any] = {}
    for _, hint, declaration in declared(kind):
        if declaration.sent is Sent.NEVER:
            continue
        kind_of = next(
            (argument for argument in get_args(hint) if argument is not type(None)), hint
        )
        bounds = declaration.bounds()
        sometimes = declaration.sent in (Sent.WHEN_ON, Sent.WITH)
        if kind_of is bool and declaration.sent is Sent.WHEN_ON:
            kind_of = Literal[True]
        elif kind_of is int and declaration.sent is Sent.WHEN_ON:
            bounds["ge"] = max(bounds.get("ge", 1), 1)
        extra: tuple[Any, ...] = ()
        if isinstance(kind_of, type) and issubclass(kind_of, StrEnum):
            extra = (one_of(kind_of),)
        field = Field(
            description=declaration.description,
            strict=False if extra else None,
            ge=bounds.get("ge"),
            gt=bounds.get("gt"),
            le=bounds.get("le"),
            lt=bounds.get("lt"),
        )
        annotated = _ANNOTATED[(kind_of, field, *extra)]
        if sometimes:
            annotations[declaration.key] = annotated | _SKIPPED[None]
            defaults[declaration.key] = None
        else:
            annotations[declaration.key] = annotated
    return {"__annotations__": annotations, **defaults}


def _refuse_null(value: Any) -> Any:
    if value is None:
        raise ValueError("is left out when not set, never null")
    return value


def _absent_not_null(kind: type[Any]) -> Any:
    """The check that a setting told only when on is absent, not null, when it is off."""
    keys = [key for key, _ in _told(kind).items() if key != "__annotations__"]
    return field_validator(*keys, mode="before")(_refuse_null)


class RulesSettings(_Wire):
    locals().update(_told(TableRules))
    _not_null = _absent_not_null(TableRules)


class DeckSettings(_Wire):
    locals().update(_told(DeckRules))


class SeatLimits(_Wire):
    """The limits that apply to a participant (`[limits]` of the config)."""

    locals().update(_told(Limits))
    _not_null = _absent_not_null(Limits)


class Settings(_Wire):
    rules: RulesSettings
    deck: DeckSettings
    limits: SeatLimits


class InitMessage(_Wire):
    """Sent to every seat first. Reply: anything."""

    type: Literal["init"]
    seat: Annotated[int, Field(ge=0, description="Your seat.")]
    players: list[PlayerEntry]
    opponents: Annotated[list[str | None], Field(description="Names by seat; your own entry null.")]
    settings: Settings


class StartingHandMessage(_Wire):
    """Your dealt hand (possibly empty). Reply: anything."""

    type: Literal["starting-hand"]
    hand: Hand


class AskMessage(_Wire):
    """Your turn. Reply: `{"player": seat, "cardId": id of a card in your hand}`."""

    type: Literal["ask"]
    hand: Annotated[list[Card], Field(min_length=1, description="Your hand, in order.")]
    opponentsHandSizes: Annotated[
        list[Count | None], Field(description="Cards per seat; your own entry null.")
    ]
    pond: PondDecks


class GoFishMessage(_Wire):
    """Your ask missed and the pond has cards. Reply: a pond index (a number)."""

    type: Literal["go-fish"]
    pond: Annotated[
        list[Count], Field(min_length=1, description="The deck index of every pond card.")
    ]


class GoFishResultMessage(_Wire):
    """The card your go-fish drew. Reply: anything."""

    type: Literal["go-fish-result"]
    card: Drawn
    hand: Hand


class PickUpMessage(_Wire):
    """You must refill your hand. Reply: a pond index (a number)."""

    type: Literal["pick-up"]
    pond: Annotated[int, Field(ge=1, description="The number of cards in the pond.")]


class PickUpResultMessage(_Wire):
    """The card your pick-up drew. Reply: anything."""

    type: Literal["pick-up-result"]
    card: Drawn
    hand: Hand


class HandUpdateMessage(_Wire):
    """An ask was resolved (sent to every seat). Reply: anything."""

    type: Literal["hand-update"]
    askingPlayer: Seat
    playerAsked: Seat
    card: Annotated[Card, Field(description="The card the asker asked with.")]
    result: Annotated[int, Field(ge=0, description="Cards handed over; 0 on a miss.")]
    hand: Hand


class LuckyDrawMessage(_Wire):
    """With `luckyDraw`: a seat went fishing and drew the rank it asked for, so it shows the
    card and asks again (sent to every seat, the drawer too, after its `go-fish-result`).
    Reply: anything."""

    type: Literal["lucky-draw"]
    player: Annotated[int, Field(ge=0, description="The seat that drew; it asks again.")]
    card: Annotated[Card, Field(description="The card drawn: the rank that seat asked for.")]


class MatchEndMessage(_Wire):
    """The match is over; stdin is closed after your reply. Reply: anything."""

    type: Literal["match-end"]
    scores: Annotated[list[Count], Field(description="Books laid, per seat.")]
    ranks: Annotated[
        list[Annotated[int, Field(ge=1)]], Field(description="1 + seats with more books, per seat.")
    ]


MESSAGE_MODELS: Final[dict[str, type[_Wire]]] = {
    "init": InitMessage,
    "starting-hand": StartingHandMessage,
    "ask": AskMessage,
    "go-fish": GoFishMessage,
    "go-fish-result": GoFishResultMessage,
    "pick-up": PickUpMessage,
    "pick-up-result": PickUpResultMessage,
    "hand-update": HandUpdateMessage,
    "lucky-draw": LuckyDrawMessage,
    "match-end": MatchEndMessage,
}

ArenaMessage = Annotated[
    InitMessage
    | StartingHandMessage
    | AskMessage
    | GoFishMessage
    | GoFishResultMessage
    | PickUpMessage
    | PickUpResultMessage
    | HandUpdateMessage
    | LuckyDrawMessage
    | MatchEndMessage,
    Field(discriminator="type"),
]


# -- replies -----------------------------------------------------------------------------


def _whole_number(value: Any) -> int:
    # As the rules read it (`rules.whole_number`): 1.0 is the integer 1, a bool no number.
    number = whole_number(value)
    if number is None:
        raise ValueError("must be an integer")
    return number


def _finite_number(value: Any) -> int | float:
    if is_pond_number(value):
        return value  # type: ignore[no-any-return]
    raise ValueError("must be a finite number (anything else counts as 0)")


WholeNumber = Annotated[int, PlainValidator(_whole_number), WithJsonSchema({"type": "integer"})]


class AskReply(BaseModel):
    """The reply to `ask`: valid in play when `player` is another seat and `cardId` the id
    of a card in your hand (not its rank); an invalid ask passes the turn."""

    model_config = ConfigDict(frozen=True, extra="allow", field_title_generator=_wire_name)

    player: Annotated[WholeNumber, Field(description="The seat you ask (not yourself).")]
    cardId: Annotated[
        WholeNumber, Field(description="The `id` of a card in your hand: you ask for its rank.")
    ]


PondIndex = Annotated[
    int | float,
    PlainValidator(_finite_number),
    WithJsonSchema(
        {
            "type": "number",
            "title": "PondIndex",
            "description": "Which pond card to draw: wrapped into range (-1 is the last), a fraction "
            "truncated. A reply that is not a finite number counts as 0.",
        }
    ),
]

AnyReply = Annotated[
    Any,
    WithJsonSchema(
        {"title": "AnyReply", "description": "Any JSON value (null is customary); it is ignored."}
    ),
]

_REPLY_TYPES: Final[dict[str, Any]] = {
    kind: AskReply if kind == "ask" else PondIndex if kind in ("go-fish", "pick-up") else AnyReply
    for kind in MESSAGE_MODELS
}


# -- the replay --------------------------------------------------------------------------


class ReplayEntry(EntryModel):
    """One transcript entry: the message exactly as written to `seat`, and what came back."""

    message: ArenaMessage  # type: ignore[assignment]


class ReplayFileSchema(ReplayModel):
    """The replay file (contract §6), strictly: the model of its JSON Schema (`arena schema`);
    `replays.replay.Replay` is the file as the arena reads it back. Keys beyond these (events,
    faults, timings) are informative."""

    transcript: list[ReplayEntry]  # type: ignore[assignment]


# -- adapters, built once ----------------------------------------------------------------

MESSAGE: Final = TypeAdapter(ArenaMessage)
MESSAGES: Final = {kind: TypeAdapter(model) for kind, model in MESSAGE_MODELS.items()}
REPLIES: Final = {kind: TypeAdapter(reply) for kind, reply in _REPLY_TYPES.items()}
REPLAY: Final = TypeAdapter(ReplayFileSchema)


def _standalone(adapter: TypeAdapter[Any], schema_id: str, title: str) -> dict[str, Any]:
    schema = adapter.json_schema()
    return {"$schema": _DIALECT, "$id": schema_id, **schema, "title": title}


def files() -> dict[str, dict[str, Any]]:
    """Every schema as a standalone JSON Schema document, keyed by file name."""
    made: dict[str, dict[str, Any]] = {}
    for kind, adapter in MESSAGES.items():
        made[f"message.{kind}.schema.json"] = _standalone(
            adapter, f"urn:gofish-arena:message:{kind}", f"{kind} message"
        )
    made["message.any.schema.json"] = _standalone(
        MESSAGE, "urn:gofish-arena:message", "any arena message"
    )
    for kind, adapter in REPLIES.items():
        made[f"reply.{kind}.schema.json"] = _standalone(
            adapter, f"urn:gofish-arena:reply:{kind}", f"reply to {kind}"
        )
    made["replay.schema.json"] = _standalone(REPLAY, "urn:gofish-arena:replay", "replay file")
    return made


def document() -> dict[str, Any]:
    """One document holding every schema: `messages.<type>`, `replies.<type>`, `replay`."""
    by_name = files()
    return {
        "format": SCHEMA_FORMAT,
        "arena": f"gofish-arena {__version__}",
        "messages": {kind: by_name[f"message.{kind}.schema.json"] for kind in MESSAGES},
        "anyMessage": by_name["message.any.schema.json"],
        "replies": {kind: by_name[f"reply.{kind}.schema.json"] for kind in REPLIES},
        "replay": by_name["replay.schema.json"],
    }


__all__ = ["MESSAGE", "MESSAGES", "REPLAY", "REPLIES", "SCHEMA_FORMAT", "document", "files"]
