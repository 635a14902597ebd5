"""`arena league`: a real league folder, the real CLI, a real server on a free loopback port,
a real HTTP client, real sandboxed submissions checked by `arena check`'s logic."""

from __future__ import annotations

import contextlib
import io
import json
import os
import re
import shutil
import signal
import sqlite3
import subprocess
import tarfile
import time
import zipfile
from collections.abc import Iterator
from pathlib import Path

import pytest
from command import arena_here, arena_process, arena_started

httpx = pytest.importorskip("httpx")
pytest.importorskip("starlette")
pytest.importorskip("uvicorn")

ROOT = Path(__file__).resolve().parents[1]
GOOD = (ROOT / "tests" / "checkbots" / "good.py").read_bytes()
GARBAGE = (ROOT / "tests" / "checkbots" / "garbage.py").read_bytes()
LIMITS = (
    b"[tournament]\nseats = 2\n[limits]\nreplyTimeout = 2.0\nstartupTimeout = 5.0\n"
    b"[league]\nbuildSeconds = 4\nbuildMemoryMiB = 256\n"
)


def arena(*args: str, check: bool = True) -> subprocess.CompletedProcess[str]:
    """`arena league ARGS` (in this process: `serve` below runs as its own)."""
    result = arena_here("league", *args)
    if check:
        assert result.returncode == 0, result.stderr
    return result


def wait_for(predicate, what: str, seconds: float = 90.0):  # type: ignore[no-untyped-def]
    """Wait (not a timing assertion: a generous deadline against a hang) for `predicate`."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        value = predicate()
        if value:
            return value
        time.sleep(0.2)
    raise AssertionError(f"never: {what}")


class Server:
    def __init__(self, folder: Path, *options: str, env: dict[str, str] | None = None) -> None:
        """`arena league serve FOLDER --port 0` with `options` (by default `--jobs 1`), in
        `env` (by default this one); what it prints goes to a file beside the folder (a pipe
        nobody drains would stall it)."""
        self.folder = folder
        self.log = folder.parent / f"serve-{time.monotonic_ns()}.log"
        with self.log.open("wb") as output:
            self.process = arena_started(
                "league",
                "serve",
                str(folder),
                "--port",
                "0",
                *(options or ("--jobs", "1")),
                stdout=output,
                stderr=subprocess.STDOUT,
                start_new_session=True,
                env=env,
                text=False,
            )
        deadline = time.monotonic() + 60
        while not (line := self.log.read_text()).startswith("serving http") or "\n" not in line:
            assert self.process.poll() is None and time.monotonic() < deadline, line
            time.sleep(0.05)
        self.url = line.split()[1].rstrip("/")

    def get(self, path: str) -> httpx.Response:
        return httpx.get(self.url + path, timeout=60)

    def matches(self) -> int:
        return int(self.get("/api/leaderboard").json()["matches"])

    def kill(self, sig: int = signal.SIGKILL) -> None:
        if self.process.poll() is None:
            os.killpg(self.process.pid, sig)
        self.process.wait(30)


OWNERS = ("ann", "bob", "cat", "dan")
SHARED = LIMITS + b"uploadsPerMinute = 1000\n"  # one server takes every test's uploads


def make_league(
    tmp_path: Path, config: bytes = LIMITS, bots: tuple[str, ...] = ("random", "easy")
) -> tuple[Path, dict[str, str]]:
    """A league made with the real CLI: the built-in `bots` (the first named `rando`, the
    others by level) and an owner token for each of OWNERS and the organiser."""
    folder = tmp_path / "season"
    (tmp_path / "league.toml").write_bytes(config)
    init = arena("init", str(folder), "--config", str(tmp_path / "league.toml"))
    tokens = {"organiser": init.stdout.split("shown once): ")[1].strip()}
    for level in bots:
        arena("add", str(folder), "rando" if level == "random" else level, "--level", level)
    for name in OWNERS:
        tokens[name] = arena("owner", str(folder), name).stdout.strip()
    return folder, tokens


@pytest.fixture(scope="module")
def made(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, str]]:
    """One league made with the CLI, copied by each test that needs a league of its own."""
    return make_league(tmp_path_factory.mktemp("made"))


@pytest.fixture
def league(made: tuple[Path, dict[str, str]], tmp_path: Path) -> tuple[Path, dict[str, str]]:
    """A league of its own (a copy of `made`: its tokens, its bots, nothing played), for a test
    that kills, pauses or rules over its server."""
    folder = tmp_path / "season"
    shutil.copytree(made[0], folder)
    return folder, made[1]


@pytest.fixture(scope="module")
def shared(
    tmp_path_factory: pytest.TempPathFactory,
) -> Iterator[tuple[Server, Path, dict[str, str]]]:
    """One league and server for every test that neither stops, pauses nor rules over it (each
    uses bot names of its own); one per pytest-xdist worker. It waits paused, except while a
    test needs matches played (`playing`): a league plays as fast as it can, and would take a
    core from the tests beside it the whole time."""
    folder, tokens = make_league(tmp_path_factory.mktemp("shared"), SHARED)
    paused(folder, True)
    running = Server(folder)
    yield running, folder, tokens
    running.kill()


def paused(folder: Path, pause: bool) -> None:
    """Pause or resume the league in `folder` (as `arena league pause [--resume]` does)."""
    from arena.league.store import Store

    store = Store.open(folder)
    try:
        store.pause(pause)
    finally:
        store.close()


@contextlib.contextmanager
def playing(folder: Path) -> Iterator[None]:
    """The shared league resumed for a while: new tables start."""
    paused(folder, False)
    try:
        yield
    finally:
        paused(folder, True)


@pytest.fixture
def server(shared: tuple[Server, Path, dict[str, str]]) -> Server:
    return shared[0]


@pytest.fixture
def here(shared: tuple[Server, Path, dict[str, str]]) -> tuple[Path, dict[str, str]]:
    """The shared league's folder and tokens."""
    return shared[1], shared[2]


