"""The core held to the engine: a core game's decisions played again on the engine, event by event.

The differential test (tests/test_core.py) and its longer run (bench/core_vs_engine.py) use
it. A core game records its events (`Batch(..., record=True)`); its asks and draws become the
replies a participant would send (an ask action as `encoding.reply_for` makes it, a draw as
the pond index the core took), the engine's match generator plays them, and every event the
engine appends must be the core's, field for field (a refusal's reason, not its wording).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from arena.core import (
    ASKED,
    BOOK,
    COMPLETED,
    FISHED,
    LUCKY,
    NO_ONE,
    PICKED,
    REFUSALS,
    REFUSED,
    STALLED,
    TURN_LIMIT,
)
from arena.engine.events import (
    Asked,
    AskRefused,
    BookLaid,
    Event,
    LuckyDraw,
    NoOneToAsk,
    PickedUp,
    WentFishing,
)
from arena.engine.match import Delivery, Match, MatchSetup, Outcome, Result

CoreEvent = tuple[int, ...]
OUTCOMES = {COMPLETED: Outcome.COMPLETED, TURN_LIMIT: Outcome.TURN_LIMIT, STALLED: Outcome.STALLED}


def as_core(event: Event) -> CoreEvent:
    """An engine event as the core records it: `(kind, at, seat, a, b, c, d, e)`."""
    if isinstance(event, Asked):
        return (ASKED, event.at, event.seat, event.asked, event.card_id, event.rank, event.moved, 0)
    if isinstance(event, AskRefused):
        return (REFUSED, event.at, event.seat, REFUSALS.index(event.reason), 0, 0, 0, 0)
    if type(event) is WentFishing:
        return (FISHED, event.at, event.seat, event.place, event.card_id, event.rank, 0, 0)
    if type(event) is PickedUp:
        return (PICKED, event.at, event.seat, event.place, event.card_id, event.rank, 0, 0)
    if isinstance(event, BookLaid):
        return (BOOK, event.at, event.seat, event.rank, *event.card_ids)
    if isinstance(event, LuckyDraw):
        return (LUCKY, event.at, event.seat, event.card_id, event.rank, 0, 0, 0)
    assert isinstance(event, NoOneToAsk)
    return (NO_ONE, event.at, event.seat, 0, 0, 0, 0, 0)


def replies(core_events: list[CoreEvent], seats: int) -> list[Any]:
    """The replies a participant sends for the decisions among `core_events`, in order."""
    out: list[Any] = []
    for kind, _, seat, a, b, *_rest in core_events:
        if kind == ASKED:
            out.append({"player": a, "cardId": b})
        elif kind == REFUSED:
            refused: Any = (
                None,
                {"player": seat, "cardId": 0},
                {"player": (seat + 1) % seats, "cardId": -1},
            )
            out.append(refused[a])
        elif kind in (FISHED, PICKED):
            out.append(a)
    return out


def engine_replay(
    setup: MatchSetup,
    core_events: list[CoreEvent],
    watch: Callable[[Delivery], None] | None = None,
) -> tuple[list[CoreEvent], Result | None]:
    """The engine's events for the core's decisions (`watch` sees every delivery), and its
    result; None when the core's decisions ran out before the engine's match ended."""
    answers = iter(replies(core_events, len(setup.names)))
    match = Match(setup)
    flow = match.play()
    try:
        delivery = next(flow)
        while True:
            if watch is not None:
                watch(delivery)
            reply = None
            if delivery.message["type"] in ("ask", "go-fish", "pick-up"):
                reply = next(answers, StopIteration)
                if reply is StopIteration:
                    return [as_core(e) for e in match.events], None
            delivery = flow.send(reply)
    except StopIteration as stop:
        return [as_core(e) for e in match.events], stop.value
