"""`arena replay html`: the page, checked in a real headless Chromium driven over CDP.

The browser is Debian's `chromium`, driven through `--remote-debugging-pipe` with the
standard library only (JSON messages separated by NUL bytes on fds 3 and 4).
"""

from __future__ import annotations

import fcntl
import json
import os
import select
import shutil
import subprocess
import time
import tomllib
from pathlib import Path
from typing import Any

import pytest
from replaymaker import make_replay, quit_game, replay_json
from test_show import NOTE
from typer.testing import CliRunner

from arena.replays import replay as replay_module
from arena.ui import viewer
from arena.ui.cli import app

ROOT = Path(__file__).resolve().parent.parent
CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
HOSTILE = '<img src=x onerror="PWNED=1"><script>PWNED=2</script>&amp;'  # ≤ 64


# -- the page without a browser ---------------------------------------------------------


def test_script_json_cannot_end_the_script_block() -> None:
    text = viewer.script_json({"name": "</script><script>alert(1)</script><!-- & \u2028"})
    assert "<" not in text and ">" not in text and "&" not in text
    assert json.loads(text) == {"name": "</script><script>alert(1)</script><!-- & \u2028"}


def test_page_is_self_contained(tmp_path: Path) -> None:
    path = make_replay(tmp_path, ["alice", HOSTILE])
    page = viewer.render(replay_module.read(path))
    assert page.count("</script>") == 2  # the data block and the viewer's own script
    assert HOSTILE not in page  # the name is in the page only in its escaped form
    for remote in ("http://", "https://", "//cdn", 'src="', "@import"):
        assert remote not in page.replace("src=x onerror", "")
    assert "Content-Security-Policy" in page and "default-src 'none'" in page


def test_package_data_ships_the_viewer_assets() -> None:
    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    patterns = config["tool"]["setuptools"]["package-data"]["arena.ui"]
    static = {
        p.relative_to(ROOT / "arena" / "ui").as_posix()
        for p in (ROOT / "arena" / "ui" / "static").iterdir()
    }
    shipped = {name for name in static if any(Path(name).match(pattern) for pattern in patterns)}
    assert {"static/viewer.html", "static/viewer.js", "static/viewer.css"} <= shipped


def test_knights_give_fourteen_book_cells(tmp_path: Path) -> None:
    config = tmp_path / "config.toml"
    config.write_text(
        'seed = 4\n[deck]\nknights = true\n[[participants]]\nname = "a"\nbot = "easy"\n'
        '[[participants]]\nname = "b"\nbot = "hard"\n',
        encoding="utf-8",
    )
    assert CliRunner().invoke(app, ["run", str(config)]).exit_code == 0
    (path,) = (tmp_path / "replays").glob("*.json")
    data = viewer.page_data(replay_module.read(path))
    assert len(data["ranks"]) == 14 and data["rankNames"][11] == "C"
    assert len(data["cards"]) == 56


def test_the_page_knows_the_family_rules(tmp_path: Path) -> None:
    path = make_replay(
        tmp_path,
        ["ann", "ben"],
        seed=2,
        bots=("hard", "expert"),
        rules="luckyDraw = true\nrefillEmptyHand = 7\ndealBySeats = true\n",
    )
    data = viewer.page_data(replay_module.read(path))
    assert "lucky draw" in data["rules"] and "an empty hand draws 7 at once" in data["rules"]
    kinds = [step["kind"] for step in data["steps"]]
    assert "lucky-draw" in kinds


def test_cli_writes_the_page(tmp_path: Path) -> None:
    path = make_replay(tmp_path, ["alice", "bob"])
    out = tmp_path / "page.html"
    result = CliRunner().invoke(app, ["replay", "html", str(path), "-o", str(out)])
    assert result.exit_code == 0, result.output
    assert out.read_text(encoding="utf-8").startswith("<!DOCTYPE html>")
    refused = CliRunner().invoke(
        app, ["replay", "html", str(tmp_path / "nope.json"), "-o", str(out)]
    )
    assert refused.exit_code == 2


# -- in the browser ---------------------------------------------------------------------


