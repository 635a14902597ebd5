"""What a hostile participant costs the arena: peak memory under floods, time against silence.

    python bench/hostile.py              # everything (about half a minute)
    python bench/hostile.py memory       # floods only
    python bench/hostile.py time         # silence only

Every scenario is one real match (`runner.play_one_match`, a subprocess per seat) against the
random bot, played in a fresh Python process so that its peak RSS (`ru_maxrss`) is its own.
The floor is the same match between two random bots, measured in the same run.

- memory: the arena's peak RSS while the hostile seat writes 300 MB to stdout without a
  newline (asked, and unasked), or 300 MB to stderr while playing normally;
- time: how long a match lasts whose hostile seat answers `init` and then never again, for
  several `replyTimeout`s, and one that never answers at all (its `startupTimeout`).
"""

from __future__ import annotations

import json
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
HOSTILE = ROOT / "tests" / "hostile"
MB = 1_000_000
FLOOD = 300 * MB

# Answers `init`, then writes FLOOD bytes to stdout without a newline (asked, or unasked).
FLOODER = """
import sys, time
block = b"x" * (1 << 16)
sys.stdin.buffer.readline()  # init
sys.stdout.buffer.write(b"null\\n"); sys.stdout.buffer.flush()
if sys.argv[1] == "asked":
    sys.stdin.buffer.readline()  # its starting-hand: the reply never ends
else:
    time.sleep(0.01)  # unasked: before the arena writes again
written = 0
while written < {flood}:
    sys.stdout.buffer.write(block); sys.stdout.buffer.flush(); written += len(block)
open("written.txt", "w").write(str(written))  # never reached: it is stopped long before
time.sleep(600)
"""

# Plays (sensibly), writing FLOOD bytes of log lines to stderr over its first eight replies.
STDERR_PLAYER = """
import json, sys
block = b"x" * 999 + b"\\n"
written = 0
for line in sys.stdin.buffer:
    message = json.loads(line)
    if written < {flood}:
        for _ in range(({flood} // 1000) // 8):
            sys.stderr.buffer.write(block)
        sys.stderr.buffer.flush()
        written += ({flood} // 1000) // 8 * 1000
    reply = None
    if message["type"] == "ask":
        other = next(i for i, size in enumerate(message["opponentsHandSizes"]) if size is not None)
        reply = {{"player": other, "cardId": message["hand"][0]["id"]}}
    elif message["type"] in ("go-fish", "pick-up"):
        reply = 0
    sys.stdout.write(json.dumps(reply) + "\\n"); sys.stdout.flush()
with open("written.txt", "w") as f:
    f.write(str(written))
"""


def one_match(hostile: list[str] | None, limits: dict[str, Any]) -> dict[str, Any]:
    """Play one match in this process; report its time, peak RSS and the hostile seat's faults."""
    from arena.base import config as config_module
    from arena.tournaments import runner

    with tempfile.TemporaryDirectory() as folder_name:
        folder = Path(folder_name)
        seat0 = f"command = {json.dumps(hostile)}" if hostile else 'bot = "random"'
        text = "seed = 11\n[limits]\n" + "".join(
            f"{key} = {json.dumps(value)}\n" for key, value in limits.items()
        )
        text += f'[[participants]]\nname = "hostile"\n{seat0}\n[[participants]]\nname = "random"\nbot = "random"\n'
        (folder / "config.toml").write_text(text)
        config, seats = config_module.load(folder / "config.toml")
        began = time.monotonic()
        played = runner.play_one_match(
            config, seats, match=0, seed=11, folder=folder / "replays", stamp="bench"
        )
        seconds = time.monotonic() - began
        data = json.loads(played.replay.read_text())
        written = folder / "written.txt"
        return {
            "seconds": seconds,
            "peakRssMiB": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
            "faults": sorted({fault["kind"] for fault in data["faults"] if fault["seat"] == 0}),
            "written": int(written.read_text()) if written.exists() else None,
            "outcome": data["result"]["outcome"],
        }


