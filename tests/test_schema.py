"""`arena.replays.schema` and `arena schema`: every message the engine sends, every reply the rules
accept and every replay the arena writes fit their schema; wrong ones are refused.

`jsonschema` is not a dependency, so the pydantic models the schemas are generated from do
the validating, and the schema documents themselves are checked for structure.
"""

from __future__ import annotations

import json
import os
import random
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import orjson
import pytest
from command import arena_process
from pydantic import ValidationError

from arena.base.config import LimitsSection
from arena.engine.cards import new_pack
from arena.engine.match import Match, MatchSetup
from arena.engine.rules import Ask, NextPlayer, RefillWhen, Rules, StartingPlayer, verify_ask
from arena.replays import schema

ARENA = str(Path(sys.executable).parent / "arena")
GOOD_BOT = Path(__file__).parent / "checkbots" / "good.py"
GARBAGE_BOT = Path(__file__).parent / "checkbots" / "garbage.py"
TYPES = set(schema.MESSAGE_MODELS)

SETTINGS = {
    "default": (2, Rules(), LimitsSection()),
    "3 seats, 2 decks, knights, Clockwise": (
        3,
        Rules(number_of_decks=2, knights=True, next_player=NextPlayer.CLOCKWISE),
        LimitsSection(memory_mib=64, cpu_seconds=5, reply_timeout=1),
    ),
    "empty hands": (
        4,
        Rules(starting_player=StartingPlayer.FIRST_IN_LINE, starting_hand_size=0, min_hand_size=0),
        LimitsSection(time_bank=3.5),
    ),
    "the family rules": (
        3,
        Rules(
            next_player=NextPlayer.AFTER_ASKER,
            lucky_draw=True,
            refill_empty_hand=5,
            refill_when=RefillWhen.ON_ITS_TURN,
            min_hand_size=0,
            draw_when_no_one_to_ask=True,
            deal_by_seats=True,
        ),
        LimitsSection(),
    ),
}


def deliveries(
    seed: int, seats: int, rules: Rules, limits: LimitsSection
) -> Iterator[tuple[dict[str, Any], Any]]:
    """Every (message, reply) of a match whose seats reply at random, one in ten asks invalid."""
    names = [f"seat {seat}" for seat in range(seats)]
    setup = MatchSetup.from_seed(seed, names, rules, limits=limits.told_to_seats())
    rng = random.Random(seed)
    game = Match(setup).play()
    try:
        seat, message = next(game)
        while True:
            kind = message["type"]
            reply: Any = None
            if kind == "ask":
                other = rng.choice([s for s in range(seats) if s != seat])
                reply = {"player": other, "cardId": rng.choice(message["hand"])["id"]}
                if rng.random() < 0.1:
                    reply = {"player": seat, "cardId": "x"}
            elif kind == "go-fish":
                reply = rng.choice([rng.randrange(len(message["pond"])), -1, 2.5])
            elif kind == "pick-up":
                reply = rng.randrange(message["pond"])
            yield message, reply
            seat, message = game.send(reply)
    except StopIteration:
        return


@pytest.mark.parametrize("name", SETTINGS)
@pytest.mark.parametrize("seed", [1, 2])
def test_every_message_of_a_match_validates(name: str, seed: int) -> None:
    seats, rules, limits = SETTINGS[name]
    seen = set()
    for message, _ in deliveries(seed, seats, rules, limits):
        kind = message["type"]
        seen.add(kind)
        schema.MESSAGE.validate_python(message)
        # and as the line written on the wire
        schema.MESSAGES[kind].validate_json(orjson.dumps(message))
    assert {"init", "starting-hand", "ask", "hand-update", "match-end"} <= seen


def test_the_matches_send_every_type_of_message() -> None:
    seen = {m["type"] for name in SETTINGS for m, _ in deliveries(1, *SETTINGS[name])}
    assert seen == TYPES


def test_the_replies_of_a_valid_player_validate() -> None:
    for message, reply in deliveries(3, 3, Rules(), LimitsSection()):
        kind = message["type"]
        if kind == "ask" and not isinstance(verify_ask(reply, -1, 99, message["hand"]), Ask):
            with pytest.raises(ValidationError):
                schema.REPLIES[kind].validate_python(reply)
        else:
            schema.REPLIES[kind].validate_python(reply)


