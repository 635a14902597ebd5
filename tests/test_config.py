"""Bad configs, thoroughly: each is one clear line naming the file and the key, before anything runs.

A few go through the real `arena run` (exit status 2, one line on stderr, no process started,
nothing written); the rest through `config.load`.
"""

from __future__ import annotations

import json
import math
import re
import subprocess
import sys
import tempfile
from pathlib import Path

import orjson
import pytest
from command import arena_here
from hypothesis import given, settings
from hypothesis import strategies as st

from arena.base import config as config_module
from arena.base.errors import ConfigError
from arena.engine.match import DEFAULT_MAX_TURNS
from arena.tournaments import tournament

TWO = "[[participants]]\nname = 'a'\nbot = 'random'\n[[participants]]\nname = 'b'\nbot = 'random'\n"


def _seat(name: str, rest: str) -> str:
    return f"[[participants]]\nname = {json.dumps(name)}\n{rest}\n"


def _load(tmp_path: Path, text: str) -> tuple[config_module.Config, list[config_module.Entrant]]:
    path = tmp_path / "config.toml"
    path.write_text(text)
    return config_module.load(path)


def _error(tmp_path: Path, text: str) -> str:
    with pytest.raises(ConfigError) as caught:
        _load(tmp_path, text)
    message = str(caught.value)
    assert "\n" not in message
    assert message.startswith(f"{tmp_path / 'config.toml'}: ")
    return message.removeprefix(f"{tmp_path / 'config.toml'}: ")


