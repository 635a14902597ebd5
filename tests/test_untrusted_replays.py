"""Replays edited by hand: one line naming the file and the key, exit 2 (1 for
`verify`), never a traceback; `replay html` replaces a page only with a complete new one."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from command import arena_here
from replaymaker import make_replay
from typer.testing import CliRunner

from arena.ui.cli import app


@pytest.fixture(scope="module")
def played(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """A real replay with faults (seat 0 answers `ask` with a line that is not JSON)."""
    path = make_replay(tmp_path_factory.mktemp("played"), ["ada", "hal"], bad=True)
    document: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    assert document["faults"], "the bad bot's faults are what some edits change"
    return document


def _arena(*arguments: str) -> subprocess.CompletedProcess[bytes]:
    """The real command, as a user runs it (its own stdout encoding, its own exit)."""
    return subprocess.run(
        [sys.executable, "-m", "arena.ui.cli", *arguments],
        check=False,
        capture_output=True,
        timeout=60,
    )


def _edited(folder: Path, document: dict[str, Any], edit: Callable[[dict[str, Any]], None]) -> Path:
    copy = json.loads(json.dumps(document))
    edit(copy)
    path = folder / "edited.json"
    path.write_text(json.dumps(copy), encoding="utf-8")
    return path


def _commands(path: Path, folder: Path) -> list[tuple[list[str], int]]:
    return [
        (["replay", "show", str(path)], 2),
        (["replay", "html", str(path), "-o", str(folder / "page.html")], 2),
        (["replay", "verify", str(path)], 1),
        (["replay", "fork", str(path), "--at", "3", "-o", str(folder / "fork.json")], 2),
    ]


EDITS: dict[str, tuple[Callable[[dict[str, Any]], None], str]] = {
    "fault at x": (lambda d: d["faults"][0].update(at="x"), "faults.0.at"),
    "ranks strings": (lambda d: d["result"].update(ranks=["1", 2]), "result.ranks.0"),
    "starting player 99": (
        lambda d: d.update(startingPlayer=99),
        "startingPlayer: 99 is not a seat",
    ),
    "no players": (lambda d: d.update(players=[]), "players"),
    "seat out of range": (lambda d: d["transcript"][0].update(seat=7), "transcript[0].seat"),
    "fork at list": (lambda d: d.update(fork=[1]), "fork"),
    "scores short": (lambda d: d["result"].update(scores=[1]), "result.scores"),
    "fork replaced seat out of range": (
        lambda d: d.update(fork={"at": 3, "source": "x.json", "replaced": [{"seat": 7}]}),
        "fork.replaced[0].seat: 7 is not a seat (0..1)",
    ),
    # The recorded settings are read as a config's: their errors name the table and the key.
    "decks out of range": (
        lambda d: d["config"]["deck"].update(numberOfDecks=10**6),
        "config.deck.numberOfDecks: Input should be less than or equal to 64",
    ),
    "an unknown rule": (
        lambda d: d["config"]["rules"].update(jokers=True),
        "config.rules.jokers: Extra inputs are not permitted",
    ),
    "a limit of another type": (
        lambda d: d["config"]["limits"].update(maxTurns="many"),
        "config.limits.maxTurns: Input should be a valid integer",
    ),
}


@pytest.mark.parametrize("name", list(EDITS))
def test_an_edited_replay_is_one_line_naming_the_key(
    played: dict[str, Any], tmp_path: Path, name: str
) -> None:
    edit, key = EDITS[name]
    path = _edited(tmp_path, played, edit)
    for arguments, status in _commands(path, tmp_path):
        result = CliRunner().invoke(app, arguments)
        assert result.exit_code == status, (arguments, result.output)
        assert result.exception is None or isinstance(result.exception, SystemExit), (
            result.exception
        )
        lines = result.output.strip().splitlines()
        assert len(lines) == 1 and str(path) in lines[0] and key in lines[0], (
            arguments,
            result.output,
        )


@pytest.mark.parametrize(
    "text, why",
    [
        ("[" * 100_000 + "]" * 100_000, "nested too deeply"),
        ('{"format": Infinity}', "Infinity is not a JSON number"),
        ('{"format": NaN}', "NaN is not a JSON number"),
        ("\xff\xfe", "not a JSON replay"),
    ],
)
def test_not_json_is_one_line(tmp_path: Path, text: str, why: str) -> None:
    path = tmp_path / "bad.json"
    path.write_bytes(text.encode("utf-8", "surrogateescape") if text != "\xff\xfe" else b"\xff\xfe")
    for arguments, status in _commands(path, tmp_path):
        result = CliRunner().invoke(app, arguments)
        assert result.exit_code == status, (arguments, result.output)
        assert why in result.output and "Traceback" not in result.output


def test_a_huge_or_special_file_is_refused_before_reading(tmp_path: Path) -> None:
    huge = tmp_path / "huge.json"
    with huge.open("wb") as file:
        file.truncate((256 << 20) + 1)  # sparse: nothing is written, the size is what counts
    for path, why in (
        (huge, "over the limit of 256 MiB"),
        (Path("/dev/zero"), "not a regular file"),
        (tmp_path, "not a regular file (a folder)"),
    ):
        result = CliRunner().invoke(app, ["replay", "show", str(path)])
        assert result.exit_code == 2 and why in result.output, result.output


def test_a_fifo_does_not_block(tmp_path: Path) -> None:
    fifo = tmp_path / "replay.json"
    os.mkfifo(fifo)
    done = _arena("replay", "show", str(fifo))
    assert done.returncode == 2 and b"not a regular file (a FIFO)" in done.stderr, done.stderr


def test_a_lone_surrogate_in_a_reply_is_shown_not_a_crash(
    played: dict[str, Any], tmp_path: Path
) -> None:
    def surrogate(document: dict[str, Any]) -> None:
        for entry in document["transcript"]:
            if entry["message"]["type"] == "ask":
                entry["reply"] = {"ask": "\ud800"}

    path = _edited(tmp_path, played, surrogate)
    page = tmp_path / "page.html"
    for arguments in (
        ["replay", "show", str(path)],
        ["replay", "html", str(path), "-o", str(page)],
    ):
        done = _arena(*arguments)
        assert done.returncode == 0, done.stderr.decode()
        assert b"Traceback" not in done.stderr
    assert b"\\ud800" in _arena("replay", "show", str(path)).stdout
    assert page.stat().st_size > 1000


def test_replay_html_never_leaves_a_broken_page(played: dict[str, Any], tmp_path: Path) -> None:
    page = tmp_path / "page.html"
    page.write_text("the previous page", encoding="utf-8")
    broken = _edited(tmp_path, played, lambda d: d.update(startingPlayer=99))
    result = CliRunner().invoke(app, ["replay", "html", str(broken), "-o", str(page)])
    assert result.exit_code == 2
    assert page.read_text(encoding="utf-8") == "the previous page"
    # A link as the output is replaced by the page, never written through.
    target = tmp_path / "target.txt"
    target.write_text("not to be touched", encoding="utf-8")
    link = tmp_path / "link.html"
    link.symlink_to(target)
    good = _edited(tmp_path, played, lambda d: None)
    result = CliRunner().invoke(app, ["replay", "html", str(good), "-o", str(link)])
    assert result.exit_code == 0, result.output
    assert target.read_text(encoding="utf-8") == "not to be touched"
    assert not link.is_symlink() and "<html" in link.read_text(encoding="utf-8").lower()
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".writing-")]


@pytest.mark.parametrize(
    "options, words",
    [
        (["--at", str(10**23)], ["--at 1000", "the replay has messages 0.."]),
        (["--at", "nan"], ["--at 'nan'"]),
        # Beyond Python's 4,300 digits: it said 'malformed replay: Exceeds the limit…'.
        (["--at", "9" * 5000], ["--at 9999", "…: the replay has messages 0.."]),
        (["--at", "turn:" + "9" * 5000], ["--at turn:9999", "…: the replay has turns 1.."]),
        (["--at", "\u0663"], ["give a message index"]),  # an Arabic-Indic 3 was taken as 3
        (["--at", "turn:-1"], ["--at 'turn:-1'"]),
        (["--at", "3", "--seat", f"{10**20}=easy"], ["the replay has seats 0..1"]),
        (["--at", "3", "--seat", "0="], ["--seat '0=': the command is empty"]),
        (["--at", "3", "--seat", "0=/dev/null"], ["/dev/null", "is not a regular file"]),
    ],
)
def test_fork_options_out_of_range(
    played: dict[str, Any], tmp_path: Path, options: list[str], words: list[str]
) -> None:
    path = _edited(tmp_path, played, lambda d: None)
    result = CliRunner().invoke(
        app, ["replay", "fork", str(path), *options, "-o", str(tmp_path / "f.json")]
    )
    assert result.exit_code == 2, result.output
    [line] = result.output.strip().splitlines()
    assert all(word in line for word in words), line
    assert not (tmp_path / "f.json").exists()


@pytest.mark.slow
def test_a_page_never_replaces_what_is_not_a_page_and_never_blocks(tmp_path: Path) -> None:
    """`replay html` and `report` given the replay itself, a config, a folder or a FIFO as
    their output: one line, exit 2, nothing replaced, no wait on the FIFO."""
    source = make_replay(tmp_path / "t", ["ada", "hal"])
    folder = source.parent
    before = source.read_bytes()
    fifo = tmp_path / "pipe.html"
    os.mkfifo(fifo)
    config = tmp_path / "t" / "config.toml"
    kept = config.read_bytes()
    for command in (["replay", "html", str(source), "-o"], ["report", str(folder), "-o"]):
        for output, why in [
            (source, "exists and is not"),
            (config, "exists and is not"),
            (tmp_path, "not a regular file (a folder): give another -o"),
            (fifo, "not a regular file (a FIFO): give another -o"),
        ]:
            done = _arena(*command, str(output))
            assert done.returncode == 2, (command, output, done.stderr)
            [line] = done.stderr.decode().splitlines()
            assert line.startswith(f"{output}") and why in line, line
    assert source.read_bytes() == before and config.read_bytes() == kept
    # A page the arena wrote is replaced by the new one, as before.
    page = tmp_path / "page.html"
    for _ in range(2):
        assert _arena("replay", "html", str(source), "-o", str(page)).returncode == 0
    assert b"gofish-arena viewer" in page.read_bytes()[:4096]


@pytest.mark.parametrize("output", [".", "sub"])
def test_fork_output_that_is_a_folder_is_refused(
    played: dict[str, Any], tmp_path: Path, output: str
) -> None:
    path = _edited(tmp_path, played, lambda d: None)
    (tmp_path / "sub").mkdir()
    before = sorted(tmp_path.iterdir())
    done = arena_here("replay", "fork", str(path), "--at", "3", "-o", output, cwd=tmp_path)
    assert done.returncode == 2, done.stderr
    assert done.stderr.splitlines() == [
        f"-o {output}: is a folder; give the new replay's file name (OUT.json)"
    ]
    assert sorted(tmp_path.iterdir()) == before  # no `.json`, no `sub.json` beside it
