"""`arena replay show` and the timeline it is built from."""

from __future__ import annotations

import io
import json
import re
import shutil
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from replaymaker import Read, make_replay, quit_game
from rich.console import Console
from typer.testing import CliRunner

from arena.base.errors import ReplayError
from arena.engine.events import as_json
from arena.engine.match import MatchSetup, Outcome, Result
from arena.engine.rules import Rules
from arena.referee.loop import replay_transcript
from arena.replays import replay as replay_module
from arena.replays import timeline
from arena.replays.timeline import StepKind
from arena.ui import show
from arena.ui.cli import app


def _render(data: replay_module.Replay, seat: int | None = None, terminal: bool = False) -> str:
    buffer = io.StringIO()
    console = Console(
        file=buffer,
        width=200,
        force_terminal=terminal,
        color_system="truecolor" if terminal else None,
    )
    console.print(show.render(data, seat))
    return buffer.getvalue()


@pytest.fixture(scope="module")
def three(tmp_path_factory: pytest.TempPathFactory) -> Read:
    path = make_replay(
        tmp_path_factory.mktemp("three"),
        ["alice", "bob", "carol"],
        seed=5,
        bots=("easy", "hard", "random"),
    )
    return Read.of(path)


def test_timeline_follows_the_engine_events(three: Read) -> None:
    setup, steps = timeline.build(three.replay)
    events = replay_transcript(setup, list(three.replay.transcript)).events
    assert [as_json(e) for e in events] == three.json["events"]
    kinds = [step.kind for step in steps]
    assert kinds[0] is StepKind.DEAL and kinds[-1] is StepKind.END
    by_event = {
        "asked": StepKind.ASK,
        "drew": StepKind.DRAW,
        "book-laid": StepKind.BOOK,
        "invalid-ask": StepKind.INVALID_ASK,
    }
    assert kinds[1:-1] == [by_event[event["event"]] for event in three.json["events"]]
    for step in steps:  # every card is somewhere, once
        held = [card for hand in step.hands for card in hand]
        assert len(held) == len(set(held))
        assert len(held) + step.pond + 4 * sum(len(b) for b in step.books) == 52
    assert steps[-1].pond == 0 and not any(steps[-1].hands)
    assert [len(b) for b in steps[-1].books] == three.json["result"]["scores"]


FAMILY_TABLE = (
    'minHandSize = 0\nnextPlayer = "After asker"\nluckyDraw = true\nrefillEmptyHand = 5\n'
    'refillWhen = "On its turn"\ndrawWhenNoOneToAsk = true\ndealBySeats = true\n'
)


@pytest.fixture(scope="module")
def family(tmp_path_factory: pytest.TempPathFactory) -> Read:
    path = make_replay(
        tmp_path_factory.mktemp("family"),
        ["ann", "ben", "cat"],
        seed=3,
        bots=("hard", "expert", "easy"),
        rules=FAMILY_TABLE,
    )
    return Read.of(path)


def test_a_lucky_draw_is_a_step_every_seat_sees(family: Read) -> None:
    setup, steps = timeline.build(family.replay)
    assert setup.rules.lucky_draw and setup.rules.hand_size(3) == 5
    lucky = [step for step in steps if step.kind is StepKind.LUCKY_DRAW]
    assert lucky and len(lucky) == sum(e["event"] == "lucky-draw" for e in family.json["events"])
    assert all(None not in step.seen for step in lucky)
    text = _render(family.replay, seat=2)
    assert "5 cards each (by table size)" in text and "lucky draw" in text
    assert "the rank asked for, and asks again" in text
    # The same seat goes on asking: no new turn starts after a lucky draw.
    lines = _render(family.replay).splitlines()
    at = next(i for i, line in enumerate(lines) if "and asks again" in line)
    assert not lines[at + 1].startswith("turn ")


