"""arena.core, the second home of the rules, held to the engine event by event.

Each rule set plays seeded games in the core with random asks (one in ten outside the mask:
refused as the engine refuses them); their decisions are played again on the engine's match
generator, and every event, the outcome and the books must be the engine's. The compiled core
and its pure-Python twin must agree game for game. bench/core_vs_engine.py is the longer run.
"""

from __future__ import annotations

import os
import random
import shutil
import subprocess
import sys
from array import array
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from arena.base.config import TURNS_PER_CARD, named_rules, rules_file
from arena.core import COMPILED, RUNNING, Batch, pure, settings
from arena.core.differential import OUTCOMES, engine_replay
from arena.engine.match import DEFAULT_MAX_TURNS, Delivery, MatchSetup, Outcome
from arena.engine.rules import NextPlayer, RefillWhen, Rules, StartingPlayer
from arena.env.encoding import RANKS, SeatView, action_mask, vector_length

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BATCHES = [pure.Batch] + ([Batch] if COMPILED else [])

# (name, rules, seats, max_idle_turns): every setting of the contract and the family rules.
RULE_SETS = [
    ("classic-2", Rules(), 2, 100),
    ("classic-3", Rules(), 3, 100),
    ("classic-4", Rules(), 4, 100),
    ("classic-6", Rules(starting_hand_size=5), 6, 100),
    ("family-two", named_rules("family-two"), 2, 100),
    ("family-table-3", named_rules("family-table"), 3, 100),
    ("family-table-4", named_rules("family-table"), 4, 100),
    (
        "two-decks-knights",
        rules_file(os.path.join(ROOT, "configs", "two-decks-knights.toml")),
        3,
        100,
    ),
    (
        "clockwise-first-in-line",
        Rules(next_player=NextPlayer.CLOCKWISE, starting_player=StartingPlayer.FIRST_IN_LINE),
        3,
        100,
    ),
    ("after-asker-min-3", Rules(next_player=NextPlayer.AFTER_ASKER, min_hand_size=3), 4, 100),
    ("min-0", Rules(min_hand_size=0), 3, 100),
    ("no-deal", Rules(starting_hand_size=0, min_hand_size=0), 2, 100),
    ("lucky-only", Rules(lucky_draw=True), 3, 100),
    ("refill-at-once", Rules(refill_empty_hand=4, min_hand_size=1), 3, 100),
    (
        "refill-on-turn",
        Rules(refill_empty_hand=6, refill_when=RefillWhen.ON_ITS_TURN, min_hand_size=0),
        4,
        100,
    ),
    ("draw-when-no-one", Rules(draw_when_no_one_to_ask=True, min_hand_size=0), 3, 100),
    ("deal-by-seats-3-decks", Rules(deal_by_seats=True, number_of_decks=3, knights=True), 5, 100),
    ("stalls", Rules(), 2, 3),
]


def max_turns(rules: Rules) -> int:
    return max(DEFAULT_MAX_TURNS, TURNS_PER_CARD * rules.pack_size)


def batch_of(
    kind: type, rules: Rules, seats: int, idle: int, games: int = 1, turns: int = 0
) -> object:
    return kind(games, seats, *settings(rules, seats), turns or max_turns(rules), idle, True, False)


def random_action(batch: object, seats: int, rng: random.Random, chosen: array) -> int:
    """A valid ask nine times in ten, drawn by the core from the game's own generator (a held
    rank of another seat, uniform); else anything (itself, a rank not held, out of range)."""
    if rng.random() < 0.1:
        seat = batch.state(0)[1]  # type: ignore[attr-defined]
        return rng.choice([-1, seats * RANKS, seat * RANKS + 3, rng.randrange(seats * RANKS)])
    batch.sample(chosen)  # type: ignore[attr-defined]
    return chosen[0]


def play_core(batch: object, seed: int, seats: int, rng: random.Random) -> int:
    status = batch.reset(0, seed)  # type: ignore[attr-defined]
    chosen = array("q", [0])
    while status == RUNNING:
        status = batch.act(0, random_action(batch, seats, rng, chosen))  # type: ignore[attr-defined]
    return int(status)


