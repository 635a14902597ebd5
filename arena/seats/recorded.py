"""Seats that answer from a recorded transcript: how a replay is played again.

A `Recording` holds a transcript and one cursor; each seat's `RecordedParticipant` answers the
next message with the reply recorded for it, as it was recorded (a fault, not delivered, the
output nobody asked for). `replay verify` seats one per player and checks, message by message,
that the engine sends what was recorded. A fork of a replay wraps a live participant per seat
so that it is fed its messages up to an index (`Recording.next` tells where the match is)
while the recorded answers are the ones handed on, and answers for itself after.
"""

from __future__ import annotations

from collections.abc import Sequence

from arena.seats.replies import GONE, Answer, Exchange, Player


class Recording:
    """A recorded transcript being played back; `next` is the index of the next message."""

    def __init__(self, transcript: Sequence[Exchange]) -> None:
        self.transcript = transcript
        self.next = 0

    @property
    def exhausted(self) -> bool:
        """Whether every recorded message has been answered."""
        return self.next >= len(self.transcript)

    def answer(self) -> Answer:
        """The recorded answer to the next message (not delivered, past the end)."""
        index, self.next = self.next, self.next + 1
        if index >= len(self.transcript):
            return GONE
        return self.transcript[index].answer

    def seat(self, seat: int) -> RecordedParticipant:
        return RecordedParticipant(self, seat)


class RecordedParticipant(Player):
    """One seat of a recording: answers what was recorded, in order."""

    def __init__(self, recording: Recording, seat: int) -> None:
        self.recording = recording
        self.seat = seat

    def exchange(self, line: bytes, timeout: float) -> Answer:
        return self.recording.answer()


__all__ = ["RecordedParticipant", "Recording"]
