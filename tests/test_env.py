"""The PettingZoo environment (arena/env): PettingZoo's own API and seed tests, the arena's
deal for a seed, and the engine as the only judge of an action."""

from __future__ import annotations

import random
import warnings
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("pettingzoo", reason="the [rl] extra (pettingzoo, gymnasium) is not installed")

from pettingzoo.test import api_test, seed_test

from arena.engine.events import AskRefused
from arena.engine.match import Match, MatchSetup, Outcome, Result
from arena.engine.rules import Rules, StartingPlayer
from arena.env import env, raw_env
from arena.env.encoding import RANKS, vector_length

ROOT = Path(__file__).resolve().parents[1]

# api_test's advice for environments it does not know by name: PettingZoo's own classic games
# (a dict observation with an action mask, like this one) are on its list and skip it.
ADVICE = (
    "Observation is not a NumPy array",
    "Observation space for each agent probably should be",
)


def _api_test(game: Any, cycles: int = 200) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        for advice in ADVICE:
            warnings.filterwarnings("ignore", advice)
        api_test(game, num_cycles=cycles)


@pytest.mark.parametrize(
    "options",
    [
        {"seats": 2},
        {"seats": 4, "draws": "choose", "reward": "books", "lucky_draw": True},
        {"seats": 3, "rules": ROOT / "configs" / "family-table.toml"},
        {"seats": 2, "rules": "family-two", "number_of_decks": 2, "knights": True},
    ],
)
def test_pettingzoo_api_test(options: dict[str, Any]) -> None:
    _api_test(env(**options))


def test_pettingzoo_seed_test() -> None:
    seed_test(lambda: env(seats=3, draws="choose"), num_cycles=200)
    seed_test(lambda: env(seats=2), num_cycles=200)


def _random_game(game: raw_env, seed: int, *, to_the_end: bool = True) -> list[Any]:
    """Play random legal actions; the replies the environment sent the engine, in order.

    Without `to_the_end`, stops at the first terminated agent (the infos still there)."""
    rng = random.Random(seed)
    game.reset(seed=seed)
    sent: list[Any] = []
    reply_for = game._reply

    def recorded(seat: int, action: int | None) -> Any:
        sent.append(reply_for(seat, action))
        return sent[-1]

    game._reply = recorded  # type: ignore[method-assign]
    for agent in game.agent_iter():
        observation, _, termination, truncation, _ = game.last()
        action = None
        if termination or truncation:
            if not to_the_end:
                break
        else:
            legal = observation["action_mask"].nonzero()[0]
            action = int(legal[rng.randrange(len(legal))])
        game.step(action)
    return sent


def test_reset_deals_the_arena_deal_for_the_seed() -> None:
    game = raw_env(seats=3)
    for seed in (1, 2, 99):
        game.reset(seed=seed)
        setup = MatchSetup.from_seed(seed, game.names, Rules())
        assert game.setup is not None
        assert game.setup.deck == setup.deck
        assert game.setup.starting_player == setup.starting_player
        assert game.agent_selection == f"seat_{setup.starting_player}"
        for seat in range(3):
            told = [m for m in game.inbox[seat] if m["type"] == "starting-hand"]
            assert told and told[0]["hand"] == list(setup.deck[seat * 7 : seat * 7 + 7])
    game.reset(seed=5)
    first = game.observe(game.agent_selection)
    game.reset(seed=6)
    other = game.observe(game.agent_selection)
    game.reset(seed=5)
    again = game.observe(game.agent_selection)
    assert first["message"] == again["message"] != other["message"]
    assert (first["observation"] == again["observation"]).all()


def test_messages_are_the_engines_for_the_same_replies() -> None:
    # Played through the environment, then the same replies sent straight to the engine:
    # every seat was told exactly what the engine tells it.
    game = raw_env(seats=3, draws="choose", lucky_draw=True)
    replies = iter(_random_game(game, 11, to_the_end=False))
    assert game.setup is not None and game.result is not None
    assert sum(game.result.scores) * 4 == game.rules.pack_size
    told: list[list[dict[str, Any]]] = [[] for _ in range(3)]
    flow = Match(game.setup).play()
    delivery = next(flow)
    try:
        while True:
            seat, message = delivery
            told[seat].append(message)
            decision = message["type"] in ("ask", "go-fish", "pick-up")
            delivery = flow.send(next(replies) if decision else None)
    except StopIteration as stop:
        assert stop.value == game.result
    for seat, agent in enumerate(game.possible_agents):
        messages = game.infos[agent]["messages"]
        assert messages and messages == told[seat][-len(messages) :]
        assert messages[-1]["type"] == "match-end"
        assert game.infos[agent]["books"] == game.result.scores[seat]
        assert game.infos[agent]["place"] == game.result.places[seat]


def test_an_ask_outside_the_mask_is_the_contracts_invalid_ask() -> None:
    game = raw_env(seats=2, starting_player=StartingPlayer.FIRST_IN_LINE)
    game.reset(seed=3)
    observation = game.observe("seat_0")
    assert observation["message"]["type"] == "ask"
    held = {card["rank"] for card in observation["message"]["hand"]}
    missing = next(rank for rank in range(RANKS) if rank not in held and rank != 11)
    game.step(1 * RANKS + missing)  # ask seat 1 for a rank seat 0 does not hold
    refused = [event for event in game.match.events if isinstance(event, AskRefused)]
    assert [(e.seat, e.reason) for e in refused] == [(0, "ask-card-not-in-hand")]
    assert game.agent_selection == "seat_1"  # the turn passed (contract §2.6)
    game.step(1 * RANKS + 0)  # seat 1 asks itself: refused too, and the turn passes back
    refused = [event for event in game.match.events if isinstance(event, AskRefused)]
    assert [(e.seat, e.reason) for e in refused][1:] == [(1, "ask-itself")]
    assert game.agent_selection == "seat_0"


