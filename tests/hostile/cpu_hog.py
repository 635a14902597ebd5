"""Spins the CPU when asked for `init`, and never answers."""

from _common import messages, note_pid

note_pid()
for message in messages():
    while True:
        pass
