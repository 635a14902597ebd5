"""What a user waits for, as whole processes: `arena --help`, `arena replay show`/`verify` of one
replay, `arena replay verify` of a folder of 200, and a whole `arena run` of 10 matches of two
Python bots against a bare loop spawning and feeding the same bots the same messages.

Every command is a fresh process, timed from spawn to exit, alternating with its floor in the
same run: `python -c pass` (the interpreter's own start-up) for the short commands, and for
`arena run` a standalone Python script that spawns the two bots and writes each message the
arena sent (taken from the replays, encoded beforehand) and reads each reply line. Best and
median of the rounds are printed, with the ratios. Goals: the three short commands under 0.2 s,
`arena run` within 1.25x its floor. `arena run` is measured as it runs by default (each bot in
its bubblewrap sandbox, where bwrap works) and with `sandbox = "none"`, the arena's own cost.
Both are also timed for their first match alone, which splits each into a start-up (and end)
and a cost per match: where the arena's time over the loop's goes.

    nice python bench/startup.py [--rounds 7] [--matches 10]
"""

from __future__ import annotations

import argparse
import compileall
import json
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
ARENA = shutil.which("arena", path=str(Path(sys.executable).parent)) or "arena"

# What any command but `--help` pays before the arena's own code runs: the interpreter, a typer
# command with an option (typer parses options with pydantic) and one pydantic model built and
# used, as reading a config or a replay needs.
STACK = """
import sys
import typer
from pydantic import BaseModel, Field

class Seat(BaseModel):
    seat: int = Field(ge=0)
    name: str

app = typer.Typer(add_completion=False, rich_markup_mode=None, pretty_exceptions_enable=False)

@app.command()
def hello(name: str, seat: int = 0) -> None:
    Seat.model_validate({"seat": seat, "name": name})

sys.argv = ["hello", "alice", "--seat", "1"]
app()
"""

# The floor of `arena run`: spawn the bots, write a line, read a line, close; nothing else.
FLOOR = """
import json, subprocess, sys
matches = json.load(open(sys.argv[1]))
for match in matches:
    bots = [subprocess.Popen(seat["command"], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                             cwd=seat["cwd"], env=seat["env"]) for seat in match["seats"]]
    for seat, line in match["lines"]:
        bots[seat].stdin.write(line.encode())
        bots[seat].stdin.flush()
        bots[seat].stdout.readline()
    for bot in bots:
        bot.stdin.close()
        bot.wait()
"""


CPU: dict[str, list[float]] = {}


