"""Every match of a report one click from its viewer (issue #25): the run builds each match's
viewer page beside its replay as it records the match, `arena report` builds those missing (an
older folder), and the report's "view" link opens it, in a real Chromium, from `file://` and
from a web server."""

from __future__ import annotations

import http.server
import json
import os
import subprocess
import sys
import threading
from pathlib import Path
from typing import Any

import pytest
from command import arena_here
from test_viewer import Browser, browser  # noqa: F401 - the fixture

GAMES = 4


def _arena(folder: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return arena_here(*args, cwd=folder, env={**os.environ, "COLUMNS": "160", "NO_COLOR": "1"})


@pytest.fixture
def run_folder(tmp_path: Path) -> Path:
    """A finished run of GAMES matches (built-in bots, 4 cards: quick); its replays folder."""
    (tmp_path / "config.toml").write_text(
        f"seed = 8\ngames = {GAMES}\n[rules]\nstartingHandSize = 4\n"
        "[[participants]]\nname = 'ann'\nbot = 'easy'\n"
        "[[participants]]\nname = 'bob'\nbot = 'random'\n",
        encoding="utf-8",
    )
    done = _arena(tmp_path, "run", "config.toml", "-q", "--jobs", "1")
    assert done.returncode == 0, done.stderr
    return tmp_path / "replays"


def _pages(folder: Path) -> list[Path]:
    return sorted(path for path in folder.glob("*-g*.html"))


def _rows(browser: Browser) -> list[dict[str, str]]:  # noqa: F811
    found: list[dict[str, str]] = browser.js(
        "[...document.querySelectorAll('#match-table tr.match')].map(tr => Object.fromEntries("
        "[...tr.querySelectorAll('a')].map(a => [a.textContent, a.href])))"
    )
    return found


def _follow(browser: Browser, link: str) -> None:  # noqa: F811
    """Click the report's first `link` ("view") and wait for the page it opens."""
    browser.events.clear()
    browser.js(f"document.querySelector('#match-table a.{link}').click()")
    browser.wait_event("Page.loadEventFired")


def test_the_run_builds_every_match_s_page_and_the_report_links_it(
    run_folder: Path,
    browser: Browser,  # noqa: F811
) -> None:
    pages = _pages(run_folder)
    assert len(pages) == GAMES  # one per match, none asked for with --view
    for page in pages:
        assert page.with_suffix(".json").is_file()
        assert page.read_text(encoding="utf-8").startswith("<!DOCTYPE html>")
    report = run_folder / "report.html"
    browser.open(report.as_uri())
    rows = _rows(browser)
    assert len(rows) == GAMES
    assert sorted(row["view"] for row in rows) == sorted(page.as_uri() for page in pages)
    assert all(row["json"] == row["view"].removesuffix(".html") + ".json" for row in rows)
    _follow(browser, "view")
    assert browser.js("location.href.split('#')[0]") == rows[0]["view"]
    assert browser.js("document.body.dataset.ready") == "1"
    assert browser.text("position").startswith("step ")  # the viewer, stepping through it


def test_the_links_work_from_a_web_server(run_folder: Path, browser: Browser) -> None:  # noqa: F811
    served = str(run_folder.parent)

    class Quiet(http.server.SimpleHTTPRequestHandler):
        def __init__(self, *args: Any, **kwargs: Any) -> None:
            super().__init__(*args, directory=served, **kwargs)

        def log_message(self, *args: object) -> None:
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Quiet)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        base = f"http://127.0.0.1:{server.server_address[1]}/replays/"
        browser.open(base + "report.html")
        rows = _rows(browser)
        assert len(rows) == GAMES and all(row["view"].startswith(base) for row in rows)
        _follow(browser, "view")
        assert browser.js("location.href.split('#')[0]") == rows[0]["view"]
        assert browser.js("document.body.dataset.ready") == "1"
        assert browser.text("position").startswith("step ")
    finally:
        server.shutdown()
        server.server_close()


def test_arena_report_builds_the_pages_an_older_folder_lacks(run_folder: Path) -> None:
    for page in _pages(run_folder):
        page.unlink()  # as a folder from before pages were built by the run
    broken = min(run_folder.glob("*-g0002-*.json"))
    broken.write_text("{}", encoding="utf-8")  # one replay that can no longer be read
    done = _arena(run_folder.parent, "report", "replays")
    assert done.returncode == 0, done.stderr
    assert f"built the viewer pages of {GAMES - 1} more matches" in done.stdout
    assert "no viewer page for game 2:" in done.stderr and "Traceback" not in done.stderr
    assert len(_pages(run_folder)) == GAMES - 1
    text = (run_folder / "report.html").read_text(encoding="utf-8")
    start = text.index('id="report-data">') + len('id="report-data">')
    data = json.loads(text[start : text.index("</script>", start)])
    assert data["pages"] == [0, 1, 3]  # the match without a page has no view link
    again = _arena(run_folder.parent, "report", "replays")  # nothing left to build
    assert again.returncode == 0 and "built the viewer pages" not in again.stdout


def test_pages_put_off_during_the_run_are_built_at_its_end(tmp_path: Path) -> None:
    (tmp_path / "config.toml").write_text(
        f"seed = 9\ngames = {GAMES}\n[rules]\nstartingHandSize = 4\n"
        "[[participants]]\nname = 'ann'\nbot = 'easy'\n"
        "[[participants]]\nname = 'bob'\nbot = 'random'\n",
        encoding="utf-8",
    )
    # No time at all for pages while it plays: all but the first wait for the end of the run.
    no_time = (
        "import sys; from arena.ui import report; report.PAGE_SHARE = 0.0; "
        "from arena.ui.cli import main; sys.argv[0] = 'arena'; sys.exit(main())"
    )
    done = subprocess.run(
        [sys.executable, "-c", no_time, "run", "config.toml", "-q", "--jobs", "1"],
        cwd=tmp_path,
        capture_output=True,
        check=False,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr
    folder = tmp_path / "replays"
    assert len(_pages(folder)) == GAMES
    text = (folder / "report.html").read_text(encoding="utf-8")
    start = text.index('id="report-data">') + len('id="report-data">')
    assert json.loads(text[start : text.index("</script>", start)])["pages"] == list(range(GAMES))
