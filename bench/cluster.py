"""A tournament on a local two-worker Dask cluster against the same tournament with `--jobs 1`.

Starts `dask scheduler` and `dask worker --nworkers 2 --nthreads 1` on 127.0.0.1 (the commands
of docs/cluster.md), then times whole `arena run` commands of one config, alternating, several
rounds: `--jobs 1` (the floor), `--scheduler tcp://…`, and `--jobs 2` (a local process pool,
for comparison). Prints the best times and the ratios to the floor, and checks that the three
runs wrote the same results. Needs the dask extra.

    python bench/cluster.py [--games 120] [--rounds 3] [--bots in-process|subprocess|thinking] [--think 20]

`--bots`: the built-in bots inside the workers (a match takes ~10 ms of CPU), as programs
(process start-up and a pipe per message: ~0.2 s a match), or as programs that also think
`--think` ms of wall time before each decision (as a bot with a time budget does, which
leaves the CPU to others: this shows how matches overlap, whatever else loads the machine).
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

PARTICIPANTS = ("random", "easy", "medium", "hard")

THINKING_BOT = """\
import sys, time
from arena.bots import BOTS
from arena.sdk import run
bot, think = BOTS[sys.argv[1]](), float(sys.argv[2]) / 1000
plays = bot.handle
def handle(message):
    if message.get("type") in ("ask", "go-fish", "pick-up"):
        time.sleep(think)
    return plays(message)
bot.handle = handle
run(bot)
"""


def write_config(folder: Path, games: int, bots: str, think_ms: float) -> Path:
    folder.mkdir(parents=True)
    lines = [
        f'seed = 2024\ngames = {games}\nreplays = "replays"',
        f"[tournament]\nseats = 2\ninProcessBots = {'true' if bots == 'in-process' else 'false'}\nreuse = false",
    ]
    if bots == "thinking":
        (folder / "thinking_bot.py").write_text(THINKING_BOT)
        lines += [
            f'[[participants]]\nname = "{level}"\n'
            f'command = ["{sys.executable}", "thinking_bot.py", "{level}", "{think_ms:g}"]'
            for level in PARTICIPANTS
        ]
    else:
        lines += [f'[[participants]]\nname = "{level}"\nbot = "{level}"' for level in PARTICIPANTS]
    path = folder / "bench.toml"
    path.write_text("\n".join(lines) + "\n")
    return path


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def start_cluster(workers: int) -> tuple[str, list[subprocess.Popen[bytes]]]:
    """`dask scheduler` and `dask worker` as a person would start them, on 127.0.0.1 only."""
    dask = str(Path(sys.executable).parent / "dask")  # the one installed with this Python
    port = free_port()
    address = f"tcp://127.0.0.1:{port}"
    started = [
        subprocess.Popen(
            [dask, "scheduler", "--host", "127.0.0.1", "--port", str(port), "--no-dashboard"],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            start_new_session=True,
        ),
    ]
    started.append(
        subprocess.Popen(
            [
                dask,
                "worker",
                address,
                "--nworkers",
                str(workers),
                "--nthreads",
                "1",
                "--host",
                "127.0.0.1",
                "--no-dashboard",
            ],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            start_new_session=True,
        )
    )
    from distributed import Client

    with Client(address, timeout=30, set_as_default=False) as client:
        client.wait_for_workers(workers, timeout=60)
    return address, started


def stop_cluster(started: list[subprocess.Popen[bytes]]) -> None:
    for process in reversed(started):
        try:
            os.killpg(process.pid, signal.SIGTERM)
        except ProcessLookupError:
            continue
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait()


def timed_run(config: Path, *options: str) -> tuple[float, Path]:
    """One whole `arena run` (start-up included) into a fresh replays folder."""
    folder = config.parent / f"replays-{time.monotonic_ns()}"
    text = config.read_text().replace('replays = "replays"', f'replays = "{folder.name}"')
    config.write_text(text)
    began = time.perf_counter()
    done = subprocess.run(
        [sys.executable, "-m", "arena", "run", str(config), "--quiet", *options],
        check=False,
        capture_output=True,
        text=True,
    )
    seconds = time.perf_counter() - began
    config.write_text(text.replace(f'replays = "{folder.name}"', 'replays = "replays"'))
    if done.returncode != 0:
        sys.exit(f"arena run {' '.join(options)} failed ({done.returncode}): {done.stderr.strip()}")
    return seconds, folder


def results(folder: Path) -> list[tuple[int, list[int], list[str]]]:
    lines = [json.loads(line) for line in (folder / "results.jsonl").read_text().splitlines()]
    return sorted((line["game"], line["scores"], line["seating"]) for line in lines)


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--games", type=int, default=120)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument(
        "--bots", choices=("in-process", "subprocess", "thinking"), default="in-process"
    )
    parser.add_argument(
        "--think", type=float, default=20.0, help="ms per decision with --bots thinking"
    )
    options = parser.parse_args()
    load_before = os.getloadavg()[0]
    address, started = start_cluster(workers=2)
    try:
        with tempfile.TemporaryDirectory() as temporary:
            config = write_config(Path(temporary) / "t", options.games, options.bots, options.think)
            runs: dict[str, list[float]] = {"--jobs 1": [], "cluster": [], "--jobs 2": []}
            arguments = {
                "--jobs 1": ("--jobs", "1"),
                "cluster": ("--scheduler", address),
                "--jobs 2": ("--jobs", "2"),
            }
            written: dict[str, list[tuple[int, list[int], list[str]]]] = {}
            for _ in range(options.rounds):
                for name, extra in arguments.items():
                    seconds, folder = timed_run(config, *extra)
                    runs[name].append(seconds)
                    written[name] = results(folder)
    finally:
        stop_cluster(started)
    same = written["cluster"] == written["--jobs 1"] == written["--jobs 2"]
    floor = min(runs["--jobs 1"])
    think = f" --think {options.think:g}" if options.bots == "thinking" else ""
    print(
        f"command: python bench/cluster.py --games {options.games} --rounds {options.rounds} --bots {options.bots}{think}"
    )
    print(
        f"{options.games} matches of 2 seats among {len(PARTICIPANTS)} built-in bots ({options.bots}{think}); "
        f"machine: {os.cpu_count()} cores, load average {load_before:.1f} before and "
        f"{os.getloadavg()[0]:.1f} after; whole `arena run` commands, start-up included"
    )
    for name, times in runs.items():
        best = min(times)
        print(
            f"{name:>9}: best {best:6.2f} s, median {statistics.median(times):6.2f} s, "
            f"{options.games / best:6.1f} matches/s, speed-up {floor / best:.2f}x"
        )
    print(f"same results everywhere: {'yes' if same else 'NO'}")
    if not same:
        sys.exit(1)


if __name__ == "__main__":
    main()