class Browser:
    """A headless Chromium, spoken to over the CDP pipe: one page, or a fresh tab for each
    test (`new_page`, the `browser` fixture)."""

    def __init__(self, profile: Path) -> None:
        to_chrome_r, self._to_chrome = os.pipe()
        self._from_chrome, from_chrome_w = os.pipe()

        def wire() -> None:  # in the child: the pipe ends become fds 3 and 4
            a = fcntl.fcntl(to_chrome_r, fcntl.F_DUPFD, 10)
            b = fcntl.fcntl(from_chrome_w, fcntl.F_DUPFD, 10)
            os.dup2(a, 3)
            os.dup2(b, 4)

        assert CHROMIUM is not None
        self.proc = subprocess.Popen(
            [
                CHROMIUM,
                "--headless",
                "--no-sandbox",
                "--disable-gpu",
                "--disable-background-networking",
                "--disable-component-update",
                "--disable-sync",
                "--no-first-run",
                "--disable-extensions",
                f"--user-data-dir={profile}",
                "--remote-debugging-pipe",
                "about:blank",
            ],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            close_fds=False,
            start_new_session=True,
            preexec_fn=wire,  # noqa: PLW1509 -- the test process runs no threads
        )
        os.close(to_chrome_r)
        os.close(from_chrome_w)
        self._buffer = b""
        self._next_id = 0
        self.events: list[dict[str, Any]] = []
        self.session: str | None = None
        self.sessions: set[str] = set()  # this page's (events of an earlier test's are not kept)
        self.target: str | None = None  # the page `open` uses (None: the first there is)

    def new_page(self) -> None:
        """A fresh tab in place of the last: its own page state (history, storage, device
        metrics) and its own events, for the next test."""
        old = self.target
        self.target = self.send("Target.createTarget", url="about:blank")["targetId"]
        if old is not None:
            self.send("Target.closeTarget", targetId=old)
        self.session, self.sessions, self.events = None, set(), []

    def _mine(self, message: dict[str, Any]) -> bool:
        return message.get("sessionId") in ({None} | self.sessions)

    def close(self) -> None:
        try:
            os.killpg(self.proc.pid, 9)
        except ProcessLookupError:
            pass
        self.proc.wait(10)
        os.close(self._to_chrome)
        os.close(self._from_chrome)

    def _read_message(self, deadline: float) -> dict[str, Any]:
        while b"\0" not in self._buffer:
            remaining = deadline - time.monotonic()
            assert remaining > 0, "no answer from chromium in time"
            ready, _, _ = select.select([self._from_chrome], [], [], remaining)
            if ready:
                chunk = os.read(self._from_chrome, 1 << 16)
                assert chunk, "chromium closed its debugging pipe"
                self._buffer += chunk
        raw, self._buffer = self._buffer.split(b"\0", 1)
        message: dict[str, Any] = json.loads(raw)
        return message

    def send(self, method: str, timeout: float = 20.0, **params: Any) -> dict[str, Any]:
        self._next_id += 1
        message: dict[str, Any] = {"id": self._next_id, "method": method, "params": params}
        if self.session is not None and not method.startswith("Target."):
            message["sessionId"] = self.session
        os.write(self._to_chrome, json.dumps(message).encode() + b"\0")
        deadline = time.monotonic() + timeout
        while True:
            answer = self._read_message(deadline)
            if answer.get("id") == self._next_id:
                assert "error" not in answer, answer["error"]
                result: dict[str, Any] = answer.get("result", {})
                return result
            if "method" in answer and self._mine(answer):
                self.events.append(answer)

    def wait_event(self, method: str, timeout: float = 20.0) -> dict[str, Any]:
        for event in self.events:
            if event["method"] == method:
                return event
        deadline = time.monotonic() + timeout
        while True:
            message = self._read_message(deadline)
            if "method" in message and self._mine(message):
                self.events.append(message)
                if message["method"] == method:
                    return message

    def open(self, url: str, also: tuple[str, ...] = ()) -> None:
        """Navigate and wait for the load event; `also` enables more domains first (`Network`, `Log`)."""
        if self.target is None:
            targets = self.send("Target.getTargets")["targetInfos"]
            self.target = next(t["targetId"] for t in targets if t["type"] == "page")
        self.session = self.send("Target.attachToTarget", targetId=self.target, flatten=True)[
            "sessionId"
        ]
        self.sessions.add(self.session)
        for domain in ("Page", "Runtime", *also):
            self.send(f"{domain}.enable")
        self.send("Page.navigate", url=url)
        self.wait_event("Page.loadEventFired")

    def js(self, expression: str) -> Any:
        result = self.send("Runtime.evaluate", expression=expression, returnByValue=True)
        assert "exceptionDetails" not in result, result["exceptionDetails"]
        return result["result"].get("value")

    def key(self, key: str, code: int) -> None:
        for kind in ("keyDown", "keyUp"):
            self.send(
                "Input.dispatchKeyEvent", type=kind, key=key, code=key, windowsVirtualKeyCode=code
            )

    def click(self, element_id: str) -> None:
        self.js(f"document.getElementById({json.dumps(element_id)}).click()")

    def text(self, element_id: str) -> str:
        value = self.js(f"document.getElementById({json.dumps(element_id)}).textContent")
        return str(value)


