"""The family rules, one rule per test on a rigged deck with scripted replies:
lucky draw, refill when empty (at once, on its turn, and again after a book), dead hands,
a draw when no one can be asked, the deal by table size, and the turn after a miss.

Each test also says that with the rule off, the match plays as the reference arena's rules do.
"""

from __future__ import annotations

from typing import Any

import pytest
from rigging import Pack, ask, rules, run, setup

from arena.engine.events import as_json
from arena.engine.rules import NextPlayer, RefillWhen, Rules, deal_for

AT_ONCE, ON_ITS_TURN = RefillWhen.AT_ONCE, RefillWhen.ON_ITS_TURN


def events(played: Any) -> list[dict[str, Any]]:
    """The match's events as the replay writes them."""
    return [as_json(event) for event in played.match.events]


def lucky(seat: int, card: object) -> dict[str, object]:
    return {"type": "lucky-draw", "player": seat, "card": card}


# --- lucky draw ------------------------------------------------------------------------------


def test_a_lucky_draw_is_shown_to_every_seat_and_the_asker_asks_again(pack: Pack) -> None:
    deck = pack.deck(["7S 2C", "9S 9H", "4D 5D"], "7H KS KH")
    played = run(setup(deck, rules(2, lucky_draw=True), seats=3), asks=[ask(1, pack.one("7S"))])
    assert played.types(6)[-7:] == [
        (2, "hand-update"),
        (0, "go-fish"),
        (0, "go-fish-result"),
        (0, "lucky-draw"),
        (1, "lucky-draw"),
        (2, "lucky-draw"),
        (0, "ask"),
    ]
    assert [s.message for s in played.of_type("lucky-draw")] == [lucky(0, pack.one("7H"))] * 3
    assert [e["event"] for e in events(played)][-2:] == ["drew", "lucky-draw"]


def test_without_lucky_draw_the_asked_rank_from_the_pond_passes_the_turn(pack: Pack) -> None:
    deck = pack.deck(["7S 2C", "9S 9H"], "7H KS KH")
    played = run(setup(deck, rules(2)), asks=[ask(1, pack.one("7S"))])
    assert played.types(4)[-3:] == [(0, "go-fish"), (0, "go-fish-result"), (1, "ask")]
    assert not played.of_type("lucky-draw")


def test_a_lucky_draw_that_completes_a_book_lays_it_then_the_asker_asks_again(pack: Pack) -> None:
    deck = pack.deck(["7S 7H 7D 2C", "9S 9H 3C 4H"], "7C KS QH")
    played = run(setup(deck, rules(4, lucky_draw=True)), asks=[ask(1, pack.one("7S"))])
    assert played.types(4)[-5:] == [
        (0, "go-fish"),
        (0, "go-fish-result"),
        (0, "lucky-draw"),
        (1, "lucky-draw"),
        (0, "ask"),  # the book went down between the lucky draw and this ask
    ]
    assert played.match.table.books == [1, 0]
    assert played.last.message["hand"] == pack("2C")


def test_a_draw_of_another_rank_ends_the_turn_even_when_it_completes_a_book(pack: Pack) -> None:
    # Asks for 2s, draws the fourth 7: the book goes down, but the turn passes.
    deck = pack.deck(["7S 7H 7D 2C", "9S 9H 3C 4H"], "7C KS QH")
    played = run(setup(deck, rules(4, lucky_draw=True)), asks=[ask(1, pack.one("2C"))])
    assert played.types(4)[-3:] == [(0, "go-fish"), (0, "go-fish-result"), (1, "ask")]
    assert played.match.table.books == [1, 0]
    assert not played.of_type("lucky-draw")


# --- refill when empty -----------------------------------------------------------------------


