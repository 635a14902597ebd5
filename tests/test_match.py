"""The match generator's handling of replies (contract §2.6, §3 pond indices), its caps and protocol.

Every row of the contract's invalid-reply rules is one test, played through `Match.play()`.
"""

from __future__ import annotations

import json
import random
from typing import Any

import orjson
import pytest
from rigging import Pack, ask, events_of, rules, run, setup

from arena.engine.match import NO_REPLY, Match, MatchSetup, Outcome, play, play_out
from arena.engine.rules import Rules, StartingPlayer, pond_index

PACK = Pack()
C = PACK.one
# Seat 0 holds 2S, whose id is 1: a `cardId` of `true` would name it if bools passed as ints,
# and a `player` of `true` would name seat 1, which holds the 7S that seat 0's 7H would take.
HANDS = ["2S 7H 9D", "7S 3C 4D", "5S 5H 6C"]
DECK = PACK.deck(HANDS, "KS KH")
assert C("2S")["id"] == 1

INVALID_ASKS: dict[str, Any] = {
    "not an object: a list": [1, C("7H")["id"]],
    "not an object: a string": "ask 1 for 7H",
    "not an object: a number": 1,
    "not an object: null": None,
    "not an object: true": True,
    "player missing": {"cardId": C("7H")["id"]},
    "player null": {"player": None, "cardId": C("7H")["id"]},
    "player a string": {"player": "1", "cardId": C("7H")["id"]},
    "player fractional": {"player": 1.5, "cardId": C("7H")["id"]},
    "player a bool": {"player": True, "cardId": C("7H")["id"]},
    "player a list": {"player": [1], "cardId": C("7H")["id"]},
    "player out of range: n": {"player": 3, "cardId": C("7H")["id"]},
    "player out of range: negative": {"player": -1, "cardId": C("7H")["id"]},
    "player out of range: huge": {"player": 10**30 + 1, "cardId": C("7H")["id"]},
    "player out of range: 1e300": {"player": 1e300, "cardId": C("7H")["id"]},
    "player the asker itself": {"player": 0, "cardId": C("7H")["id"]},
    "cardId missing": {"player": 1},
    "cardId not in any hand": {"player": 1, "cardId": 999},
    "cardId of another seat's card": {"player": 1, "cardId": C("7S")["id"]},
    "cardId of a card in the pond": {"player": 1, "cardId": C("KS")["id"]},
    "cardId a string": {"player": 1, "cardId": str(C("7H")["id"])},
    "cardId a bool": {"player": 1, "cardId": True},
    "cardId fractional": {"player": 1, "cardId": C("7H")["id"] + 0.5},
    "cardId a card object": {"player": 1, "cardId": C("7H")},
    "no reply (missing, late, not JSON)": NO_REPLY,
}


@pytest.mark.parametrize("reply", INVALID_ASKS.values(), ids=INVALID_ASKS.keys())
def test_an_invalid_ask_moves_nothing_tells_nobody_and_passes_the_turn_clockwise(
    reply: Any,
) -> None:
    played = run(setup(DECK, rules(3), seats=3), asks=[reply])
    assert played.types(6) == [(0, "ask"), (1, "ask")]
    assert played.last.message == {
        "type": "ask",
        "hand": PACK("7S 3C 4D"),
        "opponentsHandSizes": [3, None, 3],
        "pond": [0, 0],
    }
    assert [hand for hand in played.match.table.hands] == [PACK(h) for h in HANDS]
    assert [e["event"] for e in events_of(played.match)] == ["invalid-ask"]


VALID_ASKS: dict[str, Any] = {
    "ints": {"player": 1, "cardId": C("7H")["id"]},
    "integral floats (JSON has one number type)": {"player": 1.0, "cardId": float(C("7H")["id"])},
    "extra keys are ignored": {"player": 1, "cardId": C("7H")["id"], "why": "a guess"},
}


@pytest.mark.parametrize("reply", VALID_ASKS.values(), ids=VALID_ASKS.keys())
def test_a_valid_ask_is_resolved(reply: Any) -> None:
    played = run(setup(DECK, rules(3), seats=3), asks=[reply])
    assert played.types(6) == [(0, "ask"), (0, "hand-update"), (1, "hand-update"),
                               (2, "hand-update"), (0, "ask")]  # fmt: skip
    assert played.transcript[7].message["card"] == C("7H")
    assert played.last.message["hand"] == PACK("2S 7H 9D 7S")


# --- pond indices --------------------------------------------------------------------------

POND = "AH 2H 3H 4H 5H"  # five pond cards, so index i draws the i-th of these
BEYOND_DOUBLES = 2**53 + 1  # a double would round it to 2**53, which is 2 (mod 5), not 3