def test_show_everything(three: Read) -> None:
    text = _render(three.replay)
    assert "the deal" in text and "the final table (completed, pond 0)" in text
    asks = [e for e in three.json["events"] if e["event"] == "asked"]
    ask_lines = re.findall(r"^\s+\d+\s+(\w+) asked (\w+) for (\S+): (.*)$", text, re.MULTILINE)
    assert len(ask_lines) == len(asks)
    names = ["alice", "bob", "carol"]
    for (asker, asked, rank, answer), event in zip(ask_lines, asks, strict=True):
        assert (asker, asked) == (names[event["seat"]], names[event["asked"]])
        assert rank == timeline.rank_name(event["rank"], plural=True)
        moved = event["moved"]
        if not moved:
            assert answer == "go fish"
            continue
        handed = re.fullmatch(rf"{asked} handed over {moved} \((.*)\)", answer)
        assert handed, answer
        cards = handed.group(1).split()
        assert len(cards) == moved
        assert all(card[:-1] == timeline.rank_name(event["rank"]) for card in cards)
    books = sum(1 for e in three.json["events"] if e["event"] == "book-laid")
    assert len(re.findall(r" laid a book of ", text)) == books == 13
    draws = [e for e in three.json["events"] if e["event"] == "drew"]
    assert len(re.findall(r" (went fishing and drew|picked up) [AJQK0-9]+[♠♥♦♣]", text)) == len(
        draws
    )
    for seat, name in enumerate(names):  # every seat's dealt hand, stacked by rank
        assert re.search(rf"^  {name}: (\[\w+\] (\S+ ?)+ *)+$", text, re.MULTILINE), name


def test_show_one_seat_hides_the_others(three: Read) -> None:
    text = _render(three.replay, seat=1)
    assert "as seen by seat 1" in text
    assert re.search(r"^  alice: 7 cards$", text, re.MULTILINE) and re.search(
        r"^  carol: 7 cards$", text, re.MULTILINE
    )
    assert re.search(r"^  bob: \[", text, re.MULTILINE)
    setup, _ = timeline.build(three.replay)
    lucky = 0
    for event in three.json["events"]:
        if event["event"] == "drew" and event["seat"] != 1:
            assert (
                f"{setup.names[event['seat']]} picked up {timeline.rank_name(event['rank'])}"
                not in text
            )
    for line in re.findall(r"^\s+\d+\s+(\w+) went fishing and drew (\S+)", text, re.MULTILINE):
        if line[0] != "bob":
            assert line[1].endswith(",")  # only ", the rank asked for"
            lucky += 1
    others = [e for e in three.json["events"] if e["event"] == "drew" and e["seat"] != 1]
    shown = re.findall(r"^\s+\d+\s+(\w+) (?:went fishing|picked up a card)", text, re.MULTILINE)
    assert len([name for name in shown if name != "bob"]) == len(others) > 0
    own = [e for e in three.json["events"] if e["event"] == "drew" and e["seat"] == 1]
    assert len(re.findall(r" bob (went fishing and drew|picked up) \S+", text)) == len(own)
    assert lucky <= sum(1 for e in three.json["events"] if e["event"] == "drew" and e["seat"] != 1)


def test_faults_and_invalid_asks_are_shown(tmp_path: Path) -> None:
    data = replay_module.read(make_replay(tmp_path, ["bad", "easy"], seed=3, bad=True))
    text = _render(data)
    assert re.search(r"fault: bad — not-json: ", text)
    assert "bad made an invalid ask: gave no reply (not-json); the turn passes" in text
    seen_by_easy = _render(data, seat=1)
    assert "fault:" not in seen_by_easy and "invalid ask" not in seen_by_easy