@pytest.fixture
def browser(chromium: Browser) -> Browser:
    """A tab of its own in this worker's Chromium (conftest's `chromium`)."""
    chromium.new_page()
    return chromium


def _page(tmp_path: Path, names: list[str], **options: Any) -> tuple[Path, dict[str, Any]]:
    path = make_replay(tmp_path, names, **options)
    page = tmp_path / "replay.html"
    page.write_text(viewer.render(replay_module.read(path)), encoding="utf-8")
    return page, replay_json(path)


def _step(browser: Browser) -> tuple[int, int]:
    """Where the page is among its view's steps, from 1, and how many it has."""
    shown, total = browser.text("position").split(" · ")[1].split(" of ")
    return int(shown), int(total)


def _at(browser: Browser) -> int:
    """The transcript index of the step shown: the step's one number everywhere."""
    return int(browser.text("position").split(" · ")[0].removeprefix("step "))


def test_the_page_steps_through_the_match_to_the_final_placings(
    tmp_path: Path, browser: Browser
) -> None:
    page, data = _page(tmp_path, ["alice", "bob", "carol"], bots=("easy", "hard", "random"))
    browser.open(page.as_uri())
    assert browser.js("document.body.dataset.ready") == "1"
    first, total = _step(browser)
    assert first == 1 and total > 20
    assert "dealt 7 cards each" in browser.text("now")
    assert browser.js("document.getElementById('placings').hidden") is True
    assert browser.js("document.querySelectorAll('#books .cell').length") == 13
    assert browser.js("document.querySelectorAll('#seats .seat').length") == 3
    dealt = browser.js(
        "[...document.querySelectorAll('#seats .seat')].map(s => s.querySelectorAll('.card').length)"
    )
    assert dealt == [7, 7, 7]

    browser.click("next")
    browser.click("next")
    assert _step(browser)[0] == 3
    browser.click("prev")
    assert _step(browser)[0] == 2
    browser.key("ArrowRight", 39)
    browser.key("ArrowRight", 39)
    assert _step(browser)[0] == 4
    browser.key("ArrowLeft", 37)
    assert _step(browser)[0] == 3
    assert browser.js("document.querySelectorAll('#log li.current').length") == 1

    browser.js(
        "const s = document.getElementById('slider'); s.value = '10'; s.dispatchEvent(new Event('input'))"
    )
    assert _step(browser)[0] == 11

    browser.key("End", 35)
    assert _step(browser) == (total, total)
    assert browser.js("document.getElementById('placings').hidden") is False
    placings = browser.js(
        "[...document.querySelectorAll('#placing-list .placing')].map(li => li.textContent)"
    )
    scores, ranks = data["result"]["scores"], data["result"]["ranks"]
    best = min(range(3), key=lambda seat: (ranks[seat], seat))
    assert placings[0] == f"1st {data['players'][best]['name']} — {scores[best]} book" + (
        "" if scores[best] == 1 else "s"
    )
    assert len(placings) == 3
    assert browser.js("window.scrollY") == 0  # only the log box scrolls to the current entry
    assert browser.js(
        "(() => { const log = document.getElementById('log'), li = log.querySelector('li.current');"
        " return li.offsetTop >= log.scrollTop &&"
        " li.offsetTop + li.offsetHeight <= log.scrollTop + log.clientHeight + 1; })()"
    )
    lit = browser.js("document.querySelectorAll('#books .cell.lit').length")
    assert lit == sum(scores) == 13
    assert "match over (completed)" in browser.text("now")

    browser.key("Home", 36)
    assert _step(browser)[0] == 1
    browser.click("last")
    assert _step(browser) == (total, total)
    browser.click("first")
    browser.click("play")
    assert "pause" in browser.text("play")
    time.sleep(1.6)
    assert _step(browser)[0] >= 2
    browser.click("play")
    assert "play" in browser.text("play")
    assert not [
        e
        for e in browser.events
        if e["method"] in ("Runtime.exceptionThrown", "Page.javascriptDialogOpening")
    ]


