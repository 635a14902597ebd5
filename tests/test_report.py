"""The tournament report: its figures, `arena report`, the page a run writes, and the page in Chromium."""

from __future__ import annotations

import base64
import http.server
import json
import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

import orjson
import pytest
from command import arena_here, arena_started
from resultsmaker import results_lines, typed, write_results
from test_viewer import HOSTILE, Browser, browser  # noqa: F401 - the fixture
from typer.testing import CliRunner

from arena.tournaments import results
from arena.tournaments import summary as summary_module
from arena.tournaments.standings import Standings, wilson
from arena.tournaments.summary import Summary, grouped_interval, select, sprt_of
from arena.ui import report as report_module
from arena.ui.cli import app

ROOT = Path(__file__).resolve().parent.parent
NAMES = ["ann", "bob", "cy", "dee"]


# -- the figures ---------------------------------------------------------------------------------


def test_a_deal_whose_matches_agree_counts_as_one_trial() -> None:
    # 10 deals of 2 matches each, both won or both lost: 10 trials, not 20
    together = [(2.0, 2)] * 4 + [(0.0, 2)] * 6
    assert grouped_interval(together) == pytest.approx(wilson(4, 10))
    assert (
        grouped_interval(together)[1] - grouped_interval(together)[0]
        > wilson(8, 20)[1] - wilson(8, 20)[0]
    )


def test_deals_that_vary_like_single_matches_count_every_match() -> None:
    # each deal split 1-1: no deal-to-deal spread beyond chance... every deal alike: one trial each
    assert grouped_interval([(1.0, 2)] * 10) == pytest.approx(wilson(5, 10))
    # one match per deal: the plain Wilson interval of the matches
    single = [(1.0, 1)] * 7 + [(0.0, 1)] * 13
    assert grouped_interval(single) == pytest.approx(wilson(7, 20), abs=1e-9)
    assert grouped_interval([]) == (0.0, 1.0)


def test_select_counts_each_match_once_and_skips_what_is_not_a_results_line() -> None:
    first = results_lines(NAMES, 12, run="20260101-000000-aaaaaa")
    second = results_lines(NAMES, 6, run="20260102-000000-bbbbbb")
    other = results_lines(NAMES, 5, tournament="ffffffffffffffff")
    broken = [{**first[0], "game": 99, "scores": [1]}, {**first[1], "game": 98, "seating": "ann"}]
    data = first + second + other + first[:4] + broken
    found = [results.checked(line)[0] for line in data]
    lines = [line for line in found if line is not None]
    chosen = select(lines, "0123456789abcdef")
    skipped = chosen.skipped + found.count(None)
    assert len(chosen.entries) == 18 and chosen.repeated == 4 and skipped == 2
    assert [e.match for e in chosen.entries][:4] == [
        0,
        0,
        1,
        1,
    ]  # game order, runs interleaved
    assert summary_module.tournaments_in(lines) == ["ffffffffffffffff", "0123456789abcdef"]


def test_a_crafted_file_cannot_make_the_report_unbounded() -> None:
    (line,) = results_lines(NAMES[:2], 1)
    assert results.checked({**line, "scores": [10**9, 0]})[0] is None  # a histogram that long
    assert (
        results.checked({**line, "seating": ["x" * 65, "bob"]})[0] is None
    )  # longer than a config allows
    assert results.checked({**line, "seating": ["ann", "ann"]})[0] is None
    assert results.checked({**line, "ranks": [1, 3]})[0] is None
    assert results.checked({**line, "faults": [{f"k{i}": 1 for i in range(33)}, {}]})[0] is None
    many = [
        {**line, "game": game, "seating": [f"n{2 * game}", f"n{2 * game + 1}"]}
        for game in range(600)
    ]
    chosen = select(typed(many), line["tournament"])
    names = {name for item in chosen.entries for name in item.seating}
    assert len(names) == summary_module.MOST_PARTICIPANTS and chosen.skipped == 100
    data = Summary.of(chosen.entries).as_json()
    assert data["pairwise"] is None  # no heatmap of a million cells
    kinds = [{**line, "game": game, "faults": [{f"kind-{game}": 1}, {}]} for game in range(20)]
    faults = Summary.of(select(typed(kinds), line["tournament"]).entries).as_json()
    assert len(faults["faultKinds"]) == summary_module.FAULT_KINDS_SHOWN + 1  # + other
    assert "other" in faults["faultKinds"] and sum(map(sum, faults["faults"])) == 20


