"""The settings are declared once (`arena.engine.settings`): a value set in a config file
reaches the engine, the replay's record and `init`, and the docs' table is the declaration's."""

from __future__ import annotations

import re
from enum import Enum
from pathlib import Path
from typing import Any

import pytest

from arena.base import config as config_module
from arena.engine import settings
from arena.engine.match import Match, MatchSetup
from arena.engine.rules import DeckRules, Rules, TableRules
from arena.engine.settings import Limits, declared
from arena.replays.schema import MESSAGES

ROOT = Path(__file__).resolve().parent.parent
PLAYERS = """
[[participants]]
name = "a"
bot = "random"

[[participants]]
name = "b"
bot = "random"
"""


def _other(value: Any, bounds: dict[str, float]) -> Any:
    """A value of the setting's type other than its default, within its bounds."""
    if isinstance(value, Enum):
        return next(member for member in type(value) if member is not value).value
    if isinstance(value, bool):
        return not value
    if value is None:
        return int(bounds.get("ge", 1)) + 3
    if isinstance(value, float):
        return value + 1.5
    if isinstance(value, int):
        return value + 3 if value + 3 <= bounds.get("le", value + 3) else value - 1
    if isinstance(value, str):
        return "none"
    raise AssertionError(f"no other value for {value!r}")


def _toml(value: Any) -> str:
    return str(value).lower() if isinstance(value, bool) else repr(value).replace("'", '"')


def _changed(kind: type[Any], *, skip: tuple[str, ...] = ()) -> dict[str, tuple[str, Any]]:
    """Every setting of `kind` but `skip`, away from its default: python name -> (key, value)."""
    return {
        name: (setting.key, _other(setting.default, setting.bounds()))
        for name, _, setting in declared(kind)
        if name not in skip
    }


# `dealBySeats` cannot go with `startingHandSize`, "On its turn" needs `minHandSize = 0`: two
# files between them set every setting of `[rules]` away from its default.
@pytest.mark.parametrize("skip", [("deal_by_seats", "refill_when"), ("starting_hand_size",)])
def test_every_setting_of_a_config_file_reaches_the_engine_the_replay_and_init(
    tmp_path: Path, skip: tuple[str, ...]
) -> None:
    rules = _changed(TableRules, skip=skip)
    if "min_hand_size" in rules and "refill_when" in rules:
        rules["min_hand_size"] = ("minHandSize", 0)
    sections = {"rules": rules, "deck": _changed(DeckRules), "limits": _changed(Limits)}
    text = "".join(
        f"[{section}]\n" + "".join(f"{key} = {_toml(value)}\n" for key, value in chosen.values())
        for section, chosen in sections.items()
    )
    path = tmp_path / "config.toml"
    path.write_text(text + PLAYERS, encoding="utf-8")
    config, _ = config_module.load(path)
    engine = config.engine_rules
    for chosen in (sections["rules"], sections["deck"]):
        for name, (_, value) in chosen.items():
            got = getattr(engine, name)
            assert (got.value if isinstance(got, Enum) else got) == value, name
    for name, (_, value) in sections["limits"].items():
        assert getattr(config.limits, name) == value, name

    setup = MatchSetup.from_seed(1, ["a", "b"], engine, **config.limits.match_options())
    init = next(Match(setup).play()).message
    MESSAGES["init"].validate_python(init)  # the schema is made from the same declaration
    told = init["settings"]
    recorded = engine.as_seed_names()
    for section in ("rules", "deck"):
        for name, (key, value) in sections[section].items():
            if name != "starting_hand_size" or not engine.deal_by_seats:
                assert recorded[section][key] == value, key
    for name, (key, value) in sections["limits"].items():
        setting = next(s for n, _, s in declared(Limits) if n == name)
        assert (key in told["limits"]) == (setting.sent is not settings.Sent.NEVER), key


def test_the_engine_builds_its_rules_from_both_tables() -> None:
    names = {name for kind in (TableRules, DeckRules) for name, _, _ in declared(kind)}
    assert names == set(Rules.__dataclass_fields__)


def test_the_contract_table_is_the_declaration() -> None:
    text = (ROOT / "docs" / "contract.md").read_text(encoding="utf-8")
    found = re.search(
        r"<!-- settings table: made from arena/engine/settings.py -->\n(.*?)<!-- end of settings table -->",
        text,
        re.DOTALL,
    )
    assert found is not None, "docs/contract.md lost its settings table"
    assert found.group(1) == config_module.contract_table(), (
        "docs/contract.md §5.3 differs from arena/engine/settings.py: paste "
        "config_module.contract_table() between its markers"
    )


# --- the ready rule sets: the packaged files are the one source ------------------------------


def test_the_ready_rule_sets_are_the_packaged_files() -> None:
    folder = ROOT / "arena" / "base" / "rule_sets"
    assert sorted(path.stem for path in folder.glob("*.toml")) == sorted(config_module.RULE_SETS)
    pyproject = (ROOT / "pyproject.toml").read_text(encoding="utf-8")
    assert '"arena.base" = ["rule_sets/*.toml"]' in pyproject  # so `pip install .` has them


def test_a_config_names_a_ready_rule_set_in_place_of_its_rules_table(tmp_path: Path) -> None:
    path = tmp_path / "config.toml"
    path.write_text('rules = "family-table"\n' + PLAYERS, encoding="utf-8")
    config, _ = config_module.load(path)
    assert config.engine_rules == config_module.named_rules("family-table")
    assert config.engine_rules.draw_when_no_one_to_ask  # (not the defaults)
    path.write_text('rules = "family-to"\n' + PLAYERS, encoding="utf-8")
    with pytest.raises(config_module.ConfigError) as caught:
        config_module.load(path)
    assert str(caught.value) == (
        f"{path}: rules: no rule set named 'family-to'; did you mean 'family-two'?"
    )


def test_arena_play_deals_the_kitchen_table_by_default() -> None:
    from arena.ui.play import PlayOptions, chosen_rules

    assert chosen_rules(None, 4) == PlayOptions().rules == Rules(deal_by_seats=True)
