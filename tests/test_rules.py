"""contract §1–3, one rule per test, each played on a rigged deck with scripted replies; §2.9's
limits: where they end a match and what they count.

The deck is the pond before the deal (seat 0's dealt cards first), so a test names the cards
each seat is dealt and the pond that follows; see `tests/rigging.py`.
"""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

import pytest
from rigging import Pack, Played, ask, events_of, rules, run, setup

from arena.engine.cards import glyph, new_pack, shuffled_pack
from arena.engine.match import NO_REPLY, MatchSetup, Outcome
from arena.engine.rules import NextPlayer, Rules, StartingPlayer

# --- messages as the contract writes them ------------------------------------------------------


def pick_up(pond: int) -> dict[str, object]:
    return {"type": "pick-up", "pond": pond}


def pick_up_result(card: object, hand: object) -> dict[str, object]:
    return {"type": "pick-up-result", "card": [card], "hand": hand}


def go_fish(pond: list[int]) -> dict[str, object]:
    return {"type": "go-fish", "pond": pond}


def go_fish_result(card: object, hand: object) -> dict[str, object]:
    return {"type": "go-fish-result", "card": [card], "hand": hand}


def hand_update(
    asker: int, asked: int, card: object, moved: int, hand: object
) -> dict[str, object]:
    return {
        "type": "hand-update",
        "askingPlayer": asker,
        "playerAsked": asked,
        "card": card,
        "result": moved,
        "hand": hand,
    }


def ask_message(hand: object, sizes: list[int | None], pond: list[int]) -> dict[str, object]:
    return {"type": "ask", "hand": hand, "opponentsHandSizes": sizes, "pond": pond}


# --- §1 cards ------------------------------------------------------------------------------


def test_a_deck_is_52_cards_without_knights_and_rank_11_never_occurs() -> None:
    pack = new_pack(1, knights=False)
    assert len(pack) == 52
    assert sorted({c["rank"] for c in pack}) == [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 12, 13]
    assert all(sum(c["rank"] == r for c in pack) == 4 for r in {c["rank"] for c in pack})


def test_knights_add_rank_11_in_every_suit() -> None:
    pack = new_pack(1, knights=True)
    assert len(pack) == 56
    assert sorted((c["suit"], c["deck"]) for c in pack if c["rank"] == 11) == [
        (0, 0),
        (1, 0),
        (2, 0),
        (3, 0),
    ]


@pytest.mark.parametrize("knights", [False, True])
@pytest.mark.parametrize("decks", [1, 3])
def test_ids_number_the_pack_deck_by_deck_suit_by_suit_rank_by_rank(
    decks: int, knights: bool
) -> None:
    ranks = [r for r in range(14) if knights or r != 11]
    expected = [(d, s, r) for d in range(decks) for s in range(4) for r in ranks]
    pack = new_pack(decks, knights)
    assert [c["id"] for c in pack] == list(range(len(expected)))
    assert [(c["deck"], c["suit"], c["rank"]) for c in pack] == expected


def test_ids_skip_rank_11_without_knights() -> None:
    queen_of_spades = {False: 11, True: 12}  # ranks 0-10 then (11 with knights) then the queen
    ace_of_hearts = {False: 13, True: 14}
    for knights in (False, True):
        by_key = {(c["deck"], c["suit"], c["rank"]): c["id"] for c in new_pack(2, knights)}
        assert by_key[(0, 0, 12)] == queen_of_spades[knights]
        assert by_key[(0, 1, 0)] == ace_of_hearts[knights]
        assert by_key[(1, 0, 0)] == (56 if knights else 52)


def test_the_glyph_is_code_point_1f0a1_plus_16_suit_plus_rank() -> None:
    for card in new_pack(2, knights=True):
        assert card["card"] == chr(0x1F0A1 + 16 * card["suit"] + card["rank"])
    assert glyph(0, 0) == "\U0001f0a1"  # ace of spades
    assert glyph(1, 11) == "\U0001f0bc"  # knight of hearts
    assert glyph(2, 12) == "\U0001f0cd"  # queen of diamonds: the knight's slot is skipped
    assert glyph(3, 13) == "\U0001f0de"  # king of clubs


