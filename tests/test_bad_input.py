"""Configs, options and paths a hostile tester would try: each is one line, exit 2,
nothing started; through the real command, as a user would meet them."""

from __future__ import annotations

import contextlib
import json
import os
import random
import shutil
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
from command import arena_here, arena_process

TWO = '[[participants]]\nname = "a"\nbot = "random"\n[[participants]]\nname = "b"\nbot = "random"\n'


def _arena(folder: Path, *arguments: str, stdin: str = "") -> subprocess.CompletedProcess[str]:
    return arena_here(*arguments, cwd=folder, input=stdin)


def _one_line(done: subprocess.CompletedProcess[str], *words: str, status: int = 2) -> None:
    assert done.returncode == status, (done.stdout, done.stderr)
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1, done.stderr
    assert all(word in lines[0] for word in words), lines[0]
    assert "Traceback" not in done.stdout + done.stderr


@pytest.mark.parametrize(
    "character, named",
    [
        ("\u200b", "U+200B (ZERO WIDTH SPACE)"),
        ("\ufeff", "U+FEFF (ZERO WIDTH NO-BREAK SPACE)"),
        ("\u202e", "U+202E (RIGHT-TO-LEFT OVERRIDE)"),
        ("\u2066", "U+2066 (LEFT-TO-RIGHT ISOLATE)"),
        ("\x1b", "U+001B"),
        ("\n", "U+000A"),
    ],
)
def test_a_name_that_prints_as_another_is_refused(
    tmp_path: Path, character: str, named: str
) -> None:
    escaped = character.encode("unicode_escape").decode().replace("\\x", "\\u00")
    (tmp_path / "config.toml").write_text(
        TWO.replace('name = "b"', f'name = "a{escaped}"'), encoding="utf-8"
    )
    _one_line(
        _arena(tmp_path, "run", "config.toml"), "config.toml: participants[1].name: holds", named
    )
    assert not (tmp_path / "replays").exists()


def test_a_table_over_the_seat_limit_is_refused(tmp_path: Path) -> None:
    seats = "".join(f'[[participants]]\nname = "p{n}"\nbot = "random"\n' for n in range(65))
    (tmp_path / "config.toml").write_text(seats, encoding="utf-8")
    _one_line(
        _arena(tmp_path, "run", "config.toml"), "participants: 65 at one table", "limit of 64 seats"
    )
    (tmp_path / "config.toml").write_text("[tournament]\nseats = 1000\n" + seats, encoding="utf-8")
    _one_line(_arena(tmp_path, "run", "config.toml"), "tournament.seats", "64")


def test_a_config_that_is_not_a_small_regular_file(tmp_path: Path) -> None:
    os.mkfifo(tmp_path / "fifo.toml")
    (tmp_path / "huge.toml").write_text("#" * ((1 << 20) + 1), encoding="utf-8")
    for path, why in (
        ("fifo.toml", "not a regular file (a FIFO)"),
        ("/dev/zero", "a character device"),
        (".", "a folder"),
        ("huge.toml", "over the limit of 1 MiB"),
    ):
        _one_line(_arena(tmp_path, "run", path), f"{path}: cannot read:", why)


