"""The league's settings: `league.toml`, a `config.toml` whose participants are optional, with
a `[league]` table declared once here (docs/league.md).

    settings = load(folder)   # raises ConfigError: one line naming the file and the key
    settings.config, settings.unpack, settings.build, settings.site, settings.sizes

Every `[league]` setting is a field of `LeagueSection`, with its file name (camelCase, as the
rest of the config) and its bounds, read through the config's own path (`config.read_file`,
`config.read_section`); `load` turns it into the limits each room of the league takes.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, Self

from pydantic import Field, field_validator

from arena.base import config as config_module
from arena.base.config import MAX_SEATS, Config, Section
from arena.base.errors import ConfigError

if TYPE_CHECKING:
    from arena.league.build import BuildSettings
    from arena.league.limits import SiteLimits
    from arena.league.submission import UnpackLimits

DAY_HOURS = 24.0


class LeagueSection(Section, frozen=True):
    """`[league]`: table sizes, upload, build and site limits, the season's end, the disk."""

    seats: int | list[int] | None = (
        None  # a table size or a list of them (None: `[tournament] seats`)
    )
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

    @field_validator("seats", mode="before")
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

    @classmethod
    def read(cls, data: Any) -> Self:
        """`[league]` from a file's data: its keys in the file's spelling or in Python's (as
        league.toml has always taken them). Raises ValidationError."""
        return cls.model_validate(data)

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
    return config_module.read_section(path, "league", LeagueSection, data)


@dataclass(frozen=True)
class LeagueSettings:
    """What `league.toml` says: the match config, the upload, build and site limits, the table
    sizes matchmaking may choose from, and the `[league]` table itself (the season's end, the
    sessions, the disk)."""

    config: Config
    unpack: UnpackLimits
    build: BuildSettings
    site: SiteLimits
    sizes: tuple[int, ...]
    league: LeagueSection


def load(folder: Path) -> LeagueSettings:
    """The league's config (`league.toml` in `folder`). Raises ConfigError (one line)."""
    from arena.league.build import BuildSettings
    from arena.league.limits import SiteLimits
    from arena.league.store import CONFIG
    from arena.league.submission import UnpackLimits

    path = folder / CONFIG
    data = config_module.read_file(path)
    league = read(path, data.pop("league", {}))
    tournament = data.setdefault("tournament", {})
    if not isinstance(tournament, dict):
        raise ConfigError(f"{path}: [tournament] must be a table")
    tournament.setdefault("seats", 2)
    sizes = league.sizes
    if sizes is None:  # one size: the tournament's
        seats = tournament["seats"]
        sizes = (seats,) if isinstance(seats, int) and not isinstance(seats, bool) else (2,)
    # The participants come and go in a league: stand-ins, as many as the largest table.
    data.setdefault(
        "participants", [{"name": f"seat-{n}", "bot": "random"} for n in range(max(sizes))]
    )
    data["replays"] = "replays"
    config, _ = config_module.validate(path, data)
    rules = config.engine_rules
    for size in sizes:
        try:
            rules.check_deal(size)
        except ValueError as error:
            needs = str(error).removeprefix("the deal ")  # "needs 63 cards (9 seats × 7) but …"
            raise ConfigError(f"{path}: league.seats: a table of {size} {needs}") from None
    return LeagueSettings(
        config,
        UnpackLimits(league.archive_bytes, league.unpacked_bytes, league.files),
        BuildSettings(league.build_seconds, league.build_memory_mib),
        SiteLimits(league.requests_per_minute, league.uploads_per_minute),
        sizes,
        league,
    )