def test_the_shuffle_is_seeded_and_the_same_everywhere() -> None:
    # Golden orders: a change of shuffle (or of Python's `random`) would change every replay.
    assert [c["id"] for c in shuffled_pack(random.Random(42), 1, False)][:10] == [
        9, 23, 25, 3, 21, 38, 16, 39, 19, 11,
    ]  # fmt: skip
    assert [c["id"] for c in shuffled_pack(random.Random(42), 2, True)][:10] == [
        15, 47, 30, 16, 1, 9, 26, 76, 52, 84,
    ]  # fmt: skip
    assert shuffled_pack(random.Random(7), 1, False) == shuffled_pack(random.Random(7), 1, False)
    assert shuffled_pack(random.Random(7), 1, False) != shuffled_pack(random.Random(8), 1, False)


# --- §2.1-2.4 deal, first messages, starting player, the first book check -------------------


def test_deal_seat_0_takes_the_first_cards_of_the_pond_then_seat_1_and_so_on() -> None:
    pack = Pack(decks=2)
    deck = tuple(reversed(pack.cards))  # deck 1's cards first, then deck 0's
    played = run(setup(deck, rules(5, decks=2), seats=3))
    assert [s.message["hand"] for s in played.of_type("starting-hand")] == [
        list(deck[0:5]),
        list(deck[5:10]),
        list(deck[10:15]),
    ]
    assert played.last.message == ask_message(
        list(deck[0:5]), [None, 5, 5], [c["deck"] for c in deck[15:]]
    )
    assert played.last.message["pond"][:37] == [1] * 37


def test_init_to_every_seat_then_starting_hand_to_every_seat_in_seat_order(pack: Pack) -> None:
    deck = pack.deck(["2S 3S", "4H 5H", "6D 7D"], "8C")
    played = run(setup(deck, rules(2), seats=3, limits={"replyTimeout": 2.0}))
    assert played.types()[:7] == [
        (0, "init"), (1, "init"), (2, "init"),
        (0, "starting-hand"), (1, "starting-hand"), (2, "starting-hand"),
        (0, "ask"),
    ]  # fmt: skip
    assert played.transcript[1].message == {
        "type": "init",
        "seat": 1,
        "players": [{"seat": 0, "name": "a"}, {"seat": 1, "name": "b"}, {"seat": 2, "name": "c"}],
        "opponents": ["a", None, "c"],
        "settings": {
            "rules": {
                "startingPlayer": "First in line",
                "startingHandSize": 2,
                "minHandSize": 1,
                "nextPlayer": "Asked",
            },
            "deck": {"numberOfDecks": 1, "knights": False},
            "limits": {"replyTimeout": 2.0},
        },
    }
    assert played.transcript[4].message == {"type": "starting-hand", "hand": pack("4H 5H")}


def test_first_in_line_is_seat_0_whatever_the_seed() -> None:
    first = Rules(starting_player=StartingPlayer.FIRST_IN_LINE)
    for seed in range(30):
        match_setup = MatchSetup.from_seed(seed, ("a", "b", "c", "d"), first)
        assert match_setup.starting_player == 0
        played = run(match_setup)
        assert played.last.seat == 0 and played.last.type == "ask"


def test_random_starting_player_is_drawn_after_the_shuffle_from_the_same_generator() -> None:
    random_start = Rules(starting_player=StartingPlayer.RANDOM)
    seen = set()
    for seed in range(40):
        rng = random.Random(seed)
        deck = shuffled_pack(rng, 1, False)
        match_setup = MatchSetup.from_seed(seed, ("a", "b", "c"), random_start)
        assert match_setup.deck == tuple(deck)
        assert match_setup.starting_player == rng.randrange(3)
        seen.add(match_setup.starting_player)
    assert seen == {0, 1, 2}


def test_the_starting_player_asks_first(pack: Pack) -> None:
    deck = pack.deck(["2S 3S", "4H 5H", "6D 7D"], "8C")
    played = run(setup(deck, rules(2), seats=3, starting=2))
    assert played.after_deal()[0].seat == 2
    assert played.last.message == ask_message(pack("6D 7D"), [2, 2, None], [0])