@pytest.mark.parametrize(
    "arguments, words",
    [
        (["check", "--timeout", "nan", "--", "true"], ["--timeout: nan"]),
        (["check", "--timeout", "inf", "--", "true"], ["--timeout: inf"]),
        (["check", "--timeout", "1e9", "--", "true"], ["--timeout: 1000000000.0", "604800"]),
        (["check", "--timeout", "0", "--", "true"], ["--timeout: 0"]),
        (["check", "--startup-timeout", "nan", "--", "true"], ["--startup-timeout: nan"]),
        (["play", "--delay", "inf"], ["--delay: inf"]),
        (["play", "--delay", "nan"], ["--delay: nan"]),
        (["play", "--opponents", "5"], ["--opponents: 5 is not a number from 1 to 3"]),
        (["report", ".", "--view", "-1"], ["--view: -1 is not a number from 0"]),
        (["run", "config.toml", "--games", "0"], ["--games: 0"]),
        (["run", "config.toml", "--games", "10000000000"], ["--games: 10000000000", "1000000000"]),
        (["run", "config.toml", "--jobs", "100000"], ["--jobs: 100000", "1024"]),
        (["run", "config.toml", "--seed", "-1"], ["--seed: -1"]),
        (["run", "config.toml", "--seed", str(2**64)], ["--seed:"]),
        (["sprt", "--vs", "easy", "--seats", "1000", "--", "true"], ["--seats: 1000", "64"]),
        (["sprt", "--vs", "easy", "--min-groups", str(10**23), "--", "true"], ["--min-groups"]),
        (["sprt", "--vs", "easy", "--games", str(10**23), "--", "true"], ["--games"]),
        (["sprt", "--vs", "easy", "--timeout", "inf", "--", "true"], ["--timeout: inf"]),
        (["sprt", "--vs", "easy", "--share0", "nan", "--", "true"], ["--share0"]),
        (["sprt", "--vs", "easy", "--alpha", "inf", "--", "true"], ["--alpha"]),
    ],
)
def test_every_number_is_finite_and_in_range(
    tmp_path: Path, arguments: list[str], words: list[str]
) -> None:
    (tmp_path / "config.toml").write_text(TWO, encoding="utf-8")
    _one_line(_arena(tmp_path, *arguments), *words)
    assert not (tmp_path / "replays").exists()


def test_play_refuses_a_replays_folder_it_could_not_write_before_the_game(tmp_path: Path) -> None:
    (tmp_path / "afile").write_text("in the way", encoding="utf-8")
    done = _arena(tmp_path, "play", "--replays", "afile/sub", stdin="quit\n")
    _one_line(done, "--replays:", "afile is a file, not a folder")
    assert done.stdout == ""  # no deal shown: nothing was played


def test_a_replays_path_that_can_never_be_a_folder(tmp_path: Path) -> None:
    (tmp_path / "loop").symlink_to("loop")
    (tmp_path / "loop.toml").write_text('replays = "loop/r"\n' + TWO, encoding="utf-8")
    _one_line(_arena(tmp_path, "run", "loop.toml"), "loop.toml: replays:", "loop")
    (tmp_path / "long.toml").write_text(f'replays = "{"x" * 300}/r"\n' + TWO, encoding="utf-8")
    _one_line(_arena(tmp_path, "run", "long.toml"), "long.toml: replays:", "300 bytes", "255")
    done = _arena(tmp_path, "play", "--replays", "x" * 300, stdin="quit\n")
    _one_line(done, "--replays:", "255")


# -- addresses and programs --------------------------------------------------------------


def _server(mode: str) -> tuple[int, threading.Event]:
    """A real local server that accepts and stays silent, or writes random bytes."""
    listener = socket.create_server(("127.0.0.1", 0))
    stop = threading.Event()
    held: list[socket.socket] = []

    def serve() -> None:
        listener.settimeout(0.2)
        while not stop.is_set():
            try:
                connection, _ = listener.accept()
            except TimeoutError:
                continue
            held.append(connection)
            if mode == "random":
                with contextlib.suppress(OSError):
                    connection.sendall(random.Random(7).randbytes(4096))
        for connection in held:
            connection.close()
        listener.close()

    threading.Thread(target=serve, daemon=True).start()
    return listener.getsockname()[1], stop


def test_a_scheduler_that_is_not_one(tmp_path: Path) -> None:
    pytest.importorskip("distributed")
    (tmp_path / "config.toml").write_text(TWO, encoding="utf-8")
    port, stop = _server("random")
    try:
        started = time.monotonic()
        done = _arena(tmp_path, "run", "config.toml", "--scheduler", f"tcp://127.0.0.1:{port}")
        took = time.monotonic() - started
    finally:
        stop.set()
    _one_line(done, f"tcp://127.0.0.1:{port}", "does not speak Dask's protocol")
    assert took < 10 + 15  # the connect timeout, and no 20 s wait on exit


