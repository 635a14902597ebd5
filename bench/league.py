"""Two figures of `arena league` (docs/league.md).

1. Matchmaking (a simulation, not real matches): a field of FIELD bots of known strength
   (Plackett-Luce, STEP Elo apart) plays two-seat duplicate pairs; after every CHECK matches the
   batch fit (`rating.fit`) orders them. How many matches until the fitted order is the true
   order and stays so at the next two checks: the league's matchmaking (`next_table`) against
   a round robin (every pair in turn). Median over seeds.
2. Throughput (real matches): matches/s of a league of 20 built-in bots (`Season`, recording
   every match in SQLite and its replay) against `arena run` of the same field and seats, both
   with one job, MATCHES matches each.

    python bench/league.py [--field 20] [--step 60] [--seeds 3] [--matches 200]
"""

from __future__ import annotations

import argparse
import itertools
import random
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

from arena.league.matchmaking import Entry, next_table
from arena.tournaments import rating

LEVELS = ("random", "easy", "medium", "hard")


def _true_order(strengths: dict[str, float]) -> list[str]:
    return sorted(strengths, key=lambda name: -strengths[name])


def _play(a: str, b: str, strengths: dict[str, float], rng: random.Random) -> dict[str, int]:
    p = 1 / (1 + 10 ** ((strengths[b] - strengths[a]) / 400))
    return {a: 1, b: 2} if rng.random() < p else {a: 2, b: 1}


def matches_to_order(
    field: int, step: float, seed: int, matchmaking: bool, check: int, cap: int
) -> int:
    rng = random.Random(seed)
    names = [f"b{i:02d}" for i in range(field)]
    strengths = {name: -i * step for i, name in enumerate(names)}
    truth = _true_order(strengths)
    pairs = list(itertools.combinations(names, 2))
    rng.shuffle(pairs)
    cycle = itertools.cycle(pairs)
    finishes: list[rating.Finish] = []
    fit = rating.fit([], names=names)
    right_since: int | None = None
    streak = 0
    deal = 0
    while len(finishes) < cap:
        if matchmaking:
            entries = [
                Entry(
                    i, fit[n].rating, fit[n].plus_minus if fit[n].matches else 350.0, fit[n].matches
                )
                for i, n in enumerate(names)
            ]
            chosen = next_table(entries, 2, rng)
            assert chosen is not None
            a, b = names[chosen[0]], names[chosen[1]]
        else:
            a, b = next(cycle)
        deal += 1
        for first, second in ((a, b), (b, a)):  # a duplicate pair: both rotations
            finishes.append(rating.Finish(_play(first, second, strengths, rng), group=deal))
        if len(finishes) % check < 2:
            fit = rating.fit(finishes, names=names)
            if [row.name for row in fit.rated] == truth:
                right_since = len(finishes) if right_since is None else right_since
                streak += 1
                if streak >= 3:
                    return right_since
            else:
                right_since, streak = None, 0
    return cap


def throughput(matches: int) -> tuple[float, float]:
    """(league matches/s, arena run matches/s) for the same 20-bot field, one job each."""
    from arena.league.season import Season
    from arena.league.settings import load as load_config
    from arena.league.store import Store
    from arena.tournaments.executors import InlineExecutor

    with tempfile.TemporaryDirectory() as folder_name:
        folder = Path(folder_name)
        names = [f"bot{i:02d}" for i in range(20)]
        participants = "".join(
            f'[[participants]]\nname = "{name}"\nbot = "{LEVELS[i % 4]}"\n'
            for i, name in enumerate(names)
        )
        common = "[tournament]\nseats = 2\ninProcessBots = true\nreuse = false\n"
        run_config = folder / "run.toml"
        run_config.write_text(f"games = {matches}\nseed = 1\n{common}{participants}")
        started = time.perf_counter()
        subprocess.run(
            [sys.executable, "-m", "arena", "run", str(run_config), "--jobs", "1", "--quiet"],
            check=True,
            capture_output=True,
        )
        run_rate = matches / (time.perf_counter() - started)

        league = folder / "league"
        league.mkdir()
        (league / "league.toml").write_text(common)
        store = Store.create(league)
        for i, name in enumerate(names):
            store.add_version(
                name, None, command=[], level=LEVELS[i % 4], folder=None, fingerprint=name
            )
        config = load_config(league).config
        season = Season(store, config, InlineExecutor(), jobs=1, sizes=(2,))
        stop = threading.Event()
        started = time.perf_counter()
        while store.match_count() < matches:
            season.step(stop, timeout=0.0)
        league_rate = store.match_count() / (time.perf_counter() - started)
        store.close()
    return league_rate, run_rate


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--field", type=int, default=20)
    parser.add_argument("--step", type=float, default=60.0, help="Elo between neighbours")
    parser.add_argument("--seeds", type=int, default=3)
    parser.add_argument("--check", type=int, default=100, help="matches between fits")
    parser.add_argument("--cap", type=int, default=40000)
    parser.add_argument("--matches", type=int, default=200, help="real matches for throughput")
    options = parser.parse_args()
    figures = {}
    for label, matchmaking in (("round robin", False), ("league matchmaking", True)):
        needed = [
            matches_to_order(
                options.field, options.step, seed, matchmaking, options.check, options.cap
            )
            for seed in range(options.seeds)
        ]
        figures[label] = statistics.median(needed)
        print(
            f"{label:20} matches to order {options.field} bots {options.step:g} Elo apart: "
            f"median {figures[label]:.0f} ({', '.join(map(str, needed))})"
        )
    ratio = figures["league matchmaking"] / figures["round robin"]
    print(f"matchmaking needs {ratio:.2f}x the matches of round robin (goal: 0.5 or less)")
    if not options.matches:
        return
    league_rate, run_rate = throughput(options.matches)
    print(
        f"league {league_rate:.1f} matches/s, arena run {run_rate:.1f} matches/s: "
        f"{league_rate / run_rate:.2f}x (goal: 0.9x or more)"
    )


if __name__ == "__main__":
    main()