def test_mask_vector_and_rewards() -> None:
    game = raw_env(seats=2, reward="books")
    game.reset(seed=8)
    agent = game.agent_selection
    seat = int(agent[-1])
    observation = game.observe(agent)
    assert observation["observation"].shape == (vector_length(2),)
    hand = observation["message"]["hand"]
    counts = observation["observation"][:RANKS]
    for rank in range(RANKS):
        assert counts[rank] == sum(card["rank"] == rank for card in hand)
    legal = set(observation["action_mask"].nonzero()[0].tolist())
    other = 1 - seat
    assert legal == {other * RANKS + card["rank"] for card in hand}
    idle = game.observe(f"seat_{other}")
    assert not idle["action_mask"].any()
    books = raw_env(seats=2, reward="books")
    places = raw_env(seats=2, reward="places")
    totals: dict[str, list[float]] = {"books": [0.0, 0.0], "places": [0.0, 0.0]}
    for kind, table in (("books", books), ("places", places)):
        rng = random.Random(4)
        table.reset(seed=4)
        for agent in table.agent_iter():
            observation, reward, termination, truncation, _ = table.last()
            totals[kind][int(agent[-1])] += reward
            legal = observation["action_mask"].nonzero()[0]
            done = termination or truncation
            table.step(None if done else int(legal[rng.randrange(len(legal))]))
    assert books.result == places.result and books.result is not None
    assert totals["books"] == [float(b) for b in books.result.scores]
    assert totals["places"] == [1.0 if p == 1 else -1.0 for p in books.result.places]


def test_one_reward_from_a_place_for_every_interface() -> None:
    """`Result.reward` is the one place-to-reward: linear from 1 (first) to -1 (last), tied seats
    sharing a place; the AEC environment pays it at four seats (ties too)."""
    result = Result(Outcome.COMPLETED, (5, 3, 3, 2), (1, 2, 2, 4))
    assert [result.reward(s) for s in range(4)] == pytest.approx([1.0, 1 / 3, 1 / 3, -1.0])
    assert [result.reward(s, "books") for s in range(4)] == [5.0, 3.0, 3.0, 2.0]
    table = raw_env(seats=4)
    rng = random.Random(2)
    paid = [0.0] * 4
    table.reset(seed=2)
    for agent in table.agent_iter():
        observation, reward, termination, truncation, _ = table.last()
        paid[int(agent[-1])] += reward
        legal = observation["action_mask"].nonzero()[0]
        done = termination or truncation
        table.step(None if done else int(legal[rng.randrange(len(legal))]))
    assert table.result is not None
    places = table.result.places
    assert paid == [1.0 - 2.0 * (place - 1) / 3 for place in places]


def test_chosen_draw_takes_that_pond_card() -> None:
    game = raw_env(seats=2, draws="choose", min_hand_size=0)
    game.reset(seed=21)
    while game.last_message[int(game.agent_selection[-1])]["type"] != "go-fish":
        observation = game.observe(game.agent_selection)
        game.step(int(observation["action_mask"].nonzero()[0][-1]))
    seat = int(game.agent_selection[-1])
    pond = list(game.match.table.pond)
    game.step(game.asks + 2)
    assert game.match.table.hands[seat][-1] == pond[2] or any(
        pond[2] in hand for hand in game.match.table.hands
    )
    assert pond[2] not in game.match.table.pond


def test_bad_settings_are_refused() -> None:
    with pytest.raises(TypeError, match="unknown rule setting 'luck'"):
        raw_env(luck=True)
    with pytest.raises(ValueError, match="the deal needs 70 cards"):
        raw_env(seats=10)
    with pytest.raises(ValueError, match="refillWhen"):
        raw_env(refill_empty_hand=5, refill_when="On its turn")


def test_the_view_follows_what_the_seat_was_told() -> None:
    # Seat 0's SeatView, fed seat 0's messages of a real match: exact sizes and pond at every
    # ask, and after every hand-update what the table was told of the two seats and the rank.
    from arena.env.encoding import SeatView

    rng = random.Random(6)
    setup = MatchSetup.from_seed(6, ("a", "b", "c"), Rules())
    match = Match(setup)
    flow = match.play()
    view = SeatView(0, 3, 52)
    checked = 0
    delivery = next(flow)
    try:
        while True:
            seat, message = delivery
            kind = message["type"]
            if seat == 0:
                view.see(message)
                if kind == "ask":
                    sizes = [len(hand) for hand in match.table.hands]
                    assert view.sizes == sizes and view.pond == len(match.table.pond)
                    vector = view.vector()
                    assert list(vector[RANKS + 3 : RANKS + 6]) == sizes
                if kind == "hand-update":
                    asker, asked = message["askingPlayer"], message["playerAsked"]
                    rank = message["card"]["rank"]
                    assert view.holds[asker][rank] == 1 and view.holds[asked][rank] == 0
                    assert view.lacks[asked][rank] == 1 and view.lacks[asker][rank] == 0
                    checked += 1
            reply: Any = None
            if kind == "ask":
                others = [s for s in range(3) if s != seat]
                reply = {"player": rng.choice(others), "cardId": rng.choice(message["hand"])["id"]}
            elif kind in ("go-fish", "pick-up"):
                reply = rng.randrange(52)
            delivery = flow.send(reply)
    except StopIteration:
        pass
    assert checked > 10