def test_books_are_checked_for_every_seat_in_seat_order_before_the_first_ask(pack: Pack) -> None:
    # Both seats are dealt a book; each lays it and refills to minHandSize = 3, seat 0 first.
    deck = pack.deck(["7S 9H 7H 7D 7C", "KS KH 2D KD KC"], "3S 4S 5S 6S 8S")
    played = run(setup(deck, rules(5, 3)), draws=[0, 0, 1, -1])
    assert [(s.seat, s.message) for s in played.after_deal()] == [
        (0, pick_up(5)),
        (0, pick_up_result(pack.one("3S"), pack("9H 3S"))),
        (0, pick_up(4)),
        (0, pick_up_result(pack.one("4S"), pack("9H 3S 4S"))),
        (1, pick_up(3)),
        (1, pick_up_result(pack.one("6S"), pack("2D 6S"))),
        (1, pick_up(2)),
        (1, pick_up_result(pack.one("8S"), pack("2D 6S 8S"))),
        (0, ask_message(pack("9H 3S 4S"), [None, 3], [0])),
    ]
    assert played.match.table.books == [1, 1]


# --- §2.7 asks -----------------------------------------------------------------------------


def test_a_hit_hands_over_every_card_of_the_rank_in_order_and_the_asker_asks_again(
    pack: Pack,
) -> None:
    deck = pack.deck(["7S 2H 4C", "7H 3C 7D", "9S 9H 9D"], "KS KH")
    played = run(setup(deck, rules(3), seats=3), asks=[ask(1, pack.one("7S"))])
    seven = pack.one("7S")
    assert [(s.seat, s.message) for s in played.after_deal()] == [
        (0, ask_message(pack("7S 2H 4C"), [None, 3, 3], [0, 0])),
        (0, hand_update(0, 1, seven, 2, pack("7S 2H 4C 7H 7D"))),
        (1, hand_update(0, 1, seven, 2, pack("3C"))),
        (2, hand_update(0, 1, seven, 2, pack("9S 9H 9D"))),
        (0, ask_message(pack("7S 2H 4C 7H 7D"), [None, 1, 3], [0, 0])),
    ]


def test_a_hit_is_followed_by_the_book_check_then_the_asked_seat_refills_then_hand_updates(
    pack: Pack,
) -> None:
    # The asker completes the 7s (book, refill to 3), then the asked seat refills to 3.
    deck = pack.deck(["7S 2C 7H 5D", "7D 6H 7C 8S"], "AS AH AD KC KD")
    played = run(setup(deck, rules(4, 3)), asks=[ask(1, pack.one("7H"))])
    seven = pack.one("7H")
    assert [(s.seat, s.message) for s in played.after_deal()[1:]] == [
        (0, pick_up(5)),
        (0, pick_up_result(pack.one("AS"), pack("2C 5D AS"))),
        (1, pick_up(4)),
        (1, pick_up_result(pack.one("AH"), pack("6H 8S AH"))),
        (0, hand_update(0, 1, seven, 2, pack("2C 5D AS"))),
        (1, hand_update(0, 1, seven, 2, pack("6H 8S AH"))),
        (0, ask_message(pack("2C 5D AS"), [None, 3], [0, 0, 0])),
    ]
    assert played.match.table.books == [1, 0]
    laid = [e for e in events_of(played.match) if e["event"] == "book-laid"]
    assert laid == [
        {"event": "book-laid", "at": laid[0]["at"], "seat": 0, "rank": 6,
         "cardIds": pack.ids("7S 7H 7D 7C")},
    ]  # fmt: skip


def test_a_miss_sends_go_fish_with_the_deck_of_every_pond_card_then_go_fish_result() -> None:
    pack = Pack(decks=2)
    deck = pack.deck(["7S 2C 5D", "9S 9H 3C"], "KS@1 KH 4D@1 QC")
    played = run(setup(deck, rules(3, decks=2)), asks=[ask(1, pack.one("7S"))], draws=[2])
    seven = pack.one("7S")
    assert [(s.seat, s.message) for s in played.after_deal()[1:]] == [
        (0, hand_update(0, 1, seven, 0, pack("7S 2C 5D"))),
        (1, hand_update(0, 1, seven, 0, pack("9S 9H 3C"))),
        (0, go_fish([1, 0, 1, 0])),
        (0, go_fish_result(pack.one("4D@1"), pack("7S 2C 5D 4D@1"))),
        (1, ask_message(pack("9S 9H 3C"), [4, None], [1, 0, 0])),
    ]