def test_a_seat_view_hides_other_hands_and_their_draws(tmp_path: Path, browser: Browser) -> None:
    page, _ = _page(tmp_path, ["alice", "bob"])
    browser.open(page.as_uri())
    total_all = _step(browser)[1]
    browser.js(
        "const v = document.getElementById('view'); v.value = '0'; v.dispatchEvent(new Event('change'))"
    )
    total = _step(browser)[1]
    assert total <= total_all
    cards = browser.js(
        "[...document.querySelectorAll('#seats .seat')].map(s => s.querySelectorAll('.card').length)"
    )
    assert cards == [7, 0]
    assert "hidden" in browser.js(
        "document.querySelector('#seats .seat[data-seat=\"1\"] .backs').textContent"
    )
    log = browser.js("[...document.querySelectorAll('#log li')].map(li => li.textContent)")
    assert any(line == "bob went fishing" for line in log)
    assert not any(
        line.startswith("bob picked up ") and line != "bob picked up a card" for line in log
    )
    browser.key("End", 35)
    assert browser.js("document.getElementById('placings').hidden") is False


def test_hostile_names_stay_text(tmp_path: Path, browser: Browser) -> None:
    page, _ = _page(tmp_path, ["alice", HOSTILE])
    browser.open(page.as_uri())
    assert browser.js("document.body.dataset.ready") == "1"
    browser.key("End", 35)
    assert browser.js("typeof window.PWNED") == "undefined"
    assert browser.js("document.querySelectorAll('img').length") == 0
    assert browser.js("document.scripts.length") == 2
    names = browser.js(
        "[...document.querySelectorAll('#seats .seat .name')].map(n => n.textContent)"
    )
    assert names == ["alice", HOSTILE]
    placed = browser.js(
        "[...document.querySelectorAll('#placing-list .who')].map(n => n.textContent)"
    )
    assert HOSTILE in placed
    assert not [
        e
        for e in browser.events
        if e["method"] in ("Runtime.exceptionThrown", "Page.javascriptDialogOpening")
    ]


def test_faults_are_highlighted(tmp_path: Path, browser: Browser) -> None:
    page, _ = _page(tmp_path, ["bad", "easy"], seed=3, bad=True)
    browser.open(page.as_uri())
    faults = browser.js("[...document.querySelectorAll('#log li.fault')].map(li => li.textContent)")
    assert faults and any("not-json" in line for line in faults)
    assert any("invalid ask" in line for line in faults)
    index = browser.js(
        "[...document.querySelectorAll('#log li')].findIndex(li => li.classList.contains('fault'))"
    )
    browser.js(f"document.querySelectorAll('#log li')[{index}].click()")
    assert browser.js("document.getElementById('now').className") == "fault"


def test_the_log_shows_no_future_step_and_the_placings_no_second_number(
    tmp_path: Path, browser: Browser
) -> None:
    page, _ = _page(tmp_path, ["alice", "bob"])
    browser.open(page.as_uri())
    shown = (
        "[...document.querySelectorAll('#log li')].filter(li => li.offsetParent !== null).length"
    )
    assert browser.js(shown) == 1  # step 1: the deal, and nothing that comes after it
    browser.click("next")
    browser.click("next")
    assert browser.js(shown) == 3
    browser.key("End", 35)
    assert browser.js(shown) == _step(browser)[1]
    marker = browser.js(
        "getComputedStyle(document.querySelector('#placing-list .placing')).listStyleType"
    )
    assert marker == "none"  # "1st alice", not "1. 1st alice"
    assert browser.js("document.getElementById('placing-list').tagName") == "UL"


