"""The HTML viewer's notes panel and the coach's marks, in a real headless Chromium.

A real match of a bot that writes a note before each ask (the example `most_held.py`, taught to)
against `hard`, made into a page by the real CLI with `--seat 0`: the notes show beside the
step they were written for, only the seat's own in a seat's view; the coach's marks show in the
view of all seats and of the reviewed seat, never in another seat's (a suggested ask would tell
a card of that hand); and a page for people who must not read a bot's logs has no notes at all.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from test_notes_shown import NOTE
from test_viewer import Browser, browser  # noqa: F401 - the fixture
from typer.testing import CliRunner

from arena.replays import replay as replay_module
from arena.ui import viewer
from arena.ui.cli import app

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def noted(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("viewer-notes")
    source = (ROOT / "participants" / "examples" / "most_held.py").read_text(encoding="utf-8")
    (folder / "noting.py").write_text(
        source.replace("    def ask(self, sizes: list) -> dict:\n", NOTE), encoding="utf-8"
    )
    (folder / "config.toml").write_text(
        "seed = 6\n"  # (a match where the coach finds asks that cost it beyond doubt)
        '[[participants]]\nname = "noter"\ncommand = ["python3", "noting.py"]\n'
        '[[participants]]\nname = "hal"\nbot = "hard"\n',
        encoding="utf-8",
    )
    result = CliRunner().invoke(app, ["run", str(folder / "config.toml")])
    assert result.exit_code == 0, result.output
    (path,) = sorted((folder / "replays").glob("*.json"))
    return path


def go_to_message(browser: Browser, at: int) -> None:  # noqa: F811
    """Move the slider to the step of transcript message `at` in the current view."""
    browser.js(
        "(() => { const s = document.getElementById('slider');"
        " const items = [...document.querySelectorAll('#log li:not(.fork-mark)')];"
        f" const i = items.findIndex(li => li.value === {at});"
        " s.value = String(i); s.dispatchEvent(new Event('input')); })()"
    )


def set_view(browser: Browser, value: str) -> None:  # noqa: F811
    browser.js(
        "(() => { const v = document.getElementById('view');"
        f" v.value = {json.dumps(value)}; v.dispatchEvent(new Event('change')); }})()"
    )


def test_notes_and_coach_marks_show_where_they_belong(
    noted: Path,
    tmp_path: Path,
    browser: Browser,  # noqa: F811
) -> None:
    page = tmp_path / "page.html"
    made = CliRunner().invoke(app, ["replay", "html", str(noted), "-o", str(page), "--seat", "0"])
    assert made.exit_code == 0, made.output
    document = json.loads(noted.read_text(encoding="utf-8"))
    noted_at = [i for i, e in enumerate(document["transcript"]) if "notes" in e]
    assert noted_at

    browser.open(page.as_uri())
    assert browser.js("document.body.dataset.ready") == "1"
    go_to_message(browser, noted_at[0])
    assert browser.js("document.getElementById('notes').hidden") is False
    assert "thinking:" in browser.text("note-list") and "noter" in browser.text("note-list")
    assert "\x1b" in browser.text("note-list")  # shown as text, exactly as written

    coached = browser.js("document.querySelectorAll('#log li.coached').length")
    assert coached > 0
    mark = browser.js("document.querySelector('#log li.coached').value")
    go_to_message(browser, mark)
    assert browser.js("document.getElementById('coach').hidden") is False
    assert "master would ask" in browser.text("coach") and "books ±" in browser.text("coach")

    set_view(browser, "1")  # hal's view: noter's notes and its coach are not hal's to read
    assert browser.js("document.querySelectorAll('#log li.coached').length") == 0
    assert "thinking:" not in browser.js(
        "[...document.querySelectorAll('#note-list li')].map(li => li.textContent).join()"
    )
    set_view(browser, "0")
    assert browser.js("document.querySelectorAll('#log li.coached').length") == coached
    assert not [e for e in browser.events if e["method"] == "Runtime.exceptionThrown"]


def test_a_page_without_notes_carries_none(noted: Path) -> None:
    data = replay_module.read(noted)
    assert viewer.page_data(data)["notes"]
    assert viewer.page_data(data, notes=False)["notes"] == []
    assert "thinking:" not in viewer.render(data, notes=False)


def test_review_options_are_checked_in_one_line(noted: Path, tmp_path: Path) -> None:
    for options, words in (
        (["--seat", "5"], "--seat 5: the replay has seats 0..1"),
        (["--review", "5"], "--seat 5: the replay has seats 0..1"),  # its old name
        (["--seat", "0", "--level", "nobody"], "--level nobody: not one of"),
        (["--seat", "0", "--review", "0"], "--review and --seat: give --seat alone"),
    ):
        result = CliRunner().invoke(
            app, ["replay", "html", str(noted), "-o", str(tmp_path / "x.html"), *options]
        )
        assert result.exit_code == 2 and words in result.output
    assert not (tmp_path / "x.html").exists()