CARD = {"id": 5, "card": "🂦", "deck": 0, "suit": 0, "rank": 5}
HAND_UPDATE = {
    "type": "hand-update",
    "askingPlayer": 0,
    "playerAsked": 1,
    "card": CARD,
    "result": 0,
    "hand": [CARD],
}


def test_a_good_message_validates() -> None:
    assert isinstance(schema.MESSAGE.validate_python(HAND_UPDATE), schema.HandUpdateMessage)


@pytest.mark.parametrize(
    "wrong",
    [
        {**HAND_UPDATE, "type": "future-message"},
        {**HAND_UPDATE, "extra": 1},
        {key: value for key, value in HAND_UPDATE.items() if key != "hand"},
        {**HAND_UPDATE, "askingPlayer": True},
        {**HAND_UPDATE, "askingPlayer": "0"},
        {**HAND_UPDATE, "result": -1},
        {**HAND_UPDATE, "card": {**CARD, "rank": 14}},
        {**HAND_UPDATE, "card": {**CARD, "suit": 4}},
        {**HAND_UPDATE, "card": {**CARD, "card": "5S"}},
        {**HAND_UPDATE, "hand": [{**CARD, "colour": "red"}]},
        {"type": "go-fish", "pond": []},
        {"type": "pick-up", "pond": 0},
        {"type": "pick-up-result", "card": [CARD, CARD], "hand": []},
        {"type": "ask", "hand": [], "opponentsHandSizes": [None, 3], "pond": []},
        {"type": "match-end", "scores": [1, 2], "ranks": [0, 1]},
        {"ask": 1},
        [HAND_UPDATE],
    ],
)
def test_a_wrong_message_is_refused(wrong: Any) -> None:
    with pytest.raises(ValidationError):
        schema.MESSAGE.validate_python(wrong)


def test_init_limits_that_are_not_set_are_absent_not_null() -> None:
    message = next(deliveries(1, *SETTINGS["default"]))[0]
    assert "memoryMiB" not in message["settings"]["limits"]
    schema.MESSAGE.validate_python(message)
    message["settings"]["limits"]["memoryMiB"] = None
    with pytest.raises(ValidationError):
        schema.MESSAGE.validate_python(message)


ASK_REPLIES: list[tuple[Any, bool]] = [
    ({"player": 1, "cardId": 5}, True),
    ({"player": 1.0, "cardId": 5.0}, True),
    ({"player": 1, "cardId": 5, "note": "extra keys are ignored"}, True),
    ({"player": True, "cardId": 5}, False),
    ({"player": "1", "cardId": 5}, False),
    ({"player": 1.5, "cardId": 5}, False),
    ({"player": 1, "cardId": None}, False),
    ({"player": 1, "cardId": CARD}, False),
    ({"player": 1}, False),
    ([1, 5], False),
    (None, False),
]


@pytest.mark.parametrize(("reply", "valid"), ASK_REPLIES)
def test_the_ask_reply_schema_agrees_with_the_rules(reply: Any, valid: bool) -> None:
    # The rules also need the seat to exist and the card to be in hand: give them both.
    hand = [{**CARD, "id": 5}]
    assert isinstance(verify_ask(reply, 0, 2, hand), Ask) is valid  # type: ignore[arg-type]
    if valid:
        schema.REPLIES["ask"].validate_python(reply)
    else:
        with pytest.raises(ValidationError):
            schema.REPLIES["ask"].validate_python(reply)


@pytest.mark.parametrize("reply", [0, 3, -1, 2.5, -0.5, 10**30])
def test_a_pond_index_is_a_finite_number(reply: Any) -> None:
    assert schema.REPLIES["go-fish"].validate_python(reply) == reply
    assert schema.REPLIES["pick-up"].validate_python(reply) == reply


@pytest.mark.parametrize("reply", ["3", None, True, [1], {"index": 1}, float("inf"), float("nan")])
def test_a_pond_index_that_counts_as_zero_is_refused(reply: Any) -> None:
    with pytest.raises(ValidationError):
        schema.REPLIES["pick-up"].validate_python(reply)