def test_replay_strings_reach_the_terminal_inert(tmp_path: Path) -> None:
    path = make_replay(tmp_path, ["alice", "bob"], seed=2)
    data = json.loads(path.read_text(encoding="utf-8"))
    data["players"][0]["name"] = "\x1b]0;pwn\x07[b red]ev[/]\u202e"
    data["faults"] = [
        {"seat": 1, "at": 7, "kind": "timeout", "detail": "x\x1b[31my\x1b[2J", "raw": "\x1b[5mraw"}
    ]
    hostile = tmp_path / "hostile.json"
    hostile.write_text(json.dumps(data), encoding="utf-8")
    text = _render(replay_module.read(hostile), terminal=True)
    escapes = set(re.findall(r"\x1b[^m]*m?", text))
    assert all(re.fullmatch(r"\x1b\[[0-9;]*m", escape) for escape in escapes), (
        escapes
    )  # only rich's own colours
    plain = re.sub(r"\x1b\[[0-9;]*m", "", text)
    assert "?]0;pwn?[b red]ev[/]\\u2" in plain  # a direction change shown by its code point (cut)
    assert "x?[31my?[2J" in plain and "?[5mraw" in plain
    assert "\x07" not in text and "\u202e" not in text


def test_cli(tmp_path: Path) -> None:
    path = make_replay(tmp_path, ["alice", "bob"], seed=8)
    runner = CliRunner()
    shown = runner.invoke(app, ["replay", "show", str(path)])
    assert shown.exit_code == 0, shown.output
    assert "the final table" in shown.output
    seat = runner.invoke(app, ["replay", "show", str(path), "--seat", "1"])
    assert seat.exit_code == 0 and "as seen by seat 1" in seat.output
    assert runner.invoke(app, ["replay", "show", str(path), "--seat", "2"]).exit_code == 2
    assert runner.invoke(app, ["replay", "show", str(tmp_path / "missing.json")]).exit_code == 2


def test_a_stopped_match_shows_books_so_far_and_no_places(tmp_path: Path) -> None:
    path = quit_game(tmp_path)
    shown = CliRunner().invoke(app, ["replay", "show", str(path)], env={"COLUMNS": "200"})
    assert shown.exit_code == 0, shown.output
    assert "match stopped (interrupted), no places; books so far: you 0 books" in shown.output
    assert "1st" not in shown.output  # every seat tied on 0 books would read "1st" three times
    assert "the table when the match was stopped (interrupted: no places" in shown.output
    rows = [line for line in shown.output.splitlines() if line.startswith("│")]
    assert rows and all(row.split("│")[4].strip() in ("-", "") for row in rows)


def test_the_header_says_no_refill_and_counts_decks(tmp_path: Path) -> None:
    classic = make_replay(tmp_path / "a", ["ann", "bob"])
    shown = CliRunner().invoke(app, ["replay", "show", str(classic)])
    assert "7 cards each, refill to 1, next: Asked, 1 deck" in shown.output
    assert "deck(s)" not in shown.output
    bare = make_replay(
        tmp_path / "b", ["ann", "bob"], rules="minHandSize = 0\n[deck]\nnumberOfDecks = 2"
    )
    shown = CliRunner().invoke(app, ["replay", "show", str(bare)])
    assert "7 cards each, no refill, next: Asked, 2 decks" in shown.output


def test_one_book_is_one_book() -> None:
    builder = timeline.TimelineBuilder(MatchSetup.from_seed(1, ("ann", "bob"), Rules()))
    step = builder.end(Result(Outcome.COMPLETED, (12, 1), (1, 2)), 99)
    text = "".join(part if isinstance(part, str) else "?" for part in step.line)
    assert text == "match over (completed): ? 12 books (1st)  ? 1 book (2nd)  "


def test_a_deck_that_is_not_a_pack_is_refused(tmp_path: Path) -> None:
    data = replay_module.read(make_replay(tmp_path, ["alice", "bob"], seed=8))
    first, second = data.deck[0], data.deck[1]
    for wrong in (
        {**first, "rank": 99},
        {**first, "rank": second["rank"], "id": second["id"]},
    ):
        edited = replace(data, deck=(wrong, *data.deck[1:]))  # type: ignore[arg-type]
        with pytest.raises(ReplayError, match="not the pack"):
            timeline.build(edited)