def test_a_book_completed_by_the_go_fish_draw_is_laid_after_go_fish_result(pack: Pack) -> None:
    deck = pack.deck(["7S 7H 7D 2C", "9S 9H 3C 4H"], "KS 7C QH QD")
    played = run(setup(deck, rules(4, 2)), asks=[ask(1, pack.one("7S"))], draws=[1, 0])
    assert [(s.seat, s.message) for s in played.after_deal()[3:]] == [
        (0, go_fish([0, 0, 0, 0])),
        (0, go_fish_result(pack.one("7C"), pack("7S 7H 7D 2C 7C"))),
        (0, pick_up(3)),
        (0, pick_up_result(pack.one("KS"), pack("2C KS"))),
        (1, ask_message(pack("9S 9H 3C 4H"), [2, None], [0, 0])),
    ]
    assert played.match.table.books == [1, 0]


def test_the_asked_seat_refills_on_a_miss_too_and_its_book_waits_for_the_check_after_go_fish(
    pack: Pack,
) -> None:
    # Dealt 3 with minHandSize 4: the asked seat refills on the ask (a 4th nine), shows all four
    # nines in its hand-update, and lays them in the book check that follows the go-fish.
    deck = pack.deck(["7S 2C 5D", "9S 9H 9D"], "9C KS KH QS QH")
    played = run(setup(deck, rules(3, 4)), asks=[ask(1, pack.one("7S"))])
    seven = pack.one("7S")
    assert [(s.seat, s.message) for s in played.after_deal()[1:]] == [
        (1, pick_up(5)),
        (1, pick_up_result(pack.one("9C"), pack("9S 9H 9D 9C"))),
        (0, hand_update(0, 1, seven, 0, pack("7S 2C 5D"))),
        (1, hand_update(0, 1, seven, 0, pack("9S 9H 9D 9C"))),
        (0, go_fish([0, 0, 0, 0])),
        (0, go_fish_result(pack.one("KS"), pack("7S 2C 5D KS"))),
        (1, pick_up(3)),
        (1, pick_up_result(pack.one("KH"), pack("KH"))),
        (1, pick_up(2)),
        (1, pick_up_result(pack.one("QS"), pack("KH QS"))),
        (1, pick_up(1)),
        (1, pick_up_result(pack.one("QH"), pack("KH QS QH"))),
        (1, ask_message(pack("KH QS QH"), [4, None], [])),
    ]
    assert played.match.table.books == [0, 1]


def test_a_refill_stops_when_the_pond_runs_short(pack: Pack) -> None:
    deck = pack.deck(["7S 2C 5D", "7H 7D 3C"], "KS")
    played = run(setup(deck, rules(3, 3)), asks=[ask(1, pack.one("7S"))])
    seven = pack.one("7S")
    assert [(s.seat, s.message) for s in played.after_deal()[1:]] == [
        (1, pick_up(1)),
        (1, pick_up_result(pack.one("KS"), pack("3C KS"))),
        (0, hand_update(0, 1, seven, 2, pack("7S 2C 5D 7H 7D"))),
        (1, hand_update(0, 1, seven, 2, pack("3C KS"))),
        (0, ask_message(pack("7S 2C 5D 7H 7D"), [None, 2], [])),
    ]


def test_a_miss_on_an_empty_pond_sends_no_go_fish_and_the_turn_passes(pack: Pack) -> None:
    deck = pack.deck(["7S 2C", "9H 3C"])
    played = run(setup(deck, rules(2, 1)), asks=[ask(1, pack.one("7S"))])
    assert played.types(4) == [(0, "ask"), (0, "hand-update"), (1, "hand-update"), (1, "ask")]


@pytest.mark.parametrize(
    ("seats", "asked", "next_player", "expected"),
    [
        (3, 1, NextPlayer.ASKED, 1),
        (3, 1, NextPlayer.CLOCKWISE, 2),  # the seat after the one asked, not after the asker
        (3, 2, NextPlayer.CLOCKWISE, 0),
        (2, 1, NextPlayer.ASKED, 1),
        (2, 1, NextPlayer.CLOCKWISE, 0),  # two seats: Clockwise gives the turn back to the asker
        (3, 1, NextPlayer.AFTER_ASKER, 1),  # the seat after the asker, whoever was asked
        (3, 2, NextPlayer.AFTER_ASKER, 1),
        (2, 1, NextPlayer.AFTER_ASKER, 1),
    ],
)
def test_after_a_miss_the_turn_passes_per_next_player(
    pack: Pack, seats: int, asked: int, next_player: NextPlayer, expected: int
) -> None:
    hands = ["7S 2C", "9H 3C", "4D 5D"][:seats]
    deck = pack.deck(hands, "KS KH")
    played = run(
        setup(deck, rules(2, next_player=next_player), seats=seats),
        asks=[ask(asked, pack.one("7S"))],
    )
    after = played.types(2 * seats)
    assert after[-3:] == [(0, "go-fish"), (0, "go-fish-result"), (expected, "ask")]


