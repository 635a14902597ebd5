"""`arena league`'s pages in a real Chromium: live without a reload, usable with the keyboard
alone, one column on a phone. A real server on a loopback port (tests/test_league.py)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("httpx")
pytest.importorskip("starlette")
pytest.importorskip("uvicorn")

from test_league import Server, arena, good_bot, league, made, paused, wait_for  # noqa: F401 -- the fixtures, shared
from test_viewer import Browser


@pytest.fixture
def browser(chromium: Browser) -> Browser:
    """A tab of its own in this worker's Chromium (conftest's `chromium`), as in test_viewer."""
    chromium.new_page()
    return chromium


def test_the_leaderboard_changes_in_chromium_without_a_reload(
    league: tuple[Path, dict[str, str]],  # noqa: F811 -- the fixture
    browser: Browser,
) -> None:
    folder = league[0]
    arena("pause", str(folder))
    server = Server(folder)
    try:
        browser.open(server.url + "/")
        assert browser.text("matches") == "0"
        browser.js("window.stillTheSamePage = true")
        arena("pause", str(folder), "--resume")
        wait_for(lambda: browser.text("matches") != "0", "a match shown on the page")
        assert browser.js("window.stillTheSamePage") is True  # no reload
        rows = browser.js("document.querySelectorAll('#board tbody tr').length")
        assert rows == 2
        assert "rando" in browser.text("board") and "easy" in browser.text("board")
    finally:
        server.kill()


def press(browser: Browser, key: str, code: int, text: str = "") -> None:
    """A key pressed and released, as a keyboard sends it (Enter with its text submits)."""
    for kind in ("keyDown", "keyUp"):
        event: dict[str, Any] = {"type": kind, "key": key, "code": key}
        event["windowsVirtualKeyCode"] = code
        if kind == "keyDown" and text:
            event["text"] = text
        browser.send("Input.dispatchKeyEvent", **event)


def focused(browser: Browser) -> str:
    """The focused element, in a few words: its tag, name or type, and text."""
    return str(
        browser.js(
            "(e => [e.tagName, e.name || e.type || '', (e.textContent || '').trim()]"
            ".join(' '))(document.activeElement)"
        )
    )


def tab_to(browser: Browser, wanted: str, most: int = 20) -> None:
    for _ in range(most):
        press(browser, "Tab", 9)
        if focused(browser).startswith(wanted):
            return
    raise AssertionError(f"Tab never reached {wanted!r} (last: {focused(browser)!r})")


def load(browser: Browser, action: Any) -> None:
    """Run `action` (a key press that navigates) and wait for the new page's load event."""
    browser.events = [e for e in browser.events if e["method"] != "Page.loadEventFired"]
    action()
    browser.wait_event("Page.loadEventFired", timeout=300)


@pytest.mark.slow
def test_an_owner_signs_in_and_uploads_with_the_keyboard_alone(
    tmp_path: Path,
    league: tuple[Path, dict[str, str]],  # noqa: F811 -- the fixture
    browser: Browser,
) -> None:
    folder, tokens = league
    arena("pause", str(folder))
    archive = tmp_path / "annbot.tar.gz"
    archive.write_bytes(good_bot())
    server = Server(folder)
    try:
        browser.open(server.url + "/login")
        tab_to(browser, "INPUT token")
        browser.send("Input.insertText", text=tokens["ann"])
        load(browser, lambda: press(browser, "Enter", 13, "\r"))
        assert browser.js("location.pathname") == "/me"
        tab_to(browser, "INPUT bot")
        browser.send("Input.insertText", text="annbot")
        tab_to(browser, "INPUT archive")
        # A file chooser is the one thing a key cannot fill in headless: set it as one would.
        document = browser.send("DOM.getDocument")["root"]["nodeId"]
        node = browser.send("DOM.querySelector", nodeId=document, selector="input[type=file]")
        browser.send("DOM.setFileInputFiles", nodeId=node["nodeId"], files=[str(archive)])
        tab_to(browser, "BUTTON submit Submit")
        load(browser, lambda: press(browser, "Enter", 13, "\r"))
        assert browser.js("location.search") == "?message=accepted"
        assert "annbot v1 — active" in str(browser.js("document.body.innerText"))
        # Where the keyboard is shows: a focused link or button is outlined.
        for wanted in ("A", "BUTTON"):
            tab_to(browser, wanted)
            style = "(e => getComputedStyle(e).outlineStyle)(document.activeElement)"
            assert browser.js(style) not in ("none", ""), focused(browser)
    finally:
        server.kill()


PHONE = 375


def test_every_page_fits_a_phone_without_sideways_scrolling(
    league: tuple[Path, dict[str, str]],  # noqa: F811 -- the fixture
    browser: Browser,
) -> None:
    folder, tokens = league
    server = Server(folder)
    try:
        wait_for(lambda: server.matches() >= 2, "matches played")
        paused(folder, True)  # (enough to show: the pages need no more)
        browser.open("about:blank")
        browser.send(
            "Emulation.setDeviceMetricsOverride",
            width=PHONE,
            height=740,
            deviceScaleFactor=2,
            mobile=True,
        )
        # The match viewer too (`/matches/N`: `arena replay html`'s page).
        pages = ["/", "/bots/easy", "/login", "/matches/1"]
        for path in pages:
            load(browser, lambda path=path: browser.send("Page.navigate", url=server.url + path))
            wide = browser.js("document.documentElement.scrollWidth")
            assert wide <= PHONE, f"{path}: {wide} px wide on a {PHONE} px phone"
        # Signed in (the owner's and the organiser's pages too).
        load(browser, lambda: browser.send("Page.navigate", url=server.url + "/login"))
        browser.js(
            f"document.querySelector('input[name=token]').value = {json.dumps(tokens['organiser'])}"
        )
        load(browser, lambda: browser.js("document.querySelector('form').submit()"))
        for path in ("/organiser", "/me"):
            load(browser, lambda path=path: browser.send("Page.navigate", url=server.url + path))
            wide = browser.js("document.documentElement.scrollWidth")
            assert wide <= PHONE, f"{path}: {wide} px wide on a {PHONE} px phone"
    finally:
        server.kill()