def differ(rules: Rules, seats: int, idle: int, seeds: range, kind: type, turns: int = 0) -> int:
    """Play `seeds` in the core and on the engine; return the events compared (assert equal)."""
    names = tuple(f"seat_{s}" for s in range(seats))
    batch = batch_of(kind, rules, seats, idle, turns=turns)
    rng = random.Random(seeds.start)
    compared = 0
    for seed in seeds:
        status = play_core(batch, seed, seats, rng)
        core_events = batch.events(0)  # type: ignore[attr-defined]
        setup = MatchSetup.from_seed(
            seed, names, rules, max_turns=turns or max_turns(rules), max_idle_turns=idle
        )
        engine_events, result = engine_replay(setup, core_events)
        assert engine_events == core_events, f"seed {seed}: the core's events differ"
        assert result is not None and result.outcome is OUTCOMES[status], f"seed {seed}"
        assert list(result.scores) == batch.state(0)[2]  # type: ignore[attr-defined]
        compared += len(core_events)
    return compared


@pytest.mark.parametrize(
    ("name", "rules", "seats", "idle"), RULE_SETS, ids=[r[0] for r in RULE_SETS]
)
def test_the_core_plays_every_rule_set_as_the_engine_does(
    name: str, rules: Rules, seats: int, idle: int
) -> None:
    games = (250 if rules.pack_size <= 56 else 65) if COMPILED else 20  # the pure one: slower
    assert differ(rules, seats, idle, range(games), Batch) > 20 * games


@pytest.mark.slow
@pytest.mark.parametrize(
    ("name", "rules", "seats", "idle"), RULE_SETS, ids=[r[0] for r in RULE_SETS]
)
def test_hundreds_more_games_per_rule_set_play_as_the_engine_s(
    name: str, rules: Rules, seats: int, idle: int
) -> None:
    # The full tier's share: 700 more seeds a rule set (170 of the big packs, whose random
    # games run to thousands of events): with the quick tier's and the observation test's, a
    # thousand a rule set. The long run is bench/core_vs_engine.py (72,000 games, 10.5 M
    # events equal).
    games = 700 if rules.pack_size <= 56 else 170
    assert differ(rules, seats, idle, range(10_000, 10_000 + games), Batch) > 0


def test_the_caps_end_a_core_game_as_they_end_the_engine_s() -> None:
    outcomes = set()
    for turns, idle in ((12, 100), (5000, 2)):
        for seed in range(40):
            rules, names = Rules(), ("a", "b")
            batch = batch_of(Batch, rules, 2, idle, turns=turns)
            status = play_core(batch, seed, 2, random.Random(seed))
            outcomes.add(OUTCOMES[status])
            setup = MatchSetup.from_seed(seed, names, rules, max_turns=turns, max_idle_turns=idle)
            events, result = engine_replay(setup, batch.events(0))  # type: ignore[attr-defined]
            assert result is not None and result.outcome is OUTCOMES[status]
            assert events == batch.events(0)  # type: ignore[attr-defined]
    assert outcomes == {Outcome.TURN_LIMIT, Outcome.STALLED, Outcome.COMPLETED}


@pytest.mark.parametrize(
    ("name", "rules", "seats", "idle"), RULE_SETS[::3], ids=[r[0] for r in RULE_SETS[::3]]
)
def test_the_pure_core_plays_as_the_engine_does(
    name: str, rules: Rules, seats: int, idle: int
) -> None:
    assert differ(rules, seats, idle, range(500, 530), pure.Batch) > 0


@pytest.mark.skipif(not COMPILED, reason="the C core is not built here")
@pytest.mark.parametrize(
    ("name", "rules", "seats", "idle"), RULE_SETS, ids=[r[0] for r in RULE_SETS]
)
def test_the_compiled_and_pure_cores_agree_step_for_step(
    name: str, rules: Rules, seats: int, idle: int
) -> None:
    games, length, actions = 6, vector_length(seats), seats * RANKS
    results = []
    for kind in (Batch, pure.Batch):
        batch = kind(
            games,
            seats,
            *settings(rules, seats),
            max_turns(rules),
            idle,
            False,
            name == "classic-4",
        )
        for i in range(games):
            batch.reset(i, 1000 * i + 7, games)
        obs = np.zeros((games, length), np.float32)
        mask = np.zeros((games, actions), np.int8)
        seat = np.zeros(games, np.int32)
        rewards = np.zeros((games, seats), np.float32)
        ended = np.zeros(games, np.int8)
        trace = []
        rng = np.random.default_rng(3)
        for _ in range(150 if rules.pack_size <= 56 else 800):
            chosen = np.empty(games, np.int64)
            batch.sample(chosen)
            wild = rng.random(games) < 0.1
            chosen[wild] = rng.integers(-1, actions + 1, int(wild.sum()))
            batch.step(chosen, obs, mask, seat, rewards, ended)
            trace.append(
                (chosen.copy(), obs.copy(), mask.copy(), seat.copy(), rewards.copy(), ended.copy())
            )
        results.append(trace)
    for step, (c_step, p_step) in enumerate(zip(*results, strict=True)):
        for c, p in zip(c_step, p_step, strict=True):
            assert np.array_equal(c, p), f"step {step}"
    assert any(row[5].any() for row in results[0])  # games ended (and were dealt again)


