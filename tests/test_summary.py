"""Each reply judged once (by the engine), each count defined once (docs/tournaments.md)."""

from __future__ import annotations

from typing import Any

import pytest
from resultsmaker import results_lines, typed

from arena.base.words import ordinal
from arena.engine.events import AskRefused, PondReplyRead
from arena.engine.match import NO_REPLY, Delivery, Match, MatchSetup
from arena.engine.rules import Rules
from arena.referee.loop import rule_fault
from arena.seats.replies import FaultKind
from arena.tournaments.summary import Summary, select


def _played(reply: Any) -> Match:
    """A two-seat match driven to its end by `reply(delivery, turn)`."""
    match = Match(MatchSetup.from_seed(3, ("a", "b"), Rules()))
    flow = match.play()
    delivery = next(flow)
    turn = 0
    try:
        while True:
            turn += 1
            delivery = flow.send(reply(delivery, turn))
    except StopIteration:
        return match


def _ask(delivery: Delivery) -> dict[str, Any]:
    hand = delivery.message["hand"]
    return {"player": 1 - delivery.seat, "cardId": hand[0]["id"]}


def test_the_engine_records_every_reply_it_refused_or_reinterpreted_and_nothing_unread() -> None:
    asks = {0: 0, 1: 0}

    def reply(delivery: Delivery, turn: int) -> Any:
        kind, seat = delivery.message["type"], delivery.seat
        if kind == "ask":
            asks[seat] += 1
            if seat == 1 and asks[seat] == 1:
                return NO_REPLY  # no readable reply: its own fault, never judged again
            if seat == 1 and asks[seat] == 2:
                return {"player": 1, "cardId": 0}  # asks itself: refused
            return _ask(delivery)
        if kind in ("go-fish", "pick-up"):
            if seat == 0:
                return "top"  # read, but no number: drawn as 0
            return NO_REPLY if turn % 2 else 2.0
        return None

    match = _played(reply)
    refused = [event for event in match.events if isinstance(event, AskRefused)]
    assert [event.reason for event in refused][:2] == ["no-reply", "ask-itself"]
    judged_asks = [j for j in match.judged if isinstance(j, AskRefused)]
    assert judged_asks == [refused[1]]  # the unread reply is not judged
    ponds = [j for j in match.judged if isinstance(j, PondReplyRead)]
    assert ponds and all(j.seat == 0 and j.reply == "top" for j in ponds)
    faults = [rule_fault(j) for j in match.judged]
    assert [f.kind for f in faults].count(FaultKind.BAD_POND_INDEX) == len(ponds)
    asks_judged = [f for f in faults if f.kind is not FaultKind.BAD_POND_INDEX]
    assert [(f.kind, f.fault.detail.split(": ")[0]) for f in asks_judged] == [
        (FaultKind.REFUSED_ASK, "ask-itself")
    ]


def test_a_refused_ask_is_one_fault_in_the_report_never_stacked_on_its_invalid_ask() -> None:
    (line,) = results_lines(["ann", "bob"], 1)
    lines = typed([{**line, "faults": [{"refused-ask": 2}, {}], "invalidAsks": [3, 0]}])
    data = Summary.of(select(lines, line["tournament"]).entries).as_json()
    ann = data["names"].index("ann")
    assert data["faultKinds"] == ["refused-ask"]
    assert sum(data["faults"][ann]) == 2  # the chart: 2 faults, not 2 + 3
    assert data["list"]["faults"][:2] == [2, 0]  # the match list likewise
    assert data["rows"][ann]["faults"]["invalidAsks"] == 3  # a count of its own


@pytest.mark.parametrize(
    ("place", "said"),
    [
        (1, "1st"),
        (2, "2nd"),
        (3, "3rd"),
        (4, "4th"),
        (11, "11th"),
        (12, "12th"),
        (13, "13th"),
        (21, "21st"),
        (22, "22nd"),
        (23, "23rd"),
        (101, "101st"),
        (111, "111th"),
        (112, "112th"),
    ],
)
def test_places_are_said_as_people_say_them(place: int, said: str) -> None:
    assert ordinal(place) == said