def test_a_scheduler_that_never_speaks_is_given_up_on_after_the_timeout() -> None:
    # What `arena run --scheduler` does with it (the test above: one line, exit 2), in-process
    # with a short timeout instead of the command's 10 s.
    pytest.importorskip("distributed")
    from arena.tournaments.cluster import ClusterError, connect

    port, stop = _server("silent")
    try:
        with pytest.raises(ClusterError, match="accepted the connection but said nothing in 0.5 s"):
            connect(f"tcp://127.0.0.1:{port}", timeout=0.5)
    finally:
        stop.set()


def test_a_missing_interpreter_is_a_start_failure(tmp_path: Path) -> None:
    for sandbox in ("none", "bwrap") if shutil.which("bwrap") else ("none",):
        folder = tmp_path / sandbox
        folder.mkdir()
        script = folder / "bot.py"
        script.write_text("#!/nonexistent/interp\nprint('never')\n", encoding="utf-8")
        script.chmod(0o755)
        (folder / "config.toml").write_text(
            f'[limits]\nsandbox = "{sandbox}"\n'
            + TWO.replace('bot = "random"', 'command = "./bot.py"', 1),
            encoding="utf-8",
        )
        done = _arena(folder, "run", "config.toml")
        assert done.returncode == 0, done.stderr
        [replay] = (folder / "replays").glob("*.json")
        faults = json.loads(replay.read_text(encoding="utf-8"))["faults"]
        assert faults[0]["kind"] == "start-failed", (sandbox, faults)
        assert "/nonexistent/interp" in faults[0]["detail"], (sandbox, faults)


@pytest.mark.parametrize(
    "program, why",
    [("./sub", "is a folder, not a program"), ("/dev/null", "is not a regular file")],
)
def test_a_command_that_is_not_a_program_says_what_it_is(
    tmp_path: Path, program: str, why: str
) -> None:
    (tmp_path / "sub").mkdir()
    (tmp_path / "config.toml").write_text(
        TWO.replace('bot = "random"', f'command = ["{program}"]', 1), encoding="utf-8"
    )
    _one_line(_arena(tmp_path, "run", "config.toml"), "participants[0].command", why)


def test_a_megabyte_line_without_a_newline_is_read_once(tmp_path: Path) -> None:
    # It took 108 s (each byte re-scanned the whole line); now the line is cut to what a
    # command can be and the rest dropped as it is read.
    done = _arena(tmp_path, "play", "--delay", "0", "--replays", "r", stdin="a" * 1_000_000)
    assert done.returncode == 0, done.stderr
    assert len(done.stdout) < 200_000 and "Traceback" not in done.stderr
    assert list((tmp_path / "r").glob("*-interrupted.json"))


def test_a_newline_in_an_error_stays_visible(tmp_path: Path) -> None:
    _one_line(
        _arena(tmp_path, "replay", "show", "two\nlines.json"), "two\\nlines.json: no such file"
    )


def test_check_shows_a_lone_surrogate_a_bot_wrote(tmp_path: Path) -> None:
    (tmp_path / "bot.py").write_text(
        "import json, sys\n"
        "for line in sys.stdin:\n"
        "    ask = json.loads(line)['type'] == 'ask'\n"
        "    print('{\"player\": \"\\\\ud800\"}' if ask else 'null', flush=True)\n",
        encoding="utf-8",
    )
    done = _arena(
        tmp_path, "check", "--timeout", "1", "--sandbox", "none", "--", sys.executable, "bot.py"
    )
    assert done.returncode == 1, done.stderr
    assert "\\ud800" in done.stdout and "Traceback" not in done.stdout + done.stderr


@pytest.mark.parametrize(
    ("args", "words"),
    [
        (["run", "x.toml", "--jobs", "abc"], "arena run: Invalid value for '--jobs'"),
        (["report"], "arena report: Missing argument 'FOLDER'."),
        (["bogus"], "arena: No such command 'bogus'."),
        (
            ["replay", "show", "x.json", "--seat", "one"],
            "arena replay show: Invalid value for '--seat'",
        ),
    ],
)
def test_a_command_line_typer_cannot_parse_is_one_line(
    tmp_path: Path, args: list[str], words: str
) -> None:
    done = arena_process(*args, cwd=tmp_path, timeout=60)
    assert done.returncode == 2
    assert words in done.stderr and len(done.stderr.strip().splitlines()) == 1
    assert "Traceback" not in done.stderr and done.stdout == ""
