# ruff: noqa: F811 -- the fixtures of test_league, shared by name
"""`arena league`'s pages in a real Chromium: live without a reload, usable with the keyboard
alone, one column on a phone. A real server on a loopback port (tests/test_league.py)."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path
from typing import Any

import pytest

httpx = pytest.importorskip("httpx")
pytest.importorskip("starlette")
pytest.importorskip("uvicorn")

from test_league import (  # noqa: F401 -- the fixtures, shared
    Server,
    arena,
    good_bot,
    here,
    league,
    made,
    paused,
    playing,
    server,
    shared,
    wait_for,
)
from test_viewer import Browser

pytestmark = pytest.mark.needs("chromium")


@pytest.fixture
def browser(chromium: Browser) -> Browser:
    """A tab of its own in this worker's Chromium (conftest's `chromium`), as in test_viewer."""
    chromium.new_page()
    return chromium


def test_the_leaderboard_changes_in_chromium_without_a_reload(
    league: tuple[Path, dict[str, str]],
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
        # (ranked on the board, or apart while provisional)
        rows = browser.js(
            "document.querySelectorAll('#board tbody tr, #provisional tbody tr').length"
        )
        assert rows == 2
        shown = browser.text("board") + browser.text("provisional")
        assert "rando" in shown and "easy" in shown
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
    league: tuple[Path, dict[str, str]],
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
    league: tuple[Path, dict[str, str]],
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
        pages = ["/", "/bots/easy", "/login", "/matches/1", "/results", "/?projector=1"]
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
        # An owner's check report: kept as written (never wrapped into noise), scrolling
        # inside its block on a phone.
        from test_league import upload

        assert upload(server, "phonebot", good_bot(), tokens["ann"]).status_code == 201
        sign_in(browser, server, tokens["ann"])
        load(browser, lambda: browser.send("Page.navigate", url=server.url + "/me"))
        assert browser.js("document.documentElement.scrollWidth") <= PHONE
        report = "document.querySelector('pre.report')"
        assert browser.js(f"getComputedStyle({report}).whiteSpace") == "pre"
        assert browser.js(f"{report}.scrollWidth > {report}.clientWidth") is True
    finally:
        server.kill()


def sign_in(browser: Browser, server: Server, token: str) -> None:
    """Signed in through the sign-in form, as a person would."""
    load(browser, lambda: browser.send("Page.navigate", url=server.url + "/login"))
    browser.js(f"document.querySelector('input[name=token]').value = {json.dumps(token)}")
    load(browser, lambda: browser.js("document.querySelector('form').submit()"))


def refusals(browser: Browser) -> list[str]:
    """What the console said of a Content Security Policy (a refused script or style)."""
    return [
        str(event["params"]["entry"].get("text", ""))
        for event in browser.events
        if event["method"] == "Log.entryAdded"
        and "Content Security Policy" in str(event["params"]["entry"].get("text", ""))
    ]


def test_the_owners_match_page_renders_with_their_notes_under_one_policy(
    server: Server,
    here: tuple[Path, dict[str, str]],
    browser: Browser,
) -> None:
    from test_league import noting_bot, upload

    folder, tokens = here
    assert upload(server, "notedbot", noting_bot("eve"), tokens["bob"]).status_code == 201
    with playing(folder):
        link = wait_for(
            lambda: [
                m
                for m in httpx.get(server.url + "/api/leaderboard").json()["bots"]
                if m["name"] == "notedbot" and m["matches"]
            ],
            "a match of notedbot",
        )
    assert link
    with sqlite3.connect(folder / "league.db") as db:
        ident = db.execute(
            "SELECT m.id FROM matches m, versions v JOIN bots b ON b.id = v.bot_id "
            "WHERE b.name = 'notedbot' AND m.versions LIKE '%' || v.id || '%' "
            "ORDER BY m.id LIMIT 1"
        ).fetchone()[0]
    answer = httpx.get(server.url + f"/matches/{ident}")
    assert len(answer.headers.get_list("content-security-policy")) == 1
    browser.open(server.url + "/login", also=("Log",))
    sign_in(browser, server, tokens["bob"])
    load(browser, lambda: browser.send("Page.navigate", url=server.url + f"/me/matches/{ident}"))
    wait_for(lambda: browser.js("document.body.dataset.ready") == "1", "the viewer drawn")
    # Its notes beside its decisions: stepped to, as a student would.
    for _ in range(400):
        if browser.js("document.querySelectorAll('#note-list .note').length"):
            break
        browser.click("next")
    assert "note-of-eve" in browser.text("note-list")
    assert refusals(browser) == []


def test_the_board_is_live_titled_owned_projectable_and_dark_by_preference(
    league: tuple[Path, dict[str, str]],
    browser: Browser,
) -> None:
    folder, _ = league
    server = Server(folder)
    try:
        browser.open(server.url + "/", also=("Log",))
        assert browser.js("document.querySelector('h1').textContent") == folder.name
        assert browser.js("document.getElementById('paused').hidden") is True
        # Paused from the command line: the open board says so without a reload, and again
        # once it is resumed (a polite live region tells a screen reader).
        browser.js("window.stillTheSamePage = true")
        arena("pause", str(folder))
        wait_for(lambda: browser.js("document.getElementById('paused').hidden") is False, "shown")
        arena("pause", str(folder), "--resume")
        wait_for(lambda: browser.js("document.getElementById('paused').hidden") is True, "hidden")
        assert browser.js("window.stillTheSamePage") is True
        live = browser.js(
            "document.getElementById('paused').closest('[aria-live]').getAttribute('aria-live')"
        )
        assert live == "polite"
        owners = browser.js(
            "[...document.querySelectorAll('#board tbody tr, #provisional tbody tr')]"
            ".map(r => r.cells[r.closest('#board') ? 2 : 1].textContent)"
        )
        assert owners and set(owners) == {"house"}
        # Projector mode: large type, no navigation.
        load(browser, lambda: browser.send("Page.navigate", url=server.url + "/?projector=1"))
        assert browser.js("getComputedStyle(document.querySelector('nav')).display") == "none"
        big = browser.js("parseFloat(getComputedStyle(document.body).fontSize)")
        assert big > 20, big
        # Dark when the system prefers it.
        browser.send(
            "Emulation.setEmulatedMedia",
            features=[{"name": "prefers-color-scheme", "value": "dark"}],
        )
        dark = browser.js("getComputedStyle(document.body).backgroundColor")
        assert dark == "rgb(22, 24, 28)", dark
        # The rating over time is a chart.
        wait_for(lambda: server.matches() >= 4, "matches played")
        load(browser, lambda: browser.send("Page.navigate", url=server.url + "/bots/easy"))
        assert browser.js("document.querySelectorAll('svg.chart polyline').length") >= 1
        assert refusals(browser) == []
    finally:
        server.kill()