@pytest.mark.parametrize("kind", BATCHES, ids=lambda k: k.__module__)
@pytest.mark.parametrize(
    ("name", "rules", "seats", "idle"), RULE_SETS[:9], ids=[r[0] for r in RULE_SETS[:9]]
)
def test_observations_and_masks_are_the_seat_views(
    kind: type, name: str, rules: Rules, seats: int, idle: int
) -> None:
    """Before each ask, the core's observation is `SeatView.vector()` of a view fed every message
    the engine sent that seat, and its mask `action_mask` of it; and its events the engine's."""
    names = tuple(f"seat_{s}" for s in range(seats))
    batch = batch_of(kind, rules, seats, idle)
    length, actions = vector_length(seats), seats * RANKS
    chosen = array("q", [0])
    rng = random.Random(11)
    checked = 0
    for seed in range(20_000, 20_000 + (6 if kind is pure.Batch else 50)):
        seen: list[tuple[np.ndarray, np.ndarray, int]] = []
        status = batch.reset(0, seed)  # type: ignore[attr-defined]
        while status == RUNNING:
            obs, mask, seat = (
                np.zeros(length, np.float32),
                np.zeros(actions, np.int8),
                np.zeros(1, np.int32),
            )
            batch.observe(obs, mask, seat)  # type: ignore[attr-defined]
            seen.append((obs, mask, int(seat[0])))
            status = batch.act(0, random_action(batch, seats, rng, chosen))  # type: ignore[attr-defined]
        watch = SeenAsked(
            [SeatView(s, seats, rules.pack_size) for s in range(seats)], seen, actions
        )
        setup = MatchSetup.from_seed(
            seed, names, rules, max_turns=max_turns(rules), max_idle_turns=idle
        )
        core_events = batch.events(0)  # type: ignore[attr-defined]
        events, result = engine_replay(setup, core_events, watch)
        assert next(watch.asked, None) is None, f"seed {seed}"
        # the same replay holds the events to the engine's too (games beside `differ`'s)
        assert events == core_events, f"seed {seed}: the core's events differ"
        assert result is not None and result.outcome is OUTCOMES[status], f"seed {seed}"
        checked += watch.checked
    assert checked > (100 if kind is pure.Batch else 500)


class SeenAsked:
    """At each `ask` the engine delivers, the next observation the core gave must be the
    seat's view of every message so far, and its mask the view's `action_mask`."""

    def __init__(self, views: list[SeatView], seen: list[Any], actions: int) -> None:
        self.views, self.asked, self.actions, self.checked = views, iter(seen), actions, 0

    def __call__(self, delivery: Delivery) -> None:
        view = self.views[delivery.seat]
        view.see(delivery.message)
        if delivery.message["type"] == "ask":
            obs, mask, seat = next(self.asked)
            assert seat == delivery.seat
            assert np.array_equal(obs, view.vector())
            assert np.array_equal(mask, action_mask(view, delivery.message, self.actions))
            self.checked += 1


@pytest.mark.parametrize(
    "seed", [0, 1, 7, 2**31 - 1, 2**32 - 1, 2**32, 2**32 + 5, 123456789012345, 2**63 - 1, 2**64 - 1]
)
@pytest.mark.parametrize(
    "rules", [Rules(), Rules(number_of_decks=3, knights=True)], ids=["one", "three-knights"]
)
def test_a_seed_deals_what_arena_run_deals(seed: int, rules: Rules) -> None:
    """The C core's port of Python's Mersenne Twister, shuffle and `randrange`: the hands, pond
    and starting seat of `MatchSetup.from_seed` (no book is dealt at these seeds)."""
    setup = MatchSetup.from_seed(seed, ("a", "b", "c"), rules)
    deck = [card["id"] for card in setup.deck]
    for kind in BATCHES:
        batch = kind(1, 3, *settings(rules, 3), 5000, 100, True, False)
        batch.reset(0, seed)
        _, seat, _, hands, pond, _ = batch.state(0)
        assert batch.events(0) == []
        assert hands == [deck[0:7], deck[7:14], deck[14:21]]
        assert pond == deck[21:]
        assert seat == setup.starting_player