def test_an_invalid_ask_passes_the_turn_clockwise_from_the_asker_whatever_next_player(
    pack: Pack,
) -> None:
    deck = pack.deck(["7S 2C", "9H 3C", "4D 5D"], "KS")
    for next_player in NextPlayer:
        played = run(setup(deck, rules(2, next_player=next_player), seats=3), asks=[ask(0, 7)])
        assert played.types(6) == [(0, "ask"), (1, "ask")]


def test_a_seat_with_no_cards_is_skipped_and_asking_it_is_a_valid_miss(pack: Pack) -> None:
    deck = pack.deck(["7S 7H", "7D 7C", "2S 3H"])
    played = run(
        setup(deck, rules(2, 0), seats=3),
        asks=[ask(1, pack.one("7S")), ask(0, pack.one("2S"))],
    )
    two = pack.one("2S")
    assert [(s.seat, s.message) for s in played.after_deal()[1:]] == [
        (0, hand_update(0, 1, pack.one("7S"), 2, [])),
        (1, hand_update(0, 1, pack.one("7S"), 2, [])),
        (2, hand_update(0, 1, pack.one("7S"), 2, pack("2S 3H"))),
        # Seat 0 would ask again but holds nothing; seat 1 neither: seat 2 asks.
        (2, ask_message(pack("2S 3H"), [0, 0, None], [])),
        (0, hand_update(2, 0, two, 0, [])),
        (1, hand_update(2, 0, two, 0, [])),
        (2, hand_update(2, 0, two, 0, pack("2S 3H"))),
        # The turn passes to the asked seat 0, which is skipped, then seat 1, skipped too.
        (2, ask_message(pack("2S 3H"), [0, 0, None], [])),
    ]


# --- §3 books ------------------------------------------------------------------------------


def test_a_book_check_goes_on_with_the_next_rank_and_sweeps_again_after_a_book(pack: Pack) -> None:
    # Laying the 5s draws 3C and 9C. The sweep goes on upward and lays the 9s first (the refill
    # after it still shows the four 3s in hand), then a second sweep lays the 3s.
    deck = pack.deck(
        ["5S 5H 5D 5C 3S 3H 3D 9S 9H 9D", "AS AH 2S 2H 4S 4H 6S 6H 8S 8H"],
        "3C 9C KS KH KD QS QH QD JS JH",
    )
    played = run(setup(deck, rules(10, 8)))
    results = [s.message["hand"] for s in played.of_type("pick-up-result")]
    assert results == [
        pack("3S 3H 3D 9S 9H 9D 3C"),
        pack("3S 3H 3D 9S 9H 9D 3C 9C"),
        pack("3S 3H 3D 3C KS"),
        pack("3S 3H 3D 3C KS KH"),
        pack("3S 3H 3D 3C KS KH KD"),
        pack("3S 3H 3D 3C KS KH KD QS"),
        pack("KS KH KD QS QH"),
        pack("KS KH KD QS QH QD"),
        pack("KS KH KD QS QH QD JS"),
        pack("KS KH KD QS QH QD JS JH"),
    ]
    assert [e["rank"] for e in events_of(played.match) if e["event"] == "book-laid"] == [4, 8, 2]
    assert played.match.table.books == [3, 0]


def test_a_book_takes_the_first_card_of_each_suit_in_hand_order_the_rest_keep_order() -> None:
    pack = Pack(decks=2)
    deck = pack.deck(["7S 7S@1 7H 7D@1 7D 7C", "2S 2H 2D 3S 3H 3D"])
    played = run(setup(deck, rules(6, 0, decks=2)))
    assert played.last.message == ask_message(pack("7S@1 7D"), [None, 6], [])
    laid = [e for e in events_of(played.match) if e["event"] == "book-laid"]
    assert [e["cardIds"] for e in laid] == [pack.ids("7S 7H 7D@1 7C")]


