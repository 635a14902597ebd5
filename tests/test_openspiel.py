"""`gofish_arena` as an OpenSpiel game: OpenSpiel's own random-simulation test, random playouts
that end as the engine ends them, its IS-MCTS bot on the game, and that bot seated in `arena run`."""

from __future__ import annotations

import json
import random
import sys
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

pyspiel = pytest.importorskip(
    "pyspiel", reason="the [openspiel] extra (open-spiel) is not installed"
)

from arena.engine.match import play_out
from arena.openspiel import GofishArenaState, resampler
from arena.openspiel.game import NAME, Play
from arena.ui.cli import app


def _dealt(game: object, rng: random.Random) -> GofishArenaState:
    state = game.new_initial_state()  # type: ignore[attr-defined]
    while state.is_chance_node():
        outcomes = state.chance_outcomes()
        state.apply_action(outcomes[rng.randrange(len(outcomes))][0])
    return state  # type: ignore[no-any-return]


def test_openspiels_random_simulation_test() -> None:
    for params in ({"players": 2}, {"players": 4, "rules": "family-table"}):
        pyspiel.random_sim_test(
            pyspiel.load_game(NAME, params), num_sims=3, serialize=False, verbose=False
        )


def test_random_playouts_end_as_the_engine_ends_them() -> None:
    game = pyspiel.load_game(NAME, {"players": 3, "decks": 2, "knights": True})
    rng = random.Random(5)
    for _ in range(5):
        state = _dealt(game, rng)
        replies = []
        while not state.is_terminal():
            action = rng.choice(state.legal_actions())
            asked, rank = divmod(action, 14)
            replies.append(
                {"player": asked, "cardId": state.view(state.current_player()).ranks_held()[rank]}
            )
            state.apply_action(action)
        assert state.play is not None and state.play.result is not None
        assert sum(state.play.result.scores) * 4 == 2 * 56
        # The engine alone, handed the same replies (pond index 0 for every draw), agrees.
        replaying = _Replaying(replies)
        seats = len(state.play.setup.names)
        assert play_out(state.play.setup, [replaying] * seats) == state.play.result
        places = state.play.result.places
        assert state.returns() == [1.0 - (place - 1) for place in places]


class _Replaying:
    """Every seat's answers, in order: the asks given, pond index 0 for every draw."""

    def __init__(self, asks: list[Any]) -> None:
        self.asks = iter(asks)

    def handle(self, message: dict[str, Any]) -> Any:
        kind = message["type"]
        return next(self.asks) if kind == "ask" else 0 if kind in ("go-fish", "pick-up") else None


def test_a_clone_plays_on_as_the_original() -> None:
    game = pyspiel.load_game(NAME, {"players": 2})
    rng = random.Random(9)
    state = _dealt(game, rng)
    for _ in range(6):
        state.apply_action(rng.choice(state.legal_actions()))
    twin = state.clone()
    assert twin.observation_string(twin.current_player()) == state.observation_string(
        state.current_player()
    )
    moves = random.Random(2)
    while not state.is_terminal():
        action = moves.choice(state.legal_actions())
        assert twin.legal_actions() == state.legal_actions()
        state.apply_action(action)
        twin.apply_action(action)
    assert twin.is_terminal() and twin.returns() == state.returns()


def test_a_resampled_world_is_one_the_seat_cannot_tell_from_the_real_one() -> None:
    game = pyspiel.load_game(NAME, {"players": 4})
    rng = random.Random(3)
    resample = resampler(game, random.Random(4))
    for _ in range(4):
        state = _dealt(game, rng)
        for _ in range(rng.randrange(1, 30)):
            if state.is_terminal():
                break
            state.apply_action(rng.choice(state.legal_actions()))
        if state.is_terminal():
            continue
        seat = state.current_player()
        world = resample(state, seat)
        assert world.observation_string(seat) == state.observation_string(seat)
        assert world.legal_actions() == state.legal_actions()
        real, dealt = state.play.match.table, world.play.match.table
        assert [len(h) for h in dealt.hands] == [len(h) for h in real.hands]
        assert dealt.hands[seat] == real.hands[seat] and len(dealt.pond) == len(real.pond)
        ids = sorted(c["id"] for cards in [*dealt.hands, dealt.pond] for c in cards)
        assert ids == sorted(c["id"] for cards in [*real.hands, real.pond] for c in cards)


def test_openspiels_ismcts_bot_plays_the_game() -> None:
    import numpy as np
    from open_spiel.python.algorithms import ismcts, mcts

    game = pyspiel.load_game(NAME, {"players": 2})
    search = ismcts.ISMCTSBot(
        game,
        mcts.RandomRolloutEvaluator(n_rollouts=1, random_state=np.random.RandomState(1)),
        uct_c=2.0,
        max_simulations=8,
        random_state=np.random.RandomState(2),
        use_observation_string=True,
        allow_inconsistent_action_sets=True,
    )
    search.set_resampler(resampler(game, random.Random(7)))
    rng = random.Random(1)
    state = _dealt(game, rng)
    while not state.is_terminal():
        if state.current_player() == 0:
            action = int(search.step(state))
        else:
            action = rng.choice(state.legal_actions())
        assert action in state.legal_actions()
        state.apply_action(action)
    assert isinstance(state.play, Play) and state.play.result is not None


def test_the_ismcts_participant_is_seated_by_arena_run(tmp_path: Path) -> None:
    command = [sys.executable, "-m", "arena.openspiel.bot", "--simulations", "5"]
    (tmp_path / "config.toml").write_text(
        "seed = 4\n[tournament]\ninProcessBots = true\n"
        f'[[participants]]\nname = "ismcts"\ncommand = {json.dumps(command)}\n'
        '[[participants]]\nname = "hard"\nbot = "hard"\n'
        "[limits]\nreplyTimeout = 30\nstartupTimeout = 60\n"
    )
    result = CliRunner().invoke(app, ["run", str(tmp_path / "config.toml")])
    assert result.exit_code == 0, result.output
    (path,) = sorted((tmp_path / "replays").glob("*.json"))
    replay = json.loads(path.read_text())
    assert replay["result"]["outcome"] == "completed"
    assert not [fault for fault in replay.get("faults", []) if fault["seat"] == 0]
    asks = [e for e in replay["transcript"] if e["seat"] == 0 and e["message"]["type"] == "ask"]
    assert asks and all(isinstance(e["reply"], dict) for e in asks)
    log = path.with_name(path.stem + ".seat0.stderr.log")
    assert not log.exists() or "search failed" not in log.read_text()