def test_settings_out_of_range_are_refused() -> None:
    for kind in BATCHES:
        with pytest.raises(ValueError, match="out of range"):
            kind(1, 65, *settings(Rules(), 2), 5000, 100, False, False)
        with pytest.raises(ValueError, match="out of range"):
            kind(1, 8, *settings(Rules(), 8), 5000, 100, False, False)  # 8 x 7 > 52


def test_arena_core_python_forces_the_pure_core() -> None:
    code = "import arena.core as c, arena.core.pure as p; print(c.COMPILED, c.Batch is p.Batch)"
    for value, expected in (("python", "False True"), ("", f"{COMPILED} {not COMPILED}")):
        done = subprocess.run(
            [sys.executable, "-c", code],
            env={**os.environ, "ARENA_CORE": value},
            capture_output=True,
            text=True,
            check=True,
        )
        assert done.stdout.split() == expected.split()


@pytest.mark.skipif(
    shutil.which("gcc") is None and shutil.which("cc") is None, reason="no C compiler"
)
def test_where_a_compiler_is_the_tests_run_the_compiled_core() -> None:
    """A checkout with a compiler must test the C core, not fall back unseen: `pip install -e .`
    builds it in place (a plain `pip install .` builds it into site-packages only, while the
    tests import the checkout)."""
    assert COMPILED or os.environ.get("ARENA_CORE") == "python", (
        "arena/core/_core.c is not built in this checkout: pip install -e . "
        "(or python setup.py build_ext --inplace)"
    )


@pytest.mark.skipif(not COMPILED, reason="the C core is not built here")
def test_the_compiled_rollouts_are_the_simulator_s_to_the_last_bit() -> None:
    """`master`'s rollouts in C: for random worlds (2–5 seats, one or two decks, any hands,
    pond, books, public memory, luck, horizon and rules), the same expected books, float for
    float, as arena/bots/simulator.py's Sim, Policy and play_out."""
    from arena.bots.simulator import code, rollouts, rollouts_in_python

    assert rollouts is not rollouts_in_python
    rng = random.Random(1)
    compared = 0
    for _ in range(1500):
        seats = rng.choice([2, 3, 4, 5])
        deck = [code(r, s) for r in range(14) if r != 11 for s in range(4)] * rng.choice([1, 2])
        rng.shuffle(deck)
        hands = []
        for _ in range(seats):
            size = rng.randrange(0, 9)
            hands.append(deck[:size])
            deck = deck[size:]
        me = rng.randrange(seats)
        if not hands[me]:
            continue
        others = [s for s in range(seats) if s != me]
        asks = [(rng.choice(others), rng.choice(hands[me]) >> 2) for _ in range(3)]
        world = (
            hands,
            deck[: rng.randrange(0, len(deck) + 1)],
            [rng.randrange(3) for _ in range(seats)],
            rng.randrange(0, 3),
            rng.randrange(3),
            [rng.getrandbits(14) for _ in range(seats)],
            [rng.getrandbits(14) for _ in range(seats)],
            rng.getrandbits(32),
            me,
            asks,
            rng.choice([0, 3, 10, 50]),
        )
        assert rollouts(*world) == rollouts_in_python(*world)
        compared += 1
    assert compared > 1000


@pytest.mark.slow
def test_an_install_without_a_compiler_works_and_plays_the_pure_core(tmp_path: Path) -> None:
    """`pip install .` where no C compiler runs (CC=/bin/false): the install succeeds without
    the extension, and the installed arena plays the pure twin, to the same results."""
    target = tmp_path / "site"
    done = subprocess.run(
        [sys.executable, "-m", "pip", "install", "-q", "--no-deps", "--target", str(target), ROOT],
        env={**os.environ, "CC": "/bin/false", "PIP_DISABLE_PIP_VERSION_CHECK": "1"},
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    assert not list(target.glob("arena/core/_core*.so"))
    code = (
        "import arena.core as c; from arena.engine.rules import Rules;"
        "b = c.Batch(1, 2, *c.settings(Rules(), 2), 5000, 100, True, False); b.reset(0, 7);"
        "b.play_out(0); print(c.COMPILED, c.Batch.__module__, len(b.events(0)))"
    )
    played = subprocess.run(
        [sys.executable, "-c", code],
        cwd=tmp_path,
        env={**os.environ, "PYTHONPATH": str(target)},
        capture_output=True,
        text=True,
        check=True,
    )
    compiled, module, events = played.stdout.split()
    assert (compiled, module) == ("False", "arena.core.pure")
    here = Batch(1, 2, *settings(Rules(), 2), 5000, 100, True, False)
    here.reset(0, 7)
    here.play_out(0)
    assert int(events) == len(here.events(0))
