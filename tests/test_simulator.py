"""The rollout simulator (arena/bots/simulator.py) against the engine: they must not drift.

Both play the same deck with the same asks, every pond reply `-1` (the last card, which is the
card the simulator draws). Before every ask the engine makes, the simulator must agree on whose
turn it is, on every hand (as cards of a rank and suit) and on every seat's books; and at the end.
"""

from __future__ import annotations

import random
from collections import Counter

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from arena.bots.simulator import NEXT_PLAYERS, Sim, code
from arena.engine.match import Match, MatchSetup, Outcome
from arena.engine.rules import NextPlayer, Rules


def hands_of(match: Match) -> list[Counter[int]]:
    return [Counter(code(c["rank"], c["suit"]) for c in hand) for hand in match.table.hands]


def hands_in(sim: Sim) -> list[Counter[int]]:
    return [Counter({c: n for c, n in enumerate(cards) if n}) for cards in sim.cards]


def play_both(seed: int, seats: int, rules: Rules) -> tuple[int, Outcome]:
    """Play one match on both; return how many asks were compared, and the engine's outcome."""
    rng = random.Random(seed)
    match = Match(MatchSetup.from_seed(seed, [f"s{i}" for i in range(seats)], rules))
    game = match.play()
    sim: Sim | None = None
    turn = match.setup.starting_player
    asks = 0
    delivery = next(game)
    try:
        while True:
            kind, seat = delivery.message["type"], delivery.seat
            reply: object = None
            if kind in ("go-fish", "pick-up"):
                reply = -1
            elif kind == "ask":
                if sim is None:
                    # The first ask: the deal and the first book checks are behind us, and the
                    # simulator starts from the engine's table as the deal left it.
                    sim = start_of(match.setup, rules)
                mover = sim.to_move(turn)
                assert mover == seat
                assert hands_in(sim) == hands_of(match)
                assert sim.books == match.table.books
                assert [code(c["rank"], c["suit"]) for c in match.table.pond] == sim.pond
                card = rng.choice(delivery.message["hand"])
                asked = rng.choice([s for s in range(seats) if s != seat])
                reply = {"player": asked, "cardId": card["id"]}
                _, turn = sim.ask(seat, asked, card["rank"])
                asks += 1
            delivery = game.send(reply)
    except StopIteration as stop:
        outcome = stop.value.outcome
    if sim is not None and outcome is Outcome.COMPLETED:
        assert sim.to_move(turn) is None
        assert hands_in(sim) == hands_of(match)
        assert sim.books == match.table.books
    return asks, outcome


def start_of(setup: MatchSetup, rules: Rules) -> Sim:
    """The simulator's table after the deal and the first book check, as the contract orders them."""
    seats, size = len(setup.names), rules.starting_hand_size
    deck = [code(c["rank"], c["suit"]) for c in setup.deck]
    hands = [deck[s * size : (s + 1) * size] for s in range(seats)]
    pond = deck[seats * size :]  # the engine draws its last card on a reply of -1, as does Sim
    sim = Sim(hands, pond, [0] * seats, rules.min_hand_size, str(rules.next_player))
    sim.check_books_all()
    return sim


@pytest.mark.parametrize("next_player", list(NextPlayer))
def test_the_classic_game_plays_the_same_on_both(next_player: NextPlayer) -> None:
    compared = 0
    for seed in range(40):
        asks, outcome = play_both(seed, 2 + seed % 4, Rules(next_player=next_player))
        assert outcome is Outcome.COMPLETED
        compared += asks
    assert compared > 1000


@settings(max_examples=150, deadline=None)
@given(
    seed=st.integers(0, 2**32 - 1),
    seats=st.integers(2, 5),
    decks=st.integers(1, 3),
    knights=st.booleans(),
    hand=st.integers(0, 10),
    min_hand=st.integers(0, 6),
    next_player=st.sampled_from(list(NextPlayer)),
)
def test_any_rules_play_the_same_on_both(
    seed: int,
    seats: int,
    decks: int,
    knights: bool,
    hand: int,
    min_hand: int,
    next_player: NextPlayer,
) -> None:
    pack = decks * 4 * (14 if knights else 13)
    rules = Rules(
        starting_hand_size=min(hand, pack // seats),
        min_hand_size=min_hand,
        next_player=next_player,
        number_of_decks=decks,
        knights=knights,
    )
    play_both(seed, seats, rules)


def test_every_turn_order_the_engine_knows_is_simulated() -> None:
    assert {str(value) for value in NextPlayer} <= set(NEXT_PLAYERS)


def test_the_check_sees_a_simulator_that_drifts() -> None:
    # A simulator that skipped the asked seat's pick-up must be caught.
    original = Sim.pick_up

    def lazy(self: Sim, seat: int, target: int) -> None:
        if target == 1 and any(self.sizes) and self.sizes[seat] == 0 and len(self.pond) % 2:
            return
        original(self, seat, target)

    Sim.pick_up = lazy  # type: ignore[method-assign]
    try:
        with pytest.raises(AssertionError):
            for seed in range(40):
                play_both(seed, 3, Rules())
    finally:
        Sim.pick_up = original  # type: ignore[method-assign]
