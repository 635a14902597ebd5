"""The human seat: a participant like any other, whose decisions come from a person.

`HumanSeat` is a `Participant` like any other (no process: nothing to start or kill), so the
match loop writes it the same message lines it writes any participant and records its replies
the same way. It decodes each line, asks its `Chooser` for the one
decision a person makes (which rank, from whom), and answers every other message as a plain
participant would: the top card (index 0) for `go-fish` and `pick-up`, `null` otherwise.
It has no time limit: the loop's timeout is ignored, as a person thinks as long as needed.
"""

from __future__ import annotations

import json
import time
from typing import Any, Protocol

from arena.seats.replies import Answer, Player, decode_reply


class Chooser(Protocol):
    """Where a person's ask comes from (the terminal, or a script in tests)."""

    def choose_ask(self, message: dict[str, Any]) -> tuple[int, int]:
        """(seat to ask, id of a card of the rank to ask for) for an `ask` message.

        May raise KeyboardInterrupt (Ctrl-C or quitting), which ends the match.
        """
        ...


class QuitGame(KeyboardInterrupt):
    """The player chose to stop. A KeyboardInterrupt, so the match loop stops the match the way
    it does on Ctrl-C: every process stopped, the replay kept and marked interrupted."""


class HumanSeat(Player):
    """A seat played by a person through a `Chooser`."""

    def __init__(self, chooser: Chooser) -> None:
        self.chooser = chooser
        self.seat: int | None = None

    def exchange(self, line: bytes, timeout: float) -> Answer:
        started = time.monotonic()
        message = json.loads(line)
        reply = self.reply(message)
        # Through JSON and back, as over a pipe.
        value = decode_reply(json.dumps(reply).encode())
        return Answer(value, time.monotonic() - started)

    def reply(self, message: dict[str, Any]) -> Any:
        kind = message.get("type")
        if kind == "init":
            self.seat = message.get("seat")
        if kind == "ask":
            seat, card_id = self.chooser.choose_ask(message)
            return {"player": seat, "cardId": card_id}
        if kind in ("go-fish", "pick-up"):
            return 0  # the pond is face down: every card is as good as the top one
        return None