def test_the_summary_has_the_figures_of_the_standings() -> None:
    lines = results_lines(NAMES, 48, seats=3, faulty="cy")
    entries = select(typed(lines), "0123456789abcdef").entries
    data = Summary.of(entries).as_json()
    expected = Standings.of(NAMES, typed(lines)).as_json()
    rows = {row["name"]: row for row in data["rows"]}
    for row in expected["participants"]:
        mine = rows[row["name"]]
        assert {key: mine[key] for key in row} == row
    assert [data["names"][i] for i in data["ranked"]] == [
        row["name"] for row in expected["participants"]
    ]
    assert (
        data["matches"] == 48
        and len(data["list"]["game"]) == 48
        and len(data["list"]["seated"]) == 48 * 3
    )
    assert sum(map(sum, data["books"])) == 48 * 3  # one count per seat per match
    assert [sum(counts) for counts in data["seatCounts"]] == [
        row["matches"] for row in data["rows"]
    ]
    assert sum(seat["matches"] for seat in data["seatWins"]) == 48 * 3
    assert sum(seat["share"] for seat in data["seatWins"]) == pytest.approx(1.0)
    cy = data["names"].index("cy")
    assert sum(data["faults"][cy]) == sum(rows["cy"]["faults"]["byKind"].values()) > 0
    path = data["ratingPath"]
    assert path["matches"][0] == 0 and path["matches"][-1] == 48
    assert path["mu"][data["names"].index("ann")][-1] == pytest.approx(
        rows["ann"]["live"]["mu"], abs=1e-3
    )
    # every deal is 3 matches: the interval is over 16 deals
    assert all(row["deals"] == row["matches"] // 3 for row in data["rows"])


def test_the_rating_path_stays_short() -> None:
    entries = select(typed(results_lines(NAMES, 1500)), "0123456789abcdef").entries
    summary = Summary(NAMES)  # not told how many: the path thins itself
    for item in entries:
        summary.add(item)
    points = summary.as_json()["ratingPath"]["matches"]
    assert len(points) <= 2 * summary_module.RATING_POINTS + 1 and points[-1] == 1500


def test_sprt_is_taken_only_when_well_formed() -> None:
    good = {
        "llr": 1.2,
        "lower": -2.94,
        "upper": 2.94,
        "decision": None,
        "matches": 40,
        "groups": 20,
        "history": [[g, g / 10] for g in range(1, 5001)],
    }
    taken = sprt_of({"sprt": good})
    assert (
        taken is not None
        and taken["llr"] == 1.2
        and len(taken["history"]) <= summary_module.SPRT_POINTS + 1
    )
    assert taken["history"][-1] == [5000.0, 500.0]
    assert sprt_of({"sprt": {**good, "llr": "1"}}) is None
    assert sprt_of({"sprt": {**good, "upper": float("nan")}}) is None
    assert sprt_of({}) is None and sprt_of([1]) is None
    assert sprt_of({"sprt": {**good, "history": [[1, "x"], [2, 0.5], "no"]}})["history"] == [
        [2.0, 0.5]
    ]  # type: ignore[index]


# -- arena report ------------------------------------------------------------------------------------


def _page_data(page: Path) -> dict[str, Any]:
    text = page.read_text(encoding="utf-8")
    start = text.index('<script type="application/json" id="report-data">') + len(
        '<script type="application/json" id="report-data">'
    )
    data: dict[str, Any] = json.loads(text[start : text.index("</script>", start)])
    return data


def _run(config: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return arena_here("run", str(config), "-q", *args, cwd=config.parent)


def _config(
    folder: Path,
    games: int,
    names: list[str] | None = None,
    bots: tuple[str, ...] = ("easy", "hard", "random"),
) -> Path:
    path = folder / "t.toml"
    people = "".join(
        f'[[participants]]\nname = {json.dumps(name)}\nbot = "{bot}"\n'
        for name, bot in zip(names or ["ann", "bob", "cy"], bots)
    )
    path.write_text(f"seed = 5\ngames = {games}\n[tournament]\n{people}", encoding="utf-8")
    return path


def test_a_run_writes_its_report_beside_standings(tmp_path: Path) -> None:
    config = _config(tmp_path, 12)
    result = _run(config, "-j", "1")
    assert result.returncode == 0, result.stderr
    page = tmp_path / "replays" / "report.html"
    data = _page_data(page)
    standings = json.loads((tmp_path / "replays" / "standings.json").read_text())
    assert data["matches"] == 12 and data["complete"] is True and data["live"] is False
    assert (
        data["tournament"] == standings["tournament"] and data["runs"][0]["run"] == standings["run"]
    )
    assert [data["names"][i] for i in data["ranked"]] == [
        row["name"] for row in standings["participants"]
    ]
    # every listed match names its replay, and that file is there
    for m, part in enumerate(data["list"]["file"]):
        assert (tmp_path / "replays" / (data["runs"][0]["stamp"] + part + ".json")).is_file(), m


def test_a_resumed_run_reports_what_its_standings_count(tmp_path: Path) -> None:
    config = _config(tmp_path, 6)
    assert _run(config, "-j", "1").returncode == 0
    resumed = _run(config, "-j", "1", "--resume", "--games", "9")
    assert resumed.returncode == 0, resumed.stderr
    assert _page_data(tmp_path / "replays" / "report.html")["matches"] == 9
    fewer = _run(config, "-j", "1", "--resume", "--games", "4")  # nothing to play; 4 count
    assert fewer.returncode == 0, fewer.stderr
    data = _page_data(tmp_path / "replays" / "report.html")
    standings = json.loads((tmp_path / "replays" / "standings.json").read_text())
    assert data["matches"] == standings["matches"] == 4 and data["complete"] is True


def test_the_report_is_rewritten_while_the_run_goes(tmp_path: Path) -> None:
    path = _config(tmp_path, 50)  # in-process bots: a second or two, a live page after the first
    process = arena_started("run", str(path), "-q", "-j", "1", cwd=tmp_path)
    page, standings = tmp_path / "replays" / "report.html", tmp_path / "replays" / "standings.json"
    seen_live = None
    try:
        deadline = time.monotonic() + 240
        while process.poll() is None and time.monotonic() < deadline:
            if page.exists() and not standings.exists():
                data = _page_data(page)
                if data["live"]:
                    seen_live = data
                    break
            time.sleep(0.05)
        _, err = process.communicate(timeout=240)
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
    assert process.returncode == 0, err
    assert seen_live is not None and seen_live["live"] is True and 1 <= seen_live["matches"] <= 50
    final = _page_data(page)
    assert final["live"] is False and final["matches"] == 50


def test_an_interrupted_run_leaves_its_final_page(tmp_path: Path) -> None:
    path = _config(tmp_path, 3000)
    process = arena_started("run", str(path), "-q", "-j", "1", cwd=tmp_path)
    page = tmp_path / "replays" / "report.html"
    try:
        deadline = time.monotonic() + 120
        while not page.exists() and process.poll() is None and time.monotonic() < deadline:
            time.sleep(0.05)
        process.send_signal(signal.SIGINT)
        process.communicate(timeout=120)
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
    assert process.returncode == 130
    data = _page_data(page)
    standings = json.loads((tmp_path / "replays" / "standings.json").read_text())
    assert data["live"] is False and data["complete"] is False
    assert data["matches"] == standings["matches"] >= 1


def test_arena_report_counts_each_match_of_a_merged_folder_once(tmp_path: Path) -> None:
    folder = tmp_path / "merged"
    first = results_lines(NAMES, 10, run="20260101-000000-aaaaaa")
    second = results_lines(NAMES, 10, run="20260102-000000-bbbbbb", seed=1)
    write_results(folder, first + second + first)  # copies of one folder merged with another run
    result = CliRunner().invoke(app, ["report", str(folder)])
    assert result.exit_code == 0, result.output
    assert "(20 matches)" in result.output
    data = _page_data(folder / "report.html")
    assert data["matches"] == 20 and data["repeated"] == 10 and len(data["runs"]) == 2
    assert sum(row["matches"] for row in data["rows"]) == 40


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["nowhere"], "no such folder"),
        (["empty"], "no results.jsonl"),
        (["folder", "-o", "folder/notes.txt"], "is not an arena report"),
        (["folder", "--view", "99"], "--view 99: no such game"),
        (["folder", "--view", "1"], "--view 1: "),  # its replay is not there
        (["folder", "--tournament", "abc"], "--tournament abc: not in"),
    ],
)
def test_arena_report_refuses_bad_input_in_one_line(
    tmp_path: Path, args: list[str], message: str
) -> None:
    (tmp_path / "empty").mkdir()
    write_results(tmp_path / "folder", results_lines(NAMES, 4))
    (tmp_path / "folder" / "notes.txt").write_text("mine", encoding="utf-8")
    os.chdir(tmp_path)
    result = CliRunner().invoke(app, ["report", *args])
    assert result.exit_code == 2, result.output
    assert message in result.output and result.output.count("\n") == 1
    assert (tmp_path / "folder" / "notes.txt").read_text(encoding="utf-8") == "mine"


