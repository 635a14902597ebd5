"""The config's keys are the contract's (§5) in every file, whatever the Python fields are called.

Python code reads `limits.reply_timeout`; a config file, a replay's `config` and the tournament
id (which `--resume` compares) keep `replyTimeout`. These tests fail if a field's file spelling
changes, or if a Python name leaks into a file or a message.
"""

from __future__ import annotations

import tomllib
from pathlib import Path

import pytest
from pydantic import BaseModel

from arena.base import config as config_module
from arena.base.config import Config, LimitsSection
from arena.base.config_errors import model_in
from arena.base.errors import ConfigError
from arena.tournaments.tournament import tournament_id

ROOT = Path(__file__).resolve().parent.parent

# Every key of every table, each set away from its default, spelled as contract §5 spells it.
EVERY_KEY = """
seed = 3
games = 4
replays = "out"

[rules]
startingPlayer = "First in line"
minHandSize = 0
nextPlayer = "After asker"
luckyDraw = true
refillEmptyHand = 5
refillWhen = "On its turn"
drawWhenNoOneToAsk = true
dealBySeats = true

[deck]
numberOfDecks = 2
knights = true

[limits]
replyTimeout = 1.5
startupTimeout = 4.0
timeBank = 2.0
closeGrace = 0.25
maxTurns = 900
maxIdleTurns = 50
maxLineBytes = 4096
maxReplyBytes = 65536
stderrBytes = 1024
memoryMiB = 512
cpuSeconds = 30
sandbox = "none"

[tournament]
seats = 2
duplicate = false
reuse = false
inProcessBots = false
scheduler = "tcp://127.0.0.1:8786"
candidate = "a"
title = "the spring league"

[sprt]
share0 = 0.5
share1 = 0.6
alpha = 0.1
beta = 0.1
minGroups = 5
luckAdjusted = true

[[participants]]
name = "a"
bot = "random"
env = { X = "1" }
readOnly = ["data"]

[[participants]]
name = "b"
command = ["python3", "-c", "pass"]
"""

TWO = "[[participants]]\nname = 'a'\nbot = 'random'\n[[participants]]\nname = 'b'\nbot = 'random'\n"
# `startingHandSize` cannot go with `dealBySeats`: it has a file of its own.
HAND_SIZE = "[rules]\nstartingHandSize = 6\n" + TWO


def _set_fields(model: BaseModel) -> set[tuple[str, str]]:
    """(table class, field) for every field the data gave, in `model` and the tables in it."""
    given = {(type(model).__name__, name) for name in model.model_fields_set}
    for name in model.model_fields_set:
        value = getattr(model, name)
        for item in value if isinstance(value, list) else [value]:
            if isinstance(item, BaseModel):
                given |= _set_fields(item)
    return given


def _all_fields(model: type[BaseModel]) -> set[tuple[str, str]]:
    fields = {(model.__name__, name) for name in model.model_fields}
    for field in model.model_fields.values():
        table = model_in(field.annotation)
        if table is not None:
            fields |= _all_fields(table)
    return fields


def _load(tmp_path: Path, text: str) -> Config:
    path = tmp_path / "config.toml"
    path.write_text(text)
    return config_module.load(path)[0]


def test_every_key_round_trips_with_the_files_spelling() -> None:
    given: set[tuple[str, str]] = set()
    for text in (EVERY_KEY, HAND_SIZE):
        config = Config.read(tomllib.loads(text))
        # What a replay's `config` and the tournament id are made of: model_dump.
        assert config.model_dump(mode="json", exclude_unset=True) == tomllib.loads(text)
        given |= _set_fields(config)
    # A field added without its key above would go unchecked.
    assert _all_fields(Config) - given == set()


def test_the_json_schema_names_the_files_keys() -> None:
    schema = Config.model_json_schema()
    assert set(schema["$defs"]["LimitsSection"]["properties"]) == set(
        tomllib.loads(EVERY_KEY)["limits"]
    )
    assert "inProcessBots" in schema["$defs"]["TournamentSection"]["properties"]


