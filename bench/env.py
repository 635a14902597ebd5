"""Random play, side by side in one run: OpenSpiel's `go_fish`, the engine, the environment.

- `openspiel`: `pyspiel.load_game("go_fish", {"players": n})` (C++ core) driven from Python as
  research code drives it: `legal_actions()`, a random pick, `apply_action()`, the chance nodes'
  outcomes drawn at random. A step is one `apply_action` (chance included); a decision is a
  player's.
- `engine`: arena/engine/match.py's generator with random replies (a random held card, a random
  other seat, a random pond index), no encoding: what every caller of the engine pays.
- `engine-bare`: the same, but every view builder of arena/engine/views.py replaced by one that
  returns only `{"type": …}`: what the engine costs when no message is built, the most a lazy
  path of views could save (a measuring device only: no caller may play so).
- `env`: `arena.env.raw_env` (draws as chance events) played through PettingZoo's loop
  (`agent_iter`, `last`, `step`) with a random action of the mask; a step is a decision.
- `env-fast`: the same loop over `arena.env.raw_env(messages=False)`: no `message`
  observation, no `messages` info, the game stepped by the core (`Batch` of one game) and the
  draws made by the core's generator.
- `vector`: `arena.env.vector.VectorEnv` of `--games` games (1,024), stepped at once: each
  step the caller picks a random valid ask for every game from the returned mask in numpy
  (`argmax(mask * uniform)`, as a learner's sampling would), observations returned every step;
  autoreset. Its core is compiled when built (`arena.core.COMPILED`, printed).
- `aec-empty`: PettingZoo's AEC loop (the `env` run's loop, line for line) over an environment
  that does no game work at all: `observe` returns one ready observation and mask, `step` only
  passes the turn, and a game ends after as many decisions as OpenSpiel's games took in this
  run. The ceiling of any AEC environment, whatever its engine.
- `core-games`: whole games of random valid asks inside the core (`Batch.run`): what a rollout
  for search costs, no observation.
- `gofish-arena`: the arena's OpenSpiel game (`arena.openspiel`, played by the engine) driven
  exactly as `openspiel` drives `go_fish` (its chance nodes: each dealt card, each draw).

Each run is cut into `--rounds` chunks, interleaved, so that a change in the machine's load
falls on every contender alike.

The figure that matters is games/s (the two games differ in their steps per game: OpenSpiel
counts each dealt card as a chance step); the ratio is against OpenSpiel in the same run.

    python bench/env.py [--seconds 2] [--rounds 3] [--seats 2 4] [--games 1024] [--only env …]
"""

from __future__ import annotations

import argparse
import random
import time
from collections.abc import Callable
from typing import Any

from arena.engine.match import Match, MatchSetup
from arena.engine.rules import Rules

Counts = tuple[int, int, int]  # games, steps, decisions


def openspiel_games(seats: int, seconds: float, name: str = "go_fish") -> tuple[Counts, float]:
    import pyspiel

    if name != "go_fish":
        import arena.openspiel  # noqa: F401 - registers gofish_arena
    game = pyspiel.load_game(name, {"players": seats})
    rng = random.Random(1)
    games = steps = decisions = 0
    began = time.perf_counter()
    while time.perf_counter() - began < seconds:
        state = game.new_initial_state()
        while not state.is_terminal():
            if state.is_chance_node():
                outcomes = state.chance_outcomes()
                action = outcomes[rng.randrange(len(outcomes))][0]
            else:
                legal = state.legal_actions()
                action = legal[rng.randrange(len(legal))]
                decisions += 1
            state.apply_action(action)
            steps += 1
        games += 1
    return (games, steps, decisions), time.perf_counter() - began


def engine_games(seats: int, seconds: float) -> tuple[Counts, float]:
    names = tuple(f"seat_{s}" for s in range(seats))
    rules = Rules()
    rng = random.Random(1)
    games = steps = decisions = 0
    began = time.perf_counter()
    while time.perf_counter() - began < seconds:
        flow = Match(MatchSetup.from_seed(games, names, rules)).play()
        try:
            seat, message = next(flow)
            while True:
                steps += 1
                kind = message["type"]
                reply: Any = None
                if kind == "ask":
                    decisions += 1
                    other = (seat + rng.randrange(1, seats)) % seats
                    reply = {"player": other, "cardId": rng.choice(message["hand"])["id"]}
                elif kind == "go-fish":
                    decisions += 1
                    reply = rng.randrange(len(message["pond"]))
                elif kind == "pick-up":
                    decisions += 1
                    reply = rng.randrange(message["pond"])
                seat, message = flow.send(reply)
        except StopIteration:
            games += 1
    return (games, steps, decisions), time.perf_counter() - began