def test_a_hand_emptied_by_a_hand_over_draws_a_fresh_hand_at_once(pack: Pack) -> None:
    deck = pack.deck(["7S 2C", "7H 7D"], "KS KH QS QH 3D")
    played = run(
        setup(deck, rules(2, refill_empty_hand=3)),
        asks=[ask(1, pack.one("7S")), ask(1, pack.one("2C"))],
    )
    # Seat 1 draws three before anyone is told of the ask (as with minHandSize).
    assert played.types(4)[:9] == [
        (0, "ask"),
        (1, "pick-up"),
        (1, "pick-up-result"),
        (1, "pick-up"),
        (1, "pick-up-result"),
        (1, "pick-up"),
        (1, "pick-up-result"),
        (0, "hand-update"),
        (1, "hand-update"),
    ]
    assert played.of_type("hand-update")[1].message["hand"] == pack("KS KH QS")


def test_min_hand_size_alone_draws_one_card_into_an_emptied_hand(pack: Pack) -> None:
    deck = pack.deck(["7S 2C", "7H 7D"], "KS KH QS QH 3D")
    played = run(setup(deck, rules(2)), asks=[ask(1, pack.one("7S"))])
    assert played.of_type("hand-update")[1].message["hand"] == pack("KS")


def test_a_refill_that_makes_a_book_refills_again(pack: Pack) -> None:
    # Seat 0 completes 7s with the hand-over and is left empty: it refills 4, which are the
    # four Kings, a book, so it is empty again and refills 4 more.
    deck = pack.deck(["7S 7H 7D", "7C 2C 3C"], "KS KH KD KC QS QH 5D 6D 8D")
    played = run(setup(deck, rules(3, refill_empty_hand=4)), asks=[ask(1, pack.one("7S"))])
    laid = [(e["seat"], e["rank"]) for e in events(played) if e["event"] == "book-laid"]
    assert laid == [(0, 6), (0, 13)]
    assert len(played.of_type("pick-up")) == 8
    assert played.match.table.hands[0] == pack("QS QH 5D 6D")
    assert played.last.seat == 0 and played.last.message["hand"] == pack("QS QH 5D 6D")


def test_the_asked_seats_refill_is_book_checked_before_anyone_is_told(pack: Pack) -> None:
    deck = pack.deck(["9S 2C", "9H 9D"], "KS KH KD KC QS 5D")
    played = run(setup(deck, rules(2, refill_empty_hand=4)), asks=[ask(1, pack.one("9S"))])
    updates = played.of_type("hand-update")
    # Seat 1 drew four Kings, laid them, and drew again, all before the hand-update.
    assert updates[1].message["hand"] == pack("QS 5D")
    assert played.match.table.books == [0, 1]


def test_on_its_turn_an_empty_hand_waits_and_refills_when_its_turn_comes(pack: Pack) -> None:
    deck = pack.deck(["7S 2C", "7H 7D"], "KS KH QS QH 3D")
    settings = rules(2, 0, refill_empty_hand=3, refill_when=ON_ITS_TURN)
    # Seat 0 hits (seat 1 is left empty), then misses on 2s: the turn passes to seat 1.
    played = run(
        setup(deck, settings), asks=[ask(1, pack.one("7S")), ask(1, pack.one("2C"))], draws=[0]
    )
    assert played.of_type("hand-update")[1].message["hand"] == []
    assert played.types(4)[-9:] == [
        (0, "go-fish"),
        (0, "go-fish-result"),
        (1, "pick-up"),
        (1, "pick-up-result"),
        (1, "pick-up"),
        (1, "pick-up-result"),
        (1, "pick-up"),
        (1, "pick-up-result"),
        (1, "ask"),
    ]
    assert played.last.message["hand"] == pack("KH QS QH")


def test_a_refill_takes_what_the_pond_has_left(pack: Pack) -> None:
    deck = pack.deck(["7S 2C", "7H 7D"], "KS")
    played = run(setup(deck, rules(2, refill_empty_hand=5)), asks=[ask(1, pack.one("7S"))])
    assert played.of_type("hand-update")[1].message["hand"] == pack("KS")