POND_INDICES: dict[str, tuple[Any, int]] = {
    "0": (0, 0),
    "last": (4, 4),
    "len wraps to 0": (5, 0),
    "7 wraps to 2": (7, 2),
    "-1 is the last card": (-1, 4),
    "-6 wraps upward": (-6, 4),
    "-0.5 is len - 0.5, truncated": (-0.5, 4),
    "2.7 truncates to 2": (2.7, 2),
    "0.999 truncates to 0": (0.999, 0),
    "-2.5 wraps to 2.5, truncated": (-2.5, 2),
    "tiny negative -1e-20 is the last card": (-1e-20, 4),
    "integral float 1.0": (1.0, 1),
    "integer above 2^53, exact modulo": (BEYOND_DOUBLES, 3),
    "integer of 40 digits, exact modulo": (10**40 + 3, 3),
    "negative integer beyond doubles": (-(10**40) - 1, 4),
    "1e300, exact modulo of the double": (1e300, int(1e300) % 5),
    "-1e300": (-1e300, int(-1e300) % 5),
    "true counts as 0": (True, 0),
    "false counts as 0": (False, 0),
    "a numeric string counts as 0": ("3", 0),
    "null counts as 0": (None, 0),
    "a list counts as 0": ([3], 0),
    "an object counts as 0": ({"index": 3}, 0),
    "infinity counts as 0": (float("inf"), 0),
    "-infinity counts as 0": (float("-inf"), 0),
    "NaN counts as 0": (float("nan"), 0),
    "no reply counts as 0": (NO_REPLY, 0),
}


@pytest.mark.parametrize(("reply", "index"), POND_INDICES.values(), ids=POND_INDICES.keys())
def test_a_go_fish_reply_draws_the_wrapped_pond_index(reply: Any, index: int) -> None:
    played = run(
        setup(PACK.deck(["7S", "2C"], POND), rules(1)), asks=[ask(1, C("7S"))], draws=[reply]
    )
    drawn = PACK(POND)[index]
    assert played.of_type("go-fish")[0].message == {"type": "go-fish", "pond": [0] * 5}
    assert played.of_type("go-fish-result")[0].message == {
        "type": "go-fish-result",
        "card": [drawn],
        "hand": [C("7S"), drawn],
    }
    assert drawn not in played.last.message["hand"] + [None]  # seat 1 asks now, seat 0 drew it


@pytest.mark.parametrize(("reply", "index"), [(-1, 4), (-1e-20, 4), (2.7, 2), ("3", 0)])
def test_a_pick_up_reply_draws_the_wrapped_pond_index(reply: Any, index: int) -> None:
    played = run(setup(PACK.deck(["7S 7H 7D 7C", "2C 3C 4C 5C"], POND), rules(4)), draws=[reply])
    assert played.of_type("pick-up")[0].message == {"type": "pick-up", "pond": 5}
    drawn = PACK(POND)[index]
    assert played.of_type("pick-up-result")[0].message == {
        "type": "pick-up-result",
        "card": [drawn],
        "hand": [drawn],
    }


def test_pond_index_is_always_in_range() -> None:
    replies = [0, 1, -1, 2**64, -(2**64), 0.5, -0.5, -1e-300, 5e-324, -5e-324, 1e308, -1e308]
    for size in (1, 2, 3, 7, 52, 168):
        for reply in replies:
            assert 0 <= pond_index(reply, size) < size, (reply, size)


def test_the_json_module_gives_the_engine_exact_integers_and_1e999_as_infinity() -> None:
    # The match loop decodes replies with `json`; the contract's examples reach the engine as these.
    assert pond_index(json.loads(str(BEYOND_DOUBLES)), 5) == 3
    assert pond_index(json.loads("1e999"), 5) == 0
    assert pond_index(json.loads("-1e-20"), 5) == 4


# --- outcomes other than completed ---------------------------------------------------------


def test_invalid_asks_stall_the_match_after_max_idle_turns_and_match_end_is_sent() -> None:
    match_setup = setup(DECK, rules(3), seats=3, max_idle_turns=7)
    played = run(match_setup, asks=[NO_REPLY] * 7)
    assert played.result is not None
    assert played.result.outcome is Outcome.STALLED
    assert [s.seat for s in played.of_type("ask")] == [0, 1, 2, 0, 1, 2, 0]
    assert played.types()[-3:] == [(0, "match-end"), (1, "match-end"), (2, "match-end")]
    assert played.transcript[-1].message == {"type": "match-end", "scores": [0, 0, 0],
                                             "ranks": [1, 1, 1]}  # fmt: skip


def test_a_card_moving_resets_the_idle_count() -> None:
    match_setup = setup(DECK, rules(3), seats=3, max_idle_turns=2)
    played = run(match_setup, asks=[NO_REPLY, ask(2, C("7S")), NO_REPLY, NO_REPLY])
    assert played.result is not None and played.result.outcome is Outcome.STALLED
    assert [s.seat for s in played.of_type("ask")] == [0, 1, 2, 0]  # a go-fish moved a card


def test_a_match_stops_at_max_turns_asks() -> None:
    match_setup = setup(DECK, rules(3), seats=3, max_turns=2)
    played = run(match_setup, asks=[ask(1, C("7H")), ask(1, C("2S"))])
    assert played.result is not None
    assert played.result.outcome is Outcome.TURN_LIMIT
    assert len(played.of_type("ask")) == 2
    assert played.transcript[-1].message["type"] == "match-end"


