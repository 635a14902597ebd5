"""A built-in bot run inside the arena, as a seat's `Participant`.

    seat = InProcessParticipant(BOTS["basic"]().handle)

It is handed the same lines in and out as its subprocess form: each message is read afresh from
its JSON line, and its reply goes through JSON and back (tuples become lists, keys strings).
A bot that raises has crashed: a `Fault`, never an exception, and its seat is gone for the
match.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from typing import Any

from arena.engine.match import NO_REPLY
from arena.seats.replies import (
    GONE,
    Answer,
    BoundedLog,
    Fault,
    FaultKind,
    Player,
    cut,
    decode_reply,
)


class InProcessParticipant(Player):
    """A built-in bot run inside the arena: the same lines in and out as its subprocess form."""

    def __init__(self, handle: Callable[[Any], Any]) -> None:
        self.handle = handle
        self._crashed: Fault | None = None
        self.log = BoundedLog(1 << 16)

    @property
    def alive(self) -> bool:
        return self._crashed is None

    @property
    def in_process(self) -> bool:
        return True

    @property
    def confinement(self) -> str:
        return "in-process"

    def stderr_text(self) -> str:
        return self.log.text()

    def exchange(self, line: bytes, timeout: float) -> Answer:
        if self._crashed:
            return GONE
        started = time.monotonic()
        try:
            reply = self.handle(json.loads(line))  # a fresh copy, as a subprocess would read
            text = json.dumps(reply)
        except Exception as error:  # noqa: BLE001 - a bot's bug is a fault, like a crash of its process
            self._crashed = Fault(FaultKind.CRASHED, f"{type(error).__name__}: {error}")
            self.log.feed(f"{type(error).__name__}: {error}\n".encode())
            return Answer(NO_REPLY, time.monotonic() - started, self._crashed)
        try:
            # Through JSON and back, as over a pipe: tuples become lists, keys strings.
            value = decode_reply(text.encode())
        except ValueError as error:  # e.g. NaN: one bad reply, as from a subprocess
            fault = Fault(FaultKind.NOT_JSON, f"reply is not JSON: {error}", cut(text))
            return Answer(NO_REPLY, time.monotonic() - started, fault)
        return Answer(value, time.monotonic() - started)