def bare_engine_games(seats: int, seconds: float) -> tuple[Counts, float]:
    from arena.engine import views

    kept = {name: getattr(views, name) for name in _BUILDERS}
    try:
        for name, kind in _BUILDERS.items():
            setattr(views, name, _bare(kind))
        return _table_games(seats, seconds)
    finally:
        for name, builder in kept.items():
            setattr(views, name, builder)


_BUILDERS = {
    "init": "init",
    "starting_hand": "starting-hand",
    "ask": "ask",
    "go_fish": "go-fish",
    "go_fish_result": "go-fish-result",
    "pick_up": "pick-up",
    "pick_up_result": "pick-up-result",
    "hand_update": "hand-update",
    "lucky_draw": "lucky-draw",
    "match_end": "match-end",
}


def _bare(kind: str) -> Callable[..., dict[str, Any]]:
    def build(*_: Any, **__: Any) -> dict[str, Any]:
        return {"type": kind}

    return build


def _table_games(seats: int, seconds: float) -> tuple[Counts, float]:
    """The engine with random replies read from its table (the messages may be bare)."""
    names = tuple(f"seat_{s}" for s in range(seats))
    rules = Rules()
    rng = random.Random(1)
    games = steps = decisions = 0
    began = time.perf_counter()
    while time.perf_counter() - began < seconds:
        match = Match(MatchSetup.from_seed(games, names, rules))
        table, flow = match.table, match.play()
        try:
            seat, message = next(flow)
            while True:
                steps += 1
                kind = message["type"]
                reply: Any = None
                if kind == "ask":
                    decisions += 1
                    other = (seat + rng.randrange(1, seats)) % seats
                    reply = {"player": other, "cardId": rng.choice(table.hands[seat])["id"]}
                elif kind in ("go-fish", "pick-up"):
                    decisions += 1
                    reply = rng.randrange(len(table.pond))
                seat, message = flow.send(reply)
        except StopIteration:
            games += 1
    return (games, steps, decisions), time.perf_counter() - began


def aec_random_play(table: Any, seconds: float) -> tuple[Counts, float]:
    """PettingZoo's AEC loop over `table` for `seconds`: a random legal action at every step."""
    rng = random.Random(1)
    games = steps = 0
    began = time.perf_counter()
    while time.perf_counter() - began < seconds:
        table.reset(seed=games)
        for _ in table.agent_iter():
            observation, _, termination, truncation, _ = table.last()
            if termination or truncation:
                table.step(None)
                continue
            legal = observation["action_mask"].nonzero()[0]
            table.step(int(legal[rng.randrange(len(legal))]))
            steps += 1
        games += 1
    return (games, steps, steps), time.perf_counter() - began


def env_games(seats: int, seconds: float, messages: bool = True) -> tuple[Counts, float]:
    from arena.env import raw_env

    table = raw_env(seats=seats, messages=messages)
    return aec_random_play(table, seconds)


def vector_games(seats: int, seconds: float, games: int = 1024) -> tuple[Counts, float]:
    import numpy as np

    from arena.env.vector import VectorEnv

    envs = VectorEnv(games, seats=seats)
    rng = np.random.default_rng(1)
    _, infos = envs.reset(seed=0)
    finished = steps = 0
    began = time.perf_counter()
    while time.perf_counter() - began < seconds:
        mask = infos["action_mask"]
        actions = np.argmax(mask * rng.random(mask.shape, dtype=np.float32), axis=1)
        _, _, terminations, truncations, infos = envs.step(actions)
        finished += int(np.count_nonzero(terminations | truncations))
        steps += games
    return (finished, steps, steps), time.perf_counter() - began


