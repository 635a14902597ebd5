"""The family rules, one rule per test on a rigged deck with scripted replies:
lucky draw, refill when empty (at once, on its turn, and again after a book), dead hands,
a draw when no one can be asked, the deal by table size, and the turn after a miss; and the
corners a second implementer had to guess at (issue 31): the refill against `minHandSize` (§2.7.3,
§2.5.2), a lucky draw's card, a stopped participant's hand, `refillWhen` alone.

Each test also says that with the rule off, the match plays as the reference arena's rules do, or
names the ruling it holds: docs/contract.md (§ numbers) or docs/rulings.md.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from rigging import Pack, Played, ask, rules, run, setup

from arena.engine.events import as_json
from arena.engine.match import NO_REPLY
from arena.engine.rules import NextPlayer, RefillWhen, Rules, deal_for

AT_ONCE, ON_ITS_TURN = RefillWhen.AT_ONCE, RefillWhen.ON_ITS_TURN


def events(played: Any) -> list[dict[str, Any]]:
    """The match's events as the replay writes them."""
    return [as_json(event) for event in played.match.events]


def after_init(played: Played) -> list[tuple[int, dict[str, Any], Any]]:
    """Every delivery after the `init` messages (which tell the settings, so differ by rule set)."""
    return [(s.seat, s.message, s.reply) for s in played.transcript if s.type != "init"]


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


# --- §2.7.3: a hand that kept cards only tops up to minHandSize --------------------------------

# Seat 0 asks seat 1 for Eights: seat 1 keeps three cards, tops up to minHandSize (4) with the
# fourth Nine and so holds a book. Seat 0 asks again (a hit), then misses on Twos and fishes; the
# book check after the draw lays seat 1's Nines, and seat 1 tops up again.
HIT_LEAVES_A_BOOK = (["8S 2C 3C 4C", "8H 9S 9H 9D"], "9C KS KH QS QH JS JH 5D 5H")


def _kept_cards_case(pack: Pack, settings: Rules) -> Played:
    hands, pond = HIT_LEAVES_A_BOOK
    deck = pack.deck(hands, pond)
    return run(
        setup(deck, settings), asks=[ask(1, pack.one("8S")), ask(1, pack.one("2C"))], draws=[0]
    )


@pytest.mark.parametrize(
    "settings",
    [
        rules(4, 4, refill_empty_hand=1),  # the case of issue 31 ("At once", the default)
        rules(4, 4, refill_empty_hand=6),
        # "On its turn" needs minHandSize = 0 in a config; the engine plays it anyway, and a
        # setting about emptied hands must not change when this hand's book is laid.
        rules(4, 4, refill_empty_hand=6, refill_when=ON_ITS_TURN),
    ],
    ids=["at-once-1", "at-once-6", "on-its-turn"],
)
def test_a_hand_that_kept_cards_lays_its_book_at_the_next_check_under_every_rule_set(
    pack: Pack, settings: Rules
) -> None:
    played = _kept_cards_case(pack, settings)
    reference = _kept_cards_case(pack, rules(4, 4))
    # The same match as without the family rules up to the book: after it, an emptied hand
    # draws `max(minHandSize, refillEmptyHand)` under "At once".
    book = next(i for i, e in enumerate(events(reference)) if e["event"] == "book-laid")
    assert events(played)[: book + 1] == events(reference)[: book + 1]
    at = events(reference)[book]["at"]
    assert after_init(played)[: at - 1] == after_init(reference)[: at - 1]
    # Seat 1 is told of the ask while it still holds the four Nines ...
    assert played.of_type("hand-update")[1].message["hand"] == pack("9S 9H 9D 9C")
    # ... and lays them after seat 0's go-fish draw, which empties its hand: it draws again.
    kinds = [e["event"] for e in events(played)]
    assert kinds[kinds.index("asked", 1) + 1 :][:2] == ["drew", "book-laid"]
    laid = [e for e in events(played) if e["event"] == "book-laid"]
    assert [(e["seat"], e["rank"]) for e in laid] == [(1, 8)]
    assert len(played.match.table.hands[1]) == settings.refill_target(0)  # the book emptied it


def test_an_emptied_hand_under_at_once_is_book_checked_before_hand_update_step_by_step(
    pack: Pack,
) -> None:
    # Rulings, "The refill made only of books": seat 1 hands over its last cards, draws a fresh
    # hand of four (all Kings), lays them at once, is empty again and draws four more; only
    # then is anyone sent `hand-update`.
    deck = pack.deck(["9S 2C", "9H 9D"], "KS KH KD KC QS 5D 6D 7D 8H")
    played = run(setup(deck, rules(2, 1, refill_empty_hand=4)), asks=[ask(1, pack.one("9S"))])
    steps = [e["event"] if e["event"] != "drew" else f"drew:{e['seat']}" for e in events(played)]
    assert steps[:10] == ["asked", *["drew:1"] * 4, "book-laid", *["drew:1"] * 4]
    types = played.types(4)
    first_update = types.index((0, "hand-update"))
    assert types[1:first_update] == [(1, "pick-up"), (1, "pick-up-result")] * 8
    assert played.of_type("hand-update")[1].message["hand"] == pack("QS 5D 6D 7D")


