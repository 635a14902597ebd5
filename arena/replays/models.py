"""The replay file's shape (contract §6): the pydantic models a replay is read with.

`arena.replays.schema` builds the contract's JSON Schema from them; `arena.replays.replay`
reads, writes and verifies replays with them.
"""

from __future__ import annotations

from enum import StrEnum
from typing import Annotated, Any

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    StrictBool,
    StrictInt,
    field_validator,
    model_validator,
)
from pydantic.json_schema import WithJsonSchema

from arena.base.config import MAX_SEATS
from arena.engine.match import Outcome
from arena.seats.replies import FaultKind


def one_of(values: type[StrEnum], title: str | None = None) -> WithJsonSchema:
    """A closed set of the arena's, shown in a JSON Schema as the plain list of its values."""
    shown: dict[str, Any] = {"enum": [str(value) for value in values], "type": "string"}
    return WithJsonSchema(shown if title is None else {**shown, "title": title})


class _Model(BaseModel):
    model_config = ConfigDict(extra="allow", defer_build=True)


def _key(name: str, _: Any) -> str:
    return name  # a field's title is its key on the wire, not "Cardid"


# The one model of a card on the wire and in a replay (`arena schema` shows it, `read` checks a
# replay's deck with it): the keys of the engine's `cards.Card`, with their bounds.
class Card(BaseModel):
    """One card."""

    model_config = ConfigDict(
        strict=True, frozen=True, extra="forbid", field_title_generator=_key, defer_build=True
    )

    id: Annotated[int, Field(ge=0, description="Unique in the match: what an ask reply names.")]
    card: Annotated[
        str, Field(min_length=1, max_length=1, description="The Unicode playing-card glyph.")
    ]
    deck: Annotated[int, Field(ge=0, description="Which physical deck, 0 .. numberOfDecks-1.")]
    suit: Annotated[int, Field(ge=0, le=3, description="0 spades, 1 hearts, 2 diamonds, 3 clubs.")]
    rank: Annotated[
        int, Field(ge=0, le=13, description="0 Ace .. 10 Jack, 11 Knight, 12 Queen, 13 King.")
    ]


class FaultModel(_Model):
    kind: Annotated[FaultKind, one_of(FaultKind, "FaultKind")]
    detail: str
    raw: str | None = None
    exitCode: StrictInt | None = None
    stderrTail: str | None = None


class SeatFaultModel(FaultModel):
    """One of the replay's `faults`: which seat, at which message of the transcript."""

    seat: StrictInt
    at: Annotated[StrictInt, Field(ge=0)]


class EntryModel(_Model):
    seat: StrictInt
    message: dict[str, Any]
    reply: Any
    delivered: StrictBool = True
    noReply: FaultModel | None = None
    unsolicited: FaultModel | None = None
    notes: str | None = None  # stderr written while the message was outstanding


class PlayerModel(_Model):
    seat: StrictInt
    name: str
    command: list[str]
    inProcess: StrictBool = False
    sandbox: str | None = None
    isolation: list[str] | None = None
    fingerprint: str | None = None  # SHA-256 of what it ran (arena.seats.fingerprint)

    @field_validator("name")
    @classmethod
    def _encodable(cls, name: str) -> str:
        if any("\ud800" <= character <= "\udfff" for character in name):
            raise ValueError("a lone surrogate is not a character of a name")
        return name


class ResultModel(BaseModel):
    model_config = ConfigDict(extra="forbid", defer_build=True)
    outcome: Annotated[Outcome, one_of(Outcome, "Outcome")]
    scores: list[Annotated[StrictInt, Field(ge=0)]]
    ranks: list[Annotated[StrictInt, Field(ge=1)]]


class ReplacedSeatModel(_Model):
    """A seat a fork played with another participant (`fork.replaced`)."""

    seat: StrictInt


class ForkOriginModel(_Model):
    """Where a forked replay leaves its source (`fork`)."""

    at: Annotated[StrictInt, Field(ge=0)]
    turn: Annotated[StrictInt, Field(ge=1)] | None = None
    source: str
    replaced: list[ReplacedSeatModel] = []


class ConfigModel(_Model):
    rules: dict[str, Any]
    deck: dict[str, Any]
    limits: dict[str, Any]


class ReplayModel(_Model):
    """The replay file. Keys beyond these (events, faults, timings, logs) are informative."""

    format: str
    config: ConfigModel
    seed: StrictInt | None
    dealSeed: StrictInt | None = None  # a tournament's match: its deal (contract §6)
    game: Annotated[StrictInt, Field(ge=0)] | None = None  # … and its index in the tournament
    players: Annotated[list[PlayerModel], Field(min_length=1, max_length=MAX_SEATS)]
    startingPlayer: StrictInt
    deck: list[Card]
    transcript: list[EntryModel]
    result: ResultModel
    faults: list[SeatFaultModel] = []
    faultCounts: list[dict[str, StrictInt]] | None = None
    fork: ForkOriginModel | None = None

    @model_validator(mode="after")
    def _seats_agree(self) -> ReplayModel:
        """Every seat number the file gives is one of its players'."""
        seats = len(self.players)
        for index, player in enumerate(self.players):
            if player.seat != index:
                raise ValueError(f"players[{index}].seat is {player.seat}, not {index}")
        if not 0 <= self.startingPlayer < seats:
            raise ValueError(
                f"startingPlayer: {self.startingPlayer} is not a seat (0..{seats - 1})"
            )
        for key, values in (("scores", self.result.scores), ("ranks", self.result.ranks)):
            if len(values) != seats:
                raise ValueError(f"result.{key}: {len(values)} values for {seats} players")
        for where, seat in [
            *((f"transcript[{n}].seat", e.seat) for n, e in enumerate(self.transcript)),
            *((f"faults[{n}].seat", f.seat) for n, f in enumerate(self.faults)),
            *(
                (f"fork.replaced[{n}].seat", r.seat)
                for n, r in enumerate(self.fork.replaced if self.fork is not None else [])
            ),
        ]:
            if not 0 <= seat < seats:
                raise ValueError(f"{where}: {seat} is not a seat (0..{seats - 1})")
        return self


__all__ = [
    "Card",
    "ConfigModel",
    "EntryModel",
    "FaultModel",
    "ForkOriginModel",
    "PlayerModel",
    "ReplacedSeatModel",
    "ReplayModel",
    "ResultModel",
    "SeatFaultModel",
    "one_of",
]
