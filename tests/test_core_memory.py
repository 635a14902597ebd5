"""The C core under AddressSanitizer and UndefinedBehaviorSanitizer.

arena/core/_core.c is built again with `-fsanitize=address,undefined` and driven from a Python
process that preloads the sanitizer's runtime: every rule set of tests/test_core.py, games
stepped with valid and invalid actions, autoreset, the event log growing, the search's
rollouts, the error paths (buffers of the wrong size, a game out of range, a card no pack
holds). Any out-of-bounds read or write, use after free or undefined behaviour ends the process
with the sanitizer's report. Skipped where gcc or its ASan runtime is missing (CI has both).
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import sysconfig
import textwrap
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

DRIVE = textwrap.dedent(
    """
    import random, sys
    import numpy as np
    import _core
    sys.path.insert(0, sys.argv[1])
    sys.path.insert(0, sys.argv[2])
    from test_core import RULE_SETS, max_turns
    from arena.core import settings
    from arena.env.encoding import RANKS, vector_length

    rng = np.random.default_rng(5)
    played = 0
    for name, rules, seats, idle in RULE_SETS:
        games = 5
        batch = _core.Batch(games, seats, *settings(rules, seats), max_turns(rules), idle, True, name == "classic-2")
        for i in range(games):
            batch.reset(i, 2**64 - 1 - i if i % 2 else i, games)
        length, actions = vector_length(seats), seats * RANKS
        obs = np.zeros((games, length), np.float32)
        mask = np.zeros((games, actions), np.int8)
        seat = np.zeros(games, np.int32)
        rewards = np.zeros((games, seats), np.float32)
        ended = np.zeros(games, np.int8)
        chosen = np.zeros(games, np.int64)
        for _ in range(400):
            batch.sample(chosen)
            wild = rng.random(games) < 0.2
            chosen[wild] = rng.integers(-2**40, 2**40, int(wild.sum()))
            batch.step(chosen, obs, mask, seat, rewards, ended)
            played += int(np.count_nonzero(ended))
        batch.observe(obs, mask, seat)
        for i in range(games):
            batch.events(i)
            batch.state(i)
            batch.play_out(i)
            batch.act(i, 3)
        batch.run(20, 99)
        for bad in (lambda: batch.observe(obs[:1], mask, seat), lambda: batch.act(games, 0),
                    lambda: batch.step(chosen[:1], obs, mask, seat, rewards, ended)):
            try:
                bad()
            except (ValueError, IndexError):
                pass
            else:
                raise SystemExit("a bad call was taken")
        del batch
    r = random.Random(2)
    for _ in range(300):
        seats = r.choice([2, 3, 5])
        deck = [rank * 4 + suit for rank in range(14) for suit in range(4)] * 2
        r.shuffle(deck)
        hands = [deck[7 * s : 7 * s + 7] for s in range(seats)]
        asks = [(1, hands[0][0] >> 2), (seats - 1, hands[0][1] >> 2)]
        _core.rollouts(hands, deck[7 * seats :], [0] * seats, r.randrange(3), r.randrange(3),
                       [r.getrandbits(14)] * seats, [r.getrandbits(14)] * seats,
                       r.getrandbits(32), 0, asks, r.choice([0, 10, 200]))
    for bad in ([[1, 99], [2]], [[1], [2]] * 40):
        try:
            _core.rollouts(bad, [], [0] * len(bad), 1, 0, [], [], 1, 0, [(1, 0)], 5)
        except ValueError:
            pass
        else:
            raise SystemExit("a bad world was taken")
    print("played", played)
    """
)


def sanitizer_runtime() -> str | None:
    if shutil.which("gcc") is None:
        return None
    found = subprocess.run(
        ["gcc", "-print-file-name=libasan.so"], capture_output=True, text=True, check=False
    ).stdout.strip()
    return found if os.path.isabs(found) and os.path.exists(found) else None


@pytest.mark.slow  # (about 10 s: a build and every rule set; the full tier and CI run it)
@pytest.mark.skipif(sanitizer_runtime() is None, reason="gcc with AddressSanitizer is not here")
def test_the_c_core_is_clean_under_address_and_undefined_behaviour_sanitizers(
    tmp_path: Path,
) -> None:
    runtime = sanitizer_runtime()
    assert runtime is not None
    built = tmp_path / "_core.so"
    subprocess.run(
        [
            "gcc",
            "-std=c99",
            "-O1",
            "-g",
            "-fsanitize=address,undefined",
            "-fno-sanitize-recover=all",
            "-fno-omit-frame-pointer",
            "-shared",
            "-fPIC",
            "-I" + sysconfig.get_paths()["include"],
            str(ROOT / "arena" / "core" / "_core.c"),
            "-o",
            str(built),
        ],
        check=True,
        capture_output=True,
    )
    script = tmp_path / "drive.py"
    script.write_text(DRIVE, encoding="utf-8")
    done = subprocess.run(
        [sys.executable, str(script), str(ROOT / "tests"), str(ROOT)],
        cwd=tmp_path,
        env={
            **os.environ,
            "PYTHONPATH": str(tmp_path),
            "LD_PRELOAD": runtime,
            "ASAN_OPTIONS": "detect_leaks=0:abort_on_error=0:exitcode=86",
            "UBSAN_OPTIONS": "print_stacktrace=1:exitcode=86",
        },
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-4000:]
    assert "Sanitizer" not in done.stderr, done.stderr[-4000:]
    assert int(done.stdout.split()[-1]) > 50  # games ended and were dealt again
