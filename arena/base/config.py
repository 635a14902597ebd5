"""`config.toml` (contract §5): frozen models, and one clear line for anything wrong with it.

Every check happens here, before any process starts: unknown keys (with a "did you mean"),
wrong types, impossible values, a deal the pack cannot cover, a program that is not there.
"""

from __future__ import annotations

import difflib
import os
import shlex
import shutil
import sys
import unicodedata
from dataclasses import MISSING
from enum import Enum
from pathlib import Path
from typing import Annotated, Any, Self, TypeVar

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator

from arena.base.config_errors import first_problem
from arena.base.errors import ConfigError
from arena.base.files import UnreadableFile, check_writable, read_capped
from arena.bots import Level
from arena.engine.rules import DeckRules, Rules, TableRules
from arena.engine.settings import (
    DEFAULT_MAX_TURNS,
    GAMES_LIMIT,
    NAME_LENGTH,
    SEED_LIMIT,
    Limits,
    SprtSettings,
    declared,
    table,
    told,
)

# A closed set of the engine's or the bots' own, read from its value (TOML holds strings).
Lax = Field(strict=False)

# The most seats at one table: `init` lists every seat to every seat, so a table's messages grow
# with the square of its size (docs/rulings.md).
MAX_SEATS = 64
TITLE_LIMIT = 200  # characters of a tournament's title
CONFIG_LIMIT = 1 << 20  # the largest config file read (bytes)
TURNS_PER_CARD = 4  # the default `maxTurns` is this many asks per card of the pack, at least 5000


# Config keys whose file spelling is not plain camelCase of the Python name.
_SPELLED = {"matches": "games"}


def toml_name(field: str) -> str:
    """A field's key in the config file and in replays (contract §5): `reply_timeout` is
    `replyTimeout`; a declared setting's key is its declaration's (`memoryMiB`)."""
    if field in _SPELLED:
        return _SPELLED[field]
    head, *words = field.split("_")
    return head + "".join(word.capitalize() for word in words)


class Section(BaseModel, frozen=True):
    """A table of the config: snake_case in Python, the contract's names in files.

    Python code builds one by field name (`LimitsSection(reply_timeout=1)`); a file's data goes
    through `read`, which takes the file's spelling only. Dumps (replays, the tournament id)
    and error locations use the file's names.
    """

    # defer_build: a model's validator is built at its first use, not at import (start-up).
    model_config = ConfigDict(
        extra="forbid",
        strict=True,
        frozen=True,
        alias_generator=toml_name,
        validate_by_name=True,
        validate_by_alias=True,
        serialize_by_alias=True,
        allow_inf_nan=False,
        defer_build=True,
    )

    @classmethod
    def read(cls, data: Any) -> Self:
        """The table from a file's data: only the file's spelling of a key is known (one
        spelling in files; `reply_timeout` is an unknown key). Raises ValidationError."""
        return cls.model_validate(data, by_alias=True, by_name=False)


_Section = Section  # (the config's own sections)


def _declared(kind: type[Any]) -> dict[str, Any]:
    """A section's fields from the settings dataclass that declares them (`arena.engine.settings`),
    for its class body: the annotations (type, key, bounds, description) and the defaults."""
    annotations: dict[str, Any] = {}
    defaults: dict[str, Any] = {}
    for name, hint, declaration in declared(kind):
        lax = isinstance(hint, type) and issubclass(hint, Enum)
        field = Field(
            alias=declaration.key,
            description=declaration.description,
            strict=False if lax else None,
            ge=declaration.ge,
            gt=declaration.gt,
            le=declaration.le,
            lt=declaration.lt,
        )
        annotations[name] = Annotated[hint, field]
        if declaration.default is not MISSING:  # (else required)
            defaults[name] = declaration.default
    return {"__annotations__": annotations, **defaults}


