"""The policy of examples/learn.py trained by self-play through the vector environment.

    python examples/learn_vector.py --level hard --games 256 --train 8000 --evaluate 1000

Same linear softmax policy over the legal asks, same features φ(q, r) read from the observation
vector, same REINFORCE on the end-of-match reward (places: 1 win, −1 loss) and the same
evaluation (against the built-in level through the PettingZoo environment, on held-out seeds
10^6 on, with θ = 0 before). What differs is where the matches are played: `--games` games at
once in `arena.env.vector.VectorEnv` (the compiled core), every seat played by the policy
itself (self-play: each seat's gradient weighted by its own reward), the features of every
game's legal asks computed in one numpy expression. Training needs no built-in level (those
play from messages, which the vector environment does not build), so it is self-play; the
level is met only in the evaluation.
"""

from __future__ import annotations

import argparse
import time
from typing import Any

import numpy as np
import numpy.typing as npt
from learn import FEATURES, evaluate

from arena.env import raw_env
from arena.env.encoding import RANKS
from arena.env.vector import VectorEnv


def all_features(obs: npt.NDArray[np.float32], seats: int, seat: Any) -> Any:
    """φ for every (game, ask): `(games, seats × 14, features)`, as learn.features builds it."""
    games = len(obs)
    hand = obs[:, :RANKS]
    sizes = obs[:, RANKS + seats : RANKS + 2 * seats]
    start = RANKS + 2 * seats + 5
    holds = obs[:, start : start + seats * RANKS].reshape(games, seats, RANKS)
    lacks = obs[:, start + seats * RANKS : start + 2 * seats * RANKS].reshape(games, seats, RANKS)
    mine = holds[np.arange(games), seat]  # (games, R): the table knows we hold r
    shape = (games, seats, RANKS)
    phi = np.stack(
        [
            np.broadcast_to(hand[:, None, :] / 3.0, shape),
            holds,
            lacks,
            np.broadcast_to(sizes[:, :, None] / 10.0, shape),
            np.broadcast_to((hand == 3)[:, None, :], shape),
            np.broadcast_to(mine[:, None, :], shape),
        ],
        axis=-1,
    )
    return phi.reshape(games, seats * RANKS, len(FEATURES)).astype(np.float64)


def train(envs: VectorEnv, matches: int, rate: float, rng: np.random.Generator) -> Any:
    """Self-play REINFORCE until `matches` games have ended; θ."""
    seats, games = envs.seats, envs.num_envs
    theta = np.zeros(len(FEATURES))
    gradients = np.zeros((games, seats, len(FEATURES)))  # Σ ∇ log π per game and seat
    obs, infos = envs.reset(seed=0)
    rows = np.arange(games)
    ended = 0
    while ended < matches:
        seat, mask = infos["seat"], infos["action_mask"].astype(bool)
        phi = all_features(obs, seats, seat)
        scores = np.where(mask, phi @ theta, -np.inf)
        scores -= scores.max(axis=1, keepdims=True)
        chances = np.exp(scores)
        chances /= chances.sum(axis=1, keepdims=True)
        picks = (chances.cumsum(axis=1) > rng.random((games, 1))).argmax(axis=1)
        mean_phi = np.einsum("ga,gaf->gf", chances, phi)
        gradients[rows, seat] += phi[rows, picks] - mean_phi
        obs, _, terminations, truncations, infos = envs.step(picks)
        done = np.flatnonzero(terminations | truncations)
        if len(done):
            rewards = infos["rewards"][done]  # (done, seats)
            step = np.einsum("ds,dsf->f", rewards, gradients[done]) / seats
            theta += rate * step
            gradients[done] = 0.0
            ended += len(done)
    return theta


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--level", default="hard")
    parser.add_argument("--games", type=int, default=256, help="games stepped at once")
    parser.add_argument("--train", type=int, default=8000, help="training matches")
    parser.add_argument("--evaluate", type=int, default=1000, help="matches per evaluation")
    parser.add_argument("--rate", type=float, default=0.01)
    args = parser.parse_args()
    table = raw_env(seats=2)
    held_out = range(10**6, 10**6 + args.evaluate)
    began = time.monotonic()
    before = evaluate(table, args.level, np.zeros(len(FEATURES)), held_out)
    print(f"before: win share {before[0]:.3f} ± {before[1]:.3f} against {args.level}")
    trained = time.monotonic()
    theta = train(VectorEnv(args.games, seats=2), args.train, args.rate, np.random.default_rng(1))
    training = time.monotonic() - trained
    after = evaluate(table, args.level, theta, held_out)
    print(
        f"after {args.train} self-play matches ({training:.1f} s of training): "
        f"win share {after[0]:.3f} ± {after[1]:.3f}"
    )
    print("θ: " + ", ".join(f"{name} {value:+.2f}" for name, value in zip(FEATURES, theta)))
    print(f"({time.monotonic() - began:.0f} s)")


if __name__ == "__main__":
    main()
