"""What the arena's own process executes to play matches, in instructions: a measure that load
on the machine does not move (wall-clock ratios on a shared machine move by 0.1 and more).

The arena plays `bench/arena_vs_floor.py`'s matches (two Python participants, a replay written
for each) under callgrind, once with one round of N matches after a warm-up round and once with
two; the difference is what one round costs the arena's process (participants are not traced).
Needs valgrind; takes about a minute for 3 matches.

    python bench/arena_instructions.py [--matches 3] [--sandbox auto|bwrap|none]
"""

from __future__ import annotations

import argparse
import re
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

ROUNDS = """
import sys, tempfile
from pathlib import Path
sys.path.insert(0, {bench!r})
import arena_vs_floor as avf
with tempfile.TemporaryDirectory() as folder:
    path = avf.write_config(Path(folder), {matches}, {sandbox!r})
    for number in range({rounds} + 1):  # the first is the warm-up
        _, replays = avf.arena_round(path, Path(folder) / f"r{{number}}", f"r{{number}}")
    print(sum(len(avf.json.loads(r.read_bytes())["transcript"]) for r in replays))
"""


def instructions(matches: int, sandbox: str, rounds: int, folder: Path) -> tuple[int, int]:
    """Instructions of the arena's process (the largest callgrind output: not a forked child),
    and the messages of a round."""
    code = ROUNDS.format(bench=str(ROOT / "bench"), matches=matches, sandbox=sandbox, rounds=rounds)
    out = folder / f"{rounds}"
    out.mkdir()
    done = subprocess.run(
        [
            "valgrind",
            "--tool=callgrind",
            f"--callgrind-out-file={out}/callgrind.%p",
            sys.executable,
            "-c",
            code,
        ],
        check=True,
        capture_output=True,
    )
    totals = []
    for dump in out.iterdir():
        found = re.search(r"^(?:summary|totals): (\d+)", dump.read_text(), flags=re.MULTILINE)
        totals.append(int(found.group(1)) if found else 0)
    return max(totals), int(done.stdout.split()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--matches", type=int, default=3)
    parser.add_argument("--sandbox", choices=("auto", "bwrap", "none"), default="auto")
    options = parser.parse_args()
    with tempfile.TemporaryDirectory() as temporary:
        one, _ = instructions(options.matches, options.sandbox, 1, Path(temporary))
        two, messages = instructions(options.matches, options.sandbox, 2, Path(temporary))
    sandbox = "" if options.sandbox == "auto" else f" --sandbox {options.sandbox}"
    print(f"command: python bench/arena_instructions.py --matches {options.matches}{sandbox}")
    per_round = two - one
    print(
        f"the arena's process: {per_round / 1e6:.0f} M instructions per round of "
        f"{options.matches} matches of {messages} messages "
        f"({per_round / messages / 1e3:.0f} k a message, everything included)"
    )


if __name__ == "__main__":
    main()