class RulesSection(_Section, TableRules, frozen=True):
    locals().update(_declared(TableRules))

    @model_validator(mode="after")
    def _rules_fit_together(self) -> RulesSection:
        if self.deal_by_seats and "starting_hand_size" in self.model_fields_set:
            raise ValueError(
                "dealBySeats: deals by table size (7 each for two seats, 5 for three or more), "
                "so it cannot go with startingHandSize: give one of them"
            )
        problem = Rules(
            min_hand_size=self.min_hand_size,
            refill_empty_hand=self.refill_empty_hand,
            refill_when=self.refill_when,
        ).problem()
        if problem is not None:
            raise ValueError(f"{problem[0]}: {problem[1]}")
        return self


# Ready rule sets by name (`arena play --rules NAME`, `rules = "NAME"` in a config): each is the
# `[rules]` table of arena/base/rule_sets/NAME.toml, packaged with the arena.
RULE_SETS: tuple[str, ...] = ("classic", "family-two", "family-table", "kitchen-table")


def rule_set(name: str) -> dict[str, Any]:
    """The `[rules]` table of the ready rule set `name`, as a file gives it. Raises ValueError
    for an unknown name (its message lists the known ones)."""
    if name not in RULE_SETS:
        close = difflib.get_close_matches(name, RULE_SETS, n=1)
        hint = f"did you mean {close[0]!r}?" if close else f"known: {', '.join(RULE_SETS)}"
        raise ValueError(f"no rule set named {name!r}; {hint}")
    import tomllib
    from importlib.resources import files

    text = files("arena.base").joinpath("rule_sets", f"{name}.toml").read_text(encoding="utf-8")
    table: dict[str, Any] = tomllib.loads(text)["rules"]
    return table


def _rules_by_name(rules: Any) -> Any:
    """`rules = "family-two"`: a ready rule set's `[rules]` in place of a table of its own."""
    return rule_set(rules) if isinstance(rules, str) else rules


class DeckSection(_Section, DeckRules, frozen=True):
    locals().update(_declared(DeckRules))


class LimitsSection(_Section, Limits, frozen=True):
    """`[limits]` (declared in `arena.engine.settings.Limits`)."""

    locals().update(_declared(Limits))

    def match_options(self) -> dict[str, Any]:
        """What a `MatchSetup` takes from the limits: what seats are told, and the caps."""
        return {
            "limits": self.told_to_seats(),
            "max_turns": self.max_turns,
            "max_idle_turns": self.max_idle_turns,
        }

    def told_to_seats(self) -> dict[str, Any]:
        """The limits that apply to a participant, as sent in `init`."""
        return told(self, Limits)


class TournamentSection(_Section, frozen=True):
    seats: Annotated[int | None, Field(ge=2, le=MAX_SEATS)] = None  # None: everyone in every match
    duplicate: bool = True  # the same deal under every rotation of the seats
    reuse: bool = True  # keep participants that ask for it alive between matches
    in_process_bots: bool = True  # run built-in bots inside the arena
    scheduler: Annotated[str | None, Field(min_length=1)] = None  # a Dask scheduler address
    candidate: Annotated[str | None, Field(min_length=1)] = (
        None  # a gauntlet: this one at every table
    )
    # A label for people (report heading, standings.json, terminal); not part of the id.
    title: Annotated[str | None, Field(min_length=1, max_length=TITLE_LIMIT)] = None

    @field_validator("title")
    @classmethod
    def _printable_title(cls, title: str | None) -> str | None:
        if title is not None and not title.isprintable():
            raise ValueError("must be printable characters only (no control or invisible ones)")
        return title


class SprtSection(_Section, SprtSettings, frozen=True):
    """A sequential test of the candidate's share (arena/tournaments/sprt.py)."""

    locals().update(_declared(SprtSettings))

    @model_validator(mode="after")
    def _share1_above_share0(self) -> SprtSection:
        if self.share1 <= self.share0:
            raise ValueError(f"share1 ({self.share1}) must be above share0 ({self.share0})")
        return self