def test_a_stopped_match_ends_on_books_so_far_with_no_places(
    tmp_path: Path, browser: Browser
) -> None:
    path = quit_game(tmp_path)
    page = tmp_path / "stopped.html"
    page.write_text(viewer.render(replay_module.read(path)), encoding="utf-8")
    browser.open(page.as_uri())
    browser.key("End", 35)
    assert browser.js("document.getElementById('placings').hidden") is False
    heading = browser.js("document.querySelector('#placings h2').textContent")
    assert heading == "Books so far (stopped: no places)"
    placings = browser.js(
        "[...document.querySelectorAll('#placing-list .placing')].map(li => li.textContent)"
    )
    assert placings == ["you — 0 books", "Pip — 0 books"]  # seat order, no "1st" for a tie


def test_a_link_to_a_step_opens_the_page_there_and_the_address_follows(
    tmp_path: Path, browser: Browser
) -> None:
    # `#step=N` is transcript index N, as `replay show`, `review` and `fork --at` number it.
    page, _ = _page(tmp_path, ["alice", "bob"], bots=("easy", "hard"))
    browser.open(page.as_uri())
    ats = browser.js("[...document.querySelectorAll('#log li')].map(li => li.value)")
    linked, missing = ats[12], next(at for at in range(ats[12], ats[-1]) if at not in ats)
    browser.open(page.as_uri() + f"#step={linked}")
    assert browser.js("document.body.dataset.ready") == "1"
    assert _at(browser) == linked and browser.js("location.hash") == f"#step={linked}"
    assert browser.js("document.querySelector('#log li.current').value") == linked
    browser.click("next")
    after = _at(browser)
    assert after > linked and browser.js("location.hash") == f"#step={after}"
    # A message that made no step (an informational one) opens the last step before it.
    browser.js(f"location.hash = '#step={missing}'")  # hashchange comes after this task
    before = max(at for at in ats if at < missing)
    deadline = time.monotonic() + 30
    while _at(browser) != before and time.monotonic() < deadline:
        time.sleep(0.02)
    assert _at(browser) == before
    assert not [e for e in browser.events if e["method"] == "Runtime.exceptionThrown"]


def test_the_page_fits_a_375_px_phone(tmp_path: Path, browser: Browser) -> None:
    """Four seats, long names, a fault: no sideways scrolling on a phone, first step to last."""
    names = ["an-unbroken-name-longer-than-a-phone-is-wide-0123456789", "bob", "carol", "dave"]
    page, _ = _page(tmp_path, names, bots=("easy", "hard", "random"), bad=True)
    browser.open("about:blank")
    browser.send(
        "Emulation.setDeviceMetricsOverride",
        width=375,
        height=740,
        deviceScaleFactor=2,
        mobile=True,
    )
    browser.events = [e for e in browser.events if e["method"] != "Page.loadEventFired"]
    browser.open(page.as_uri())  # (the blank page's load event gone: this one's is waited for)
    assert browser.js("document.body.dataset.ready") == "1"
    for key, code in (("Home", 36), ("ArrowRight", 39), ("End", 35)):
        browser.key(key, code)
        wide = browser.js("document.documentElement.scrollWidth")
        assert wide <= 375, f"after {key}: {wide} px wide on a 375 px phone"
    assert browser.js("document.getElementById('placings').hidden") is False


# --- The HTML viewer's notes panel and the coach's marks, in a real headless Chromium.
#
# A real match of a bot that writes a note before each ask (the example `most_held.py`, taught to)
# against `hard`, made into a page by the real CLI with `--seat 0`: the notes show beside the
# step they were written for, only the seat's own in a seat's view; the coach's marks show in the
# view of all seats and of the reviewed seat, never in another seat's (a suggested ask would tell
# a card of that hand); and a page for people who must not read a bot's logs has no notes at all.


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


def go_to_message(browser: Browser, at: int) -> None:
    """Move the slider to the step of transcript message `at` in the current view."""
    browser.js(
        "(() => { const s = document.getElementById('slider');"
        " const items = [...document.querySelectorAll('#log li:not(.fork-mark)')];"
        f" const i = items.findIndex(li => li.value === {at});"
        " s.value = String(i); s.dispatchEvent(new Event('input')); })()"
    )


def set_view(browser: Browser, value: str) -> None:
    browser.js(
        "(() => { const v = document.getElementById('view');"
        f" v.value = {json.dumps(value)}; v.dispatchEvent(new Event('change')); }})()"
    )


def test_notes_and_coach_marks_show_where_they_belong(
    noted: Path,
    tmp_path: Path,
    browser: Browser,
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
