"""A machine without bubblewrap or Chromium (issue 41): the README's test command passes there,
the tests that need them skipped and counted, and `arena run` says "no sandbox" once, after
everything that could refuse the run."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from command import NO_SANDBOX, arena_process, path_without

ROOT = Path(__file__).resolve().parent.parent
TWO = "seed = 3\n[[participants]]\nname = 'ann'\nbot = 'random'\n[[participants]]\nname = 'bo'\nbot = 'random'\n"


def _bare(tmp_path: Path) -> dict[str, str]:
    return {**os.environ, "PATH": path_without(tmp_path / "bin", "bwrap", "chromium")}


def test_without_bwrap_a_run_warns_once(tmp_path: Path) -> None:
    (tmp_path / "config.toml").write_text(TWO)
    done = arena_process("run", "config.toml", "--quiet", cwd=tmp_path, env=_bare(tmp_path))
    assert done.returncode == 0, done.stderr
    assert [line for line in done.stderr.splitlines() if line.startswith(NO_SANDBOX)] == [
        line for line in done.stderr.splitlines() if "sandbox" in line
    ]
    assert done.stderr.count(NO_SANDBOX) == 1, done.stderr


def test_without_bwrap_a_refused_run_says_only_why(tmp_path: Path) -> None:
    # The replays folder holds a folder where the run writes its results: refused before any
    # match, in one line, and nothing said before it of a sandbox the run never needed.
    (tmp_path / "config.toml").write_text(TWO.replace("seed = 3", "seed = 3\ngames = 2"))
    (tmp_path / "replays" / "results.jsonl").mkdir(parents=True)
    done = arena_process("run", "config.toml", cwd=tmp_path, env=_bare(tmp_path))
    assert done.returncode == 2, done.stderr
    assert len(done.stderr.splitlines()) == 1 and "results.jsonl" in done.stderr, done.stderr


def test_a_refused_run_prints_no_warning_of_its_config_before_why(tmp_path: Path) -> None:
    # Clockwise at two seats is worth a warning, but only for a run that starts.
    (tmp_path / "config.toml").write_text(
        TWO.replace("seed = 3", "seed = 3\n[rules]\nnextPlayer = 'Clockwise'")
    )
    done = arena_process(
        "run", "config.toml", "--scheduler", " ", cwd=tmp_path, env=_bare(tmp_path)
    )
    assert done.returncode == 2, done.stderr
    assert len(done.stderr.splitlines()) == 1 and "--scheduler" in done.stderr, done.stderr


def test_the_tests_that_need_a_missing_tool_are_skipped_and_counted_under_xdist(
    tmp_path: Path,
) -> None:
    chosen = [
        "tests/test_golden.py::test_golden_replay_plays_the_same[classic]",
        "tests/test_golden.py::test_golden_replay_plays_the_same[empty-table]",
        "tests/test_viewer.py::test_hostile_names_stay_text",
        "tests/test_golden.py::test_every_golden_config_is_recorded",
    ]
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-n", "2", "-p", "no:cacheprovider", *chosen],
        cwd=ROOT,
        env=_bare(tmp_path),
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    lines = done.stdout.splitlines()
    assert done.returncode == 0, done.stdout
    assert "2 tests need bubblewrap: apt-get install bubblewrap" in lines, done.stdout
    assert "1 test needs Chromium: apt-get install chromium" in lines, done.stdout
    assert "1 passed, 3 skipped" in lines[-1], done.stdout


def _tools_run(tmp_path: Path, uid: int, refused: str = "", sudo: bool = False) -> list[str]:
    """`.ci/tools` on a machine without bwrap and chromium whose `id`, `apt-get` and `sudo`
    are stand-ins that note what they were asked; what apt-get was asked, in order."""
    shims, asked = tmp_path / "shims", tmp_path / "asked"
    shims.mkdir(parents=True)
    stand_ins = {
        "id": f"echo {uid}",
        "apt-get": f'echo "$*" >> {asked}; case "$*" in *" {refused}") [ -n "{refused}" ] && exit 100;; esac; exit 0',
        "sudo": '[ "$1" = -n ] && shift; exec "$@"' if sudo else "exit 1",
    }
    for name, body in stand_ins.items():
        (shims / name).write_text(f"#!/bin/sh\n{body}\n")
        (shims / name).chmod(0o755)
    path = os.pathsep.join([str(shims), path_without(tmp_path / "bin", "bwrap", "chromium")])
    done = subprocess.run(
        ["sh", str(ROOT / ".ci" / "tools")],
        env={**os.environ, "PATH": path},
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert (done.returncode, done.stdout, done.stderr) == (0, "", "")
    return asked.read_text().splitlines() if asked.exists() else []


def test_the_tools_are_installed_as_root_only_what_is_missing(tmp_path: Path) -> None:
    assert _tools_run(tmp_path, uid=0) == [
        "install -y -qq bubblewrap",
        "install -y -qq chromium",
    ]


def test_the_tools_take_ubuntus_chromium_browser_when_chromium_is_refused(tmp_path: Path) -> None:
    asked = _tools_run(tmp_path, uid=0, refused="chromium")
    assert asked[-1] == "install -y -qq chromium-browser" and "install -y -qq chromium" in asked


def test_the_tools_use_passwordless_sudo_and_otherwise_nothing(tmp_path: Path) -> None:
    assert _tools_run(tmp_path / "sudo", uid=1000, sudo=True)[0] == "install -y -qq bubblewrap"
    assert _tools_run(tmp_path / "user", uid=1000) == []
