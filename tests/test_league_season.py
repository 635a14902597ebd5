# ruff: noqa: F811 -- the fixtures of test_league, shared by name
"""`arena league` from first upload to prize-giving (issue 39): a season that ends in a final
phase and a frozen board, results to project and export, pruned replays; an honest board;
forgiving uploads and safe names; safe administration. A real league folder, the real CLI, a
real server on a loopback port, httpx (and Chromium in test_league_pages)."""

from __future__ import annotations

import contextlib
import csv
import io
import json
import signal
import sqlite3
import time
import zipfile
from collections.abc import Iterator
from pathlib import Path

import pytest
from test_league import (  # noqa: F401 -- the fixtures, shared
    GOOD,
    LIMITS,
    Server,
    arena,
    good_bot,
    here,
    league,
    made,
    make_league,
    names_on,
    own_server,
    paused,
    playing,
    server,
    shared,
    signed_in,
    tar_of,
    upload,
    wait_for,
)

httpx = pytest.importorskip("httpx")


@pytest.fixture(scope="module")
def ended(
    tmp_path_factory: pytest.TempPathFactory,
) -> Iterator[tuple[Path, dict[str, str], Server]]:
    """A league of three built-in bots whose season ends at 6 matches, then plays its final
    phase (every pair on 3 fresh deals, both seat orders: 18 matches) and freezes; killed
    with -9 once in its final phase and started again. Its server, left up, for the tests."""
    root = tmp_path_factory.mktemp("ended")
    config = LIMITS.replace(b"[tournament]\n", b'[tournament]\ntitle = "Class 2026"\n') + (
        b"maxMatches = 6\nfinalDeals = 3\nreplayMiB = 0.02\n"
    )
    folder, tokens = make_league(root, config, bots=("random", "easy", "hard"))
    server = Server(folder, "--jobs", "2")
    wait_for(lambda: server.get("/api/leaderboard").json()["phase"] != "season", "the season's end")
    server.kill()  # (-9, wherever the final phase is)
    server = Server(folder, "--jobs", "2")
    try:
        wait_for(lambda: server.get("/api/leaderboard").json()["phase"] == "over", "frozen")
        yield folder, tokens, server
    finally:
        server.kill()


@pytest.mark.slow  # (the `ended` league: a season and its final phase, ~20 s)
def test_a_season_ends_in_a_final_phase_and_a_frozen_board(
    ended: tuple[Path, dict[str, str], Server],
) -> None:
    folder, tokens, server = ended
    with sqlite3.connect(folder / "league.db") as db:
        phases = dict(db.execute("SELECT phase, COUNT(*) FROM matches GROUP BY phase").fetchall())
        tables = db.execute("SELECT COUNT(*) FROM final_tables").fetchone()[0]
        doubled = db.execute(
            "SELECT COUNT(*) FROM (SELECT deal_seed, rotation FROM matches "
            "GROUP BY deal_seed, rotation HAVING COUNT(*) > 1)"
        ).fetchone()[0]
    # The season's tables (6, and those already in flight), then exactly the final phase's:
    # 3 pairs × 3 deals × 2 rotations, none lost or counted twice over the kill -9.
    assert 6 <= phases["season"] <= 10 and phases["final"] == 18 and tables == 9
    assert doubled == 0
    before = server.matches()
    time.sleep(1.5)
    assert server.matches() == before  # frozen: no table starts
    board = server.get("/api/leaderboard").json()
    assert (
        board["phase"] == "over" and "The season is over (6 matches played)" in board["phaseText"]
    )
    # No new version once the season is over.
    late = upload(server, "latebot", good_bot(), tokens["ann"])
    assert late.status_code == 422 and "season is over" in late.json()["error"]
    results = server.get("/api/results").json()
    assert results["final"] is True and results["league"] == "Class 2026"
    final = results["finalPhase"]
    assert {row["name"] for row in final} == {"rando", "easy", "hard"}
    assert all(row["matches"] == 12 for row in final)  # 2 opponents × 3 deals × 2 seat orders
    # Each bot played 6 deals: placed (the simultaneous final table), not provisional.
    assert all(row["standing"] == "ranked" for row in final)
    assert final[0]["place"].startswith("1") and all(row["owner"] == "" for row in final)
    page = server.get("/results").text
    assert "<h1>Class 2026: final results</h1>" in page and "The final phase" in page
    assert "18 matches: every pair of the 3 bots on 3 fresh deals" in page
    projected = server.get("/results?projector=1").text
    assert '<body class="projector">' in projected
    # The same results from the command line, as CSV and JSON.
    rows = list(csv.DictReader(io.StringIO(arena("results", str(folder), "--csv").stdout)))
    assert [row["bot"] for row in rows if row["table"] == "final"] == [r["name"] for r in final]
    assert {row["owner"] for row in rows} == {""}
    exported = json.loads(arena("results", str(folder), "--json").stdout)
    assert exported["finalPhase"] == final
    shown = server.get("/results.csv")
    assert shown.headers["content-type"].startswith("text/csv") and "final,1" in shown.text
    # Places are counted among the versions still in it: the winner disqualified (after
    # the prize-giving, say), the two others hold places 1 and 2 between them.
    client, csrf = signed_in(server, tokens["organiser"])
    with contextlib.closing(client):
        winner = next(row for row in final if row["place"] == "1" or row["place"].startswith("1"))
        ident = client.get("/organiser").text.split(
            f"<td>{winner['name']}#{winner['version']}</td>"
        )
        version = ident[1].split('name="version" value="')[1].split('"')[0]
        rule = {"csrf": csrf, "version": version, "state": "disqualified", "reason": "a test"}
        assert client.post("/organiser/state", data={**rule, "confirm": "1"}).status_code == 303
    after = server.get("/api/results").json()["finalPhase"]
    assert {row["name"] for row in after} == {row["name"] for row in final} - {winner["name"]}
    assert all(part in {"1", "2"} for row in after for part in row["place"].split("–"))