class ParticipantSection(_Section, frozen=True):
    name: Annotated[str, Field(min_length=1, max_length=NAME_LENGTH)]
    command: list[str] | str | None = None
    bot: Annotated[Level, Lax] | None = None
    env: dict[str, str] = Field(default_factory=dict)
    # More paths the participant may read inside its sandbox (a model, an opening book),
    # relative to the config file's folder; never writable.
    read_only: list[Annotated[str, Field(min_length=1)]] = Field(default_factory=list)

    @field_validator("name")
    @classmethod
    def _visible_name(cls, name: str) -> str:
        hidden = invisible_character(name)
        if hidden is not None:
            raise ValueError(
                f"holds {hidden}, which prints as nothing or turns the text around; "
                "a name must show as what it is"
            )
        return name

    @field_validator("command")
    @classmethod
    def _no_nul_in_command(cls, command: list[str] | str | None) -> list[str] | str | None:
        parts = [command] if isinstance(command, str) else command or []
        if any("\0" in part for part in parts):
            raise ValueError("a NUL character cannot be passed to a program")
        return command

    @field_validator("env")
    @classmethod
    def _env_names(cls, env: dict[str, str]) -> dict[str, str]:
        for name, value in env.items():
            if not name or "=" in name or "\0" in name:
                raise ValueError(f"{name!r} is not an environment variable name")
            if "\0" in value:
                raise ValueError(f"{name}: a NUL character cannot be in an environment variable")
        return env

    @model_validator(mode="after")
    def _one_way_to_run(self) -> ParticipantSection:
        if (self.command is None) == (self.bot is None):
            raise ValueError("give exactly one of `command` or `bot`")
        return self


class Config(_Section, frozen=True):
    seed: Annotated[int | None, Field(ge=0, lt=SEED_LIMIT)] = None
    matches: Annotated[int, Field(ge=1, le=GAMES_LIMIT)] = 1  # `games` in the file
    replays: Annotated[str, Field(min_length=1)] = "replays"
    # Factories: a default made here would build the section's validator at import (start-up).
    rules: RulesSection = Field(default_factory=RulesSection)
    deck: DeckSection = Field(default_factory=DeckSection)
    limits: LimitsSection = Field(default_factory=LimitsSection)
    _rule_set = field_validator("rules", mode="before")(_rules_by_name)
    tournament: TournamentSection = Field(default_factory=TournamentSection)
    sprt: SprtSection | None = None
    participants: Annotated[list[ParticipantSection], Field(min_length=2)]

    @property
    def engine_rules(self) -> Rules:
        return engine_rules(self.rules, self.deck)

    @property
    def duplicate_deals(self) -> bool:
        """Duplicate deals are a tournament's: without a `[tournament]` table, match i is dealt
        from seed + i as contract §5 says; with one, `duplicate` (default true) decides."""
        return "tournament" in self.model_fields_set and self.tournament.duplicate

    @property
    def seats_per_match(self) -> int:
        return self.tournament.seats or len(self.participants)


def invisible_character(text: str) -> str | None:
    """The first character of `text` that prints as nothing or changes the text's direction
    (a control, a format character such as U+200B or U+202E, a line separator, a lone
    surrogate), named as `U+200B (ZERO WIDTH SPACE)`; None when there is none."""
    for character in text:
        if unicodedata.category(character) in ("Cc", "Cf", "Cs", "Co", "Zl", "Zp"):
            name = unicodedata.name(character, "a control character")
            return f"U+{ord(character):04X} ({name})"
    return None


def engine_rules(rules: RulesSection, deck: DeckSection) -> Rules:
    """The engine's settings from the config's (or a replay's) `[rules]` and `[deck]`."""
    values = {name: getattr(rules, name) for name, _, _ in declared(TableRules)}
    values.update({name: getattr(deck, name) for name, _, _ in declared(DeckRules)})
    return Rules(**values)


def named_rules(name: str) -> Rules:
    """A ready rule set (`RULE_SETS`), one deck. Raises ConfigError for an unknown name."""
    try:
        table = rule_set(name)
    except ValueError as error:
        raise ConfigError(str(error)) from None
    return engine_rules(RulesSection.read(table), DeckSection())