BAD = [
    # TOML syntax, with line and column
    ("seed = = 3\n" + TWO, "not valid TOML: Invalid value (at line 1, column 8)"),
    ("[limits\n" + TWO, "not valid TOML"),
    # unknown keys, with a "did you mean"
    ("sede = 3\n" + TWO, "sede: unknown key; did you mean 'seed'?"),
    (
        "[limits]\nreplyTimout = 1\n" + TWO,
        "limits.replyTimout: unknown key; did you mean 'replyTimeout'?",
    ),
    ("[limit]\nreplyTimeout = 1\n" + TWO, "limit: unknown key; did you mean 'limits'?"),
    (
        _seat("a", "bot = 'random'\ncomand = 'x'") + _seat("b", "bot = 'random'"),
        "participants[0].comand: unknown key; did you mean 'command'?",
    ),
    # a key of another table: where it belongs
    (
        "[tournament]\nmatches = 40\n" + TWO,
        "tournament.matches: unknown key; it belongs at the top of the file, as 'games'",
    ),
    (
        "[rules]\nreplyTimeout = 1\n" + TWO,
        "rules.replyTimeout: unknown key; it belongs in [limits]",
    ),
    (
        "[rules]\nzzz = 1\n" + TWO,
        "rules.zzz: unknown key; known keys: startingPlayer, startingHandSize",
    ),
    # wrong types
    (
        "[limits]\nreplyTimeout = '1'\n" + TWO,
        "limits.replyTimeout: Input should be a valid number (got '1')",
    ),
    ("seed = true\n" + TWO, "seed: Input should be a valid integer (got True)"),
    ("seed = 1.5\n" + TWO, "seed: Input should be a valid integer (got 1.5)"),
    (
        "[deck]\nknights = 'yes'\n" + TWO,
        "deck.knights: Input should be a valid boolean (got 'yes')",
    ),
    ("rules = 3\n" + TWO, "rules: should be a table (got 3)"),
    ("participants = 3\n", "participants: should be an array of tables ([[participants]]) (got 3)"),
    (_seat("a", "command = 3") + _seat("b", "bot = 'random'"), "participants[0].command: "),
    (
        _seat("a", "bot = 'random'\nenv = { A = 1 }") + _seat("b", "bot = 'random'"),
        "participants[0].env.A: Input should be a valid string (got 1)",
    ),
    (
        _seat("a", "bot = 'randm'") + _seat("b", "bot = 'random'"),
        "participants[0].bot: Input should be 'random', 'easy', 'medium', 'hard', 'expert' or 'master' (got 'randm')",
    ),
    # impossible values
    (
        "[limits]\nreplyTimeout = 0\n" + TWO,
        "limits.replyTimeout: Input should be greater than 0 (got 0)",
    ),
    (
        "[limits]\nreplyTimeout = nan\n" + TWO,
        "limits.replyTimeout: should be a finite number (got nan)",
    ),
    (
        "[limits]\nreplyTimeout = inf\n" + TWO,
        "limits.replyTimeout: should be a finite number (got inf)",
    ),
    (
        "[limits]\nreplyTimeout = 1e300\n" + TWO,
        "limits.replyTimeout: Input should be less than or equal to 604800",
    ),
    (
        "[limits]\nstartupTimeout = -1\n" + TWO,
        "limits.startupTimeout: Input should be greater than 0 (got -1)",
    ),
    (
        "[rules]\nnextPlayer = 'clockwise'\n" + TWO,
        "rules.nextPlayer: Input should be 'Asked', 'Clockwise' or 'After asker' (got 'clockwise')",
    ),
    (
        "[rules]\nrefillEmptyHand = -1\n" + TWO,
        "rules.refillEmptyHand: Input should be greater than or equal to 0 (got -1)",
    ),
    (
        "[rules]\nrefillWhen = 'at once'\n" + TWO,
        "rules.refillWhen: Input should be 'At once' or 'On its turn' (got 'at once')",
    ),
    ("[rules]\nluckyDraw = 1\n" + TWO, "rules.luckyDraw: Input should be a valid boolean (got 1)"),
    # rules that contradict each other
    (
        "[rules]\ndealBySeats = true\nstartingHandSize = 5\n" + TWO,
        (
            "rules.dealBySeats: deals by table size (7 each for two seats, 5 for three or more), "
            "so it cannot go with startingHandSize"
        ),
    ),
    (
        "[rules]\nrefillEmptyHand = 5\nrefillWhen = 'On its turn'\n" + TWO,
        'rules.refillWhen: "On its turn" needs minHandSize = 0',
    ),
    (
        "[rules]\nstartingHandSize = -1\n" + TWO,
        "rules.startingHandSize: Input should be greater than or equal to 0",
    ),
    (
        "[deck]\nnumberOfDecks = 0\n" + TWO,
        "deck.numberOfDecks: Input should be greater than or equal to 1 (got 0)",
    ),
    ("games = 0\n" + TWO, "games: Input should be greater than or equal to 1 (got 0)"),
    ("replays = ''\n" + TWO, "replays: String should have at least 1 character"),
    # negative limits
    (
        "[limits]\ntimeBank = -1\n" + TWO,
        "limits.timeBank: Input should be greater than or equal to 0 (got -1)",
    ),
    (
        "[limits]\nmaxTurns = -1\n" + TWO,
        "limits.maxTurns: Input should be greater than or equal to 1 (got -1)",
    ),
    (
        "[limits]\nmaxIdleTurns = 0\n" + TWO,
        "limits.maxIdleTurns: Input should be greater than or equal to 1",
    ),
    (
        "[limits]\nmemoryMiB = -1\n" + TWO,
        "limits.memoryMiB: Input should be greater than or equal to 16 (got -1)",
    ),
    (
        "[limits]\ncpuSeconds = -5\n" + TWO,
        "limits.cpuSeconds: Input should be greater than or equal to 1 (got -5)",
    ),
    (
        "[limits]\ncpuSeconds = 99999999999\n" + TWO,
        "limits.cpuSeconds: Input should be less than or equal to",
    ),
    (
        "[limits]\nmaxLineBytes = 10\n" + TWO,
        "limits.maxLineBytes: Input should be greater than or equal to 64",
    ),
    (
        "[limits]\ncloseGrace = -0.1\n" + TWO,
        "limits.closeGrace: Input should be greater than or equal to 0",
    ),
    # fewer than two seats
    (_seat("a", "bot = 'random'"), "participants: at least two participants are needed, found 1"),
    ("seed = 1\n", "participants: missing (required)"),
    ("participants = []\n", "participants: at least two participants are needed, found 0"),
    (
        "[tournament]\nseats = 1\n" + TWO,
        "tournament.seats: Input should be greater than or equal to 2 (got 1)",
    ),
    (
        "[tournament]\nseats = 3\n" + TWO,
        "tournament.seats: 3 seats per match but only 2 participants",
    ),
    # an empty or missing program
    (
        _seat("a", "command = []") + _seat("b", "bot = 'random'"),
        "participants[0].command: the command is empty",
    ),
    (
        _seat("a", "command = ''") + _seat("b", "bot = 'random'"),
        "participants[0].command: the command is empty",
    ),
    (
        _seat("a", "command = ['  ']") + _seat("b", "bot = 'random'"),
        "participants[0].command: the command is empty",
    ),
    (
        _seat("a", "") + _seat("b", "bot = 'random'"),
        "participants[0]: give exactly one of `command` or `bot`",
    ),
    (
        _seat("a", "bot = 'easy'\ncommand = ['x']") + _seat("b", "bot = 'random'"),
        "participants[0]: give exactly one of `command` or `bot`",
    ),
    (
        _seat("a", "command = ['./nope.py']") + _seat("b", "bot = 'random'"),
        "participants[0].command: program './nope.py' not found (looked for ",
    ),
    (
        _seat("a", "command = 'no-such-program-here --level 2'") + _seat("b", "bot = 'random'"),
        "participants[0].command: program 'no-such-program-here' not found on PATH",
    ),
    (
        _seat("a", 'command = "python3 \'unclosed"') + _seat("b", "bot = 'random'"),
        'participants[0].command: cannot split "python3 \'unclosed": No closing quotation',
    ),
    (
        _seat("a", "command = ['python3', \"a\\u0000b\"]") + _seat("b", "bot = 'random'"),
        "participants[0].command: a NUL character cannot be passed to a program",
    ),
    (
        _seat("a", "bot = 'random'\nenv = { 'A=B' = '1' }") + _seat("b", "bot = 'random'"),
        "participants[0].env: 'A=B' is not an environment variable name",
    ),
    # names
    (
        _seat("a", "bot = 'random'") + _seat("a", "bot = 'easy'"),
        "participants[1].name: 'a' is used twice; seat names must be unique",
    ),
    (
        _seat("", "bot = 'random'") + _seat("b", "bot = 'random'"),
        "participants[0].name: String should have at least 1",
    ),
    (
        _seat("x" * 65, "bot = 'random'") + _seat("b", "bot = 'random'"),
        "participants[0].name: String should have at most 64",
    ),
    # a deal larger than the pack
    (
        "[rules]\nstartingHandSize = 27\n" + TWO,
        "rules.startingHandSize: the deal needs 54 cards (2 seats × 27) but the pack has 52",
    ),
    (
        "[rules]\nstartingHandSize = 15\n[deck]\nknights = true\n"
        + TWO
        + _seat("c", "bot = 'random'")
        + _seat("d", "bot = 'random'"),
        "rules.startingHandSize: the deal needs 60 cards (4 seats × 15) but the pack has 56",
    ),
]