@pytest.mark.parametrize("reply", [None, 1, "ok", [1, {"a": None}], {"reuse": True}])
def test_informational_messages_take_any_reply(reply: Any) -> None:
    for kind in TYPES - {"ask", "go-fish", "pick-up"}:
        schema.REPLIES[kind].validate_python(reply)


# -- the replay -----------------------------------------------------------------------------


@pytest.fixture(scope="module")
def written_replay(tmp_path_factory: pytest.TempPathFactory) -> bytes:
    """A replay written by `arena run`, with a participant that never replies JSON."""
    folder = tmp_path_factory.mktemp("run")
    (folder / "config.toml").write_text(
        "seed = 7\n[rules]\nminHandSize = 2\n[deck]\nknights = true\n"
        f'[[participants]]\nname = "good"\ncommand = ["python3", "{GOOD_BOT}"]\n'
        f'[[participants]]\nname = "garbage"\ncommand = ["python3", "{GARBAGE_BOT}"]\n'
    )
    done = subprocess.run(
        [ARENA, "run", str(folder / "config.toml")], capture_output=True, timeout=30, check=False
    )
    assert done.returncode == 0, done.stderr
    (replay,) = (folder / "replays").glob("*.json")
    return replay.read_bytes()


def test_a_written_replay_validates(written_replay: bytes) -> None:
    replay = schema.REPLAY.validate_json(written_replay)
    assert {entry.message.type for entry in replay.transcript} >= {
        "init",
        "ask",
        "hand-update",
        "match-end",
    }
    assert any(entry.noReply is not None for entry in replay.transcript)


def test_a_replay_with_a_wrong_message_is_refused(written_replay: bytes) -> None:
    data = json.loads(written_replay)
    data["transcript"][0]["message"]["seat"] = "zero"
    with pytest.raises(ValidationError):
        schema.REPLAY.validate_python(data)
    del data["transcript"]
    with pytest.raises(ValidationError):
        schema.REPLAY.validate_python(data)


# -- the schema documents ---------------------------------------------------------------------


def refs(node: Any) -> Iterator[str]:
    if isinstance(node, dict):
        for key, value in node.items():
            if key == "$ref":
                yield value
            else:
                yield from refs(value)
    elif isinstance(node, list):
        for item in node:
            yield from refs(item)


def test_every_schema_file_is_a_standalone_json_schema() -> None:
    files = schema.files()
    assert len(files) == 2 * len(TYPES) + 2
    for name, document in files.items():
        assert document["$schema"] == "https://json-schema.org/draft/2020-12/schema", name
        assert document["$id"].startswith("urn:gofish-arena:"), name
        for ref in refs(document):
            assert ref.startswith("#/$defs/"), (name, ref)
            assert ref.removeprefix("#/$defs/") in document["$defs"], (name, ref)


def test_each_message_schema_names_its_type_and_forbids_other_keys() -> None:
    messages = schema.document()["messages"]
    assert set(messages) == TYPES
    for kind, document in messages.items():
        assert document["type"] == "object"
        assert document["properties"]["type"] == {"const": kind, "title": "type", "type": "string"}
        assert document["additionalProperties"] is False
        assert "type" in document["required"]
    card = messages["hand-update"]["$defs"]["Card"]
    assert card["required"] == ["id", "card", "deck", "suit", "rank"]
    assert card["properties"]["rank"]["maximum"] == 13


def test_the_reply_schemas() -> None:
    replies = schema.document()["replies"]
    assert set(replies) == TYPES
    ask = replies["ask"]
    assert ask["required"] == ["player", "cardId"]
    assert ask["properties"]["player"]["type"] == ask["properties"]["cardId"]["type"] == "integer"
    assert replies["go-fish"]["type"] == replies["pick-up"]["type"] == "number"
    for kind in TYPES - {"ask", "go-fish", "pick-up"}:
        assert "type" not in replies[kind] and "$ref" not in replies[kind], kind