# --- the generator protocol ----------------------------------------------------------------


def test_informational_replies_are_ignored_whatever_they_are() -> None:
    match_setup = setup(DECK, rules(3), seats=3)

    def transcript(informational: Any) -> list[bytes]:
        game, sent = play(match_setup), []
        delivery = next(game)
        for _ in range(12):
            sent.append(orjson.dumps(tuple(delivery)))
            kind = delivery.message["type"]
            reply = (
                ask(1, C("7H"))
                if kind == "ask"
                else 0
                if kind in ("pick-up", "go-fish")
                else informational
            )
            delivery = game.send(reply)
        game.close()
        return sent

    assert transcript(None) == transcript(NO_REPLY) == transcript({"type": "ask", "player": 2})


def test_messages_are_never_changed_after_they_were_sent() -> None:
    match_setup = MatchSetup.from_seed(5, ("a", "b", "c"), Rules(min_hand_size=3))
    game = play(match_setup)
    sent: list[tuple[Any, bytes]] = []
    delivery = next(game)
    try:
        while True:
            sent.append((delivery.message, orjson.dumps(delivery.message)))
            message = delivery.message
            if message["type"] == "ask":
                reply: Any = {
                    "player": (delivery.seat + 1) % 3,
                    "cardId": message["hand"][-1]["id"],
                }
            elif message["type"] in ("go-fish", "pick-up"):
                reply = -1
            else:
                reply = None
            delivery = game.send(reply)
    except StopIteration as stop:
        assert stop.value.outcome is Outcome.COMPLETED
    assert len(sent) > 100
    assert all(orjson.dumps(message) == encoded for message, encoded in sent)


def test_the_same_setup_and_replies_give_the_same_transcript_and_result() -> None:
    random_start = Rules(starting_player=StartingPlayer.RANDOM, min_hand_size=2)
    replays = []
    for _ in range(2):
        match = Match(MatchSetup.from_seed(11, ("a", "b", "c", "d"), random_start))
        game, sent, choices = match.play(), [], random.Random(3)
        try:
            delivery = next(game)
            while True:
                sent.append(orjson.dumps(tuple(delivery)))
                reply: Any = choices.randrange(-60, 60)
                if delivery.message["type"] == "ask":
                    other = (delivery.seat + choices.randrange(1, 4)) % 4
                    reply = {
                        "player": other,
                        "cardId": choices.choice(delivery.message["hand"])["id"],
                    }
                delivery = game.send(reply)
        except StopIteration as stop:
            replays.append((sent, stop.value, match.events))
    assert replays[0] == replays[1]
    assert replays[0][1].outcome is Outcome.COMPLETED


class Chooser:
    """A seat's seeded random replies, for the drivers below to agree on."""

    def __init__(self, seat: int, seed: int) -> None:
        self.seat, self.choices = seat, random.Random(seed)

    def handle(self, message: dict[str, Any]) -> Any:
        if message["type"] == "ask":
            other = (self.seat + self.choices.randrange(1, 3)) % 3
            return {"player": other, "cardId": self.choices.choice(message["hand"])["id"]}
        return self.choices.randrange(-60, 60)


def test_play_out_is_the_generator_driven_by_each_seats_bot() -> None:
    match_setup = MatchSetup.from_seed(8, ("a", "b", "c"), Rules(min_hand_size=2))
    by_hand, bots = Match(match_setup), [Chooser(seat, 40 + seat) for seat in range(3)]
    game, expected = by_hand.play(), []
    try:
        delivery = next(game)
        while True:
            reply = bots[delivery.seat].handle(delivery.message)
            expected.append((orjson.dumps(tuple(delivery)), reply))
            delivery = game.send(reply)
    except StopIteration as stop:
        expected_result = stop.value

    played, bots = Match(match_setup), [Chooser(seat, 40 + seat) for seat in range(3)]
    seen: list[tuple[bytes, Any]] = []
    result = played.play_out(bots, lambda d, reply: seen.append((orjson.dumps(tuple(d)), reply)))
    assert (seen, result, played.events) == (expected, expected_result, by_hand.events)
    assert result.outcome is Outcome.COMPLETED and len(seen) > 100
    assert play_out(match_setup, [Chooser(seat, 40 + seat) for seat in range(3)]) == result


def test_play_out_asks_no_bot_when_the_deal_does_not_fit() -> None:
    class Silent:
        def handle(self, message: dict[str, Any]) -> Any:
            raise AssertionError(message)

    short = MatchSetup(Rules(), ("a", "b"), tuple(PACK.deck(["2S"], "")), 0)
    assert play_out(short, [Silent(), Silent()]).outcome is Outcome.DID_NOT_START


def test_a_bots_stop_iteration_is_its_own_error_not_the_end_of_the_match() -> None:
    class Stopping:
        def handle(self, message: dict[str, Any]) -> Any:
            raise StopIteration

    with pytest.raises(StopIteration):
        play_out(MatchSetup.from_seed(1, ("a", "b"), Rules()), [Stopping(), Stopping()])