def test_a_book_is_four_suits_of_one_rank_from_any_decks() -> None:
    pack = Pack(decks=3)
    deck = pack.deck(["7S@1 2C 7H 7D@2 7C@1", "9S 9H@2 9D 3C 4C"])
    played = run(setup(deck, rules(5, 0, decks=3)))
    assert played.match.table.books == [1, 0]
    assert played.last.message["hand"] == pack("2C")


@pytest.mark.parametrize("decks", [2, 3])
def test_a_rank_is_booked_once_per_deck_when_one_hand_holds_them_all(decks: int) -> None:
    # Every seven of every deck in one hand: the sweep lays one book of 7s and goes on with
    # the next rank; each further sweep lays one more, so the rank is booked `decks` times.
    pack = Pack(decks=decks)
    sevens = " ".join(f"7{s}@{d}" for d in range(decks) for s in "SHDC")
    others = " ".join(
        ["AS", "AH", "AD", "2S", "2H", "2D", "3S", "3H", "3D", "4S", "4H", "4D"][: 4 * decks]
    )
    played = run(setup(pack.deck([sevens, others]), rules(4 * decks, 0, decks=decks)))
    assert played.match.table.books == [decks, 0]
    assert [e["rank"] for e in events_of(played.match) if e["event"] == "book-laid"] == [6] * decks


def test_a_second_book_of_the_same_rank_waits_for_the_next_sweep() -> None:
    # All eight 7s and four 9s: the first sweep lays the 7s and goes on to the 9s; the second
    # sweep lays the other 7s.
    pack = Pack(decks=2)
    deck = pack.deck(
        ["7S 7H 7D 7C 9S 9H 9D 9C 7S@1 7H@1 7D@1 7C@1", "AS AH AD 2S 2H 2D 3S 3H 3D 4S 4H 4D"]
    )
    played = run(setup(deck, rules(12, 0, decks=2)))
    laid = [e["rank"] for e in events_of(played.match) if e["event"] == "book-laid"]
    assert laid == [6, 8, 6]


def test_with_knights_four_knights_are_a_book_and_are_checked_between_jack_and_queen() -> None:
    pack = Pack(knights=True)
    deck = pack.deck(
        ["CS QS CH QH CD QD CC QC JS JH JD JC", "AS 2S 3S 4S 5S 6S 7S 8S 9S 10S KS AH"]
    )
    played = run(setup(deck, rules(12, 0, knights=True)))
    laid = [e["rank"] for e in events_of(played.match) if e["event"] == "book-laid"]
    assert laid == [10, 11, 12]
    assert played.match.table.books == [3, 0]


# --- §2.5 the empty table ------------------------------------------------------------------


@pytest.mark.parametrize(("minimum", "drawn"), [(0, "7S"), (1, "7S"), (3, "7S 7H 2C")])
def test_with_no_card_in_any_hand_the_seat_to_move_picks_up_max_of_min_hand_size_and_1(
    pack: Pack, minimum: int, drawn: str
) -> None:
    deck = pack.deck(["", ""], "7S 7H 2C 5D")
    played = run(setup(deck, rules(0, minimum), starting=1))
    assert [s.message["hand"] for s in played.of_type("starting-hand")] == [[], []]
    draws = len(drawn.split())
    after = played.after_deal()
    assert [(s.seat, s.type) for s in after] == [(1, "pick-up"), (1, "pick-up-result")] * draws + [
        (1, "ask")
    ]
    assert played.last.message == ask_message(pack(drawn), [0, None], [0] * (4 - draws))


def test_the_empty_table_rule_applies_mid_match_and_runs_the_book_check(pack: Pack) -> None:
    # minHandSize 0: after the hit nobody holds a card; seat 0, to move again, picks up one.
    deck = pack.deck(["7S 7H", "7D 7C"], "9S 9H")
    played = run(setup(deck, rules(2, 0)), asks=[ask(1, pack.one("7S"))])
    assert played.types(5) == [
        (0, "hand-update"), (1, "hand-update"), (0, "pick-up"), (0, "pick-up-result"), (0, "ask"),
    ]  # fmt: skip
    assert played.last.message == ask_message(pack("9S"), [None, 0], [0])