def test_view_builds_the_picked_matches_pages_and_links_them(tmp_path: Path) -> None:
    config = _config(tmp_path, 6)
    assert _run(config, "-j", "1").returncode == 0
    folder = tmp_path / "replays"
    out = tmp_path / "elsewhere" / "r.html"
    out.parent.mkdir()
    # Game 1 as arena run prints it, results.jsonl numbers it and its file is named (g0001).
    result = CliRunner().invoke(app, ["report", str(folder), "-o", str(out), "--view", "1"])
    assert result.exit_code == 0, result.output
    pages = list(folder.glob("*-g0001-*.html"))
    assert len(pages) == 1 and pages[0].read_text(encoding="utf-8").startswith("<!DOCTYPE html>")
    data = _page_data(out)
    # (every match's page was built as the run recorded it: --view builds one again)
    assert data["pages"] == list(range(6)) and data["folder"] == "../replays/"
    again = CliRunner().invoke(
        app, ["report", str(folder), "-o", str(out)]
    )  # its own page: replaced
    assert again.exit_code == 0, again.output


# -- in the browser --------------------------------------------------------------------------------------


def _sprt_standings(folder: Path, tournament: str) -> None:
    history = [[g, 0.08 * g - 0.002 * g * g / 10] for g in range(1, 41)]
    document = {
        "format": "gofish-arena-standings/1",
        "tournament": tournament,
        "run": "x",
        "games": 200,
        "complete": False,
        "seats": 2,
        "duplicate": True,
        "sprt": {
            "llr": history[-1][1],
            "lower": -2.94,
            "upper": 2.94,
            "decision": None,
            "matches": 80,
            "groups": 40,
            "history": history,
        },
    }
    (folder / "standings.json").write_bytes(orjson.dumps(document))