@pytest.mark.slow  # (the `ended` league: a season and its final phase, ~20 s)
def test_old_replays_are_pruned_to_the_budget_and_their_pages_say_so(
    ended: tuple[Path, dict[str, str], Server],
) -> None:
    folder, _, server = ended
    told = arena("disk", str(folder), "--prune").stdout
    assert "bytes a match" in told and "oldest pruned" in told
    replays = folder / "replays"
    left = sum(p.stat().st_size for p in replays.iterdir())
    with sqlite3.connect(folder / "league.db") as db:
        kept = {
            phase: [(ident, (replays / name).is_file()) for ident, name in rows]
            for phase in ("season", "final")
            for rows in [
                db.execute("SELECT id, replay FROM matches WHERE phase = ?", (phase,)).fetchall()
            ]
        }
    assert all(on_disk for _, on_disk in kept["final"])  # the final phase's stay
    gone = [ident for ident, on_disk in kept["season"] if not on_disk]
    assert gone and gone == [ident for ident, _ in kept["season"]][: len(gone)]  # oldest first
    # Within the budget, or as near as the final phase's replays (which stay) let it be.
    assert left <= 0.02 * (1 << 20) or len(gone) == len(kept["season"])
    page = server.get(f"/matches/{gone[0]}")
    assert page.status_code == 410 and "its replay was pruned" in page.text
    assert page.headers["content-type"].startswith("text/html")
    assert server.matches() == len(kept["season"]) + len(kept["final"])  # still counted


def test_a_wrong_season_setting_is_one_line_naming_file_and_key(tmp_path: Path) -> None:
    for text, key in (
        ("maxMatches = 0", "league.maxMatches"),
        ('deadline = "next friday"', "league.deadline"),
        ("sessionHours = -1", "league.sessionHours"),
        ("finalDeals = 1.5", "league.finalDeals"),
        ("replayMB = 3", "league.replayMB"),
    ):
        (tmp_path / "league.toml").write_text(f"[league]\n{text}\n")
        result = arena(
            "init", str(tmp_path / "l"), "--config", str(tmp_path / "league.toml"), check=False
        )
        assert result.returncode == 2 and len(result.stderr.splitlines()) == 1, result.stderr
        assert "league.toml" in result.stderr and key in result.stderr, result.stderr