def test_the_empty_table_pick_up_lays_a_book_it_completes(pack: Pack) -> None:
    deck = pack.deck(["", ""], "7S 7H 7D 7C KS")
    played = run(setup(deck, rules(0, 4)))
    assert played.match.table.books == [1, 0]
    assert played.last.message == ask_message(pack("KS"), [None, 0], [])


# --- §2.1 did not start, §2.8 the end ------------------------------------------------------


def test_a_pack_too_small_for_the_deal_does_not_start_and_sends_nothing() -> None:
    played = run(setup(new_pack(1, False), rules(18), seats=3))
    assert played.transcript == []
    assert played.result is not None
    assert played.result.outcome is Outcome.DID_NOT_START
    assert (played.result.scores, played.result.places) == ((0, 0, 0), (1, 1, 1))


def test_a_pack_exactly_as_big_as_the_deal_starts() -> None:
    pack = Pack()
    played = run(setup(tuple(reversed(pack.cards)), rules(13), seats=4))
    assert played.types()[:4] == [(0, "init"), (1, "init"), (2, "init"), (3, "init")]
    assert played.last.message["pond"] == []


def test_the_last_book_ends_the_match_and_every_seat_gets_match_end(pack: Pack) -> None:
    deck = pack.deck(["7S 7H 2S 2H", "7D 7C 2D 2C"])
    played = run(setup(deck, rules(4, 0)), asks=[ask(1, pack.one("7S")), ask(1, pack.one("2S"))])
    assert played.types()[-2:] == [(0, "match-end"), (1, "match-end")]
    assert played.transcript[-1].message == {"type": "match-end", "scores": [2, 0], "ranks": [1, 2]}
    assert played.result is not None
    assert played.result.outcome is Outcome.COMPLETED
    assert (played.result.scores, played.result.places) == ((2, 0), (1, 2))


def test_seats_with_equal_books_share_a_place(pack: Pack) -> None:
    # Seat 0 books the 7s from seat 2, seat 1 fishes both missing 2s; seat 2 lays nothing.
    deck = pack.deck(["7S 7H", "2S 2H", "7D 7C"], "2D 2C")
    played = run(
        setup(deck, rules(2, 0), seats=3),
        asks=[ask(2, pack.one("7S")), ask(0, pack.one("2S")), ask(2, pack.one("2S"))],
    )
    assert played.result is not None
    assert played.result.outcome is Outcome.COMPLETED
    assert (played.result.scores, played.result.places) == ((1, 1, 0), (1, 1, 3))
    end = {"type": "match-end", "scores": [1, 1, 0], "ranks": [1, 1, 3]}
    assert [(s.seat, s.message) for s in played.transcript[-3:]] == [(0, end), (1, end), (2, end)]
    assert played.types()[-5:-3] == [(1, "go-fish"), (1, "go-fish-result")]


# --- §2.9: where the limits end a match, and what they count -----------------------------------


def _ends(played: Played) -> list[str]:
    """The message types from the last ask on."""
    kinds = [sent.type for sent in played.transcript]
    last_ask = len(kinds) - 1 - kinds[::-1].index("ask")
    return kinds[last_ask:]


def test_the_turn_limit_ends_the_match_just_before_the_next_ask_after_a_miss(pack: Pack) -> None:
    # Everything the last ask caused is played out (hand-update, go-fish, the book check); the
    # match ends where the next seat would be sent `ask`.
    deck = pack.deck(["7S 2C", "9S 9H"], "KS KH QS")
    played = run(setup(deck, rules(2), max_turns=1), asks=[ask(1, pack.one("7S"))], draws=[0])
    assert played.result is not None and played.result.outcome is Outcome.TURN_LIMIT
    assert _ends(played) == [
        "ask",
        "hand-update",
        "hand-update",
        "go-fish",
        "go-fish-result",
        "match-end",
        "match-end",
    ]


def test_the_turn_limit_ends_the_match_before_a_hit_asks_again(pack: Pack) -> None:
    deck = pack.deck(["7S 2C", "7H 9H"], "KS KH QS")
    played = run(setup(deck, rules(2), max_turns=1), asks=[ask(1, pack.one("7S"))])
    assert played.result is not None and played.result.outcome is Outcome.TURN_LIMIT
    assert _ends(played) == ["ask", "hand-update", "hand-update", "match-end", "match-end"]


