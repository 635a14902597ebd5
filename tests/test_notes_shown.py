"""Notes beside each decision, where people look: `arena replay show --notes` prints what a bot
wrote to stderr under the step it was answering, only that seat's with `--seat`, inert.

A real match: the example bot `most_held.py`, taught to write a note before each ask, against a
built-in bot, through the real CLI.
"""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest
from typer.testing import CliRunner

from arena.ui.cli import app

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


def show(path: Path, *options: str) -> str:
    result = CliRunner().invoke(app, ["replay", "show", str(path), *options])
    assert result.exit_code == 0, result.output
    return result.output


def test_each_note_is_printed_under_the_step_it_answered(noted: Path) -> None:
    output = show(noted, "--notes")
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
    assert "thinking:" not in show(noted)


def test_a_seats_view_shows_only_its_own_notes(noted: Path) -> None:
    assert "✎ noter" in show(noted, "--notes", "--seat", "0")
    assert "✎" not in show(noted, "--notes", "--seat", "1")


def test_the_notes_are_in_the_replay_beside_their_message(noted: Path) -> None:
    import json

    document = json.loads(noted.read_text(encoding="utf-8"))
    noted_entries = [e for e in document["transcript"] if "notes" in e]
    assert noted_entries and all(e["seat"] == 0 for e in noted_entries)
    assert all(e["message"]["type"] == "ask" for e in noted_entries)
    assert all(re.match(r"thinking: \d+ cards", e["notes"]) for e in noted_entries)
