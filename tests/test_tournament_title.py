"""`[tournament] title`, through the real CLI: a label in the terminal, standings.json and the
report's heading, refused in one line when unprintable or too long, and not part of the id."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest
from command import arena_here

SEATS = (
    "[[participants]]\nname = 'a'\nbot = 'random'\n[[participants]]\nname = 'b'\nbot = 'random'\n"
)
TITLE = "Friday night <b>ladder</b> & co"


def _arena(folder: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "HOME": str(Path.home()),
        "COLUMNS": "200",
    }
    return arena_here(*args, cwd=folder, env=env)


def _config(folder: Path, tournament: str) -> None:
    folder.mkdir()
    (folder / "config.toml").write_text(
        f"seed = 3\ngames = 2\n[rules]\nstartingHandSize = 5\n{tournament}\n{SEATS}"
    )


def test_the_title_labels_the_run_but_not_its_id(tmp_path: Path) -> None:
    _config(tmp_path / "titled", f"[tournament]\ntitle = {json.dumps(TITLE)}")
    _config(tmp_path / "plain", "[tournament]")
    titled = _arena(tmp_path / "titled", "run", "config.toml")
    plain = _arena(tmp_path / "plain", "run", "config.toml")
    assert titled.returncode == 0, titled.stderr
    assert plain.returncode == 0, plain.stderr
    lines = titled.stdout.splitlines()
    assert lines[0] == TITLE  # at the start of the run
    at = [i for i, line in enumerate(lines) if line == TITLE]
    assert len(at) == 2 and "standings after" in lines[at[1] + 1]  # and above its standings
    assert TITLE not in plain.stdout
    titled_doc = json.loads((tmp_path / "titled/replays/standings.json").read_text())
    plain_doc = json.loads((tmp_path / "plain/replays/standings.json").read_text())
    assert titled_doc["title"] == TITLE and "title" not in plain_doc
    assert titled_doc["tournament"] == plain_doc["tournament"]  # a label only
    # The report (written by the run, and again by `arena report`): the title is its heading,
    # as data (escaped in <title>, set as textContent by report.js), never as markup.
    for _ in range(2):
        page = (tmp_path / "titled/replays/report.html").read_text()
        assert "<title>Friday night &lt;b&gt;ladder&lt;/b&gt; &amp; co</title>" in page
        assert "<b>ladder</b>" not in page
        assert '"title":"Friday night' in page.replace('": "', '":"')
        result = _arena(tmp_path / "titled", "report", "replays")
        assert result.returncode == 0, result.stderr


@pytest.mark.parametrize("title", ['"a\\u0007b"', '"a\\u202eb"', json.dumps("x" * 201), "''"])
def test_a_bad_title_is_refused_in_one_line(tmp_path: Path, title: str) -> None:
    _config(tmp_path / "run", f"[tournament]\ntitle = {title}")
    result = _arena(tmp_path / "run", "run", "config.toml")
    assert result.returncode == 2, result.stderr
    assert len(result.stderr.strip().splitlines()) == 1, result.stderr
    assert "title" in result.stderr and "Traceback" not in result.stderr
    assert not (tmp_path / "run/replays").exists()