def test_a_deadline_in_the_past_ends_the_season_at_once(tmp_path: Path) -> None:
    config = LIMITS + b"deadline = 2020-01-01T00:00:00Z\nfinalDeals = 0\n"
    folder, _ = make_league(tmp_path, config)
    server = Server(folder)
    try:
        wait_for(lambda: server.get("/api/leaderboard").json()["phase"] == "over", "over")
        assert server.matches() == 0
        assert "the deadline passed" in server.get("/").text
    finally:
        server.kill()


# -- forgiving uploads, safe names ------------------------------------------------------


def zip_of(entries: dict[str, bytes]) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        for name, data in entries.items():
            archive.writestr(name, data)
    return buffer.getvalue()


MANIFEST = b'command = ["python3", "bot.py"]\n'


def test_a_finder_zip_and_a_zip_of_backslashes_are_taken(
    server: Server,
    here: tuple[Path, dict[str, str]],
) -> None:
    token = here[1]["ann"]
    finder = zip_of(
        {
            "finderbot/bot.toml": MANIFEST,
            "finderbot/bot.py": GOOD,
            "finderbot/.DS_Store": b"\0\0\0\1Bud1",
            "__MACOSX/finderbot/._bot.py": b"\0\5\26\7",
            "__MACOSX/._finderbot": b"\0\5\26\7",
        }
    )
    taken = upload(server, "finderbot", finder, token)
    assert taken.status_code == 201, taken.text
    [source] = (here[0] / "versions").glob("finderbot-*/source")
    assert not (source / "__MACOSX").exists() and not (source / "finderbot" / ".DS_Store").exists()
    windows = zip_of({"winbot\\bot.toml": MANIFEST, "winbot\\lib\\": b"", "winbot\\bot.py": GOOD})
    taken = upload(server, "winbot", windows, token)
    assert taken.status_code == 201, taken.text


def test_a_missing_bot_toml_names_the_files_found(
    server: Server, here: tuple[Path, dict[str, str]]
) -> None:
    refused = upload(
        server, "lost", zip_of({"src/main.py": GOOD, "src/sub/bot.toml": MANIFEST}), here[1]["ann"]
    )
    assert refused.status_code == 422
    error = refused.json()["error"]
    assert "there is one at 'src/sub/bot.toml'" in error and "src/main.py" in error, error


def test_bot_names_are_told_apart_whatever_their_case_and_look_alikes(
    server: Server, here: tuple[Path, dict[str, str]]
) -> None:
    tokens = here[1]
    assert upload(server, "benbot", good_bot(), tokens["bob"]).status_code == 201
    for name in ("BenBot", "BENBOT", "benb0t", "BENB0T", "BENBOT".lower().replace("o", "0")):
        refused = upload(server, name, good_bot(), tokens["cat"])
        assert refused.status_code == 422, name
        assert "reads the same as 'benbot', another owner's bot" in refused.json()["error"]
    mine = upload(server, "Benbot", good_bot(), tokens["bob"])
    assert mine.status_code == 422 and "or submit to 'benbot'" in mine.json()["error"]
    # A name with a slash is refused in words, not a bare 404.
    slashed = upload(server, "a/b", good_bot(), tokens["bob"])
    assert slashed.status_code == 422 and "no '/'" in slashed.json()["error"]
    # The owner is shown on the board and on the bot's page.
    board = {b["name"]: b for b in server.get("/api/leaderboard").json()["bots"]}
    assert board["benbot"]["owner"] == "bob" and board["easy"]["owner"] == ""
    assert "Owner: <strong>bob</strong>" in server.get("/bots/benbot").text


def test_a_token_pasted_with_a_space_works_and_is_never_printed(
    tmp_path: Path, server: Server, here: tuple[Path, dict[str, str]]
) -> None:
    folder = tmp_path / "spacebot"
    folder.mkdir()
    (folder / "bot.toml").write_bytes(MANIFEST)
    (folder / "bot.py").write_bytes(GOOD)
    token = here[1]["dan"]
    done = arena("submit", server.url, "spacebot", str(folder), "--token", f" {token} \n")
    assert "spacebot v1 accepted" in done.stdout
    wrong = arena(
        "submit", "http://127.0.0.1:1", "spacebot", str(folder), "--token", token + " ", check=False
    )
    assert wrong.returncode == 2 and token not in wrong.stdout + wrong.stderr


