"""What the hostile participants share: the protocol loop, a sensible answer, a note of pids.

Standard library only. Each script in this folder is one way of misbehaving; the tests in
`tests/test_hostile.py` play a real match against each and check that nothing breaks.
"""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Iterator
from typing import Any


def note_pid(role: str = "bot") -> None:
    """Append this process's pid and process group to the file named by HOSTILE_PIDS."""
    path = os.environ.get("HOSTILE_PIDS")
    if path:
        with open(path, "a", encoding="utf-8") as file:
            file.write(json.dumps({"role": role, "pid": os.getpid(), "pgid": os.getpgid(0)}) + "\n")


def messages() -> Iterator[dict[str, Any]]:
    """Every message the arena writes, until it closes stdin."""
    for line in sys.stdin.buffer:
        yield json.loads(line)


def sensible(message: dict[str, Any]) -> Any:
    """A legal reply: ask the first other seat for the first card in hand; draw pond card 0."""
    kind = message["type"]
    if kind == "ask":
        sizes = message["opponentsHandSizes"]
        seat = next(index for index, size in enumerate(sizes) if size is not None)
        return {"player": seat, "cardId": message["hand"][0]["id"]}
    if kind in ("go-fish", "pick-up"):
        return 0
    return None


def send(data: bytes) -> None:
    """Write raw bytes to stdout at once (one write, so the arena reads them together)."""
    sys.stdout.buffer.write(data)
    sys.stdout.buffer.flush()


def reply(value: Any) -> None:
    send(json.dumps(value).encode() + b"\n")