def test_a_family_replay_verifies_and_its_rules_cannot_be_changed(family: Read) -> None:
    assert replay_module.verify(family.replay) is None
    rules = family.replay.settings["rules"]

    def with_rules(changed: dict[str, Any]) -> replay_module.Replay:
        return replace(family.replay, settings={**family.replay.settings, "rules": changed})

    switched_off = with_rules({k: v for k, v in rules.items() if k != "luckyDraw"})
    assert (replay_module.verify(switched_off) or "").startswith("transcript[")
    both = with_rules({**rules, "startingHandSize": 5})
    assert "dealBySeats" in (replay_module.verify(both) or "")


# --- Notes beside each decision, where people look: `arena replay show --notes` prints what a bot
# wrote to stderr under the step it was answering, only that seat's with `--seat`, inert.
#
# A real match: the example bot `most_held.py`, taught to write a note before each ask, against a
# built-in bot, through the real CLI.


ROOT = Path(__file__).resolve().parents[1]
NOTE = (
    "    def ask(self, sizes: list) -> dict:\n"
    "        print(f'thinking: {len(self.hand)} cards\\x1b[31m red?', file=sys.stderr, flush=True)\n"
)


@pytest.fixture(scope="module")
def noted(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("notes")
    source = (ROOT / "participants" / "examples" / "most_held.py").read_text(encoding="utf-8")
    assert "    def ask(self, sizes: list) -> dict:\n" in source
    bot = source.replace("    def ask(self, sizes: list) -> dict:\n", NOTE)
    (folder / "noting.py").write_text(bot, encoding="utf-8")
    shutil.copymode(ROOT / "participants" / "examples" / "most_held.py", folder / "noting.py")
    (folder / "config.toml").write_text(
        "seed = 3\n"
        '[[participants]]\nname = "noter"\ncommand = ["python3", "noting.py"]\n'
        '[[participants]]\nname = "hal"\nbot = "hard"\n',
        encoding="utf-8",
    )
    result = CliRunner().invoke(app, ["run", str(folder / "config.toml")])
    assert result.exit_code == 0, result.output
    (path,) = sorted((folder / "replays").glob("*.json"))
    return path


def show_output(path: Path, *options: str) -> str:
    result = CliRunner().invoke(app, ["replay", "show", str(path), *options])
    assert result.exit_code == 0, result.output
    return result.output


def test_each_note_is_printed_under_the_step_it_answered(noted: Path) -> None:
    output = show_output(noted, "--notes")
    lines = output.splitlines()
    notes = [i for i, line in enumerate(lines) if "✎ noter: thinking:" in line]
    assert notes, output
    for i in notes:
        index = int(lines[i].split()[0])
        # The step just above is the ask this note was written for, at the same message.
        above = lines[i - 1]
        assert above.split()[0] == str(index) and "noter asked hal" in above
    assert "\x1b" not in output and "?[31m red?" in output  # inert: no escape reaches the terminal


def test_notes_are_shown_only_when_asked_for(noted: Path) -> None:
    assert "thinking:" not in show_output(noted)


def test_a_seats_view_shows_only_its_own_notes(noted: Path) -> None:
    assert "✎ noter" in show_output(noted, "--notes", "--seat", "0")
    assert "✎" not in show_output(noted, "--notes", "--seat", "1")


def test_the_notes_are_in_the_replay_beside_their_message(noted: Path) -> None:
    import json

    document = json.loads(noted.read_text(encoding="utf-8"))
    noted_entries = [e for e in document["transcript"] if "notes" in e]
    assert noted_entries and all(e["seat"] == 0 for e in noted_entries)
    assert all(e["message"]["type"] == "ask" for e in noted_entries)
    assert all(re.match(r"thinking: \d+ cards", e["notes"]) for e in noted_entries)