@pytest.fixture
def own_server(league: tuple[Path, dict[str, str]]) -> Iterator[Server]:
    """A server of its own for `league`, paused (it plays only once the test resumes it)."""
    paused(league[0], True)
    running = Server(league[0])
    yield running
    running.kill()


def names_on(server: Server) -> set[str]:
    return {b["name"] for b in server.get("/api/leaderboard").json()["bots"]}


def tar_of(files: dict[str, bytes], links: dict[str, str] | None = None) -> bytes:
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz") as archive:
        for name, data in files.items():
            info = tarfile.TarInfo(name)
            info.size, info.mode = len(data), 0o644
            archive.addfile(info, io.BytesIO(data))
        for name, target in (links or {}).items():
            info = tarfile.TarInfo(name)
            info.type, info.linkname = tarfile.SYMTYPE, target
            archive.addfile(info)
    return buffer.getvalue()


def good_bot() -> bytes:
    return tar_of({"bot.toml": b'command = ["python3", "bot.py"]\n', "bot.py": GOOD})


def upload(server: Server, bot: str, data: bytes, token: str | None) -> httpx.Response:
    headers = {} if token is None else {"Authorization": f"Bearer {token}"}
    return httpx.post(
        f"{server.url}/api/bots/{bot}/versions",
        headers=headers,
        files={"archive": ("bot.tar.gz", data)},
        timeout=300,
    )


def test_the_leaderboard_fills_and_every_page_answers(
    server: Server, here: tuple[Path, dict[str, str]]
) -> None:
    with playing(here[0]):
        wait_for(lambda: server.matches() >= 4, "matches played")
    board = server.get("/api/leaderboard").json()
    assert {bot["name"] for bot in board["bots"]} >= {"rando", "easy"}
    assert all(
        set(bot) >= {"name", "version", "rating", "interval", "matches"} for bot in board["bots"]
    )
    page = server.get("/")
    assert (
        page.status_code == 200 and "default-src 'none'" in page.headers["content-security-policy"]
    )
    assert server.get("/bots/easy").status_code == 200
    viewer = server.get("/matches/1")
    assert viewer.status_code == 200 and "Go Fish replay" in viewer.text


def test_uploads_need_the_owners_token(server: Server, here: tuple[Path, dict[str, str]]) -> None:
    tokens = here[1]
    assert upload(server, "authbot", good_bot(), None).status_code == 401
    assert upload(server, "authbot", good_bot(), "not-a-token").status_code == 401
    accepted = upload(server, "authbot", good_bot(), tokens["ann"])
    assert accepted.status_code == 201, accepted.text
    assert accepted.json()["version"] == 1
    assert upload(server, "authbot", good_bot(), tokens["bob"]).status_code == 403
    # The organiser's built-in bots are not bob's either.
    assert upload(server, "easy", good_bot(), tokens["bob"]).status_code == 403
    again = upload(server, "authbot", good_bot(), tokens["ann"])
    assert again.status_code == 201 and again.json()["version"] == 2
    with playing(here[0]):
        wait_for(
            lambda: any(
                b["name"] == "authbot" and b["version"] == 2 and b["matches"]
                for b in server.get("/api/leaderboard").json()["bots"]
            ),
            "the new version plays",
        )


def test_a_version_that_fails_the_check_is_refused_with_its_report(
    server: Server, here: tuple[Path, dict[str, str]]
) -> None:
    bad = tar_of({"bot.toml": b'command = ["python3", "bot.py"]\n', "bot.py": GARBAGE})
    refused = upload(server, "garbagebot", bad, here[1]["ann"])
    assert refused.status_code == 422
    assert (
        "arena check" in refused.json()["error"]
        and "not-json" in refused.json()["report"].lower().replace(" ", "-")
        or "json" in refused.json()["report"].lower()
    )
    assert "garbagebot" not in names_on(server)


def zip_of(entries: dict[str, bytes]) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, data in entries.items():
            archive.writestr(name, data)
    return buffer.getvalue()


def built(script: str) -> bytes:
    """A good bot whose build step is `sh -c SCRIPT`."""
    manifest = f'command = ["python3", "bot.py"]\nbuild = ["sh", "-c", {json.dumps(script)}]\n'
    return tar_of({"bot.toml": manifest.encode(), "bot.py": GOOD})


BUILDS = pytest.mark.needs("bwrap")  # a league's build steps run only in the sandbox


@pytest.mark.parametrize(
    "archive, reason",
    [
        (zip_of({"bot.toml": b'command = ["python3", "bot.py"]', "../escape.py": b"x"}), ".."),
        (tar_of({"/abs.py": b"x", "bot.toml": b'command = ["x"]'}), "relative"),
        (
            tar_of({"bot.toml": b'command = ["python3", "bot.py"]'}, {"bot.py": "/etc/passwd"}),
            "link",
        ),
        (
            zip_of({"bot.toml": b'command = ["python3", "bot.py"]', "zeros": bytes(80 << 20)}),
            "unpacks to over",
        ),
        (tar_of({"bot.py": GOOD}), "bot.toml"),
        pytest.param(
            tar_of(
                {
                    "bot.toml": b'command = ["python3", "bot.py"]\nbuild = ["sh", "-c", "sleep 600"]',
                    "bot.py": GOOD,
                }
            ),
            "the build ran past 4 s",
            marks=BUILDS,
        ),
        pytest.param(built("exit 3"), "exit status 3", marks=BUILDS),
        (
            tar_of({"bot.toml": b'command = ["target/release/mybot"]', "src/main.rs": b""}),
            "'target/release/mybot' is not a file of the upload (its files: bot.toml, src/main.rs)",
        ),
        pytest.param(
            tar_of({"bot.toml": b'command = ["python3", "bot.py"]\nbuild = ["cargo", "build"]'})
            if shutil.which("cargo", path="/usr/local/bin:/usr/bin:/bin") is None
            else tar_of({"bot.toml": b'command = ["x"]\nbuild = ["no-such-compiler"]'}),
            "is not on its PATH (/usr/local/bin:/usr/bin:/bin)",
            marks=BUILDS,
        ),
        pytest.param(
            built("python3 -c 'import socket; socket.create_connection((\"1.1.1.1\", 53), 2)'"),
            "the build failed",
            marks=BUILDS,
        ),
        (b"not an archive at all", "archive"),
    ],
    ids=[
        "zip-slip",
        "absolute",
        "symlink",
        "bomb",
        "no-manifest",
        "build-never-ends",
        "build-fails",
        "program-missing",
        "build-program-elsewhere",
        "build-no-network",
        "garbage",
    ],
)
def test_hostile_archives_are_refused(
    shared: tuple[Server, Path, dict[str, str]], archive: bytes, reason: str
) -> None:
    server, folder, tokens = shared
    before = sorted(p.name for p in (folder / "versions").iterdir())
    refused = upload(server, "evil", archive, tokens["bob"])
    assert refused.status_code == 422, refused.text
    assert reason in refused.json()["error"]
    assert sorted(p.name for p in (folder / "versions").iterdir()) == before  # nothing left
    assert not (folder.parent / "escape.py").exists()
    assert "evil" not in {b["name"] for b in server.get("/api/leaderboard").json()["bots"]}


