"""Golden replays: matches of every setting and fault kind, recorded once and played again.

    python tests/golden/golden.py --write     # regenerate on purpose, then review the diff

Each config in `configs/` is run by the real CLI (`arena run CONFIG --jobs 1`) in a copy of this
folder; its replays, `results.jsonl` and `standings.json` are normalised (what depends on the
clock, the machine or the run's stamp is taken out: see `TIMING_KEYS`) and kept in `recorded/`.
The participants are deterministic (built-in bots, and `fakes/scripted.py`, whose faults are
scripted by message number), so a later arena must produce the same documents.

The comparison is "recorded ⊆ played": every key recorded must be there with the same value,
and every list must be the same length; a key the arena adds later does not break the net.
Human prose (a fault's `detail`, a stderr tail) is not part of the contract and is left out.
"""

from __future__ import annotations

import json
import os
import shutil
import sys
import tempfile
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
CONFIGS = HERE / "configs"
RECORDED = HERE / "recorded"

# Keys whose values depend on the clock, the machine, the run's stamp or are prose.
TIMING_KEYS = {
    "arena",
    "startedAt",
    "durationSeconds",
    "timings",
    "run",
    "stamp",
    "seconds",
    "replay",
    "detail",
    "stderrTail",
    "logs",
    "replyTimes",  # how fast each seat replied: the clock
    "notes",  # what a bot wrote to stderr meanwhile: prose, and when a crash's traceback lands is timing
}


def normalise(value: Any, folder: str) -> Any:
    """`value` without timing keys, with this run's folder and interpreter replaced by names."""
    if isinstance(value, dict):
        return {k: normalise(v, folder) for k, v in value.items() if k not in TIMING_KEYS}
    if isinstance(value, list):
        return [normalise(v, folder) for v in value]
    if isinstance(value, str):
        return value.replace(sys.executable, "<python>").replace(folder, "<folder>")
    return value


def run(name: str, work: Path) -> Path:
    """Run one golden config with the real CLI in a copy of this folder made at `work` (its
    `configs` and `fakes`); the folder of its replays, results and standings. The command runs
    in this process (`tests/command.py`): what is compared is what it writes."""
    from command import arena_here  # (tests/: on the path under pytest, and for the script)

    shutil.copytree(CONFIGS, work / "configs")
    shutil.copytree(HERE / "fakes", work / "fakes", ignore=shutil.ignore_patterns("__pycache__"))
    env = {**os.environ, "NO_COLOR": "1", "COLUMNS": "200"}
    config = str(work / "configs" / f"{name}.toml")
    done = arena_here("run", config, "--jobs", "1", "--quiet", env=env)
    if done.returncode != 0:
        raise AssertionError(f"{name}: exit {done.returncode}\n{done.stdout}\n{done.stderr}")
    return work / "configs" / "replays"


def read(work: Path) -> dict[str, Any]:
    """The normalised replays, results and standings of a run made by `run(name, work)`."""
    replays = work / "configs" / "replays"
    folder = str(work)
    documents = sorted(
        (
            json.loads(p.read_text(encoding="utf-8"))
            for p in replays.glob("*.json")
            if p.name != "standings.json"
        ),
        key=lambda d: d.get("game", 0),
    )
    played: dict[str, Any] = {"replays": [normalise(d, folder) for d in documents]}
    results = replays / "results.jsonl"
    if results.exists():
        lines = [json.loads(line) for line in results.read_text(encoding="utf-8").splitlines()]
        played["results"] = normalise(sorted(lines, key=lambda d: d["game"]), folder)
    standings = replays / "standings.json"
    if standings.exists():
        played["standings"] = normalise(json.loads(standings.read_text(encoding="utf-8")), folder)
    return played


def play(name: str) -> dict[str, Any]:
    """Run one golden config with the real CLI; its normalised replays, results and standings."""
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp) / "golden"
        run(name, work)
        return read(work)


def differences(recorded: Any, played: Any, where: str = "") -> list[str]:
    """Where `played` does not hold `recorded` (dict keys may be added, nothing else changes)."""
    if isinstance(recorded, dict) and isinstance(played, dict):
        found: list[str] = []
        for key, value in recorded.items():
            if key in TIMING_KEYS:
                continue  # recorded before it was left out: not part of the comparison
            if key not in played:
                found.append(f"{where}.{key}: missing")
            else:
                found += differences(value, played[key], f"{where}.{key}")
        return found
    if isinstance(recorded, list) and isinstance(played, list):
        if len(recorded) != len(played):
            return [f"{where}: {len(recorded)} items recorded, {len(played)} played"]
        found = []
        for index, (a, b) in enumerate(zip(recorded, played, strict=True)):
            found += differences(a, b, f"{where}[{index}]")
            if len(found) > 5:
                break
        return found
    if recorded != played or type(recorded) is not type(played):
        return [f"{where}: recorded {recorded!r:.200}, played {played!r:.200}"]
    return []


def names() -> list[str]:
    return sorted(p.stem for p in CONFIGS.glob("*.toml"))


def write() -> None:
    RECORDED.mkdir(exist_ok=True)
    for name in names():
        played = play(name)
        (RECORDED / f"{name}.json").write_text(
            json.dumps(played, sort_keys=True, separators=(",", ":")) + "\n", encoding="utf-8"
        )
        outcomes = [d["result"]["outcome"] for d in played["replays"]]
        print(f"{name}: {len(played['replays'])} replays, {outcomes}")


if __name__ == "__main__":
    if sys.argv[1:] != ["--write"]:
        sys.exit("usage: python tests/golden/golden.py --write")
    sys.path.insert(0, str(HERE.parent))  # tests/command.py
    write()