def timed(command: Sequence[str], cwd: Path, name: str = "") -> float:
    """Wall seconds from spawn to exit; the CPU seconds of the process tree go to CPU[name]."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    began = time.perf_counter()
    subprocess.run(
        command, cwd=cwd, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
    )
    wall = time.perf_counter() - began
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    CPU.setdefault(name or " ".join(command[:3]), []).append(cpu)
    return wall


def config(folder: Path, games: int, bot: str, sandbox: str = "auto") -> Path:
    path = folder / f"{bot}-{games}-{sandbox}.toml"
    if bot == "python":
        command = json.dumps([sys.executable, str(ROOT / "participants" / "random_bot.py")])
        seats = f"command = {command}\n"
    else:
        seats = f'bot = "{bot}"\n'
    path.write_text(
        f'seed = 1\ngames = {games}\nreplays = "{path.stem}"\n'
        f'[limits]\nsandbox = "{sandbox}"\n'
        f'[[participants]]\nname = "one"\n{seats}[[participants]]\nname = "two"\n{seats}'
    )
    return path


def floor_input(replays: Sequence[Path], folder: Path, name: str = "floor.json") -> Path:
    """The floor's script: for each match, the seats' commands and every line the arena wrote."""
    env = {key: os.environ[key] for key in ("PATH", "HOME", "LANG") if key in os.environ}
    env["PYTHONUNBUFFERED"] = "1"
    matches = []
    for replay in replays:
        data = json.loads(replay.read_bytes())
        seats = [{"command": p["command"], "cwd": str(folder), "env": env} for p in data["players"]]
        lines = [
            [e["seat"], json.dumps(e["message"], separators=(",", ":")) + "\n"]
            for e in data["transcript"]
        ]
        matches.append({"seats": seats, "lines": lines})
    path = folder / name
    path.write_text(json.dumps(matches))
    return path


def rounds(n: int, pairs: dict[str, Callable[[], float]]) -> dict[str, list[float]]:
    """Every measurement once per round, interleaved, so that load on the machine hits all alike."""
    times: dict[str, list[float]] = {name: [] for name in pairs}
    for _ in range(n):
        for name, measure in pairs.items():
            times[name].append(measure())
    return times


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--matches", type=int, default=10)
    options = parser.parse_args()
    # As an installed package has it (pip compiles it): the arena's bytecode up to date, even
    # where PYTHONDONTWRITEBYTECODE would have each start compile the modules changed since.
    compileall.compile_dir(ROOT / "arena", quiet=1)
    with tempfile.TemporaryDirectory() as temporary:
        folder = Path(temporary)
        many = config(folder, 200, "random")
        subprocess.run([ARENA, "run", str(many), "--quiet"], cwd=folder, check=True)
        replays = sorted((folder / many.stem).glob("*.json"))
        replays = [r for r in replays if r.name != "standings.json"]
        one = str(replays[0])
        python = config(folder, options.matches, "python")
        subprocess.run(
            [ARENA, "run", str(python), "--quiet", "--jobs", "1"], cwd=folder, check=True
        )
        played = sorted(
            p for p in (folder / python.stem).glob("*.json") if p.name != "standings.json"
        )
        # The same matches with no sandbox: the arena's own cost, apart from bubblewrap's.
        bare = config(folder, options.matches, "python", sandbox="none")
        (folder / "floor.py").write_text(FLOOR)
        script = floor_input(played, folder)
        first = floor_input(played[:1], folder, "first.json")
        bare_one = config(folder, 1, "python", sandbox="none")
        commands: dict[str, list[str]] = {
            "python -c pass": [sys.executable, "-c", "pass"],
            "arena --help": [ARENA, "--help"],
            "the stack alone (typer, pydantic)": [sys.executable, "-c", STACK],
            "arena replay show ONE": [ARENA, "replay", "show", one],
            "arena replay verify ONE": [ARENA, "replay", "verify", one],
            f"arena replay verify FOLDER ({len(replays)})": [
                ARENA,
                "replay",
                "verify",
                str(folder / many.stem),
            ],
            "bare loop (floor of run)": [sys.executable, "floor.py", str(script)],
            "bare loop (its first match)": [sys.executable, "floor.py", str(first)],
            f"arena run ({options.matches} matches, --jobs 1)": [
                ARENA,
                "run",
                str(python),
                "--quiet",
                "--jobs",
                "1",
            ],
            f"arena run ({options.matches} matches, unsandboxed)": [
                ARENA,
                "run",
                str(bare),
                "--quiet",
                "--jobs",
                "1",
            ],
            "arena run (1 match, unsandboxed)": [ARENA, "run", str(bare_one), "--quiet"],
        }
        measures: dict[str, Callable[[], float]] = {
            name: (lambda name=name, command=command: timed(command, folder, name))  # type: ignore[misc]
            for name, command in commands.items()
        }
        times = rounds(options.rounds, measures)
    print(f"command: python bench/startup.py --rounds {options.rounds} --matches {options.matches}")
    print(
        f"{'what':40} {'wall best':>10} {'median':>9} {'CPU best':>9}   ratio of best wall to its floor"
    )
    start_floor = min(times["python -c pass"])
    run_floor = min(times["bare loop (floor of run)"])
    for name, values in times.items():
        best = min(values)
        if name.startswith("arena run (1 match"):
            ratio = f"{best / min(times['bare loop (its first match)']):.2f}x the bare loop's first match"
        elif name.startswith("bare loop"):
            ratio = "floor"
        elif name.startswith("the stack"):
            ratio = f"{best / start_floor:.2f}x python -c pass"
        elif name.startswith("arena run"):
            ratio = f"{best / run_floor:.2f}x the bare loop (goal <= 1.25)"
        elif name.startswith("arena"):
            ratio = f"{best / start_floor:.2f}x python -c pass" + (
                "" if "FOLDER" in name else " (goal < 0.2 s)"
            )
        else:
            ratio = "floor"
        cpu = min(CPU[name])
        print(
            f"{name:40} {best * 1000:7.0f} ms {statistics.median(values) * 1000:6.0f} ms {cpu * 1000:6.0f} ms   {ratio}"
        )
    # Where the time of a run goes: a fixed start-up and a cost per match, from 1 and N matches.
    matches = options.matches
    for what, one_name, all_name in (
        (
            "arena run, unsandboxed",
            "arena run (1 match, unsandboxed)",
            f"arena run ({matches} matches, unsandboxed)",
        ),
        ("bare loop", "bare loop (its first match)", "bare loop (floor of run)"),
    ):
        one_match, all_matches = min(times[one_name]), min(times[all_name])
        per_match = (all_matches - one_match) / (matches - 1)
        print(
            f"{what:24} start-up and end {1000 * (one_match - per_match):5.0f} ms, "
            f"then {1000 * per_match:5.1f} ms a match"
        )
    print(
        "(CPU: user + system time of the process and its children: what the command costs "
        "when the machine is busy with other work)"
    )


if __name__ == "__main__":
    main()