def test_an_archive_over_the_cap_is_413(server: Server, here: tuple[Path, dict[str, str]]) -> None:
    assert upload(server, "big", os.urandom(9 << 20), here[1]["bob"]).status_code == 413


@BUILDS
def test_an_owner_sees_their_logs_and_nobody_elses(
    server: Server, here: tuple[Path, dict[str, str]]
) -> None:
    tokens = here[1]
    assert upload(server, "annbot", good_bot(), tokens["ann"]).status_code == 201
    assert upload(server, "bobbot", good_bot(), tokens["bob"]).status_code == 201
    with httpx.Client(base_url=server.url, timeout=60) as client:
        login = client.get("/login")
        cookie = login.headers["set-cookie"].lower()
        assert "httponly" in cookie and "samesite=strict" in cookie
        csrf = login.text.split('name="csrf" value="')[1].split('"')[0]
        # Without the CSRF token, the form is refused.
        assert client.post("/login", data={"token": tokens["bob"]}).status_code == 403
        signed = client.post("/login", data={"token": tokens["bob"], "csrf": csrf})
        assert signed.status_code == 303
        page = client.get("/me")
        assert "bobbot" in page.text and "annbot" not in page.text
        assert "<title>My bots · season</title>" in page.text  # the league's folder names it
        assert "Check report" in page.text
        # headed by bot.toml's command, not the paths of the organiser's league folder
        assert "arena check: python3 bot.py  (in the sandbox" in page.text
        assert str(here[0].resolve()) not in page.text
        assert client.get("/organiser").status_code == 303  # not the organiser: to sign-in


@pytest.mark.slow
def test_kill_9_and_restart_lose_and_double_nothing(
    league: tuple[Path, dict[str, str]],
) -> None:
    folder = league[0]
    first = Server(folder)
    try:
        assert upload(first, "annbot", good_bot(), league[1]["ann"]).status_code == 201
        wait_for(lambda: first.matches() >= 6, "matches before the kill")
    finally:
        first.kill(signal.SIGKILL)
    with sqlite3.connect(folder / "league.db") as db:
        before = db.execute("SELECT COUNT(*) FROM matches").fetchone()[0]
    second = Server(folder)
    try:
        assert second.matches() >= before
        wait_for(lambda: second.matches() >= before + 4, "matches after the restart")
        names = {b["name"] for b in second.get("/api/leaderboard").json()["bots"]}
        assert names == {"rando", "easy", "annbot"}  # the version survived
    finally:
        second.kill(signal.SIGKILL)
    with sqlite3.connect(folder / "league.db") as db:
        rows = db.execute("SELECT deal_seed, rotation, replay FROM matches").fetchall()
    assert len(rows) == len({(deal, rotation) for deal, rotation, _ in rows})
    assert all((folder / "replays" / replay).is_file() for _, _, replay in rows)


def test_a_level_is_given_by_level_and_bot_is_its_old_name_with_a_note(tmp_path: Path) -> None:
    folder = tmp_path / "season"
    arena("init", str(folder))
    added = arena("add", str(folder), "house", "--bot", "hard")
    assert added.stdout == "added house\n"
    assert added.stderr == "note: --bot is now --level; the old name goes in the next release\n"
    both = arena("add", str(folder), "x", "--bot", "hard", "--level", "easy", check=False)
    assert both.returncode == 2 and "give --level alone" in both.stderr
    assert "--bot" not in arena("add", "--help").stdout  # hidden


@pytest.mark.parametrize(
    "command",
    [
        "init",
        "owner",
        "add",
        "status",
        "results",
        "pause",
        "disk",
        "serve",
        "submit",
        "owners list",
        "owners rename",
        "owners remove",
        "owners token",
    ],
)
def test_every_league_command_has_help_naming_each_value(command: str) -> None:
    shown = arena(*command.split(), "--help")
    usage, about = shown.stdout.split("\n\n")[:2]
    assert usage.startswith("Usage: ") and f"league {command} [OPTIONS]" in usage, usage
    assert about.strip(), shown.stdout  # a help line
    arguments, options = shown.stdout.split("Options:\n", 1)
    assert re.findall(r"<[a-z]+>", options) == [], options  # a metavar, not typer's "<int>"
    for line in arguments.split("Arguments:\n", 1)[1:]:  # each argument says what it is
        assert all(len(row.split()) > 3 for row in line.splitlines() if "[required]" in row), line