def rules_file(path: Path) -> Rules:
    """The `[rules]` and `[deck]` of a config file (the rest is not read). Raises ConfigError."""
    data = _read_toml(path)
    chosen: dict[str, Any] = {key: data[key] for key in ("rules", "deck") if key in data}
    try:
        sections = _RuleSections.read(chosen)
    except ValidationError as error:
        raise ConfigError(f"{path}: {first_problem(error, Config)}") from None
    return engine_rules(sections.rules, sections.deck)


class _RuleSections(_Section, frozen=True):
    rules: RulesSection = Field(default_factory=RulesSection)
    _rule_set = field_validator("rules", mode="before")(_rules_by_name)
    deck: DeckSection = Field(default_factory=DeckSection)


def rule_warnings(config: Config) -> list[str]:
    """Settings that are valid but play a game few people expect, one line each (not errors)."""
    warnings: list[str] = []
    if config.rules.next_player == "Clockwise" and config.seats_per_match == 2:
        warnings.append(
            'rules.nextPlayer: "Clockwise" passes the turn to the seat after the one asked, so '
            'with two seats the asker plays every turn; "Asked" or "After asker" alternate'
        )
    if "refill_when" in config.rules.model_fields_set and not config.rules.refill_empty_hand:
        warnings.append(
            "rules.refillWhen: has no effect without refillEmptyHand (it says when an emptied "
            "hand draws a fresh one)"
        )
    return warnings


class Entrant(BaseModel):
    """A participant ready to run: its name and the argument list that starts it, with what its
    sandbox may read (a `seat` is an index at the table; an entrant is who sits there)."""

    model_config = ConfigDict(frozen=True, defer_build=True)

    name: str
    command: tuple[str, ...]
    cwd: Path
    env: dict[str, str]
    bot: str | None = None
    # For the sandbox (`arena.seats.sandbox`), every path absolute: what the organiser lets it
    # read besides its own program, and what it must never see (the config, the replays and
    # results, the other participants' files) wherever that lies inside what it may read.
    read_only: tuple[str, ...] = ()
    hidden: tuple[str, ...] = ()


def bot_command(level: str) -> tuple[str, ...]:
    return (sys.executable, "-m", "arena.bots", level)


def _read_toml(path: Path) -> dict[str, Any]:
    """A config file's TOML, read up to CONFIG_LIMIT bytes. Raises ConfigError (one line)."""
    import tomllib  # (here: start-up of the commands that read no TOML)

    try:
        raw = read_capped(path, CONFIG_LIMIT)
        if raw.startswith(b"\xef\xbb\xbf"):
            raise ConfigError(
                f"{path}: not valid TOML: it starts with a byte-order mark; save it as UTF-8 without one"
            )
        return tomllib.loads(raw.decode("utf-8"))
    except FileNotFoundError:
        raise ConfigError(f"{path}: no such config file") from None
    except UnreadableFile as error:
        raise ConfigError(f"{path}: cannot read: {error}") from None
    except OSError as error:
        raise ConfigError(f"{path}: cannot read: {error.strerror or error}") from None
    except UnicodeDecodeError as error:
        raise ConfigError(f"{path}: cannot read: {error}") from None
    except tomllib.TOMLDecodeError as error:
        raise ConfigError(f"{path}: not valid TOML: {error}") from None
    except RecursionError:
        raise ConfigError(f"{path}: not valid TOML: nested too deeply") from None


def read_file(path: Path) -> dict[str, Any]:
    """A config file's data (its TOML), read as `load` reads it, for a file that adds tables of
    its own (`league.toml`'s `[league]`). Raises ConfigError (one line)."""
    return _read_toml(path)


SectionT = TypeVar("SectionT", bound=Section)


def read_section(path: Path, name: str, model: type[SectionT], data: Any) -> SectionT:
    """The table `[name]` of the file at `path` (`data`: the file's, or {} when it has none),
    checked by `model`. Raises ConfigError: one line naming the file and `name.key`."""
    if not isinstance(data, dict):
        raise ConfigError(f"{path}: [{name}] must be a table")
    try:
        return model.read(data)
    except ValidationError as error:
        raise ConfigError(f"{path}: {name}.{first_problem(error, model)}") from None