@pytest.mark.parametrize(("text", "expected"), BAD, ids=[expected[:40] for _, expected in BAD])
def test_bad_config_is_one_line_naming_the_key(tmp_path: Path, text: str, expected: str) -> None:
    message = _error(tmp_path, text)
    assert message.startswith(expected), message


def test_not_a_file(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match=r"no such config file"):
        config_module.load(tmp_path / "missing.toml")
    with pytest.raises(ConfigError, match=r"cannot read"):
        config_module.load(tmp_path)


def test_not_utf8(tmp_path: Path) -> None:
    (tmp_path / "config.toml").write_bytes(b"seed = 1\n# \xff\n")
    with pytest.raises(ConfigError, match=r"cannot read"):
        config_module.load(tmp_path / "config.toml")


def test_program_not_executable(tmp_path: Path) -> None:
    (tmp_path / "bot.sh").write_text("#!/bin/sh\n")
    message = _error(tmp_path, _seat("a", "command = ['./bot.sh']") + _seat("b", "bot = 'random'"))
    assert message.startswith("participants[0].command: program './bot.sh' is not executable")


def test_long_values_are_cut_in_the_message(tmp_path: Path) -> None:
    message = _error(tmp_path, f"[limits]\nreplyTimeout = '{'x' * 5000}'\n" + TWO)
    assert len(message) < 200


def test_defaults(tmp_path: Path) -> None:
    config, seats = _load(tmp_path, TWO)
    limits = config.limits
    assert (limits.reply_timeout, limits.startup_timeout, limits.time_bank, limits.close_grace) == (
        2.0,
        10.0,
        0.0,
        0.5,
    )
    assert (limits.max_turns, limits.max_idle_turns) == (DEFAULT_MAX_TURNS, 100)
    assert (limits.max_line_bytes, limits.memory_mib, limits.cpu_seconds) == (1 << 20, None, None)
    assert [seat.bot for seat in seats] == ["random", "random"]