def test_a_league_server_that_fails_is_the_arenas_failure_exit_1(tmp_path: Path) -> None:
    """A 5xx from the league is its own failure (exit 1), not a verdict on the bot (3) nor the
    user's input (2): told apart through the real CLI, against a loopback server."""
    import http.server
    import threading

    class Failing(http.server.BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            self.rfile.read(int(self.headers.get("content-length", 0)))
            body = b'{"error": "the database is locked"}'
            self.send_response(503)
            self.send_header("content-type", "application/json")
            self.send_header("content-length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args: object) -> None:
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Failing)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        bot = tmp_path / "bot"
        bot.mkdir()
        (bot / "bot.toml").write_text('command = ["python3", "bot.py"]\n')
        url = f"http://127.0.0.1:{server.server_address[1]}"
        failed = arena("submit", url, "abot", str(bot), "--token", "t0ken", check=False)
    finally:
        server.shutdown()
        server.server_close()
    assert failed.returncode == 1, failed.stderr
    assert failed.stderr.strip().splitlines() == [
        f"{url}: the league failed (503): the database is locked"
    ]


def test_bad_input_is_one_line_and_exit_2(tmp_path: Path) -> None:
    for args in (
        ("status", str(tmp_path / "nowhere")),
        ("add", str(tmp_path / "nowhere"), "x", "--level", "easy"),
    ):
        result = arena(*args, check=False)
        assert result.returncode == 2 and len(result.stderr.splitlines()) == 1, result.stderr
        assert "Traceback" not in result.stderr


@pytest.mark.slow
def test_disk_is_reported_and_retired_versions_pruned(
    server: Server, here: tuple[Path, dict[str, str]]
) -> None:
    folder, tokens = here
    assert upload(server, "diskbot", good_bot(), tokens["ann"]).status_code == 201
    assert upload(server, "diskbot", good_bot(), tokens["ann"]).status_code == 201  # v1 retires
    report = arena("disk", str(folder)).stdout
    (line,) = [line for line in report.splitlines() if line.startswith("diskbot#1 ")]
    assert "(prunable)" in line
    assert len(list((folder / "versions").glob("diskbot-*"))) == 2
    pruned = arena("disk", str(folder), "--prune").stdout
    assert "pruned: " in pruned and "pruned: 0 bytes" not in pruned
    assert len(list((folder / "versions").glob("diskbot-*"))) == 1
    # The live version keeps playing.
    with playing(folder):
        wait_for(
            lambda: any(
                b["name"] == "diskbot" and b["version"] == 2 and b["matches"]
                for b in server.get("/api/leaderboard").json()["bots"]
            ),
            "v2 plays",
        )


@pytest.mark.slow
@BUILDS
def test_a_build_runs_in_the_sandbox_and_its_children_die_with_it(
    server: Server, here: tuple[Path, dict[str, str]]
) -> None:
    # The build writes the bot from a source file, prints to its log, and leaves a child
    # behind that would touch a file outside its folder if it ever could. (Only the child in
    # the background: `a && b && c &` would put the copy there too, and the build's result is
    # the folder as it stands when its command exits.)
    folder, tokens = here
    outside = folder.parent / "touched-by-a-build"
    build = (
        'build = ["sh", "-c", "cp src.py bot.py && echo built-it && '
        f'{{ (sleep 1; touch {outside}) > /dev/null 2>&1 & }}"]\n'
    )
    archive = tar_of(
        {"bot.toml": b'command = ["python3", "bot.py"]\n' + build.encode(), "src.py": GOOD}
    )
    accepted = upload(server, "built", archive, tokens["ann"])
    assert accepted.status_code == 201, accepted.text
    with sqlite3.connect(folder / "league.db") as db:
        (log,) = db.execute(
            "SELECT build_log FROM versions WHERE folder LIKE 'versions/built-%'"
        ).fetchone()
    assert "built-it" in log
    time.sleep(2)  # (the child's sleep and a second more: it must have died with the build)
    assert not outside.exists()


@BUILDS
def test_a_build_writes_its_copy_even_where_the_upload_holds_its_output_already(
    server: Server, here: tuple[Path, dict[str, str]]
) -> None:
    # `cp src.py bot.py` beside a stale bot.py: both arguments name files of the upload, and
    # were made paths in its read-only folder (as a participant's are), so the copy failed.
    build = b'build = ["cp", "src.py", "bot.py"]\n'
    archive = tar_of(
        {
            "bot.toml": b'command = ["python3", "bot.py"]\n' + build,
            "src.py": GOOD,
            "bot.py": GARBAGE,
        }
    )
    accepted = upload(server, "rebuilt", archive, here[1]["cat"])
    assert accepted.status_code == 201, accepted.text
    [built] = (here[0] / "versions").glob("rebuilt-*/built")
    assert (built / "bot.py").read_bytes() == GOOD


def signed_in(server: Server, token: str) -> tuple[httpx.Client, str]:
    """A client signed in with `token`, and its session's CSRF token."""
    client = httpx.Client(base_url=server.url, timeout=60)
    page = client.get("/login")
    csrf = page.text.split('name="csrf" value="')[1].split('"')[0]
    signed = client.post("/login", data={"token": token, "csrf": csrf})
    assert signed.status_code == 303
    # Signing in starts a new session, with a CSRF token of its own.
    page = client.get(signed.headers["location"])
    return client, page.text.split('name="csrf" value="')[1].split('"')[0]


def test_the_organiser_disqualifies_a_version_and_pauses_the_league(
    own_server: Server, league: tuple[Path, dict[str, str]]
) -> None:
    server, (folder, tokens) = own_server, league
    assert upload(server, "annbot", good_bot(), tokens["ann"]).status_code == 201
    with sqlite3.connect(folder / "league.db") as db:
        (ident,) = db.execute(
            "SELECT v.id FROM versions v JOIN bots b ON b.id = v.bot_id WHERE b.name = 'annbot'"
        ).fetchone()
    client, csrf = signed_in(server, tokens["organiser"])
    with contextlib.closing(client):
        assert "Organiser" in client.get("/organiser").text
        # A form without its CSRF token changes nothing.
        assert (
            client.post(
                "/organiser/state", data={"version": ident, "state": "disqualified"}
            ).status_code
            == 403
        )
        assert "annbot" in {b["name"] for b in server.get("/api/leaderboard").json()["bots"]}
        # Retiring or disqualifying takes a reason and a confirmation: a first click changes
        # nothing but asks, on a page of its own.
        rule = {"version": ident, "csrf": csrf}
        bare = client.post("/organiser/state", data={**rule, "state": "retired"})
        assert bare.status_code == 422 and "Give a reason" in bare.text
        asked = client.post(
            "/organiser/state", data={**rule, "state": "retired", "reason": "a test"}
        )
        assert asked.status_code == 200 and "Retire annbot v1?" in asked.text
        assert "annbot" in names_on(server)
        rule = {**rule, "confirm": "1", "reason": "a test"}
        # A retired version comes back when the organiser resumes it.
        assert client.post("/organiser/state", data={**rule, "state": "retired"}).status_code == 303
        assert "annbot" not in names_on(server)
        assert client.post("/organiser/state", data={**rule, "state": "active"}).status_code == 303
        assert "annbot" in names_on(server)
        done = client.post(
            "/organiser/state", data={**rule, "state": "disqualified", "reason": "copied code"}
        )
        assert done.status_code == 303
        assert "annbot" not in {b["name"] for b in server.get("/api/leaderboard").json()["bots"]}
        # A disqualified version stays disqualified: neither resumed nor retired (a page in
        # the site's layout says why, not JSON).
        again = client.post("/organiser/state", data={**rule, "state": "active"})
        assert again.status_code == 422 and "stays disqualified" in again.text
        assert again.headers["content-type"].startswith("text/html")
        assert client.post("/organiser/state", data={**rule, "state": "retired"}).status_code == 303
        assert client.post("/organiser/state", data={**rule, "state": "active"}).status_code == 422
        assert "annbot" not in names_on(server)
        for pause in (False, True):  # (its league began paused)
            state = {"paused": str(int(pause)), "csrf": csrf}
            assert client.post("/organiser/pause", data=state).status_code == 303
            assert server.get("/api/leaderboard").json()["paused"] is pause
    # ann's token is not the organiser's; she reads the reason on her page.
    client, csrf = signed_in(server, tokens["ann"])
    with contextlib.closing(client):
        assert "disqualified by the organiser: copied code" in client.get("/me").text
        assert (
            client.post("/organiser/pause", data={"paused": "0", "csrf": csrf}).status_code == 403
        )
    assert server.get("/api/leaderboard").json()["paused"] is True


@pytest.mark.slow
def test_a_version_that_cannot_start_is_paused_with_a_note_to_its_owner(
    server: Server, here: tuple[Path, dict[str, str]]
) -> None:
    folder, tokens = here
    with playing(folder):  # (its starts fail at its tables; then it plays again)
        assert upload(server, "nostart", good_bot(), tokens["ann"]).status_code == 201
        # Its program goes missing after it was accepted: every start fails from now on.
        (program,) = (folder / "versions").glob("nostart-*/source/bot.py")
        program.unlink()

        def state() -> str:
            with contextlib.closing(sqlite3.connect(folder / "league.db")) as db:
                return str(
                    db.execute(
                        "SELECT state FROM versions WHERE folder LIKE 'versions/nostart-%'"
                    ).fetchone()[0]
                )

        wait_for(lambda: state() == "paused", "the version paused")

        # Still in sight on the board, apart and without a place (it used to disappear).
        def on_board() -> dict[str, object]:
            bots = server.get("/api/leaderboard").json()["bots"]
            return next((b for b in bots if b["name"] == "nostart"), {})

        wait_for(lambda: on_board().get("standing") == "paused", "shown paused on the board")
        assert on_board()["place"] == ""
        client, _ = signed_in(server, tokens["ann"])
        with contextlib.closing(client):
            page = client.get("/me").text
        assert "nostart v1 — paused" in page, page
        assert "failed to start 3 times in a row" in page

        # The program put back, its owner resumes it from /me; it plays again, its start
        # failures counted from zero.
        program.write_bytes(GOOD)
        with contextlib.closing(sqlite3.connect(folder / "league.db")) as db:
            (ident,) = db.execute(
                "SELECT id FROM versions WHERE folder LIKE 'versions/nostart-%'"
            ).fetchone()
            played = sum(
                ident in json.loads(row[0]) for row in db.execute("SELECT versions FROM matches")
            )
        assert played >= 3
        client, csrf = signed_in(server, tokens["bob"])
        with contextlib.closing(client):  # another owner's bot
            assert (
                client.post("/me/resume", data={"version": ident, "csrf": csrf}).status_code == 403
            )
        client, csrf = signed_in(server, tokens["ann"])
        with contextlib.closing(client):
            assert "Resume nostart v1" in client.get("/me").text
            assert client.post("/me/resume", data={"version": ident}).status_code == 403  # no CSRF
            assert state() == "paused"
            resumed = client.post("/me/resume", data={"version": ident, "csrf": csrf})
            assert resumed.status_code == 303
            with contextlib.closing(sqlite3.connect(folder / "league.db")) as db:
                assert db.execute(
                    "SELECT state, note, start_failures FROM versions WHERE id = ?", (ident,)
                ).fetchone() == ("active", "", 0)
            assert "nostart v1 — active" in client.get("/me").text
        wait_for(
            lambda: any(
                b["name"] == "nostart" and b["matches"] > played
                for b in server.get("/api/leaderboard").json()["bots"]
            ),
            "the resumed version plays again",
        )
        assert state() == "active"


def test_submit_from_a_writers_machine_with_the_real_cli(
    server: Server, here: tuple[Path, dict[str, str]], tmp_path: Path
) -> None:
    tokens = here[1]
    bot = tmp_path / "mybot"
    bot.mkdir()
    (bot / "bot.toml").write_text('command = ["python3", "bot.py"]\n')
    # bot.py a hard link of a file packed before it (cargo's target/release/BOT is one of
    # target/release/deps/BOT-HASH): it was left out, and the check found no bot.py.
    (bot / "a-build-output.py").write_bytes(GOOD)
    os.link(bot / "a-build-output.py", bot / "bot.py")
    (bot / "latest").symlink_to("nowhere")
    refused = arena("submit", server.url, "clibot", str(bot), "--token", "wrong", check=False)
    # Refused by the league: exit 3 (docs/contract.md §5.6), not 2 (bad input) nor 1.
    assert refused.returncode == 3 and "refused (401)" in refused.stderr.splitlines()[-1]
    accepted = arena("submit", server.url, "clibot", str(bot), "--token", tokens["ann"])
    assert accepted.stdout.strip() == "clibot v1 accepted", accepted.stderr
    assert "left out 1 link(s) to a folder or to nothing (an upload holds files): latest\n" in (
        accepted.stderr
    )
    # A whole build tree beside it: over the cap, and the refusal says where the bytes are.
    (bot / "target").mkdir()
    (bot / "target" / "debug-build").write_bytes(os.urandom(9 << 20))
    refused = arena("submit", server.url, "clibot", str(bot), "--token", tokens["ann"], check=False)
    assert refused.returncode == 3
    assert "refused (413): " in refused.stderr
    assert "; the largest parts of mybot: target/ 9.4 MB, " in refused.stderr
    assert "clibot" in names_on(server)


def test_an_owner_retires_their_bot_and_only_theirs(
    server: Server, here: tuple[Path, dict[str, str]]
) -> None:
    tokens = here[1]
    assert upload(server, "retireme", good_bot(), tokens["ann"]).status_code == 201
    client, csrf = signed_in(server, tokens["bob"])
    with contextlib.closing(client):
        assert client.post("/me/retire", data={"bot": "retireme", "csrf": csrf}).status_code == 403
    assert "retireme" in names_on(server)
    client, csrf = signed_in(server, tokens["ann"])
    with contextlib.closing(client):
        assert client.post("/me/retire", data={"bot": "retireme"}).status_code == 403  # no CSRF
        assert client.post("/me/retire", data={"bot": "retireme", "csrf": csrf}).status_code == 303
        assert "retireme v1 — retired" in client.get("/me").text
    assert "retireme" not in names_on(server)


NOTING = """import json, random, sys
rng = random.Random(7)
for line in sys.stdin:
    message = json.loads(line)
    kind, reply = message.get("type"), None
    if kind == "ask":
        print("note-of-OWNER", file=sys.stderr, flush=True)
        others = [s for s, n in enumerate(message["opponentsHandSizes"]) if n is not None]
        reply = {"player": rng.choice(others), "cardId": rng.choice(message["hand"])["id"]}
    elif kind == "go-fish":
        reply = rng.randrange(len(message["pond"]))
    elif kind == "pick-up":
        reply = rng.randrange(message["pond"])
    print(json.dumps(reply), flush=True)
"""


def noting_bot(owner: str) -> bytes:
    source = NOTING.replace("OWNER", owner).encode()
    return tar_of({"bot.toml": b'command = ["python3", "bot.py"]\n', "bot.py": source})


@pytest.mark.slow
def test_an_owner_reads_their_bots_notes_beside_each_decision_and_no_rivals(
    tmp_path: Path,
) -> None:
    # A league of cat's and dan's noting bots alone: every table is one of dan's against cat's.
    folder, tokens = make_league(tmp_path, bots=())
    server = Server(folder)
    try:
        assert upload(server, "catbot", noting_bot("cat"), tokens["cat"]).status_code == 201
        assert upload(server, "danbot", noting_bot("dan"), tokens["dan"]).status_code == 201
        client, _ = signed_in(server, tokens["dan"])
        with contextlib.closing(client):

            def played() -> list[str]:
                """dan's matches, from his page."""
                page = client.get("/me").text
                return [part.split('"')[0] for part in page.split('href="/me/matches/')[1:]]

            link = wait_for(played, "a match of dan's bot on his page")[0]
            assert "catbot#" in server.get(f"/matches/{link}").text
            mine = client.get(f"/me/matches/{link}")
            assert mine.status_code == 200
            assert "note-of-dan" in mine.text and "note-of-cat" not in mine.text
            public = server.get(f"/matches/{link}")
            assert public.status_code == 200 and "note-of-" not in public.text
            missing = client.get("/me/matches/999999")
            assert missing.status_code == 404  # not a match of his, and the page says so
            assert "None of your bots played a match of that number." in missing.text
        # Signed out, the owner's view of a match is not there to open.
        signed_out = httpx.get(f"{server.url}/me/matches/{link}", timeout=60)
        assert signed_out.status_code == 303
    finally:
        server.kill(signal.SIGINT)  # Ctrl-C, at the terminal: to its process group
    # It says it stopped, and how to go on (it printed nothing, and exited 0).
    assert server.process.returncode == 0
    assert re.search(
        r"\nleague: stopped with \d+ matches recorded; `arena league serve .+` goes on from "
        r"there\n$",
        server.log.read_text(),
    ), server.log.read_text()


def test_a_session_survives_kill_9_and_a_forged_or_expired_one_does_not(
    league: tuple[Path, dict[str, str]],
) -> None:
    folder, tokens = league
    arena("pause", str(folder))  # (no matches needed here)
    first = Server(folder)
    try:
        client, _ = signed_in(first, tokens["ann"])
        cookie = client.cookies["league_session"]
        client.close()
    finally:
        first.kill(signal.SIGKILL)
    with contextlib.closing(sqlite3.connect(folder / "league.db")) as db:
        stored = db.execute("SELECT id_hash, expires FROM sessions").fetchall()
    assert stored and all(cookie not in row[0] for row in stored)  # only its hash is kept
    second = Server(folder)
    try:

        def me(value: str) -> httpx.Response:
            return httpx.get(second.url + "/me", cookies={"league_session": value}, timeout=60)

        page = me(cookie)
        assert page.status_code == 200 and "<h1>ann" in page.text  # still signed in
        forged = cookie[:-4] + ("AAAA" if not cookie.endswith("AAAA") else "BBBB")
        assert me(forged).status_code == 303  # to the sign-in page
        assert me("").status_code == 303
        with contextlib.closing(sqlite3.connect(folder / "league.db")) as db:
            db.execute("UPDATE sessions SET expires = 1.0")
            db.commit()
        assert me(cookie).status_code == 303  # expired
    finally:
        second.kill()


def test_a_version_carries_the_fingerprint_arena_run_records(
    server: Server, here: tuple[Path, dict[str, str]]
) -> None:
    # A bot of two files: its own folder is its, whole (the helper is read in the sandbox).
    folder, tokens = here
    helper = b"MOVE = 'fine'\n"
    future = b"from __future__ import annotations\n"
    source = GOOD.replace(future, future + b"import helper\n")
    archive = tar_of(
        {"bot.toml": b'command = ["python3", "bot.py"]\n', "bot.py": source, "helper.py": helper}
    )
    accepted = upload(server, "twofiles", archive, tokens["ann"])
    assert accepted.status_code == 201, accepted.text
    print_of_league = accepted.json()["fingerprint"]
    (place,) = (folder / "versions").glob("twofiles-*")
    # The same program as `arena run` runs it, from a config beside the bot's folder.
    (place / "config.toml").write_text(
        'replays = "replays"\ngames = 1\n[tournament]\nseats = 2\n'
        '[[participants]]\nname = "twofiles"\ncommand = ["python3", "source/bot.py"]\n'
        '[[participants]]\nname = "house"\nbot = "random"\n'
    )
    run = arena_process("run", str(place / "config.toml"))
    assert run.returncode == 0, run.stderr
    results = (place / "replays" / "results.jsonl").read_text().splitlines()
    (line,) = [json.loads(text) for text in results]
    seat = line["seating"].index("twofiles")
    assert line["fingerprints"][seat] == print_of_league
    # And the built-in bots: the level's, as `arena run` records it.
    house = line["fingerprints"][1 - seat]
    with contextlib.closing(sqlite3.connect(folder / "league.db")) as db:
        prints = dict(
            db.execute(
                "SELECT b.name, v.fingerprint FROM versions v JOIN bots b ON b.id = v.bot_id"
            ).fetchall()
        )
    assert prints["rando"] == house
    assert prints["twofiles"] == print_of_league


def test_stderr_is_kept_once_beside_the_replay_not_in_the_database(
    server: Server, here: tuple[Path, dict[str, str]]
) -> None:
    folder, tokens = here
    assert upload(server, "annnotes", noting_bot("ann"), tokens["ann"]).status_code == 201
    client, _ = signed_in(server, tokens["ann"])
    with contextlib.closing(client), playing(folder):
        wait_for(lambda: "note-of-ann" in client.get("/me").text, "ann's stderr on her page")
    logs = list((folder / "replays").glob("*.stderr.log"))
    assert any(b"note-of-ann" in log.read_bytes() for log in logs)
    stored = b"".join(path.read_bytes() for path in folder.glob("league.db*") if path.is_file())
    assert b"note-of-ann" not in stored
    with contextlib.closing(sqlite3.connect(folder / "league.db")) as db:
        columns = {row[1] for row in db.execute("PRAGMA table_info(matches)")}
    assert "logs" not in columns


def test_an_old_league_is_migrated_keeping_its_matches(tmp_path: Path) -> None:
    from arena.league.store import MIGRATIONS, Store

    folder = tmp_path / "old"
    folder.mkdir()
    with contextlib.closing(sqlite3.connect(folder / "league.db")) as db:
        db.executescript(MIGRATIONS[0] + "PRAGMA user_version = 1;")
        db.execute(
            "INSERT INTO matches (deal_seed, rotation, versions, places, scores, outcome, "
            "faults, replay, logs, played) VALUES (7, 0, '[1,2]', '[1,2]', '[5,3]', 'finished', "
            "'[{},{}]', 'r.json', '[\"x\",\"\"]', 1.0)"
        )
        db.commit()
    store = Store.open(folder)
    try:
        assert store.schema_version == len(MIGRATIONS) >= 3
        (match,) = store.matches()
        assert (match.deal_seed, match.places, match.replay) == (7, (1, 2), "r.json")
        assert store.session("anything") is None
        session, csrf, _ = store.new_session(None)
        assert store.session(session) == (None, csrf)
    finally:
        store.close()


def test_table_sizes_vary_when_the_league_says_so_and_the_ratings_follow(
    tmp_path: Path,
) -> None:
    config = LIMITS + b"seats = [2, 3]\n"
    folder, _ = make_league(tmp_path, config, bots=("random", "easy", "medium", "hard"))
    server = Server(folder)
    try:

        def sizes() -> set[int]:
            with contextlib.closing(sqlite3.connect(folder / "league.db")) as db:
                rows = db.execute("SELECT versions FROM matches").fetchall()
            return {len(json.loads(row[0])) for row in rows}

        wait_for(lambda: sizes() == {2, 3}, "tables of two and of three seats")
        board = server.get("/api/leaderboard").json()["bots"]
        assert {bot["name"] for bot in board} == {"rando", "easy", "medium", "hard"}
        wait_for(  # (the leaderboard is refitted at most twice a second)
            lambda: all(
                bot["matches"] > 0 and bot["interval"] < 350
                for bot in server.get("/api/leaderboard").json()["bots"]
            ),
            "every bot rated",
        )
    finally:
        server.kill()
    status = arena("status", str(folder)).stdout
    assert "hard" in status and "rando" in status


@pytest.mark.parametrize(
    "seats, problem",
    [
        ("[1, 2]", "each 2 to 64"),
        ('"three"', "a table size or a list of them"),
        ("[]", "a table size or a list of them"),
        ("[2, 9]", "a table of 9 needs 63 cards"),
    ],
)
def test_a_wrong_list_of_table_sizes_is_one_line_at_init(
    tmp_path: Path, seats: str, problem: str
) -> None:
    (tmp_path / "league.toml").write_text(f"[league]\nseats = {seats}\n")
    result = arena(
        "init", str(tmp_path / "l"), "--config", str(tmp_path / "league.toml"), check=False
    )
    assert result.returncode == 2 and len(result.stderr.splitlines()) == 1, result.stderr
    assert problem in result.stderr and "league.seats" in result.stderr


def test_a_table_size_is_drawn_from_those_that_fit() -> None:
    import random

    from arena.league.matchmaking import table_size

    rng = random.Random(3)
    drawn = [table_size((2, 3, 4), 3, rng) for _ in range(200)]
    assert set(drawn) == {2, 3}  # never 4 with three versions
    assert table_size((3, 4), 2, rng) is None
    assert {table_size((2, 3, 4), 10, rng) for _ in range(200)} == {2, 3, 4}


def test_too_many_requests_or_uploads_are_429_with_the_reason(tmp_path: Path) -> None:
    """Uploads are limited per owner, only those accepted counted (a class behind one address
    does not share one limit, and a refusal costs nothing); requests per address."""
    config = LIMITS + b"requestsPerMinute = 30\nuploadsPerMinute = 2\n"
    folder, tokens = make_league(tmp_path, config)
    arena("pause", str(folder))
    server = Server(folder)
    try:
        refused = [upload(server, "limited", b"not an archive", tokens["ann"]) for _ in range(3)]
        assert [r.status_code for r in refused] == [422, 422, 422]  # refusals are not counted
        taken = [upload(server, "limited", good_bot(), tokens["ann"]) for _ in range(3)]
        assert [r.status_code for r in taken] == [201, 201, 429]
        assert taken[-1].json() == {"error": "too many uploads: wait a minute"}
        # bob, from the same address, has his own.
        assert upload(server, "bobs", good_bot(), tokens["bob"]).status_code == 201
        with httpx.Client(base_url=server.url, timeout=60) as client:
            answers = [client.get("/api/leaderboard") for _ in range(30)]
        codes = [answer.status_code for answer in answers]
        assert 429 in codes and set(codes) == {200, 429}
        first = codes.index(429)
        assert set(codes[first:]) == {429}  # 30 a minute, the uploads among them
        assert answers[-1].json() == {"error": "too many requests: wait a minute"}
    finally:
        server.kill()


def test_only_a_bots_latest_version_resumes(tmp_path: Path) -> None:
    from arena.league.store import Store

    store = Store.create(tmp_path)
    first = store.add_version("b", None, command=[], level="easy", folder=None, fingerprint="1")
    second = store.add_version("b", None, command=[], level="hard", folder=None, fingerprint="2")
    assert store.resume(first.id) == (
        "b v1 is not b's latest version (v2 is): only the latest resumes; to play an older "
        "one again, submit it as a new version"
    )
    assert store.resume(second.id) == "b v2 is active: only a paused or retired version resumes"
    store.retire_bot("b", by="organiser")
    assert store.resume(second.id, states=("paused",)) is not None  # an owner's: paused only
    # An owner undoes their own retirement, not the organiser's.
    assert store.resume(second.id, owner=True) == (
        "b v2 was retired by the organiser: only the organiser resumes it"
    )
    assert store.resume(second.id) is None
    assert [(v.number, v.state) for v in store.versions()] == [(1, "retired"), (2, "active")]
    assert store.bots() == [("b", None, False)]


def test_a_lost_table_is_told_to_the_organiser_once_and_printable() -> None:
    """A table whose task raises (a worker gone, one lacking what a seat needs) is chosen
    again; why is told to `on_problem` (serve's stderr) once per reason, control characters
    (a program's name is the owner's to choose) shown as '?'."""
    import tempfile
    import threading
    from concurrent.futures import Future

    from arena.base.config import Config
    from arena.league.season import Season
    from arena.league.store import Store

    class Lost:
        """An executor each of whose tasks fails as a worker that lacks a program would."""

        def submit(self, fn: object, *args: object) -> Future[object]:
            future: Future[object] = Future()
            future.set_exception(RuntimeError("worker tcp://w:1 lacks \x1b[2Jbot\nmore"))
            return future

    with tempfile.TemporaryDirectory() as folder:
        store = Store.create(Path(folder))
        for bot in ("a", "b"):
            store.add_version(bot, None, command=[], level="easy", folder=None, fingerprint=bot)
        told: list[str] = []
        config = Config.model_validate(
            {"participants": [{"name": "x", "bot": "easy"}, {"name": "y", "bot": "easy"}]}
        )
        season = Season(store, config, Lost(), jobs=2, sizes=[2], on_problem=told.append)  # type: ignore[arg-type]
        for _ in range(3):
            season.step(threading.Event(), timeout=0.01)
    assert told == ["a table was lost and is chosen again: worker tcp://w:1 lacks ?[2Jbot"]


def test_package_data_ships_the_sites_templates_and_static_files() -> None:
    """A plain `pip install .` (no editable checkout) carries every page and script the site
    reads from beside `web.py`: each file of `static/` and `templates/` is in package-data."""
    import tomllib

    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    patterns = config["tool"]["setuptools"]["package-data"]["arena.league"]
    package = ROOT / "arena" / "league"
    files = {
        p.relative_to(package).as_posix()
        for folder in ("static", "templates")
        for p in (package / folder).iterdir()
    }
    assert {"static/league.js", "static/league.css", "templates/base.html"} <= files
    left_out = {name for name in files if not any(Path(name).match(p) for p in patterns)}
    assert left_out == set()
