"""Every setting of a config's `[rules]`, `[deck]`, `[limits]` and `[sprt]` (contract §5), declared
once.

    from arena.engine.settings import Limits, declared
    for name, kind, setting in declared(Limits):
        print(setting.key, kind, setting.default, setting.bounds(), setting.sent)

A setting is a field of a frozen dataclass (`TableRules` and `DeckRules` in
`arena.engine.rules`, `Limits` and `SprtSettings` here) whose metadata says its key in files, its bounds, what it
means and when a participant is sent it. Everything else is made from that: the config's models
(`arena.base.config`), the replay schema's settings (`arena.replays.schema`), the seed names of a
replay and of `init` (`Rules.as_seed_names`, `told_to_seats`), the command line's defaults and
checks, and the table in docs/contract.md (`table`, through `arena.base.config.contract_table`;
tests/test_settings.py compares them).
Standard library only, like the rest of the engine.
"""

from __future__ import annotations

import dataclasses
import typing
from collections.abc import Iterator
from dataclasses import dataclass, field
from enum import Enum, StrEnum
from typing import Any, Final, Literal

# Caps that end a match which cannot finish on its own (the contract leaves their values to the
# project, §2.9).
DEFAULT_MAX_TURNS: Final = 5000  # asks in one match
DEFAULT_MAX_IDLE_TURNS: Final = 100  # asks in a row after which no card has moved

WEEK: Final = 7 * 24 * 3600.0  # the longest time limit accepted (a poll's timeout must stay finite)
# Bounds of counts that have no natural one, far above any use: a larger number means nothing
# (and one beyond 64 bits cannot be written into a replay or hashed into a tournament's id).
CARDS_LIMIT: Final = 64 * 56  # a hand size: the largest pack (64 decks with knights)
TURNS_LIMIT: Final = 10**9  # maxTurns, maxIdleTurns
SEED_LIMIT: Final = 2**63  # a seed is below it (it is written into replays and ids as 64 bits)
NAME_LENGTH: Final = 64  # the most characters of a participant's name (and at least one)
# Matches in one tournament (its schedule is lazy; each is a line and a replay).
GAMES_LIMIT: Final = 10**9

# How participants are confined (docs/sandbox.md): "auto" comes to "bwrap" or "none" per run.
SandboxMode = Literal["auto", "bwrap", "none"]


class Sent(StrEnum):
    """When participants are told a setting (in `init`'s `settings`)."""

    ALWAYS = "always"
    WHEN_ON = "when on"  # only when set: true, above 0, or given at all (absent, never null)
    WITH = "with"  # only when the setting it goes with is on (`Setting.goes_with`)
    NEVER = "never"  # the arena's own: participants never see it


@dataclass(frozen=True)
class Setting:
    """What a field of a settings dataclass is: the one declaration of a setting."""

    key: str  # in files, replays and messages (the contract's camelCase)
    description: str
    default: Any
    ge: float | None = None
    gt: float | None = None
    le: float | None = None
    lt: float | None = None
    sent: Sent = Sent.ALWAYS
    goes_with: str | None = None  # the field whose being on sends this one (`Sent.WITH`)

    def bounds(self) -> dict[str, float]:
        """The bounds that are set, by their pydantic names (`ge`, `gt`, `le`, `lt`)."""
        named = {"ge": self.ge, "gt": self.gt, "le": self.le, "lt": self.lt}
        return {name: bound for name, bound in named.items() if bound is not None}

    def range(self) -> str:
        """The bounds in words: `above 0, at most 604800`, `0 to 3584`."""
        low = f"above {plain(self.gt)}" if self.gt is not None else None
        if self.ge is not None:
            low = f"at least {plain(self.ge)}"
        high = f"below {plain(self.lt)}" if self.lt is not None else None
        if self.le is not None:
            high = f"at most {plain(self.le)}"
        if self.ge is not None and self.le is not None:
            return f"{plain(self.ge)} to {plain(self.le)}"
        return ", ".join(part for part in (low, high) if part) or "any"