def test_a_dead_hand_sits_out_and_the_turn_passes_on(pack: Pack) -> None:
    # Seat 1 hands over its last cards with the pond empty: a dead hand. Seat 0 then asks it
    # for 2s (a miss, with nothing to draw); under "Asked" the turn is seat 1's, but it sits
    # out and seat 2 asks.
    deck = pack.deck(["7S 2C", "7H 7D", "2S 4H"])
    settings = rules(2, 0, refill_empty_hand=5, refill_when=ON_ITS_TURN)
    played = run(
        setup(deck, settings, seats=3), asks=[ask(1, pack.one("7S")), ask(1, pack.one("2C"))]
    )
    assert played.types(6)[-5:] == [
        (0, "ask"),
        (0, "hand-update"),
        (1, "hand-update"),
        (2, "hand-update"),
        (2, "ask"),
    ]
    assert not played.of_type("pick-up")


# --- no one to ask ---------------------------------------------------------------------------


def test_with_no_one_to_ask_the_seat_draws_instead_and_the_turn_passes_on(pack: Pack) -> None:
    # Seat 1 hands over its last cards; with minHandSize 0 and no refill it stays empty, so
    # seat 0, with no one to ask, goes fishing without an ask, and the turn passes to seat 1,
    # which has no card and passes it back.
    deck = pack.deck(["7S 2C", "7H 7D"], "KS KH QS")
    settings = rules(2, 0, draw_when_no_one_to_ask=True)
    played = run(setup(deck, settings), asks=[ask(1, pack.one("7S"))], draws=[0, 0, 0])
    assert played.types(4)[:8] == [
        (0, "ask"),
        (0, "hand-update"),
        (1, "hand-update"),
        (0, "go-fish"),
        (0, "go-fish-result"),
        (0, "go-fish"),
        (0, "go-fish-result"),
        (0, "go-fish"),
    ]
    assert [e["event"] for e in events(played) if e["event"] != "drew"][-3:] == [
        "no-one-to-ask"
    ] * 3
    # The pond is empty now (a rigged, partial pack): with nothing to draw, seat 0 asks.
    assert len(played.of_type("go-fish")) == 3 and played.last.type == "ask"


def test_without_the_rule_a_seat_with_no_one_to_ask_asks_an_empty_hand(pack: Pack) -> None:
    deck = pack.deck(["7S 2C", "7H 7D"], "KS KH QS")
    played = run(setup(deck, rules(2, 0)), asks=[ask(1, pack.one("7S"))])
    assert played.types(4)[-1] == (0, "ask")


# --- the deal by table size and the turn after a miss ----------------------------------------


@pytest.mark.parametrize(("seats", "dealt"), [(2, 7), (3, 5), (4, 5), (6, 5)])
def test_deal_by_seats_deals_7_to_two_seats_and_5_to_more(seats: int, dealt: int) -> None:
    from arena.engine.cards import new_pack

    assert deal_for(seats) == dealt
    settings = Rules(deal_by_seats=True, starting_hand_size=0)
    played = run(setup(new_pack(1, False), settings, seats=seats), asks=[])
    hands = [s.message["hand"] for s in played.of_type("starting-hand")]
    assert [len(hand) for hand in hands] == [dealt] * seats
    told = played.of_type("init")[0].message["settings"]["rules"]
    assert told["startingHandSize"] == dealt and told["dealBySeats"] is True
    assert settings.cards_to_deal(seats) == dealt * seats