def test_server_paths_are_never_shown_to_owners(
    server: Server, here: tuple[Path, dict[str, str]]
) -> None:
    """A bot that writes where it runs from (its traceback would) shows its own file's name,
    not the league's folder on the server."""
    folder, tokens = here
    talker = GOOD.replace(  # (while answering: a note beside each decision too)
        b'    kind = message.get("type")\n',
        b'    kind = message.get("type")\n    print("at", __file__, file=sys.stderr, flush=True)\n',
    )
    assert talker != GOOD
    bot = tar_of({"bot.toml": MANIFEST, "bot.py": talker})
    assert upload(server, "pathbot", bot, tokens["cat"]).status_code == 201
    client, _ = signed_in(server, tokens["cat"])
    with contextlib.closing(client), playing(folder):

        def shown() -> str | None:
            text = client.get("/me").text
            return text if "at bot.py" in text else None

        page = wait_for(shown, "pathbot's stderr on its owner's page")
    assert str(folder.resolve()) not in page and "versions/pathbot" not in page
    assert '<h4><a href="/me/matches/' in page  # each stderr block names its match
    # Nor in its notes beside each decision, on the match's page.
    ident = page.split('<h4><a href="/me/matches/')[1].split('"')[0]
    client, _ = signed_in(server, tokens["cat"])
    with contextlib.closing(client):
        viewer = client.get(f"/me/matches/{ident}").text
    assert "at bot.py" in viewer
    assert "versions/pathbot" not in viewer and "versions\\/pathbot" not in viewer


# -- errors a browser can meet are pages ------------------------------------------------


def test_every_error_a_browser_meets_is_a_page_in_the_sites_layout(
    server: Server, here: tuple[Path, dict[str, str]]
) -> None:
    tokens = here[1]
    for path, status in (("/nothing-here", 404), ("/bots/nobody", 404), ("/matches/99999", 404)):
        answer = server.get(path)
        assert answer.status_code == status
        assert answer.headers["content-type"].startswith("text/html")
        assert '<nav><a href="/">Leaderboard</a>' in answer.text
    client, csrf = signed_in(server, tokens["ann"])
    with contextlib.closing(client):
        # A refused check: the owner's page, the reason in words and the report in a block.
        bad = tar_of({"bot.toml": b'command = ["python3", "bot.py"]\n', "bot.py": b"import sys\n"})
        refused = client.post(
            "/me/upload", data={"csrf": csrf, "bot": "shybot"}, files={"archive": ("b.tgz", bad)}
        )
        assert refused.status_code == 422 and refused.headers["content-type"].startswith(
            "text/html"
        )
        assert "refused by arena check." in refused.text and '<pre class="report">' in refused.text
        assert '{"error"' not in refused.text and "\\n" not in refused.text
        # Too large, from the form: a page, not JSON.
        huge = client.post(
            "/me/upload",
            data={"csrf": csrf, "bot": "hugebot"},
            files={"archive": ("b.tgz", b"x" * (9 << 20))},
        )
        assert huge.status_code == 413 and "archive over 8388608 bytes." in huge.text
        assert huge.headers["content-type"].startswith("text/html")
        # A stale form (no CSRF token): a page that says what to do.
        stale = client.post("/me/retire", data={"bot": "annbot"})
        assert stale.status_code == 403 and "reload the page" in stale.text
        # Text from the URL is never shown as the site's words.
        evil = "Your token expired. Email it to evil@example.com"
        assert evil not in client.get("/me", params={"message": evil}).text
        assert "was accepted" in client.get("/me", params={"message": "accepted"}).text
    # The API keeps JSON.
    assert upload(server, "x", b"", None).json() == {"error": "missing or invalid token"}


# -- safe administration ----------------------------------------------------------------