def plain(bound: float) -> str:
    """A bound as people write it: 604800, not 604800.0; 1e+30 as such."""
    return str(int(bound)) if float(bound).is_integer() else f"{bound:g}"


def camel(name: str) -> str:
    """A Python name in the contract's spelling: `reply_timeout` is `replyTimeout`."""
    head, *words = name.split("_")
    return head + "".join(word.capitalize() for word in words)


def about(
    description: str,
    *,
    key: str | None = None,
    ge: float | None = None,
    gt: float | None = None,
    le: float | None = None,
    lt: float | None = None,
    sent: Sent = Sent.ALWAYS,
    goes_with: str | None = None,
) -> dict[str, Setting]:
    """A settings field's metadata: `field(default=7, metadata=about("Cards dealt…", ge=0))`.
    Its key is the camelCase of the field's name unless given; its default, the field's."""
    return {
        "setting": Setting(
            key or "",
            description,
            None,
            ge=ge,
            gt=gt,
            le=le,
            lt=lt,
            sent=sent,
            goes_with=goes_with,
        )
    }


def declared(kind: type[Any]) -> Iterator[tuple[str, Any, Setting]]:
    """Each setting of a settings dataclass, in order: its Python name, its type, its
    declaration (with its key filled in)."""
    # Read once per class: every match's `init` asks (`told`), and resolving the type hints
    # each time cost a quarter of a short match's time on the engine.
    found = _DECLARED.get(kind)
    if found is None:
        hints = typing.get_type_hints(kind)
        found = _DECLARED[kind] = tuple(
            (
                each.name,
                hints[each.name],
                dataclasses.replace(
                    each.metadata["setting"],
                    key=each.metadata["setting"].key or camel(each.name),
                    default=each.default,
                ),
            )
            for each in dataclasses.fields(kind)
        )
    return iter(found)


_DECLARED: dict[type[Any], tuple[tuple[str, Any, Setting], ...]] = {}


def told(values: Any, kind: type[Any]) -> dict[str, Any]:
    """What participants are told of `kind`'s settings, read from `values` (an instance of it or
    of a model built on it), by key and in the declared order: each setting's `Sent` rule
    applied, an enum as its value."""
    named: dict[str, Any] = {}
    for name, _, declaration in declared(kind):
        value = getattr(values, name)
        if declaration.sent is Sent.NEVER:
            continue
        if declaration.sent is Sent.WHEN_ON and value in (None, False, 0):
            continue
        if declaration.sent is Sent.WITH and not getattr(values, str(declaration.goes_with)):
            continue
        named[declaration.key] = value.value if isinstance(value, Enum) else value
    return named


@dataclass(frozen=True)
class Limits:
    """The settings of `[limits]`: time, turns, bytes and the sandbox, per participant."""

    reply_timeout: float = field(
        default=2.0, metadata=about("Seconds for each reply.", gt=0, le=WEEK)
    )
    startup_timeout: float = field(
        default=10.0,
        metadata=about(
            "Seconds for the `init` reply (default: 10, or `replyTimeout` if longer).",
            gt=0,
            le=WEEK,
        ),
    )
    time_bank: float = field(
        default=0.0, metadata=about("Extra seconds per match for late replies.", ge=0, le=WEEK)
    )
    close_grace: float = field(
        default=0.5,
        metadata=about(
            "Seconds after `match-end` before the process group is killed.",
            ge=0,
            le=60,
            sent=Sent.NEVER,
        ),
    )
    max_turns: int = field(
        default=DEFAULT_MAX_TURNS,
        metadata=about(
            "Asks in one match before it ends unfinished (default: 5000, or 4 per card of the pack "
            "if more).",
            ge=1,
            le=TURNS_LIMIT,
        ),
    )
    max_idle_turns: int = field(
        default=DEFAULT_MAX_IDLE_TURNS,
        metadata=about(
            "Asks in a row with no card moving before the match ends unfinished.",
            ge=1,
            le=TURNS_LIMIT,
            sent=Sent.NEVER,
        ),
    )
    max_line_bytes: int = field(
        default=1 << 20, metadata=about("Bytes of one reply line.", ge=64, le=64 << 20)
    )
    max_reply_bytes: int = field(
        default=8 << 20,
        metadata=about(
            "Bytes of all of a seat's replies in a match.", ge=1024, le=1 << 30, sent=Sent.NEVER
        ),
    )
    stderr_bytes: int = field(
        default=1 << 20,
        metadata=about("Bytes of a seat's stderr kept.", ge=0, le=64 << 20, sent=Sent.NEVER),
    )
    memory_mib: int | None = field(
        default=None,
        metadata=about(
            "MiB of memory per process (off when not set).",
            key="memoryMiB",
            ge=16,
            le=1 << 24,
            sent=Sent.WHEN_ON,
        ),
    )
    cpu_seconds: int | None = field(
        default=None,
        metadata=about(
            "CPU seconds per process (off when not set).", ge=1, le=10**7, sent=Sent.WHEN_ON
        ),
    )
    # "auto" is decided once per run (`arena.seats.sandbox.decide`); a replay records the decision.
    sandbox: SandboxMode = field(
        default="auto",
        metadata=about("How each participant is confined (docs/sandbox.md).", sent=Sent.NEVER),
    )


