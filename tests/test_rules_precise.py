"""The contract's sentences a second implementer had to guess at (issue 31), each on a rigged deck
where the behaviour can be seen: §2.7.3's refill against `minHandSize`, where the limits of §2.9
end a match and what they count, and the corners of the family rules (§2.10).

Each test names the ruling it holds: docs/contract.md (§ numbers) or docs/rulings.md.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from rigging import Pack, Played, ask, rules, run, setup

from arena.engine.events import as_json
from arena.engine.match import NO_REPLY, Outcome
from arena.engine.rules import RefillWhen, Rules

AT_ONCE, ON_ITS_TURN = RefillWhen.AT_ONCE, RefillWhen.ON_ITS_TURN


def events(played: Played) -> list[dict[str, Any]]:
    return [as_json(event) for event in played.match.events]


def after_init(played: Played) -> list[tuple[int, dict[str, Any], Any]]:
    """Every delivery after the `init` messages (which tell the settings, so differ by rule set)."""
    return [(s.seat, s.message, s.reply) for s in played.transcript if s.type != "init"]


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
