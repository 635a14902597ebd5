"""The settings are written in several places (the config's sections, the engine's `Rules`, the
seed names a replay and `init` carry, the wire schema): every field of one is in the others,
and a value set in the config reaches the engine (a field forgotten in `engine_rules` fails)."""

from __future__ import annotations

import dataclasses
from enum import Enum
from typing import Any

from arena.base.config import DeckSection, RulesSection, engine_rules
from arena.engine.rules import Rules
from arena.replays.schema import DeckSettings, RulesSettings

SECTIONS = (RulesSection, DeckSection)


def _other(value: Any) -> Any:
    """A value of the same type other than `value` (the default)."""
    if isinstance(value, Enum):
        return next(member for member in type(value) if member is not value)
    if isinstance(value, bool):
        return not value
    if isinstance(value, int):
        return value + 2
    raise AssertionError(f"no other value for {value!r}")


def _changed() -> tuple[RulesSection, DeckSection]:
    """Every field away from its default (unchecked: only the plumbing is under test)."""
    built = []
    for section in SECTIONS:
        values = {name: _other(field.default) for name, field in section.model_fields.items()}
        built.append(section.model_construct(**values))
    rules, deck = built
    assert isinstance(rules, RulesSection) and isinstance(deck, DeckSection)
    return rules, deck


def test_the_config_and_the_engine_have_the_same_fields() -> None:
    config = {name for section in SECTIONS for name in section.model_fields}
    engine = {field.name for field in dataclasses.fields(Rules)}
    assert config == engine


def test_every_config_value_reaches_the_engine() -> None:
    rules, deck = _changed()
    engine = engine_rules(rules, deck)
    for section in (rules, deck):
        for name in type(section).model_fields:
            assert getattr(engine, name) == getattr(section, name), name


def test_every_field_has_its_seed_name_and_its_schema_field() -> None:
    rules, deck = _changed()
    named = engine_rules(rules, deck).as_seed_names(seats=2)
    for section, key, wire in (
        (RulesSection, "rules", RulesSettings),
        (DeckSection, "deck", DeckSettings),
    ):
        aliases = {field.alias or name for name, field in section.model_fields.items()}
        assert aliases == set(named[key]), key
        assert aliases == set(wire.model_fields), wire.__name__