def test_turn_cap_grows_with_the_pack_unless_given(tmp_path: Path) -> None:
    config, _ = _load(tmp_path, "[deck]\nnumberOfDecks = 64\nknights = true\n" + TWO)
    assert config.limits.max_turns == 4 * 64 * 56  # a legal match takes about 1.5 asks per card
    config, _ = _load(tmp_path, "[deck]\nnumberOfDecks = 64\n[limits]\nmaxTurns = 300\n" + TWO)
    assert config.limits.max_turns == 300


def test_startup_time_defaults_to_at_least_the_reply_time(tmp_path: Path) -> None:
    config, _ = _load(tmp_path, "[limits]\nreplyTimeout = 30\n" + TWO)
    assert config.limits.startup_timeout == 30.0
    config, _ = _load(tmp_path, "[limits]\nreplyTimeout = 30\nstartupTimeout = 5\n" + TWO)
    assert config.limits.startup_timeout == 5.0  # given: kept


def test_command_string_is_split_like_a_shell_would(tmp_path: Path) -> None:
    (tmp_path / "my bot.py").write_text("")
    _, seats = _load(
        tmp_path,
        _seat("a", 'command = "python3 \'my bot.py\' --level \\"2 3\\""')
        + _seat("b", "bot = 'random'"),
    )
    assert seats[0].command[1:] == ("my bot.py", "--level", "2 3")


def test_relative_program_is_resolved_against_the_config_folder_keeping_symlinks(
    tmp_path: Path,
) -> None:
    (tmp_path / "bin").mkdir()
    (tmp_path / "bin" / "python").symlink_to(sys.executable)
    _, seats = _load(
        tmp_path, _seat("a", "command = ['bin/python', 'x.py']") + _seat("b", "bot = 'random'")
    )
    assert seats[0].command == (str(tmp_path / "bin" / "python"), "x.py")
    assert seats[0].cwd == tmp_path.resolve()


# -- through the real CLI ------------------------------------------------------------------


def _arena(tmp_path: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return arena_here(*args, cwd=tmp_path, env={"PATH": "/usr/bin:/bin", "COLUMNS": "40"})


MARKER_BOT = "import pathlib\npathlib.Path('started').write_text('')\n"


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (
            "[limits]\nreplyTimeout = 0\n",
            "limits.replyTimeout: Input should be greater than 0 (got 0)",
        ),
        ("sede = 3\n", "sede: unknown key; did you mean 'seed'?"),
        (
            "[rules]\nstartingHandSize = 30\n",
            "rules.startingHandSize: the deal needs 60 cards (2 seats × 30) but the pack has 52",
        ),
        ("seed = = 1\n", "not valid TOML: Invalid value (at line 1, column 8)"),
        # Beyond 64 bits: it was accepted, then could not be hashed into the tournament's id.
        (
            "[rules]\nminHandSize = 99999999999999999999999\n",
            "rules.minHandSize: Input should be less than or equal to 3584 (got 99999999999999999999999)",
        ),
        ('replays = "a\\u0000b"\n', "replays: 'a\\x00b' cannot be resolved: embedded null byte"),
        # Deeper than Python's parser follows: it was a RecursionError traceback.
        ("a = " + "[" * 100_000 + "]" * 100_000 + "\n", "not valid TOML: nested too deeply"),
        (
            "\ufeffseed = 1\n",
            "not valid TOML: it starts with a byte-order mark; save it as UTF-8 without one",
        ),
    ],
)
def test_cli_refuses_a_bad_config_before_anything_runs(
    tmp_path: Path, text: str, expected: str
) -> None:
    (tmp_path / "marker.py").write_text(MARKER_BOT)
    bot = f"command = [{json.dumps(sys.executable)}, 'marker.py']"
    (tmp_path / "config.toml").write_text(text + _seat("a", bot) + _seat("b", bot))
    result = _arena(tmp_path, "run", "config.toml")
    assert result.returncode == 2, result.stderr
    assert result.stdout == ""
    [line] = result.stderr.splitlines()  # one line, however narrow the terminal
    assert line == f"config.toml: {expected}"
    assert not (tmp_path / "replays").exists()
    assert not (tmp_path / "started").exists()