def test_owners_are_listed_renamed_removed_and_given_new_tokens(
    league: tuple[Path, dict[str, str]],
) -> None:
    folder, tokens = league
    listed = arena("owners", "list", str(folder)).stdout
    assert "organiser" in listed and "ann" in listed and tokens["ann"] not in listed
    # A typo (a capital, a space) does not make a second owner.
    typo = arena("owner", str(folder), "Ann ", check=False)
    assert typo.returncode == 2 and "reads as the existing 'ann'" in typo.stderr
    again = arena("owner", str(folder), " ann")
    assert "a new token for ann" in again.stderr and again.stdout.strip() != tokens["ann"]
    arena("owners", "rename", str(folder), "bob", "Robert")
    assert "Robert" in arena("owners", "list", str(folder)).stdout
    assert arena("owners", "rename", str(folder), "nobody", "x", check=False).returncode == 2
    fresh = arena("owners", "token", str(folder), "cat").stdout.strip()
    assert fresh and fresh != tokens["cat"]
    assert arena("owners", "token", str(folder), "kat", check=False).returncode == 2
    removed = arena("owners", "remove", str(folder), "dan")
    assert "removed dan" in removed.stdout
    server = Server(folder)
    try:
        assert upload(server, "danbot", good_bot(), tokens["dan"]).status_code == 401
        assert upload(server, "catbot", good_bot(), tokens["cat"]).status_code == 401  # old
    finally:
        server.kill()


def test_sign_out_the_organisers_session_lifetime_and_an_owners_undo(
    tmp_path: Path,
) -> None:
    folder, tokens = make_league(tmp_path, LIMITS + b"sessionHours = 2\n")
    paused(folder, True)
    server = Server(folder, "--jobs", "1", "--port", "0")
    try:
        assert upload(server, "undobot", good_bot(), tokens["ann"]).status_code == 201
        client = httpx.Client(base_url=server.url, timeout=60)
        with contextlib.closing(client):
            page = client.get("/login")
            csrf = page.text.split('name="csrf" value="')[1].split('"')[0]
            signed = client.post("/login", data={"token": tokens["ann"], "csrf": csrf})
            assert "Max-Age=7200" in signed.headers["set-cookie"]  # sessionHours = 2
            me = client.get("/me").text
            csrf = me.split('name="csrf" value="')[1].split('"')[0]
            # An owner's own retirement is theirs to undo.
            assert (
                client.post("/me/retire", data={"csrf": csrf, "bot": "undobot"}).status_code == 303
            )
            assert "undobot" not in names_on(server)
            me = client.get("/me").text
            assert "Undo the retirement of undobot v1" in me
            ident = me.split('name="version" value="')[1].split('"')[0]
            undone = client.post("/me/resume", data={"csrf": csrf, "version": ident})
            assert undone.status_code == 303 and "undobot" in names_on(server)
            # Sign-out ends the session: the page asks to sign in again.
            out = client.post("/logout", data={"csrf": csrf})
            assert out.status_code == 303
            assert client.get("/me").headers.get("location") == "/login"
    finally:
        server.kill(signal.SIGTERM)
    stopped = server.log.read_text()
    assert f"`arena league serve {folder} --port 0 --jobs 1` goes on from there" in stopped


@pytest.mark.slow  # (ten seconds of a season)
def test_a_slow_bot_does_not_stall_a_season_of_one_job(tmp_path: Path) -> None:
    """A bot that takes its time over every reply (within the limit) is at the tables for at
    most a little more than its share of the time: the others keep playing on one job (a new
    version is seated first, which made a slow one stall the season). The organiser adds it
    (`arena league add -- COMMAND`), so no upload's check comes first."""
    folder, _ = make_league(tmp_path, bots=("random", "easy", "medium", "hard"))
    slow = GOOD.replace(
        b'    kind = message.get("type")\n',
        b'    kind = message.get("type")\n    __import__("time").sleep(0.03)\n',
    )
    assert slow != GOOD
    (folder / "slowbot.py").write_bytes(slow)
    arena("add", str(folder), "slowbot", "--", "python3", "slowbot.py")
    server = Server(folder, "--jobs", "1")
    try:
        start = server.matches()
        time.sleep(10)
        paused(folder, True)
    finally:
        server.kill()
    with sqlite3.connect(folder / "league.db") as db:
        (slow_id,) = db.execute(
            "SELECT v.id FROM versions v JOIN bots b ON b.id = v.bot_id WHERE b.name = 'slowbot'"
        ).fetchone()
        seated = [
            json.loads(row[0])
            for row in db.execute("SELECT versions FROM matches WHERE id > ?", (start,))
        ]
    with_slow = sum(1 for ids in seated if slow_id in ids)
    others = len(seated) - with_slow
    assert with_slow >= 2 and others >= 3 * with_slow, (with_slow, others)