def in_fresh_process(hostile: list[str] | None, limits: dict[str, Any]) -> dict[str, Any]:
    code = (
        f"import json, sys; sys.path.insert(0, {str(ROOT)!r}); sys.path.insert(0, {str(ROOT / 'bench')!r})\n"
        f"from hostile import one_match\nprint(json.dumps(one_match({hostile!r}, {limits!r})))"
    )
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=600
    )
    return json.loads(result.stdout.splitlines()[-1])  # type: ignore[no-any-return]


def script(folder: Path, name: str, source: str) -> Path:
    path = folder / name
    path.write_text(source.format(flood=FLOOD))
    return path


def memory() -> None:
    floor = in_fresh_process(None, {})
    print(
        f"floor: random vs random, peak RSS {floor['peakRssMiB']:.1f} MiB, {floor['seconds']:.2f} s"
    )
    print(f"{'scenario':46} {'written':>11} {'peak RSS':>10} {'× floor':>8} {'time':>7}  faults")
    with tempfile.TemporaryDirectory() as folder_name:
        folder = Path(folder_name)
        flooder = script(folder, "flooder.py", FLOODER)
        player = script(folder, "stderr_player.py", STDERR_PLAYER)
        cases: list[tuple[str, list[str], dict[str, Any]]] = [
            (
                "stdout, no newline, when asked (cap 1 MiB)",
                [sys.executable, str(flooder), "asked"],
                {},
            ),
            (
                "stdout, no newline, when asked (cap 64 MiB)",
                [sys.executable, str(flooder), "asked"],
                {"maxLineBytes": 64 << 20},
            ),
            (
                "stdout, no newline, unasked (cap 1 MiB)",
                [sys.executable, str(flooder), "unasked"],
                {},
            ),
            (
                "stderr while playing (log cap 1 MiB)",
                [sys.executable, str(player)],
                {"replyTimeout": 30.0},
            ),
        ]
        for title, command, limits in cases:
            row = in_fresh_process(command, limits)
            written = f"{row['written'] / MB:.1f} MB" if row["written"] is not None else "(stopped)"
            print(
                f"{title:46} {written:>11} {row['peakRssMiB']:>6.1f} MiB {row['peakRssMiB'] / floor['peakRssMiB']:>7.2f}× "
                f"{row['seconds']:>6.2f}s  {','.join(row['faults']) or '-'}"
            )


def timing() -> None:
    floors = sorted(in_fresh_process(None, {})["seconds"] for _ in range(3))
    floor = {"seconds": floors[1]}
    print(f"floor: random vs random, {floor['seconds']:.2f} s (median of 3)")
    print(f"{'scenario':44} {'limit':>7} {'match':>8} {'match - floor':>14}  faults")
    never = str(HOSTILE / "never_answers.py")
    for timeout in (0.1, 0.5, 1.0, 2.0):
        row = in_fresh_process([sys.executable, never, "after-init"], {"replyTimeout": timeout})
        print(
            f"{'answers init, then never (replyTimeout)':44} {timeout:>6.1f}s {row['seconds']:>7.2f}s "
            f"{row['seconds'] - floor['seconds']:>13.2f}s  {','.join(row['faults'])}"
        )
    for startup in (1.0, 5.0):
        row = in_fresh_process([sys.executable, never], {"startupTimeout": startup})
        print(
            f"{'never answers at all (startupTimeout)':44} {startup:>6.1f}s {row['seconds']:>7.2f}s "
            f"{row['seconds'] - floor['seconds']:>13.2f}s  {','.join(row['faults'])}"
        )


if __name__ == "__main__":
    which = sys.argv[1] if len(sys.argv) > 1 else "all"
    if which in ("memory", "all"):
        memory()
    if which in ("time", "all"):
        timing()
