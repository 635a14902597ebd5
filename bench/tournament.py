"""Tournament throughput: matches per second of two Python bots, by jobs and participant reuse.

    python bench/tournament.py                  # 120 matches per setting, best of 3
    python bench/tournament.py --games 300 --repeat 5

Both participants are the same small SDK bot (the built-in random bot, asking to be reused),
run as subprocesses; `[tournament] reuse` decides whether the arena keeps them alive between
matches. Each setting plays a whole tournament through `arena.tournaments.tournament.run` (replays and
results.jsonl written, as `arena run` does), timed from the executor's start to the last
line written; the figure is the best of `--repeat` runs, and the ratios are against the
`--jobs 1` run of the same setting measured here. The engine's own rate (the match generator
fed by two in-process random bots: no processes, no JSON, no files) is the ceiling.
"""

from __future__ import annotations

import argparse
import os
import resource
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from arena.base import config as config_module
from arena.bots import RandomBot
from arena.engine.match import MatchSetup, play_out
from arena.engine.rules import Rules
from arena.tournaments import tournament
from arena.tournaments.executors import make_executor

BOT = f"""\
import sys
sys.path.insert(0, {str(ROOT)!r})
from arena.bots import RandomBot
from arena.sdk import run

class Kept(RandomBot):
    reuse = True  # answers init with {{"reuse": true}}

run(Kept())
"""


def config_text(games: int, reuse: bool, in_process: bool = False) -> str:
    if in_process:
        players = "".join(
            f'[[participants]]\nname = "{n}"\nbot = "random"\n' for n in ("ann", "bob")
        )
    else:
        players = "".join(
            f'[[participants]]\nname = "{n}"\ncommand = ["{sys.executable}", "kept_bot.py"]\n'
            for n in ("ann", "bob")
        )
    return (
        f"seed = 1\ngames = {games}\n[tournament]\nreuse = {str(reuse).lower()}\n"
        f"inProcessBots = {str(in_process).lower()}\n{players}"
    )


@dataclass
class Measured:
    rate: float  # matches per second
    arena_ms: float  # CPU of the arena's own process per match
    bots_ms: float  # CPU of the participants per match (only with --jobs 1: they are our children)
    busy: float  # CPU seconds per wall second: how many cores this run kept busy


def _cpu(who: int) -> float:
    usage = resource.getrusage(who)
    return usage.ru_utime + usage.ru_stime


def tournament_rate(
    folder: Path, games: int, jobs: int, reuse: bool, in_process: bool = False
) -> Measured:
    folder.mkdir(parents=True)
    (folder / "kept_bot.py").write_text(BOT)
    path = folder / "config.toml"
    path.write_text(config_text(games, reuse, in_process))
    settings, seats = config_module.load(path)
    plan = tournament.prepare(path, settings, seats)
    mine, children = _cpu(resource.RUSAGE_SELF), _cpu(resource.RUSAGE_CHILDREN)
    began = time.perf_counter()
    report = tournament.run(plan, lambda: make_executor(jobs), window=1 if jobs == 1 else 2 * jobs)
    seconds = time.perf_counter() - began
    mine, children = _cpu(resource.RUSAGE_SELF) - mine, _cpu(resource.RUSAGE_CHILDREN) - children
    assert report.played == games and not report.interrupted, report
    return Measured(
        games / seconds, 1000 * mine / games, 1000 * children / games, (mine + children) / seconds
    )


def engine_rate(games: int) -> float:
    rules = Rules()
    began = time.perf_counter()
    for seed in range(games):
        bots = [RandomBot(), RandomBot()]
        play_out(MatchSetup.from_seed(seed, ("ann", "bob"), rules), bots)
    return games / (time.perf_counter() - began)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=120, help="matches per setting")
    parser.add_argument("--repeat", type=int, default=3, help="runs per setting; the best counts")
    args = parser.parse_args()
    cores = len(os.sched_getaffinity(0))
    print(f"{cores} cores; load average before: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    engine = max(engine_rate(max(args.games, 200)) for _ in range(args.repeat))
    print(f"engine alone (match generator + two in-process random bots): {engine:8.1f} games/s")
    rates: dict[tuple[str, int], float] = {}
    with tempfile.TemporaryDirectory(prefix="bench-tournament-") as temporary:
        settings = [
            ("subprocess bots, no reuse", False, False),
            ("subprocess bots, reuse", True, False),
            ("in-process built-in bots", False, True),
        ]
        for label, reuse, in_process in settings:
            for jobs in (1, 2):
                runs = []
                for attempt in range(args.repeat):
                    folder = Path(temporary) / f"{label[:12]}-{reuse}-{jobs}-{attempt}".replace(
                        " ", "_"
                    )
                    runs.append(tournament_rate(folder, args.games, jobs, reuse, in_process))
                best = max(runs, key=lambda run: run.rate)
                rates[(label, jobs)] = best.rate
                if jobs == 1:
                    # Only here are the participants our own children, so their CPU is counted.
                    note = (
                        f"   CPU per match: arena {best.arena_ms:.1f} ms, participants {best.bots_ms:.1f} ms;"
                        f" {best.busy:.2f} cores busy"
                    )
                else:
                    note = f"   {best.rate / rates[(label, 1)]:.2f}x of --jobs 1"
                print(f"{label:28} --jobs {jobs}: {best.rate:8.1f} matches/s{note}")
    for jobs in (1, 2):
        gain = rates[("subprocess bots, reuse", jobs)] / rates[("subprocess bots, no reuse", jobs)]
        print(f"reuse vs no reuse at --jobs {jobs}: {gain:.1f}x")
    print(f"load average after: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")


if __name__ == "__main__":
    main()