def load(
    path: Path, *, seed: int | None = None, matches: int | None = None
) -> tuple[Config, list[Entrant]]:
    """Read, check and resolve a config file. Creates nothing.

    Raises ConfigError (one line) for anything wrong with it, WriteError when its replays
    folder could not be written.
    """
    data = _read_toml(path)
    if seed is not None:
        data["seed"] = seed
    if matches is not None:
        data["games"] = matches
    return validate(path, data)


def validate(path: Path, data: dict[str, Any]) -> tuple[Config, list[Entrant]]:
    """Check and resolve a config's data, as if read from `path` (its folder is the base of
    relative paths; `path` names it in messages). Raises as `load`."""
    try:
        config = Config.read(data)
    except ValidationError as error:
        raise ConfigError(f"{path}: {first_problem(error, Config)}") from None
    _check_consistency(path, config)
    config = _derived_defaults(config)
    # Before any match is played, not after: raises WriteError (exit status 1).
    try:
        replays = (path.resolve().parent / config.replays).resolve()
    except (OSError, RuntimeError, ValueError) as error:  # a loop of links; a NUL in it
        raise ConfigError(
            f"{path}: replays: {config.replays!r} cannot be resolved: {error}"
        ) from None
    try:
        check_writable(replays)
    except ConfigError as error:
        raise ConfigError(f"{path}: replays: {error}") from None
    seats = [_resolve(path, index, p, replays) for index, p in enumerate(config.participants)]
    return config, _with_hidden(path, replays, seats)


def _with_hidden(path: Path, replays: Path, seats: list[Entrant]) -> list[Entrant]:
    """Each seat with the organiser's files it must not see: the config and the replays folder
    (results and standings are in it). Every other participant's program is hidden from it
    too, by `arena.seats.programs.hide_rivals`, which the seats' layer applies."""
    config_file = str(path.resolve())
    return [seat.model_copy(update={"hidden": (config_file, str(replays))}) for seat in seats]


def _derived_defaults(config: Config) -> Config:
    """Defaults that depend on other settings; a value the config gives is kept as it is.

    `maxTurns` grows with the pack: a legal match of random bots takes about 1.5 asks per
    card (4900 with 64 decks), so the cap only ends matches that could not end by themselves.
    `startupTimeout` is never shorter than `replyTimeout`.
    """
    limits = config.limits
    given = limits.model_fields_set
    derived: dict[str, Any] = {}
    if "max_turns" not in given:
        derived["max_turns"] = max(
            DEFAULT_MAX_TURNS, TURNS_PER_CARD * config.engine_rules.pack_size
        )
    if "startup_timeout" not in given:
        derived["startup_timeout"] = max(limits.startup_timeout, limits.reply_timeout)
    return config.model_copy(update={"limits": limits.model_copy(update=derived)})


def _check_consistency(path: Path, config: Config) -> None:
    names = [p.name for p in config.participants]
    for index, name in enumerate(names):
        if name in names[:index]:
            raise ConfigError(
                f"{path}: participants[{index}].name: {name!r} is used twice; seat names must be unique"
            )
    seats = config.seats_per_match
    if seats > MAX_SEATS:
        raise ConfigError(
            f"{path}: participants: {seats} at one table, over the limit of {MAX_SEATS} seats per match "
            f"(each `init` lists every seat): set tournament.seats to {MAX_SEATS} or fewer"
        )
    if seats > len(names):
        raise ConfigError(
            f"{path}: tournament.seats: {seats} seats per match but only {len(names)} participants"
        )
    candidate = config.tournament.candidate
    if candidate is not None and candidate not in names:
        raise ConfigError(
            f"{path}: tournament.candidate: {candidate!r} is not the name of a participant"
        )
    if config.sprt is not None and candidate is None:
        raise ConfigError(
            f"{path}: sprt: a sequential test needs tournament.candidate, the participant it tests"
        )
    rules = config.engine_rules
    try:
        rules.check_deal(seats)
    except ValueError as error:
        key = "dealBySeats" if rules.deal_by_seats else "startingHandSize"
        raise ConfigError(f"{path}: rules.{key}: {error}") from None


