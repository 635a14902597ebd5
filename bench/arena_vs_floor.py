"""What the arena costs on top of its participants: real matches against a bare loop.

The arena plays N matches of two Python participants (spawn, every message encoded, written,
read, decoded, validated, recorded; replay written). The floor then feeds the very same
participants the very same messages (taken from those replays, encoded beforehand) with a
bare loop: spawn, write a line, read a line. Both run in this process, alternating, several
rounds; the ratio of the best times is printed. Goal: arena / floor <= 1.2.
`--sandbox none` runs the participants unsandboxed (default: the config's default, `auto`).

    python bench/arena_vs_floor.py [--matches 10] [--rounds 5] [--sandbox auto|bwrap|none]
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import orjson

from arena.base import config as config_module
from arena.referee.seating import participant_env
from arena.tournaments.runner import play_one_match

ROOT = Path(__file__).resolve().parent.parent


def write_config(folder: Path, matches: int, sandbox: str = "auto") -> Path:
    bot = ROOT / "participants" / "random_bot.py"
    command = f'["{sys.executable}", "{bot}"]'
    path = folder / "bench.toml"
    path.write_text(
        f'seed = 1\ngames = {matches}\nreplays = "replays"\n'
        f'[limits]\nsandbox = "{sandbox}"\n'
        f'[[participants]]\nname = "one"\ncommand = {command}\n'
        f'[[participants]]\nname = "two"\ncommand = {command}\n'
    )
    return path


def arena_round(path: Path, folder: Path, stamp: str) -> tuple[float, list[Path]]:
    config, seats = config_module.load(path)
    assert config.seed is not None
    began = time.perf_counter()
    replays = [
        play_one_match(
            config, seats, match=match, seed=config.seed + match, folder=folder, stamp=stamp
        ).replay
        for match in range(config.matches)
    ]
    return time.perf_counter() - began, replays


def floor_round(path: Path, replays: list[Path]) -> float:
    _, seats = config_module.load(path)
    scripts = []
    for replay in replays:
        data = json.loads(replay.read_bytes())
        scripts.append(
            [
                (entry["seat"], orjson.dumps(entry["message"]) + b"\n")
                for entry in data["transcript"]
            ]
        )
    began = time.perf_counter()
    for script in scripts:
        processes = [
            subprocess.Popen(
                seat.command,
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                cwd=seat.cwd,
                env=participant_env(index, seat.name, seat.env),
            )
            for index, seat in enumerate(seats)
        ]
        for seat, line in script:
            process = processes[seat]
            assert process.stdin and process.stdout
            process.stdin.write(line)
            process.stdin.flush()
            process.stdout.readline()
        for process in processes:
            assert process.stdin
            process.stdin.close()
            process.wait()
    return time.perf_counter() - began


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--matches", type=int, default=10)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--sandbox", choices=("auto", "bwrap", "none"), default="auto")
    options = parser.parse_args()
    with tempfile.TemporaryDirectory() as temporary:
        folder = Path(temporary)
        path = write_config(folder, options.matches, options.sandbox)
        arena_times, floor_times = [], []
        messages = 0
        for round_number in range(options.rounds):
            seconds, replays = arena_round(
                path, folder / f"r{round_number}", f"round{round_number}"
            )
            arena_times.append(seconds)
            floor_times.append(floor_round(path, replays))
            messages = sum(len(json.loads(r.read_bytes())["transcript"]) for r in replays)
        cli_began = time.perf_counter()
        subprocess.run(
            [sys.executable, "-m", "arena", "run", str(path)], check=True, capture_output=True
        )
        cli_seconds = time.perf_counter() - cli_began
    best_arena, best_floor = min(arena_times), min(floor_times)
    sandbox = "" if options.sandbox == "auto" else f" --sandbox {options.sandbox}"
    print(
        "command: python bench/arena_vs_floor.py "
        f"--matches {options.matches} --rounds {options.rounds}{sandbox}"
    )
    print(f"{options.matches} matches of two Python participants, {messages} messages per round")
    print(
        f"arena: best {best_arena * 1000:.0f} ms, median {statistics.median(arena_times) * 1000:.0f} ms "
        f"({best_arena / messages * 1e6:.1f} us per message)"
    )
    print(
        f"floor: best {best_floor * 1000:.0f} ms, median {statistics.median(floor_times) * 1000:.0f} ms "
        f"({best_floor / messages * 1e6:.1f} us per message)"
    )
    print(
        f"arena / floor = {best_arena / best_floor:.2f} (best of {options.rounds}; "
        f"median ratio {statistics.median(a / f for a, f in zip(arena_times, floor_times)):.2f}); goal <= 1.2"
    )
    print(
        f"whole `arena run` of the same config, CLI start-up included: {cli_seconds * 1000:.0f} ms"
    )


if __name__ == "__main__":
    main()