def test_the_page_draws_every_plot_and_keeps_names_inert(tmp_path: Path, browser: Browser) -> None:  # noqa: F811
    names = ["ann", HOSTILE, "cy", "dee", "</script><b>x</b>"]
    folder = tmp_path / "replays"
    lines = results_lines(names, 200, faulty=HOSTILE)
    write_results(folder, lines)
    _sprt_standings(folder, lines[0]["tournament"])
    for line in lines[:3]:  # the first matches' replays are there to be linked
        (folder / line["replay"]).write_text("{}", encoding="utf-8")
    assert CliRunner().invoke(app, ["report", str(folder)]).exit_code == 0
    page = folder / "report.html"
    browser.open(page.as_uri(), also=("Network", "Log"))
    assert browser.js("document.body.dataset.ready") == "1"
    count = len(names)
    assert browser.js("document.querySelectorAll('#winshare circle.share').length") == count
    assert browser.js("document.querySelectorAll('#winshare line.interval').length") == count
    assert browser.js("document.querySelectorAll('#rating polyline.mu').length") == count
    assert browser.js("document.querySelectorAll('#rating polygon.band').length") == count
    assert browser.js("document.querySelectorAll('#pairwise rect.cell').length") == count * count
    assert browser.js("document.querySelectorAll('#faults rect.fault-bar').length") >= 1
    assert browser.js("document.querySelectorAll('#books rect.cell').length") % count == 0
    assert browser.js("document.querySelectorAll('#seats rect.seat-bar').length") == 2
    assert browser.js("document.getElementById('sprt').hidden") is False
    assert browser.js("document.querySelectorAll('#sprt polyline.llr').length") == 1
    assert browser.js("document.querySelectorAll('#sprt line.bound').length") == 2
    # The bounds' labels ("upper 2.94") end inside the plot, not cut at its right edge.
    room = browser.js(
        "Array.from(document.querySelectorAll('#sprt text'))"
        ".filter(t => /^(upper|lower) /.test(t.textContent)).map(t =>"
        " t.ownerSVGElement.getBoundingClientRect().right - t.getBoundingClientRect().right)"
    )
    assert len(room) == 2 and min(room) >= 0, room
    assert browser.js("document.querySelectorAll('#schedule rect.played-bar').length") == count
    # the names are text, never markup
    assert browser.js("typeof window.PWNED") == "undefined"
    assert browser.js("document.querySelectorAll('img, b').length") == 0
    assert browser.js("document.scripts.length") == 2
    shown = browser.js(
        "[...document.querySelectorAll('#standings-table td.name')].map(td => td.textContent)"
    )
    assert sorted(shown) == sorted(names)
    # the list: 50 a page, filtered in the page, each match linked to its replay
    assert browser.js("document.querySelectorAll('#match-table tr.match').length") == 50
    browser.click("next")
    assert browser.text("page") == "page 2 of 4 (200 matches)"
    assert browser.js("document.querySelector('#match-table tr.match td').textContent") == "50"
    browser.click("prev")
    hostile_index = names.index(HOSTILE)
    browser.js(
        f"const w = document.getElementById('who'); w.value = '{hostile_index}'; w.dispatchEvent(new Event('change'))"
    )
    rows = browser.js(
        "[...document.querySelectorAll('#match-table tr.match')].map(tr => tr.textContent)"
    )
    assert rows and all(HOSTILE in row for row in rows)
    browser.js(
        "const g = document.getElementById('game'); g.value = '0'; g.dispatchEvent(new Event('input'))"
    )
    hrefs = browser.js("[...document.querySelectorAll('#match-table a')].map(a => a.href)")
    assert len(hrefs) == 1 and hrefs[0] == (folder / lines[0]["replay"]).as_uri()
    browser.js("document.querySelector('#match-table input[type=checkbox]').click()")
    assert browser.text("picked") == f"arena report {folder} --view 0"
    shot = browser.send("Page.captureScreenshot", format="png", captureBeyondViewport=True)
    (tmp_path / "report.png").write_bytes(base64.b64decode(shot["data"]))
    assert (tmp_path / "report.png").stat().st_size > 10_000
    problems = [
        e
        for e in browser.events
        if e["method"] in ("Runtime.exceptionThrown", "Page.javascriptDialogOpening")
        or (
            e["method"] == "Runtime.consoleAPICalled"
            and e["params"]["type"] in ("error", "warning")
        )
        or (e["method"] == "Log.entryAdded" and e["params"]["entry"]["level"] == "error")
    ]
    assert problems == []
    requests = [
        e["params"]["request"]["url"]
        for e in browser.events
        if e["method"] == "Network.requestWillBeSent"
    ]
    assert requests == [page.as_uri()]


