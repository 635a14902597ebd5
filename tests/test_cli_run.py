"""`arena run` as a user runs it, in a real subprocess: faults in the summary, untrusted names kept
inert, a replays folder that cannot be written, SIGINT/SIGTERM mid-match, the modes of the files
it writes, its output into a pipe, and the file names and game numbers of its replays.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest
from command import arena_here, arena_process, arena_started, bare_env, said
from replaymaker import replay_json

from arena.replays import replay

HOSTILE = Path(__file__).parent / "hostile"
SAFE_FILE_NAME = re.compile(r"^[A-Za-z0-9._-]+$")


def _seat(name: str, rest: str) -> str:
    return f"[[participants]]\nname = {json.dumps(name)}\n{rest}\n"


def _hostile(script: str, *args: str, pids: Path | None = None) -> str:
    line = f"command = {json.dumps([sys.executable, str(HOSTILE / script), *args])}"
    return line + (f"\nenv = {{ HOSTILE_PIDS = {json.dumps(str(pids))} }}" if pids else "")


def _arena(folder: Path, *args: str, **env: str) -> subprocess.CompletedProcess[str]:
    return arena_here(*args, cwd=folder, env=bare_env(**env))


def test_faults_are_counted_in_the_summary(tmp_path: Path) -> None:
    (tmp_path / "config.toml").write_text(
        "seed = 2\n[limits]\nreplyTimeout = 0.5\n"
        + _seat("quitter", _hostile("dies_after_init.py"))
        + _seat("steady", "bot = 'random'")
    )
    result = _arena(tmp_path, "run", "config.toml", COLUMNS="200")
    assert result.returncode == 0, result.stderr
    assert re.search(r"quitter \d+ books? \(\w+, 1 fault\)", result.stdout), result.stdout
    [path] = (tmp_path / "replays").glob("*.json")
    data = replay_json(path)
    assert replay.verify(replay.from_json(data)) is None
    assert data["faultCounts"] == [{"exited": 1}, {}]
    log = path.with_name(path.stem + ".seat0.stderr.log")
    assert "goodbye" in log.read_text()


# Names with a control, invisible or direction-changing character are refused at config
# (tests/test_bad_input.py); these are printable, and hostile only as markup or paths.
NAMES = ["[bold red]x[/]", "../../etc/x", "a/b\\c", "..", "Zoë"]


@pytest.mark.parametrize("games", [1, 2])  # a game line, or progress and standings tables
def test_untrusted_names_stay_inert(tmp_path: Path, games: int) -> None:
    folder = tmp_path / "run"
    folder.mkdir()
    seats = "".join(_seat(name, "bot = 'random'") for name in NAMES)
    (folder / "config.toml").write_text(
        f"seed = 4\ngames = {games}\n[rules]\nstartingHandSize = 5\n" + seats
    )
    result = _arena(
        folder,
        "run",
        "config.toml",
        "--jobs",
        "1",
        FORCE_COLOR="1",
        TERM="xterm-256color",
        COLUMNS="300",
    )
    assert result.returncode == 0, result.stderr
    for text in (result.stdout, result.stderr):
        # Only rich's own control sequences (CSI: colours, cursor moves); nothing a name brought.
        assert not re.search(r"\x1b(?!\[[0-9;?]*[A-Za-z])", text), repr(text)
        assert "\x07" not in text and "\u202e" not in text
    plain = re.sub(r"\x1b\[[0-9;?]*[A-Za-z]", "", result.stdout)
    assert "[bold red]x[/]" in plain  # shown as written, not read as markup
    assert "../../etc/x" in plain
    # Files: all inside the replays folder, with safe names; nothing outside it.
    assert sorted(p.name for p in tmp_path.iterdir()) == ["run"]
    assert sorted(p.name for p in folder.iterdir()) == ["config.toml", "replays"]
    files = list((folder / "replays").rglob("*"))
    assert files and all(
        p.parent == folder / "replays" and SAFE_FILE_NAME.match(p.name) for p in files
    )
    for path in (folder / "replays").glob("*-g*.json"):
        data = replay_json(path)
        assert replay.verify(replay.from_json(data)) is None
        assert sorted(player["name"] for player in data["players"]) == sorted(
            NAMES
        )  # exactly as given


def test_replays_folder_that_cannot_be_written(tmp_path: Path) -> None:
    (tmp_path / "blocker").write_text("a file where the replays folder should be\n")
    (tmp_path / "marker.py").write_text("import pathlib\npathlib.Path('started').write_text('')\n")
    marker = f"command = [{json.dumps(sys.executable)}, 'marker.py']"
    (tmp_path / "config.toml").write_text(
        "replays = 'blocker/sub'\n" + _seat("a", marker) + _seat("b", "bot = 'random'")
    )
    result = _arena(tmp_path, "run", "config.toml", COLUMNS="40")
    assert result.returncode == 1
    [line] = result.stderr.splitlines()
    assert line.startswith("arena error: cannot write into ") and line.endswith(
        "blocker is a file, not a folder"
    )
    assert "Traceback" not in result.stderr
    assert not (tmp_path / "started").exists()  # refused before any participant started


def _pids(path: Path) -> list[dict[str, int]]:
    return [json.loads(line) for line in path.read_text().splitlines()] if path.exists() else []


def _running(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except FileNotFoundError:
        return False
    return state not in ("Z", "X")


def _interrupt(
    tmp_path: Path, how: str, games: int, jobs: int
) -> tuple[subprocess.CompletedProcess[str], float, list[dict[str, int]]]:
    pids = tmp_path / "pids.jsonl"
    (tmp_path / "config.toml").write_text(
        # Unsandboxed: the test follows the pids the participants note (a sandbox hides them).
        f"seed = 1\ngames = {games}\n[limits]\nreplyTimeout = 2.0\ncloseGrace = 5.0\nsandbox = 'none'\n"
        + _seat("slow", _hostile("slow.py", "0.05", pids=pids))
        + _seat("stubborn", _hostile("stubborn.py", pids=pids))
    )
    process = arena_started(
        "run",
        "config.toml",
        "--jobs",
        str(jobs),
        cwd=tmp_path,
        env=bare_env(COLUMNS="300"),
        start_new_session=True,  # its own group, as a shell gives a job: `group` is a Ctrl-C at a terminal
    )
    try:
        deadline = time.monotonic() + 60
        while len(_pids(pids)) < 2 * min(jobs, games):  # every match in progress
            assert time.monotonic() < deadline and process.poll() is None, process.communicate()
            time.sleep(0.05)
        time.sleep(0.5)
        signalled = time.monotonic()
        number = signal.SIGTERM if how == "SIGTERM" else signal.SIGINT
        if how == "group":
            os.killpg(process.pid, number)
        else:
            process.send_signal(number)
        stdout, stderr = process.communicate(timeout=60)
        seconds = time.monotonic() - signalled
    finally:
        if process.poll() is None:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait()
    return (
        subprocess.CompletedProcess(process.args, process.returncode, stdout, stderr),
        seconds,
        _pids(pids),
    )


@pytest.mark.parametrize("how", ["SIGINT", "SIGTERM", "group"])
def test_interrupted_run_stops_everyone_and_keeps_the_match(tmp_path: Path, how: str) -> None:
    result, seconds, notes = _interrupt(tmp_path, how, games=1, jobs=1)
    assert result.returncode == (143 if how == "SIGTERM" else 130), result.stderr
    assert seconds < 3.0  # no grace for a stubborn bot: it is killed at once
    assert "Traceback" not in result.stderr
    [path] = (tmp_path / "replays").glob("*.json")
    assert path.name.endswith("-interrupted.json")
    data = replay_json(path)
    assert data["result"]["outcome"] == "interrupted" and len(data["transcript"]) > 10
    assert replay.verify(replay.from_json(data)) is None
    assert len(notes) == 2
    assert not [note for note in notes if _running(note["pid"])]


@pytest.mark.parametrize("how", ["SIGINT", "group"])
def test_interrupted_pool_run_starts_no_new_match(tmp_path: Path, how: str) -> None:
    result, seconds, notes = _interrupt(tmp_path, how, games=4, jobs=2)
    assert result.returncode == 130, result.stderr
    assert not [note for note in notes if _running(note["pid"])]
    assert len(notes) == 4  # the two matches in progress, and no other started
    assert seconds < 5.0
    replays = sorted((tmp_path / "replays").glob("*-g*.json"))
    assert [path.name.endswith("-interrupted.json") for path in replays] == [True, True]
    assert all(replay.verify(replay.read(path)) is None for path in replays)


@pytest.mark.parametrize(("seats", "warned"), [(2, True), (3, False)])
def test_clockwise_at_two_seats_warns_in_one_line_and_still_runs(
    tmp_path: Path, seats: int, warned: bool
) -> None:
    (tmp_path / "config.toml").write_text(
        "seed = 1\n[rules]\nnextPlayer = 'Clockwise'\n"
        + "".join(_seat(f"p{seat}", "bot = 'random'") for seat in range(seats))
    )
    result = _arena(tmp_path, "run", "config.toml", "--quiet", COLUMNS="80")
    assert result.returncode == 0, result.stderr
    warnings = [line for line in said(result.stderr) if line.startswith("warning:")]
    if warned:
        assert len(warnings) == 1 and "the asker plays every turn" in warnings[0], result.stderr
    else:
        assert warnings == [], result.stderr
    assert len(list((tmp_path / "replays").glob("*.json"))) == 1


@pytest.mark.parametrize("jobs", ["1", "2"])
def test_no_temporary_folder_is_left_when_a_run_ends(
    tmp_path: Path, jobs: str, request: pytest.FixtureRequest
) -> None:
    # Unsandboxed participants' TMPDIR folders are removed in the background (a removal can
    # cost milliseconds); the arena and its pool workers wait for that before they exit.
    # A short TMPDIR of its own: the pool's forkserver puts its socket there, and a socket's
    # path has a length limit that pytest-xdist's deep tmp_path can exceed.
    temporary = Path(tempfile.mkdtemp(prefix="arena-tmp-", dir="/tmp"))
    request.addfinalizer(lambda: shutil.rmtree(temporary, ignore_errors=True))
    bot = json.dumps(
        [sys.executable, str(Path(__file__).parents[1] / "participants" / "random_bot.py")]
    )
    (tmp_path / "c.toml").write_text(
        'seed = 3\ngames = 4\nreplays = "r"\n[limits]\nsandbox = "none"\n'
        + _seat("one", f"command = {bot}")
        + _seat("two", f"command = {bot}")
    )
    done = _arena(tmp_path, "run", "c.toml", "--quiet", "--jobs", jobs, TMPDIR=str(temporary))
    assert done.returncode == 0, done.stderr
    assert len(list((tmp_path / "r").glob("*-g000*.json"))) == 4
    assert list(temporary.iterdir()) == []


TWO_RANDOM = 'seed = 7\ngames = {games}\n[[participants]]\nname = "ann"\nbot = "random"\n[[participants]]\nname = "bo"\nbot = "random"\n'


def played(tmp_path: Path, games: int = 2, text: str = TWO_RANDOM) -> Path:
    """The replays folder of a run of `text` in tmp_path."""
    (tmp_path / "config.toml").write_text(text.format(games=games))
    run = arena_process("run", "config.toml", "--quiet", cwd=tmp_path)
    assert run.returncode == 0, run.stderr
    return tmp_path / "replays"


@pytest.mark.parametrize("umask", [0o022, 0o027])
def test_every_file_the_arena_writes_has_the_mode_of_any_new_file(
    tmp_path: Path, umask: int
) -> None:
    (tmp_path / "config.toml").write_text(TWO_RANDOM.format(games=2))
    assert arena_process("run", "config.toml", "--quiet", cwd=tmp_path, umask=umask).returncode == 0
    replays = tmp_path / "replays"
    [first, *_] = sorted(replays.glob("*g0*.json"))
    page = tmp_path / "one.html"
    assert arena_process("report", "replays", cwd=tmp_path, umask=umask).returncode == 0
    assert (
        arena_process(
            "replay", "html", str(first), "-o", str(page), cwd=tmp_path, umask=umask
        ).returncode
        == 0
    )
    written = [*replays.glob("*.json"), replays / "report.html", page]
    assert sorted(path.name.split("-g")[-1] for path in written) == [
        "0000-ann-vs-bo.json",
        "0001-bo-vs-ann.json",
        "one.html",
        "report.html",
        "standings.json",
    ], written
    modes = {path.name: oct(path.stat().st_mode & 0o777) for path in written}
    assert set(modes.values()) == {oct(0o666 & ~umask)}, modes


LONG_NAMES = "seed = 1\ngames = 3\n[tournament]\nseats = 2\n" + "".join(
    f'[[participants]]\nname = "team-alpha-version-{n}"\nbot = "{bot}"\n'
    for n, bot in ((1, "random"), (2, "easy"), (3, "medium"))
)


def test_a_run_into_a_pipe_shows_progress_and_whole_names(tmp_path: Path) -> None:
    (tmp_path / "config.toml").write_text(LONG_NAMES)
    # stdout is a pipe here; COLUMNS (which something in pytest sets to 80) is not set, as in a
    # shell's pipe or a nohup log
    env = {key: value for key, value in os.environ.items() if key != "COLUMNS"}
    done = arena_process("run", "config.toml", cwd=tmp_path, env=env)
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert "played 3 of 3 matches" in done.stdout, done.stdout
    progress = next(i for i, line in enumerate(lines) if line.startswith("played 3 of 3"))
    standings = next(i for i, line in enumerate(lines) if line.startswith("standings after"))
    assert progress < standings
    rows = [line for line in lines[standings:] if "team-alpha" in line]
    for n in (1, 2, 3):  # in the standings, and as the pairwise table's heading and row
        assert sum(f"team-alpha-version-{n}" in line for line in rows) >= 2, done.stdout
    assert "…" not in "".join(rows)


def test_seats_whose_names_read_the_same_in_a_file_name_are_told_apart(tmp_path: Path) -> None:
    text = TWO_RANDOM.replace('"ann"', '"a/b"').replace('"bo"', '"a_b"')
    replays = played(tmp_path, games=1, text=text)
    [path] = replays.glob("*-g0000-*.json")
    assert path.name.endswith("-a_b.0-vs-a_b.1.json"), path.name


def test_game_numbers_are_the_same_everywhere(tmp_path: Path) -> None:
    (tmp_path / "config.toml").write_text(TWO_RANDOM.format(games=3))
    env = {key: value for key, value in os.environ.items() if key != "COLUMNS"}
    run = arena_process("run", "config.toml", cwd=tmp_path, env=env)
    assert run.returncode == 0, run.stderr
    replays = tmp_path / "replays"
    lines = [json.loads(line) for line in (replays / "results.jsonl").read_text().splitlines()]
    game = lines[2]["game"]
    assert f"g{game:04d}" in lines[2]["replay"]
    built = arena_process("report", "replays", "--view", str(game), cwd=tmp_path)
    assert built.returncode == 0, built.stderr
    assert (replays / lines[2]["replay"]).with_suffix(".html").exists()
    # (the run built every match's page already: --view builds that one again, and only it)
    assert [
        line.split("/")[-1]
        for line in built.stdout.splitlines()
        if line.startswith("wrote ") and "report.html" not in line
    ] == [Path(lines[2]["replay"]).with_suffix(".html").name]