def test_the_seed_settings_read_exactly_as_before_and_family_rules_only_when_on() -> None:
    assert Rules().as_seed_names()["rules"] == {
        "startingPlayer": "Random",
        "startingHandSize": 7,
        "minHandSize": 1,
        "nextPlayer": "Asked",
    }
    family = Rules(
        lucky_draw=True,
        refill_empty_hand=5,
        refill_when=ON_ITS_TURN,
        min_hand_size=0,
        draw_when_no_one_to_ask=True,
        deal_by_seats=True,
        next_player=NextPlayer.AFTER_ASKER,
    )
    recorded: dict[str, Any] = family.as_seed_names()["rules"]
    assert "startingHandSize" not in recorded  # it depends on the table: given in `init`
    assert recorded == {
        "startingPlayer": "Random",
        "minHandSize": 0,
        "nextPlayer": "After asker",
        "luckyDraw": True,
        "refillEmptyHand": 5,
        "refillWhen": "On its turn",
        "drawWhenNoOneToAsk": True,
        "dealBySeats": True,
    }
    assert family.as_seed_names(3)["rules"]["startingHandSize"] == 5


@pytest.mark.parametrize(
    ("minimum", "refill", "when", "held", "turn_starts", "target"),
    [
        (1, 0, AT_ONCE, 0, False, 1),  # the reference arena: never below minHandSize
        (1, 7, AT_ONCE, 0, False, 7),  # an emptied hand draws the larger of the two
        (3, 2, AT_ONCE, 0, False, 3),
        (1, 7, AT_ONCE, 1, False, 1),  # a hand that is not empty: minHandSize only
        (0, 5, ON_ITS_TURN, 0, False, 0),  # waits for its turn
        (0, 5, ON_ITS_TURN, 0, True, 5),
    ],
)
def test_refill_against_min_hand_size(
    minimum: int, refill: int, when: RefillWhen, held: int, turn_starts: bool, target: int
) -> None:
    settings = Rules(min_hand_size=minimum, refill_empty_hand=refill, refill_when=when)
    assert settings.refill_target(held, turn_starts=turn_starts) == target


def test_on_its_turn_with_min_hand_size_is_refused() -> None:
    assert Rules(refill_empty_hand=5, refill_when=ON_ITS_TURN, min_hand_size=2).problem() == (
        "refillWhen",
        '"On its turn" needs minHandSize = 0 (minHandSize = 2 refills an emptied hand at once)',
    )
    assert Rules(refill_empty_hand=5, refill_when=ON_ITS_TURN, min_hand_size=0).problem() is None
    assert Rules(refill_empty_hand=5).problem() is None


# --- the ready rule sets ---------------------------------------------------------------------


@pytest.mark.parametrize("name", ["classic", "family-two", "family-table"])
def test_each_ready_rule_set_is_its_config_file(name: str) -> None:
    from pathlib import Path

    from arena.base.config import named_rules, rules_file

    path = Path(__file__).parents[1] / "configs" / f"{name}.toml"
    assert rules_file(path) == named_rules(name)


# --- the shuffle -----------------------------------------------------------------------------

# The chi-square value that a fair shuffle exceeds with probability 0.001, by degrees of freedom.
CHI_SQUARE_999 = {2: 13.816, 3: 16.266, 51: 86.661}


def chi_square(counts: list[int]) -> float:
    expected = sum(counts) / len(counts)
    return sum((count - expected) ** 2 / expected for count in counts)


def test_the_shuffle_puts_a_card_in_every_position_equally_often() -> None:
    # 10,400 seeded shuffles of the pack: where card 0 lands, and which card comes first.
    import random

    from arena.engine.cards import shuffled_pack

    where, first = [0] * 52, [0] * 52
    for seed in range(10_400):
        deck = shuffled_pack(random.Random(seed), 1, False)
        where[next(i for i, card in enumerate(deck) if card["id"] == 0)] += 1
        first[deck[0]["id"]] += 1
    assert chi_square(where) < CHI_SQUARE_999[51]
    assert chi_square(first) < CHI_SQUARE_999[51]


@pytest.mark.parametrize("seats", [3, 4])
def test_a_random_starting_seat_is_drawn_fairly(seats: int) -> None:
    from arena.engine.match import MatchSetup

    counts = [0] * seats
    for seed in range(3000):
        counts[MatchSetup.from_seed(seed, "abcd"[:seats], Rules()).starting_player] += 1
    assert chi_square(counts) < CHI_SQUARE_999[seats - 1]