def empty_aec_games(seats: int, seconds: float, per_game: int) -> tuple[Counts, float]:
    import numpy as np
    from pettingzoo import AECEnv

    from arena.env.encoding import RANKS, vector_length

    class Empty(AECEnv):  # type: ignore[misc]
        metadata = {"name": "empty_v0"}  # noqa: RUF012

        def __init__(self) -> None:
            super().__init__()
            self.possible_agents = [f"seat_{s}" for s in range(seats)]
            mask = np.ones(seats * RANKS, np.int8)
            self.ready = {
                "observation": np.zeros(vector_length(seats), np.float32),
                "action_mask": mask,
            }

        def reset(self, seed: int | None = None, options: Any = None) -> None:
            self.agents = list(self.possible_agents)
            self.rewards = dict.fromkeys(self.agents, 0.0)
            self._cumulative_rewards = dict.fromkeys(self.agents, 0.0)
            self.terminations = dict.fromkeys(self.agents, False)
            self.truncations = dict.fromkeys(self.agents, False)
            self.infos: dict[str, dict[str, Any]] = {agent: {} for agent in self.agents}
            self.agent_selection = self.agents[0]
            self.left = per_game

        def observe(self, agent: str) -> Any:
            return self.ready

        def step(self, action: Any) -> None:
            agent = self.agent_selection
            if self.terminations[agent] or self.truncations[agent]:
                self._was_dead_step(action)
                return
            self._cumulative_rewards[agent] = 0.0
            self.left -= 1
            if self.left == 0:
                self.terminations = dict.fromkeys(self.agents, True)
            else:
                index = (self.possible_agents.index(agent) + 1) % seats
                self.agent_selection = self.possible_agents[index]
            self._accumulate_rewards()

    table = Empty()
    return aec_random_play(table, seconds)


def core_games(seats: int, seconds: float) -> tuple[Counts, float]:
    from arena.core import Batch, settings

    rules = Rules()
    batch = Batch(1, seats, *settings(rules, seats), 5000, 100, False, False)
    games = asks = 0
    began = time.perf_counter()
    while time.perf_counter() - began < seconds:
        played, decided = batch.run(200, games)
        games += played
        asks += decided
    return (games, asks, asks), time.perf_counter() - began


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--seconds", type=float, default=2.0)
    parser.add_argument("--seats", type=int, nargs="+", default=[2, 4])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--games", type=int, default=1024, help="games of the vector run")
    parser.add_argument(
        "--only", nargs="+", help="these contenders (and openspiel, the floor), not all"
    )
    args = parser.parse_args()
    from arena.core import COMPILED

    runs: dict[str, Callable[[int, float], tuple[Counts, float]]] = {
        "openspiel": openspiel_games,
        "engine": engine_games,
        "engine-bare": bare_engine_games,
        "env": env_games,
        "env-fast": lambda seats, seconds: env_games(seats, seconds, messages=False),
        "aec-empty": lambda seats, seconds: empty_aec_games(
            seats, seconds, round(totals["openspiel"][2] / max(totals["openspiel"][0], 1))
        ),
        "vector": lambda seats, seconds: vector_games(seats, seconds, args.games),
        "core-games": core_games,
        "gofish-arena": lambda seats, seconds: openspiel_games(seats, seconds, "gofish_arena"),
    }
    unknown = set(args.only or ()) - set(runs)
    if unknown:
        parser.error(f"--only: no contender {min(unknown)!r} (one of {', '.join(runs)})")
    if args.only:
        runs = {name: run for name, run in runs.items() if name in {"openspiel", *args.only}}
    print(f"core: {'compiled C' if COMPILED else 'pure Python'}")
    chunk = args.seconds / args.rounds
    totals: dict[str, list[float]] = {}
    for seats in args.seats:
        totals.clear()
        totals.update({name: [0, 0, 0, 0.0] for name in runs})
        for _ in range(args.rounds):
            for name, run in runs.items():
                (games, steps, decisions), took = run(seats, chunk)
                for index, value in enumerate((games, steps, decisions, took)):
                    totals[name][index] += value
        rates: dict[str, float] = {}
        for name, (games, steps, decisions, took) in totals.items():
            rates[name] = games / took
            print(
                f"{seats} seats  {name:11}  {games / took:8.0f} games/s  {steps / took:9.0f} steps/s"
                f"  {decisions / took:9.0f} decisions/s  ({decisions / max(games, 1):.0f} per game)"
            )
        for name in runs:
            if name != "openspiel":
                print(
                    f"{seats} seats  {name} / openspiel: "
                    f"{rates[name] / rates['openspiel']:.2f}x games/s"
                )


if __name__ == "__main__":
    main()