def _resolve(path: Path, index: int, participant: ParticipantSection, replays: Path) -> Entrant:
    folder = path.resolve().parent
    key = f"participants[{index}].command"
    read_only = tuple(_read_only(path, index, participant, replays))
    if participant.bot is not None:
        return Entrant(
            name=participant.name,
            command=bot_command(participant.bot),
            cwd=folder,
            env=participant.env,
            bot=participant.bot,
            read_only=read_only,
        )
    command = participant.command
    if isinstance(command, str):
        try:
            command = shlex.split(command)  # split as a shell would, without running one
        except ValueError as error:
            raise ConfigError(
                f"{path}: {key}: cannot split {participant.command!r}: {error}"
            ) from None
    if not command or not command[0].strip():
        raise ConfigError(f"{path}: {key}: the command is empty")
    try:
        program = resolve_program(command[0], folder)
    except ConfigError as error:
        raise ConfigError(f"{path}: {key}: {error}") from None
    return Entrant(
        name=participant.name,
        command=(program, *command[1:]),
        cwd=folder,
        env=participant.env,
        read_only=read_only,
    )


def _read_only(path: Path, index: int, participant: ParticipantSection, replays: Path) -> list[str]:
    """The participant's `readOnly` paths, absolute; each must exist and stay clear of the
    config and of the replays folder (which holds the results): raises ConfigError."""
    folder = path.resolve().parent
    config_file = path.resolve()
    paths = []
    for number, given in enumerate(participant.read_only):
        key = f"participants[{index}].readOnly[{number}]"
        if "\0" in given:
            raise ConfigError(f"{path}: {key}: a NUL character cannot be in a path")
        target = Path(os.path.abspath(folder / given))
        if not target.exists():
            raise ConfigError(f"{path}: {key}: {given!r} not found (looked for {target})")
        real = target.resolve()
        for secret, what in ((config_file, "the config file"), (replays, "the replays folder")):
            if real == secret or secret.is_relative_to(real) or real.is_relative_to(secret):
                raise ConfigError(
                    f"{path}: {key}: {given!r} overlaps {what} ({secret}); "
                    "a participant may never read it: give a folder beside it"
                )
        paths.append(str(target))
    return paths


def resolve_program(program: str, folder: Path) -> str:
    """The program to run: with a `/`, resolved against `folder`; a bare name, found on PATH.

    Raises ConfigError (without file or key: the caller adds them) when it cannot be run.
    """
    if "/" not in program:
        if shutil.which(program) is None:
            here = folder / program
            hint = ""
            if here.is_file():
                runner = {".py": "python3", ".js": "node"}.get(here.suffix)
                also = f" (executable, with a #! line) or `{runner} {program}`" if runner else ""
                hint = f"; to run the file {program} here, write `./{program}`{also}"
            raise ConfigError(f"program {program!r} not found on PATH{hint}")
        return program
    # Absolute, but symlinks kept: a venv's `bin/python` is a link that must stay one.
    resolved = Path(os.path.abspath(folder / program))
    if resolved.is_dir():
        raise ConfigError(f"program {program!r} is a folder, not a program ({resolved})")
    if resolved.exists() and not resolved.is_file():
        raise ConfigError(
            f"program {program!r} is not a regular file ({resolved} is a device, FIFO or socket)"
        )
    if not resolved.is_file():
        raise ConfigError(f"program {program!r} not found (looked for {resolved})")
    if not os.access(resolved, os.X_OK):
        raise ConfigError(f"program {program!r} is not executable (chmod +x {resolved})")
    return str(resolved)


def contract_table() -> str:
    """The table of docs/contract.md §5.3: every setting of `[rules]`, `[deck]` and `[limits]`,
    made from their declarations (`arena.engine.settings.table`)."""
    return table(("rules", TableRules), ("deck", DeckRules), ("limits", Limits))
