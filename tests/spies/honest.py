"""An honest bot that thinks: at each of its first asks it computes for SECONDS of wall time
and reports the share of a CPU it got meanwhile (its CPU time over the wall time).

    python honest.py SECONDS
"""

from __future__ import annotations

import sys
import time
from typing import Any

from _spy import play, report

SECONDS = float(sys.argv[1])
shares: list[float] = []


def on_ask(message: dict[str, Any]) -> None:
    if len(shares) >= 3:
        return
    wall, cpu = time.monotonic(), time.process_time()
    while time.monotonic() - wall < SECONDS:
        for _ in range(1000):
            pass
    shares.append((time.process_time() - cpu) / (time.monotonic() - wall))
    report(shares=shares)


play({"ask": on_ask})
