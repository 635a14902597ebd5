"""A policy that learns to play one seat against a built-in level, through the environment.

    python examples/learn.py --level hard --train 3000 --evaluate 1000

The PettingZoo environment (`arena.env.raw_env`, two seats, draws as chance events) plays the
match; the other seat is the built-in level's own `Bot.handle`, fed the messages its seat was sent
(`info["messages"]`), its ask turned into the action for that seat and rank. (The single-seat
`SeatEnv` plays the level through the arena's match loop instead, as `arena run` would, at about
20 matches/s here against the environment's few hundred: its thread hand-offs cost more than a
match.) A linear softmax policy over the legal asks (numpy only): each ask (seat q, rank r) is scored
by θ · φ(q, r), with φ read from the observation vector (docs/research.md): the cards of rank r
held, whether the table was told q holds r or q said go fish for r, q's hand size, whether the
ask could finish a book, whether the table knows we hold r. REINFORCE with a running-mean
baseline on the end-of-match reward (places: 1 win, −1 loss, at two seats). The policy is
evaluated before (θ = 0: a uniformly random legal ask) and after training on the same seeds,
none of them used in training; the win share is the mean point (1 a win, ½ a tie) with a normal
95% interval.
"""

from __future__ import annotations

import argparse
import math
import statistics
import time
from typing import Any

import numpy as np
import numpy.typing as npt

from arena.bots import BOTS
from arena.env import raw_env
from arena.env.encoding import RANKS
from arena.sdk import Bot

FEATURES = ("held", "told-holds", "said-go-fish", "their-size", "finishes-book", "we-are-known")


def features(observation: npt.NDArray[np.float32], seats: int, me: int, asks: list[int]) -> Any:
    """φ for each legal ask, one row per ask."""
    hand = observation[:RANKS]
    sizes = observation[RANKS + seats : RANKS + 2 * seats]
    start = RANKS + 2 * seats + 5
    holds = observation[start : start + seats * RANKS].reshape(seats, RANKS)
    lacks = observation[start + seats * RANKS : start + 2 * seats * RANKS].reshape(seats, RANKS)
    rows = []
    for action in asks:
        q, r = divmod(action, RANKS)
        rows.append(
            [
                hand[r] / 3.0,
                holds[q, r],
                lacks[q, r],
                sizes[q] / 10.0,
                float(hand[r] == 3),
                holds[me, r],
            ]
        )
    return np.array(rows, dtype=np.float64)


def choose(theta: Any, phi: Any, rng: np.random.Generator) -> tuple[int, Any]:
    scores = phi @ theta
    scores -= scores.max()
    chances = np.exp(scores)
    chances /= chances.sum()
    pick = int(rng.choice(len(chances), p=chances))
    return pick, phi[pick] - chances @ phi  # the gradient of log π(pick)


def level_action(level: Bot, messages: list[dict[str, Any]]) -> int:
    """The level's ask, as the environment's action: its messages handed over in order."""
    reply = None
    for message in messages:
        reply = level.handle(message)
    assert isinstance(reply, dict)
    hand = messages[-1]["hand"]
    rank = next(card["rank"] for card in hand if card["id"] == reply["cardId"])
    return int(reply["player"]) * RANKS + rank


def episode(
    table: raw_env, level: str, theta: Any, seed: int, rng: np.random.Generator
) -> tuple[float, float, Any]:
    """One match, the policy at seat 0: (point, reward, the summed gradients of log π)."""
    table.reset(seed=seed)
    opponent = BOTS[level]()
    gradient = np.zeros_like(theta)
    for agent in table.agent_iter():
        observation, reward, terminated, truncated, info = table.last()
        if terminated or truncated:
            if agent == "seat_0":
                places = table.result.places
                point = 1.0 / places.count(1) if places[0] == 1 else 0.0  # a tie shares it
                final = reward
            table.step(None)
            continue
        if agent == "seat_1":
            table.step(level_action(opponent, info["messages"]))
            continue
        legal = observation["action_mask"].nonzero()[0].tolist()
        phi = features(observation["observation"], table.seats, 0, legal)
        pick, step = choose(theta, phi, rng)
        gradient += step
        table.step(legal[pick])
    return point, final, gradient


def evaluate(table: raw_env, level: str, theta: Any, seeds: range) -> tuple[float, float]:
    rng = np.random.default_rng(0)
    points = [episode(table, level, theta, seed, rng)[0] for seed in seeds]
    half = 1.96 * statistics.stdev(points) / math.sqrt(len(points))
    return statistics.fmean(points), half


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--level", default="hard")
    parser.add_argument("--train", type=int, default=3000, help="training matches")
    parser.add_argument("--evaluate", type=int, default=1000, help="matches per evaluation")
    parser.add_argument("--rate", type=float, default=0.01)
    args = parser.parse_args()
    table = raw_env(seats=2)
    held_out = range(10**6, 10**6 + args.evaluate)
    theta = np.zeros(len(FEATURES))
    began = time.monotonic()
    before = evaluate(table, args.level, theta, held_out)
    print(f"before: win share {before[0]:.3f} ± {before[1]:.3f} against {args.level}")
    rng = np.random.default_rng(1)
    trained = time.monotonic()
    baseline = 0.0
    for match in range(args.train):
        _, reward, gradient = episode(table, args.level, theta, match, rng)
        theta += args.rate * (reward - baseline) * gradient
        baseline += 0.01 * (reward - baseline)
    training = time.monotonic() - trained
    after = evaluate(table, args.level, theta, held_out)
    print(
        f"after {args.train} matches ({training:.1f} s of training): "
        f"win share {after[0]:.3f} ± {after[1]:.3f}"
    )
    print("θ: " + ", ".join(f"{name} {value:+.2f}" for name, value in zip(FEATURES, theta)))
    print(f"({time.monotonic() - began:.0f} s)")


if __name__ == "__main__":
    main()
