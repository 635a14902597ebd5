"""The `[league]` table of `league.toml`, declared once (docs/league.md).

    section = read(path, data.get("league", {}))    # raises ConfigError, one line naming the key

Every league setting is a field here, with its file name (camelCase, as the rest of the config)
and its bounds; `arena.ui.league_command.load_config` turns it into the limits each room takes.
"""

from __future__ import annotations

import datetime as dt
from pathlib import Path
from typing import Annotated, Any

from pydantic import Field, ValidationError, field_validator

from arena.base.config import MAX_SEATS, Config, _Section
from arena.base.config_errors import first_problem
from arena.base.errors import ConfigError

DAY_HOURS = 24.0


class LeagueSection(_Section, frozen=True):
    """`[league]`: table sizes, upload, build and site limits, the season's end, the disk."""

    seats: Any = None  # a table size or a list of them (None: `[tournament] seats`)
    archive_bytes: Annotated[int, Field(ge=1)] = 8 << 20
    unpacked_bytes: Annotated[int, Field(ge=1)] = 64 << 20
    files: Annotated[int, Field(ge=1)] = 2000
    build_seconds: Annotated[float, Field(gt=0)] = 120.0
    build_memory_mib: Annotated[int, Field(ge=16, alias="buildMemoryMiB")] = 1024
    requests_per_minute: Annotated[int, Field(ge=1)] = 600
    uploads_per_minute: Annotated[int, Field(ge=1)] = 10
    # The season's end: the first of `deadline` and `maxMatches` reached starts the final phase.
    deadline: dt.datetime | None = None
    max_matches: Annotated[int | None, Field(ge=1)] = None
    # The final phase: this many duplicate groups (fresh deals, every rotation) per pair.
    final_deals: Annotated[int, Field(ge=0, le=10_000)] = 12
    session_hours: Annotated[float, Field(gt=0, le=24 * 366)] = 12.0  # signed in this long
    replay_mib: Annotated[float | None, Field(gt=0, alias="replayMiB")] = None  # replays' budget

    @field_validator("deadline", mode="before")
    @classmethod
    def _when(cls, value: Any) -> Any:
        """A TOML date-time (`2026-12-18T16:00:00+01:00`), or the same as a string; without a
        zone it is the server's local time."""
        if isinstance(value, str):
            try:
                value = dt.datetime.fromisoformat(value)
            except ValueError:
                raise ValueError(
                    f"{value[:40]!r} is not a date and time (e.g. 2026-12-18T16:00:00+01:00)"
                ) from None
        if isinstance(value, dt.date) and not isinstance(value, dt.datetime):
            value = dt.datetime.combine(value, dt.time())
        if isinstance(value, dt.datetime) and value.tzinfo is None:
            value = value.astimezone()
        return value

    @field_validator("seats")
    @classmethod
    def _sizes(cls, value: Any) -> Any:
        given = [value] if isinstance(value, int) and not isinstance(value, bool) else value
        if given is not None and (
            not isinstance(given, list)
            or not given
            or not all(isinstance(n, int) and not isinstance(n, bool) for n in given)
            or not all(2 <= n <= MAX_SEATS for n in given)
        ):
            raise ValueError(
                f"a table size or a list of them, each 2 to {MAX_SEATS} (e.g. seats = [2, 3, 4])"
            )
        return value

    @property
    def sizes(self) -> tuple[int, ...] | None:
        """The table sizes, sorted, once each (None: not given here)."""
        if self.seats is None:
            return None
        return tuple(sorted(set([self.seats] if isinstance(self.seats, int) else self.seats)))

    @property
    def replay_bytes(self) -> int | None:
        """The replays' disk budget in bytes (None: none; the oldest past it are pruned)."""
        return None if self.replay_mib is None else int(self.replay_mib * (1 << 20))

    @property
    def session_seconds(self) -> float:
        return self.session_hours * 3600.0


def read(path: Path, data: Any) -> LeagueSection:
    """`[league]` of the file at `path`. Raises ConfigError: one line naming the file and key."""
    if not isinstance(data, dict):
        raise ConfigError(f"{path}: [league] must be a table")
    try:
        return LeagueSection.model_validate(data)
    except ValidationError as error:
        raise ConfigError(f"{path}: league.{first_problem(error, Config)}") from None
