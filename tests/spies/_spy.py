"""What the spies share: a legal player, and one report line on stderr.

Standard library only. Each spy in this folder is a participant written to cheat: it plays
legal moves and, on the side, tries one thing a sandbox must stop. What it found goes to its
stderr as one line `SPY {json}`, which the arena keeps beside the replay, where
`tests/test_spies.py` reads it. A spy never harms the machine when it is not sandboxed: what
would (signals) it only tries where it sees itself in a pid namespace of its own, and else
only asks whether it could (signal 0).
"""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Callable
from typing import Any

Hook = Callable[[dict[str, Any]], None]


def report(**found: Any) -> None:
    sys.stderr.write("SPY " + json.dumps(found) + "\n")
    sys.stderr.flush()


def sandboxed_pids() -> bool:
    """Whether this process is in a pid namespace of its own (there, pids start from 1)."""
    return os.getpid() < 100


def sensible(message: dict[str, Any]) -> Any:
    kind = message["type"]
    if kind == "ask":
        sizes = message["opponentsHandSizes"]
        seat = next(index for index, size in enumerate(sizes) if size is not None)
        return {"player": seat, "cardId": message["hand"][0]["id"]}
    if kind in ("go-fish", "pick-up"):
        return 0
    return None


def play(on: dict[str, Hook]) -> None:
    """Play legally; before answering a message of a type in `on`, call its hook."""
    for line in sys.stdin.buffer:
        message = json.loads(line)
        hook = on.get(message["type"])
        if hook is not None:
            try:
                hook(message)
            except Exception as error:  # noqa: BLE001 - a spy reports, it never crashes
                report(error=f"{type(error).__name__}: {error}")
        sys.stdout.write(json.dumps(sensible(message)) + "\n")
        sys.stdout.flush()