def test_an_empty_or_live_page_opens_without_errors(tmp_path: Path, browser: Browser) -> None:  # noqa: F811
    data = Summary(NAMES).as_json(
        tournament="t", live=True, folder="", folderArg=".", written="now"
    )
    data["pages"] = []
    page = tmp_path / "report.html"
    page.write_text(report_module.render(data), encoding="utf-8")
    browser.open(page.as_uri())
    assert browser.js("document.body.dataset.ready") == "1"
    assert browser.js("document.getElementById('live').hidden") is False
    assert "No match yet" in browser.js("document.getElementById('winshare').textContent")
    (line,) = results_lines(NAMES[:2], 1)
    many = [
        {**line, "game": game, "seating": [f"n{2 * game}", f"n{2 * game + 1}"]}
        for game in range(80)
    ]
    crowded = Summary.of(select(typed(many), line["tournament"]).entries).as_json(
        folder="", folderArg=".", written="now"
    )
    crowded["pages"] = []
    page.write_text(report_module.render(crowded), encoding="utf-8")
    browser.send("Page.navigate", url=page.as_uri())
    deadline = time.monotonic() + 20
    while (
        browser.js("document.body && document.body.dataset.ready") != "1"
        and time.monotonic() < deadline
    ):
        time.sleep(0.05)
    assert "too many for a heatmap" in browser.js("document.getElementById('pairwise').textContent")
    assert browser.js("document.querySelectorAll('#winshare circle.share').length") == 160
    assert not [e for e in browser.events if e["method"] == "Runtime.exceptionThrown"]