# --- §2.5.2 and "a q left empty" ---------------------------------------------------------------


def test_the_turn_start_refill_applies_under_at_once_too_with_an_empty_deal(pack: Pack) -> None:
    # startingHandSize 0: nobody holds a card. §2.5.2 comes before §2.5.3, so seat 0 draws the
    # refill's three cards (not §2.5.3's one) before it is asked.
    deck = pack.deck(["", ""], "KS KH QS QH 3D 4D")
    played = run(setup(deck, rules(0, 0, refill_empty_hand=3)), asks=[])
    assert played.types(4) == [(0, "pick-up"), (0, "pick-up-result")] * 3 + [(0, "ask")]


def test_a_seat_already_empty_when_asked_refills_too(pack: Pack) -> None:
    # An empty deal at three seats: seat 0 refills at its turn and asks seat 1, which has had no
    # turn yet and holds nothing. Seat 1 is "left empty" by the ask, so it draws a fresh hand
    # before anyone is told, as a hand emptied by the ask would.
    deck = pack.deck(["", "", ""], "KS KH QS QH 3D 4D 5D 6D")
    played = run(
        setup(deck, rules(0, 0, refill_empty_hand=2), seats=3),
        asks=[ask(1, pack.one("KS"))],
        draws=[0, 0, 0, 0],
    )
    after_ask = played.types(played.types().index((0, "ask")) + 1)
    assert after_ask[:5] == [
        (1, "pick-up"),
        (1, "pick-up-result"),
        (1, "pick-up"),
        (1, "pick-up-result"),
        (0, "hand-update"),
    ]
    assert played.of_type("hand-update")[1].message["hand"] == pack("QS QH")


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


# --- the family rules' corners ------------------------------------------------------------------


def test_lucky_draw_card_is_a_card_where_go_fish_result_card_is_a_one_card_list(
    pack: Pack,
) -> None:
    deck = pack.deck(["7S 2C", "9S 9H"], "7H KS KH")
    played = run(setup(deck, rules(2, lucky_draw=True)), asks=[ask(1, pack.one("7S"))])
    drawn = played.of_type("go-fish-result")[0].message["card"]
    shown = played.of_type("lucky-draw")[0].message["card"]
    assert drawn == [pack.one("7H")] and shown == pack.one("7H")


def test_a_miss_with_an_empty_pond_draws_nothing_and_is_not_lucky(pack: Pack) -> None:
    deck = pack.deck(["7S 2C", "9S 9H"])
    played = run(setup(deck, rules(2, 0, lucky_draw=True)), asks=[ask(1, pack.one("7S"))])
    assert not played.of_type("go-fish") and not played.of_type("lucky-draw")
    assert played.last.seat == 1 and played.last.type == "ask"  # the turn passed ("Asked")


def test_a_seat_whose_participant_stopped_still_counts_as_holding_cards(pack: Pack) -> None:
    # Seat 1 gives no reply any more (a stopped participant): its cards are still in its hand,
    # so seat 0 has someone to ask and is sent `ask`, not a draw.
    deck = pack.deck(["7S 2C", "9S 9H"], "KS KH QS")
    settings = rules(2, 0, draw_when_no_one_to_ask=True)
    played = run(setup(deck, settings), asks=[ask(1, pack.one("7S")), NO_REPLY])
    # Seat 0 goes fishing (seat 1 has no 7), seat 1 says nothing, and seat 0 is asked again.
    assert [(sent.seat, sent.type) for sent in played.after_deal()] == [
        (0, "ask"),
        (0, "hand-update"),
        (1, "hand-update"),
        (0, "go-fish"),
        (0, "go-fish-result"),
        (1, "ask"),
        (0, "ask"),
    ]
    assert not [e for e in events(played) if e["event"] == "no-one-to-ask"]


def test_refill_when_without_refill_empty_hand_changes_nothing_and_is_warned(
    tmp_path: Path, pack: Pack
) -> None:
    from arena.base import config

    deck = pack.deck(["7S 2C", "7H 7D"], "KS KH QS QH 3D")
    plain = run(setup(deck, rules(2, 0)), asks=[ask(1, pack.one("7S"))])
    waiting = run(setup(deck, rules(2, 0, refill_when=ON_ITS_TURN)), asks=[ask(1, pack.one("7S"))])
    assert after_init(plain) == after_init(waiting)
    assert Rules(refill_when=ON_ITS_TURN).as_seed_names() == Rules().as_seed_names()

    path = tmp_path / "config.toml"
    path.write_text(
        '[rules]\nrefillWhen = "On its turn"\n[[participants]]\nname = "a"\nbot = "random"\n'
        '[[participants]]\nname = "b"\nbot = "random"\n'
    )
    settings, _ = config.load(path)
    assert [w for w in config.rule_warnings(settings) if w.startswith("rules.refillWhen")]


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