@dataclass(frozen=True)
class SprtSettings:
    """The settings of a config's `[sprt]` (arena/tournaments/sprt.py's test): the config's
    section and `arena sprt`'s defaults are made from them."""

    share0: float = field(
        metadata=about("The candidate's expected match point under H0.", gt=0, lt=1)
    )
    share1: float = field(metadata=about("… and under H1.", gt=0, lt=1))
    alpha: float = field(
        default=0.05,
        metadata=about("The chance of accepting H1 when H0 is true.", gt=0, lt=0.5),
    )
    beta: float = field(
        default=0.05,
        metadata=about("The chance of accepting H0 when H1 is true.", gt=0, lt=0.5),
    )
    min_groups: int = field(
        default=20,
        metadata=about("Duplicate groups before any decision.", ge=1, le=GAMES_LIMIT),
    )
    # `arena sprt` turns it on unless `--raw`.
    luck_adjusted: bool = field(
        default=False, metadata=about("On luck-adjusted shares (docs/luck.md).")
    )


def table(*sections: tuple[str, type[Any]]) -> str:
    """The docs' table of settings (docs/contract.md §5.3), one row per setting."""
    rows = [
        "| key | type | default | bounds | told to seats | what |",
        "| --- | --- | --- | --- | --- | --- |",
    ]
    for section, kind in sections:
        for _, hint, declaration in declared(kind):
            default = declaration.default
            shown = (
                "—"
                if default is None
                else f'"{default.value if isinstance(default, Enum) else default}"'
                if isinstance(default, str)
                else str(default).lower()
                if isinstance(default, bool)
                else str(default)
            )
            sent = (
                f"when `{camel(str(declaration.goes_with))}` is on"
                if declaration.sent is Sent.WITH
                else str(declaration.sent)
            )
            rows.append(
                f"| `{section}.{declaration.key}` | {_type_name(hint)} | {shown} | "
                f"{declaration.range() if declaration.bounds() else _choices(hint)} | {sent} | "
                f"{declaration.description} |"
            )
    return "\n".join(rows) + "\n"


def _type_name(hint: Any) -> str:
    arguments = [argument for argument in typing.get_args(hint) if argument is not type(None)]
    if isinstance(hint, type) and issubclass(hint, Enum):
        return "string"
    if typing.get_origin(hint) is Literal:
        return "string"
    if arguments and typing.get_origin(hint) is not Literal:
        return _type_name(arguments[0])
    return {bool: "boolean", int: "integer", float: "number", str: "string"}[hint]


def _choices(hint: Any) -> str:
    if isinstance(hint, type) and issubclass(hint, Enum):
        return ", ".join(f'"{member.value}"' for member in hint)
    if typing.get_origin(hint) is Literal:
        return ", ".join(f'"{value}"' for value in typing.get_args(hint))
    return "—"