@pytest.mark.parametrize("kind", ["folder", "FIFO"])
def test_arena_report_names_a_results_file_that_is_not_a_file(tmp_path: Path, kind: str) -> None:
    folder = tmp_path / "replays"
    folder.mkdir()
    if kind == "folder":
        (folder / "results.jsonl").mkdir()
    else:
        os.mkfifo(folder / "results.jsonl")
    result = CliRunner().invoke(app, ["report", str(folder)])
    assert result.exit_code == 2, result.output
    assert result.output == (
        f"{folder / 'results.jsonl'}: not a regular file (a {kind}); move it out of the way\n"
    )


def test_the_standings_table_fits_at_1280_px_with_the_unplaced_apart(
    tmp_path: Path,
    browser: Browser,  # noqa: F811
) -> None:
    """Twelve long names, a newcomer of two deals and one with no match: at 1280 px the table
    shows every column (timeouts, invalid asks) without scrolling sideways (it scrolled 74 px
    with luck-adjusted shares: each share and its interval are one column now); the provisional
    and the unplayed are listed apart, without a place."""
    names = [f"participant-number-{k:02d}" for k in range(12)]
    raw = results_lines(names, 240, faulty=names[3])
    for line in raw:  # luck-adjusted shares too: the widest table
        line["luckAdjusted"] = {"v": "1", "books": [6.5, 6.5], "winShare": [0.3, 0.7]}
    lines = typed(raw)
    (first,) = typed(results_lines(["newcomer", names[0]], 1, seed=7))
    newcomer = [
        first.model_copy(update={"match": 1000 + k, "deal_seed": 9000 + k}) for k in range(2)
    ]
    summary = Summary([*names, "newcomer", "idle"])
    for line in [*lines, *newcomer]:
        summary.add(line)
    data = summary.as_json(tournament="t", folder="", folderArg=".", written="now")
    data["pages"] = []
    page = tmp_path / "report.html"
    page.write_text(report_module.render(data), encoding="utf-8")
    browser.open(page.as_uri())
    browser.send(
        "Emulation.setDeviceMetricsOverride",
        width=1280,
        height=900,
        deviceScaleFactor=1,
        mobile=False,
    )
    assert browser.js("document.body.dataset.ready") == "1"
    wide = browser.js(
        "(() => { const s = document.querySelector('#standings .scroll');"
        " return [s.scrollWidth, s.clientWidth]; })()"
    )
    assert wide[0] <= wide[1], wide
    heads = browser.js(
        "[...document.querySelectorAll('#standings-table th')].map(th => th.textContent)"
    )
    assert "timeouts" in heads and "invalid asks" in heads
    cells = browser.js(
        "[...document.querySelectorAll('#standings-table tbody tr')].map(tr =>"
        " [...tr.children].map(td => td.textContent))"
    )
    by_name = {row[1]: row for row in cells if len(row) > 2}
    assert by_name["newcomer"][0] == "prov." and by_name["idle"][0] == "–"
    assert "no match" in by_name["idle"]
    apart = [row[0] for row in cells if len(row) == 1]
    assert len(apart) == 2 and apart[0].startswith("provisional") and "no match" in apart[1]
    order = [row[1] for row in cells if len(row) > 2]
    assert order[-2:] == ["newcomer", "idle"]
    note = browser.text("standings-note")
    assert "hold together" in note and "Provisional" in note
    assert not [e for e in browser.events if e["method"] == "Runtime.exceptionThrown"]


# --- Every match of a report one click from its viewer (issue #25): the run builds each match's
# viewer page beside its replay as it records the match, `arena report` builds those missing (an
# older folder), and the report's "view" link opens it, in a real Chromium, from `file://` and
# from a web server.


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


def test_the_page_the_run_builds_from_its_replay_s_bytes_is_the_one_read_from_the_file(
    run_folder: Path,
) -> None:
    # The run builds each page from the replay it has just written, without reading it back
    # (`replay.own`); `arena report --view` reads the file: the same page, byte for byte.
    pages = _pages(run_folder)
    assert len(pages) == GAMES
    for page in pages:
        built = page.read_bytes()
        assert report_module.view_page(run_folder, page.with_suffix(".json").name) == page
        assert page.read_bytes() == built, page.name


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