def test_a_draw_with_no_one_to_ask_counts_toward_max_turns(pack: Pack) -> None:
    deck = pack.deck(["7S 2C", "7H 7D"], "KS KH QS QH")
    settings = rules(2, 0, draw_when_no_one_to_ask=True)
    played = run(setup(deck, settings, max_turns=2), asks=[ask(1, pack.one("7S"))], draws=[0])
    assert played.result is not None and played.result.outcome is Outcome.TURN_LIMIT
    kinds = [sent.type for sent in played.after_deal()]
    assert kinds.count("ask") == 1 and kinds.count("go-fish") == 1  # the ask, then one draw


@pytest.mark.parametrize("reply", [ask(0, 999), NO_REPLY], ids=["invalid", "undelivered"])
def test_invalid_and_undelivered_asks_count_toward_both_limits(pack: Pack, reply: Any) -> None:
    deck = pack.deck(["7S 2C", "9S 9H"], "KS KH QS")
    played = run(setup(deck, rules(2), max_turns=3), asks=[reply] * 3)
    assert played.result is not None and played.result.outcome is Outcome.TURN_LIMIT
    assert len(played.of_type("ask")) == 3
    stalled = run(setup(deck, rules(2), max_idle_turns=3), asks=[reply] * 3)
    assert stalled.result is not None and stalled.result.outcome is Outcome.STALLED


def test_a_turn_start_refill_does_not_restart_the_idle_count(pack: Pack) -> None:
    # An empty deal: seat 0 refills and asks seat 1 for a card it does not hold (idle 1); seat
    # 1 refills at its turn — not an ask, so the count goes on — and asks badly too (idle 2).
    deck = pack.deck(["", ""], "KS KH QS QH 3D 4D")
    settings = rules(0, 0, refill_empty_hand=1)
    played = run(setup(deck, settings, max_idle_turns=2), asks=[ask(1, 999), ask(0, 999)])
    assert played.result is not None and played.result.outcome is Outcome.STALLED
    assert len(played.of_type("pick-up")) == 2


def test_a_miss_with_an_empty_pond_is_idle_and_a_miss_that_fishes_is_not(pack: Pack) -> None:
    deck = pack.deck(["7S 2C", "9S 9H"])
    played = run(
        setup(deck, rules(2, 0), max_idle_turns=2),
        asks=[ask(1, pack.one("7S")), ask(0, pack.one("9S"))],
    )
    assert played.result is not None and played.result.outcome is Outcome.STALLED
    fishing = pack.deck(["7S 2C", "9S 9H"], "KS KH QS QH")
    played = run(
        setup(fishing, rules(2, 0), max_idle_turns=2),
        asks=[ask(1, pack.one("7S")), ask(0, pack.one("9S"))],
        draws=[0, 0],
    )
    assert played.result is None  # still playing: each miss drew a card, so neither was idle


def test_a_match_that_completes_as_the_turn_limit_is_reached_is_completed(pack: Pack) -> None:
    deck = pack.deck(["7S 7H", "7D 7C"])
    played = run(setup(deck, rules(2, 0), max_turns=1), asks=[ask(1, pack.one("7S"))])
    assert played.result is not None and played.result.outcome is Outcome.COMPLETED


def test_reaching_both_limits_at_once_is_a_turn_limit(pack: Pack) -> None:
    deck = pack.deck(["7S 2C", "9S 9H"], "KS KH QS")
    played = run(setup(deck, rules(2), max_turns=1, max_idle_turns=1), asks=[ask(0, 999)])
    assert played.result is not None and played.result.outcome is Outcome.TURN_LIMIT


def test_the_max_turns_recorded_and_told_is_the_limit_used(tmp_path: Path) -> None:
    from arena.base import config

    path = tmp_path / "config.toml"
    path.write_text(
        '[deck]\nnumberOfDecks = 30\n[[participants]]\nname = "a"\nbot = "random"\n'
        '[[participants]]\nname = "b"\nbot = "random"\n'
    )
    settings, _ = config.load(path)
    pack_size = 30 * 52
    assert settings.limits.max_turns == 4 * pack_size  # more than the 5,000 floor
    assert settings.limits.told_to_seats()["maxTurns"] == 4 * pack_size