@pytest.mark.needs("bwrap")  # (its build step: a league builds only in the sandbox)
def test_an_uploads_stages_are_shown_while_it_is_checked(
    server: Server, here: tuple[Path, dict[str, str]]
) -> None:
    """The owner's page polls where their upload is (the form's script shows it): built, then
    checked, then nothing once the answer is back."""
    import threading

    tokens = here[1]
    bot = tar_of(
        {
            "bot.toml": b'command = ["python3", "bot.py"]\nbuild = ["sleep", "2"]\n',
            "bot.py": GOOD,
        }
    )
    client, _ = signed_in(server, tokens["cat"])
    answers: list[int] = []
    sending = threading.Thread(
        target=lambda: answers.append(upload(server, "stagebot", bot, tokens["cat"]).status_code)
    )
    with contextlib.closing(client):
        assert client.get("/me/progress").json()["stage"] is None
        sending.start()
        seen = set()
        while sending.is_alive():
            now = client.get("/me/progress").json()
            if now["stage"]:
                seen.add(now["stage"])
                assert now["text"] and now["seconds"] >= 0
            time.sleep(0.2)
        sending.join()
        assert answers == [201] and {"building", "checking"} <= seen, seen
        assert client.get("/me/progress").json()["stage"] is None
        assert "/static/upload.js" in client.get("/me").text
    script = server.get("/static/upload.js").text
    assert 'fetch("/me/progress"' in script


def test_a_stderr_tail_cut_inside_a_path_shows_no_part_of_it(tmp_path: Path) -> None:
    """The owner's page shows the end of a long stderr log: where that end begins inside a
    line, the line's piece of a server path goes too (found under load, when logs grew)."""
    from arena.league.store import REPLAYS, MatchRow, Store

    store = Store.create(tmp_path / "season")
    try:
        own = f"{(tmp_path / 'season').resolve()}/versions/pathbot-0a1b2c/source/bot.py"
        line = f"at {own}\n"
        (tmp_path / "season" / REPLAYS / "m1.seat0.stderr.log").write_text(line * 400)
        match = MatchRow(1, 1, 0, (1, 2), (1, 2), (3, 1), "completed", ({}, {}), "m1.json", 0.0)
        for tail in (100, 555, 4000, 40_000):  # every cut: inside a line and on its edge
            shown = store.stderr(match, 0, tail=tail)
            assert "at bot.py" in shown, tail
            assert "versions/" not in shown and "season" not in shown, (tail, shown[:120])
            assert len(shown) <= tail and shown.startswith("at bot.py"), tail
    finally:
        store.close()


def test_a_league_toml_is_read_into_typed_settings_in_either_spelling(tmp_path: Path) -> None:
    """`[league]` is read through the config's own path to typed settings; a league.toml
    spelled as before (camelCase, or Python's snake_case, which it has always taken) still
    works."""
    from arena.league import settings

    (tmp_path / "league.toml").write_text(
        '[tournament]\nseats = 3\ntitle = "class"\n'
        "[league]\nseats = [2, 4, 3, 2]\narchiveBytes = 1000\nbuild_seconds = 30\n"
        'buildMemoryMiB = 64\nuploadsPerMinute = 5\ndeadline = "2026-12-18T16:00:00+01:00"\n'
    )
    read = settings.load(tmp_path)
    assert read.sizes == (2, 3, 4)
    assert read.config.tournament.title == "class" and read.config.tournament.seats == 3
    assert (read.unpack.archive_bytes, read.build.seconds, read.build.memory_mib) == (1000, 30, 64)
    assert read.site.uploads == 5 and read.league.deadline is not None
    assert read.league.deadline.utcoffset() is not None
