"""The arena's exceptions.

    ArenaError            anything the arena itself refuses or fails at
    ├── ConfigError       a config (or command-line value) that cannot be run; one line, exit 2
    ├── ReplayError       a replay file that cannot be read or does not replay
    └── WriteError        a replay, log or results file that could not be written

A misbehaving participant is never an exception: it is a fault recorded in the replay.
"""

from __future__ import annotations


class ArenaError(Exception):
    """Root of every error the arena raises on purpose."""


class ConfigError(ArenaError):
    """A config that cannot be run; the message is one line naming the file and the key."""


class ReplayError(ArenaError):
    """A replay file that cannot be read, or that does not replay to what it records."""


class WriteError(ArenaError):
    """A file the arena had to write could not be written (disk full, folder not writable)."""