def test_cli_duplicate_names(tmp_path: Path) -> None:
    (tmp_path / "config.toml").write_text(
        _seat("twin", "bot = 'random'") + _seat("twin", "bot = 'easy'")
    )
    result = _arena(tmp_path, "run", "config.toml")
    assert result.returncode == 2
    assert result.stderr.splitlines() == [
        "config.toml: participants[1].name: 'twin' is used twice; seat names must be unique"
    ]
    assert not (tmp_path / "replays").exists()


def test_command_string_never_reaches_a_shell(tmp_path: Path) -> None:
    (tmp_path / "bot.py").write_text("import sys\nsys.exit(0)\n")
    command = json.dumps(f"{sys.executable} bot.py; touch pwned")
    (tmp_path / "config.toml").write_text(
        "seed = 1\n[limits]\nreplyTimeout = 0.5\n"
        + _seat("a", f"command = {command}")
        + _seat("b", "bot = 'random'")
    )
    result = _arena(tmp_path, "run", "config.toml")
    assert result.returncode == 0, result.stderr
    assert not (tmp_path / "pwned").exists()
    [replay] = (tmp_path / "replays").glob("*.json")
    data = json.loads(replay.read_text())
    assert data["players"][0]["command"] == [sys.executable, "bot.py;", "touch", "pwned"]
    assert data["faults"][0]["kind"] == "exited"


# Every number a config holds, under its file's name: (table or None, key).
NUMERIC_KEYS = [
    (table, field.alias or name)
    for table, section in [
        (None, config_module.Config),
        ("rules", config_module.RulesSection),
        ("deck", config_module.DeckSection),
        ("limits", config_module.LimitsSection),
        ("tournament", config_module.TournamentSection),
        ("sprt", config_module.SprtSection),
    ]
    for name, field in section.model_fields.items()
    if re.search(r"\b(int|float)\b", str(field.annotation))
]


def _toml(value: float) -> str:
    if isinstance(value, float) and not math.isfinite(value):
        return "nan" if math.isnan(value) else ("inf" if value > 0 else "-inf")
    return repr(value)


@settings(max_examples=80, deadline=None)
@given(
    key=st.sampled_from(NUMERIC_KEYS),
    value=st.one_of(
        st.integers(min_value=-(2**70), max_value=2**70),
        st.sampled_from([0, 1, 2**63 - 1, 2**63, 2**64, 10**400]),
        st.floats(),
    ),
)
def test_any_number_in_any_numeric_key_is_refused_in_one_line_or_runs(
    key: tuple[str | None, str], value: float
) -> None:
    table, name = key
    # The keys a table needs beside the one tried (an SPRT test needs its candidate and share0).
    needs = {"sprt": {"share0": "0.5", "share1": "0.55"}, "tournament": {"candidate": "'a'"}}
    tables = {"sprt": {}, **needs} if table == "sprt" else {table: {}}
    tables[table] = {**tables[table], name: _toml(value)}
    text = "".join(f"{k} = {v}\n" for k, v in tables.pop(None, {}).items()) + TWO
    for section, keys in tables.items():
        text += f"[{section}]\n" + "".join(f"{k} = {v}\n" for k, v in keys.items())
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "config.toml"
        path.write_text(text, encoding="utf-8")
        try:
            config, _ = config_module.load(path)
        except ConfigError as error:
            assert "\n" not in str(error) and f"{name}" in str(error), str(error)
            return
    # Accepted: what a run does with it before any match works (its id, the recorded limits).
    tournament.tournament_id(config, 1)
    orjson.dumps(config.limits.model_dump(by_alias=True))
    config.engine_rules.as_seed_names()


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (
            "a = " + "{b = " * 30_000 + "1" + "}" * 30_000 + "\n",
            "not valid TOML: nested too deeply",
        ),
    ],
)
def test_a_rules_file_for_play_is_read_as_a_config_is(
    tmp_path: Path, text: str, expected: str
) -> None:
    (tmp_path / "rules.toml").write_text(text, encoding="utf-8")
    result = _arena(tmp_path, "play", "--rules", "rules.toml", "--replays", "r")
    assert result.returncode == 2, result.stderr
    assert result.stderr.splitlines() == [f"rules.toml: {expected}"]
    assert not (tmp_path / "r").exists()