@pytest.mark.parametrize(
    ("text", "message"),
    [
        (
            "[limits]\nreply_timeout = 1\n",
            "limits.reply_timeout: unknown key; did you mean 'replyTimeout'?",
        ),
        (
            "[deck]\nnumber_of_decks = 2\n",
            "deck.number_of_decks: unknown key; did you mean 'numberOfDecks'?",
        ),
        (
            "[limits]\nmemory_mib = 64\n",
            "limits.memory_mib: unknown key; did you mean 'memoryMiB'?",
        ),
        ("[deck]\nsize = 2\n", "deck.size: unknown key; known keys: numberOfDecks, knights"),
        (
            "[limits]\nreplyTimeout = '1'\n",
            "limits.replyTimeout: Input should be a valid number (got '1')",
        ),
        (
            "[tournament]\nin_process_bots = false\n",
            "tournament.in_process_bots: unknown key; did you mean 'inProcessBots'?",
        ),
        # The count of matches is `matches` in Python, `games` in the file.
        ("matches = 3\n", "matches: unknown key; did you mean 'games'?"),
        ("gmes = 3\n", "gmes: unknown key; did you mean 'games'?"),
        ("games = 0\n", "games: Input should be greater than or equal to 1 (got 0)"),
    ],
)
def test_a_file_has_one_spelling_and_messages_use_it(
    tmp_path: Path, text: str, message: str
) -> None:
    with pytest.raises(ConfigError) as caught:
        _load(tmp_path, text + TWO)
    assert str(caught.value).endswith(f"config.toml: {message}")


def test_python_builds_a_table_by_field_name() -> None:
    limits = LimitsSection(reply_timeout=0.5, memory_mib=64)
    assert (limits.reply_timeout, limits.memory_mib) == (0.5, 64)
    assert limits.model_dump()["replyTimeout"] == 0.5 and "reply_timeout" not in limits.model_dump()


# Tournament ids (`--resume` finds a run's folder by them) of the shipped and golden configs,
# computed before the fields were renamed: a run started then must resume now.
IDS = {
    "configs/classic.toml": "ce4208aec9e1746b",
    "configs/family-table.toml": "ac18db1b1f6c4fc2",
    "configs/family-two.toml": "0d63301b127cbb5d",
    "configs/four-players.toml": "1c6bf7f4eb972caa",
    "configs/two-decks-knights.toml": "3400a104dbc321bf",
    "tests/golden/configs/classic.toml": "a1d409bd9397c441",
    "tests/golden/configs/clockwise-three-subprocess.toml": "6bb51c05eb671733",
    "tests/golden/configs/clockwise-two.toml": "37e98ab7a2cff851",
    "tests/golden/configs/empty-table.toml": "7eab872d8f1c7df1",
    "tests/golden/configs/fault-bad-asks.toml": "d1440e58a385cfa5",
    "tests/golden/configs/fault-bad-pond.toml": "a7dcd20d60f8d74c",
    "tests/golden/configs/fault-exit.toml": "68d6d24475b70a73",
    "tests/golden/configs/fault-flood.toml": "389d970df64d5b96",
    "tests/golden/configs/fault-hang.toml": "66523c3a9a6f4966",
    "tests/golden/configs/fault-long-line.toml": "2defdecefc6d8ced",
    "tests/golden/configs/fault-not-json.toml": "e16449afad327991",
    "tests/golden/configs/fault-signal.toml": "87b43039b80714c3",
    "tests/golden/configs/fault-start-failed.toml": "0e9b87552e8faf3a",
    "tests/golden/configs/fault-unsolicited.toml": "f274f6bf5aedb08a",
    "tests/golden/configs/four-refill-three.toml": "5fd568cd03f836ac",
    "tests/golden/configs/stalled.toml": "9de47d67b25e843a",
    "tests/golden/configs/three-decks-big-hands.toml": "62707660b98aca30",
    "tests/golden/configs/tournament-duplicate-reuse.toml": "13ae7998dc93d427",
    "tests/golden/configs/tournament-pairs.toml": "19a8e899a2862637",
    "tests/golden/configs/turn-limit.toml": "acac1f3b0713259d",
    "tests/golden/configs/two-decks-knights.toml": "e4bc6b305ba23e64",
}


@pytest.mark.parametrize("name", sorted(IDS))
def test_tournament_ids_are_unchanged(name: str) -> None:
    config, _ = config_module.load(ROOT / name)
    assert tournament_id(config, 7) == IDS[name]


def test_every_config_has_its_id_pinned() -> None:
    shipped = [*ROOT.glob("configs/*.toml"), *ROOT.glob("tests/golden/configs/*.toml")]
    assert sorted(str(path.relative_to(ROOT)) for path in shipped) == sorted(IDS)