def test_the_replay_schema_requires_what_the_spec_requires() -> None:
    replay = schema.document()["replay"]
    assert set(replay["required"]) >= {
        "format",
        "config",
        "seed",
        "players",
        "startingPlayer",
        "deck",
        "transcript",
        "result",
    }
    entry = replay["$defs"][
        replay["properties"]["transcript"]["items"]["$ref"].removeprefix("#/$defs/")
    ]
    assert entry["properties"]["message"]["discriminator"]["propertyName"] == "type"
    assert set(entry["properties"]["message"]["discriminator"]["mapping"]) == TYPES


def test_the_pack_fits_the_card_schema() -> None:
    for card in new_pack(3, knights=True):
        schema.Card.model_validate(card)


# -- the command ------------------------------------------------------------------------------


def test_arena_schema_prints_one_json_document() -> None:
    done = subprocess.run([ARENA, "schema"], capture_output=True, timeout=30, check=True)
    assert json.loads(done.stdout) == json.loads(json.dumps(schema.document()))
    assert done.stderr == b""


def test_arena_schema_out_writes_one_file_per_schema(tmp_path: Path) -> None:
    target = tmp_path / "schemas"
    done = subprocess.run(
        [ARENA, "schema", "-o", str(target)],
        capture_output=True,
        text=True,
        timeout=30,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert sorted(path.name for path in target.iterdir()) == sorted(schema.files())
    assert (
        json.loads((target / "reply.ask.schema.json").read_text())
        == schema.files()["reply.ask.schema.json"]
    )
    assert "wrote 22 schemas" in done.stdout


def test_arena_schema_out_to_a_file_fails_cleanly(tmp_path: Path) -> None:
    blocker = tmp_path / "taken"
    blocker.write_text("a file, not a folder")
    done = subprocess.run(
        [ARENA, "schema", "--output", str(blocker)],
        capture_output=True,
        text=True,
        timeout=30,
        check=False,
    )
    assert done.returncode == 1
    assert "cannot write schemas" in done.stderr
    assert "Traceback" not in done.stderr


def _schema_out(folder: Path) -> subprocess.CompletedProcess[str]:
    return arena_process("schema", "-o", str(folder), timeout=30)


def test_schema_out_never_writes_through_a_link_nor_waits_on_a_fifo(tmp_path: Path) -> None:
    folder = tmp_path / "schemas"
    assert _schema_out(folder).returncode == 0
    first, second = sorted(folder.iterdir())[:2]
    # A link in a schema's place: replaced by the schema, the file it named untouched.
    target = tmp_path / "mine.txt"
    target.write_text("mine", encoding="utf-8")
    first.unlink()
    first.symlink_to(target)
    assert _schema_out(folder).returncode == 0
    assert target.read_text(encoding="utf-8") == "mine"
    assert not first.is_symlink() and json.loads(first.read_text(encoding="utf-8"))
    assert first.stat().st_mode & 0o777 == 0o666 & ~_umask()  # as any new file, not 0600
    # A FIFO in a schema's place: one line, exit 2, before any file is written (it hung).
    second.unlink()
    os.mkfifo(second)
    before = {p.name: p.stat().st_mtime_ns for p in folder.iterdir() if p != second}
    done = _schema_out(folder)
    assert done.returncode == 2, done.stderr
    assert done.stderr.splitlines() == [
        f"--output: {second}: not a regular file (a FIFO); move it out of the way"
    ]
    assert {p.name: p.stat().st_mtime_ns for p in folder.iterdir() if p != second} == before


def _umask() -> int:
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


def test_schema_old_out_spelling_still_writes_with_a_note(tmp_path: Path) -> None:
    from command import arena_here

    done = arena_here("schema", "--out", str(tmp_path / "old"))
    assert done.returncode == 0, done.stderr
    assert sorted(path.name for path in (tmp_path / "old").iterdir()) == sorted(schema.files())
    assert done.stderr == "note: --out is now --output; the old name goes in the next release\n"
    both = arena_here("schema", "--out", str(tmp_path / "a"), "-o", str(tmp_path / "b"))
    assert both.returncode == 2
    assert both.stderr.strip() == "--out and --output: give --output alone (--out is its old name)"
    assert not (tmp_path / "a").exists() and not (tmp_path / "b").exists()
