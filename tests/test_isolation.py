"""The machine-isolation gallery (issue 23): each attempt a real bot in a real sandbox, played
through the real CLI (`test_spies.run`), that succeeds with the protection off and fails with
it on. "Off" is `sandbox = "none"` unless a test says otherwise.

The parts of the machine a participant must not own: root's uid, files beside its config,
/proc's machine-wide counters, a writable /dev."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest
from test_spies import SPIES, needs_bwrap, run, spy

PROTECTION = [pytest.param("none", id="off"), pytest.param("bwrap", id="on", marks=needs_bwrap)]


@pytest.mark.parametrize("mode", PROTECTION)
def test_a_uid_checked_kernel_setting_cannot_be_written(tmp_path: Path, mode: str) -> None:
    if mode == "none" and os.geteuid() != 0:
        pytest.skip("unsandboxed, only root's uid passes the check")
    played = run(tmp_path, [("spy", spy("kernel_write.py")), ("random", None)], mode=mode)
    found = played.report()
    assert found["wrote"] is (mode == "none"), found


@pytest.mark.parametrize("mode", PROTECTION)
def test_proc_says_nothing_of_the_machine(tmp_path: Path, mode: str) -> None:
    played = run(tmp_path, [("spy", spy("reads_proc.py")), ("random", None)], mode=mode)
    spoke = played.report()["spoke"]
    if mode == "none":
        assert "/proc/stat" in spoke and "/proc/loadavg" in spoke, spoke
    else:
        assert spoke == [], spoke


@pytest.mark.parametrize("mode", PROTECTION)
def test_dev_holds_no_writable_memory(tmp_path: Path, mode: str) -> None:
    if mode == "none" and not os.access("/dev/shm", os.W_OK):
        pytest.skip("this machine's /dev/shm is not writable")
    played = run(tmp_path, [("spy", spy("fills_dev.py")), ("random", None)], mode=mode)
    wrote = played.report()["wrote"]
    assert bool(wrote) is (mode == "none"), wrote


@pytest.mark.parametrize("mode", PROTECTION)
def test_a_bot_beside_its_config_sees_only_its_own_files(tmp_path: Path, mode: str) -> None:
    """Its neighbours (another config with its seed, old results, the organiser's log) are
    not there; links in its command to the config and the log are not followed."""
    organiser = tmp_path / "organiser"
    organiser.mkdir()
    for name in ("reads_neighbours.py", "_spy.py"):
        (organiser / name).write_text((SPIES / name).read_text())
    (organiser / "other.toml").write_text("seed = 7\n")
    (organiser / "results.jsonl").write_text('{"game": 0}\n')
    (organiser / "run.log").write_text("seed 42\n")
    (organiser / "notes.txt").symlink_to("run.log")
    (organiser / "deal.txt").symlink_to(organiser / "config.toml")
    command = spy("reads_neighbours.py", "_spy.py", "notes.txt", "deal.txt")
    command[1] = "reads_neighbours.py"
    played = run(tmp_path, [("spy", command), ("random", None)], mode=mode)
    found = played.report()
    own = {"reads_neighbours.py", "_spy.py"}
    if mode == "none":
        assert {"other.toml", "run.log", "notes.txt", "deal.txt"} <= set(found["read"]), found
        assert "seed = 42" in found["read"]["deal.txt"]
    else:
        assert set(found["read"]) <= own and set(found["listed"]) <= own, found


def test_visible_paths_are_its_own_folder_or_only_its_own_files(tmp_path: Path) -> None:
    """`sandbox.visible_paths` (what `standings` fingerprints) is exactly what is bound: a bot
    in a folder of its own gets the folder; a bot beside its config, its named files only."""
    from arena.seats import sandbox

    (tmp_path / "bots" / "alice").mkdir(parents=True)
    (tmp_path / "bots" / "alice" / "main.py").write_text("")
    (tmp_path / "beside.py").write_text("")
    (tmp_path / "book.bin").write_text("")
    env = {"PATH": os.environ.get("PATH", os.defpath)}
    python = os.path.realpath(sys.executable)
    apart = sandbox.visible_paths([python, "bots/alice/main.py"], tmp_path, env)
    beside = sandbox.visible_paths([python, "beside.py", "book.bin"], tmp_path, env)
    assert str(tmp_path / "bots" / "alice") in apart
    assert str(tmp_path / "beside.py") in beside and str(tmp_path / "book.bin") in beside
    assert not [path for path in (*apart, *beside) if path in (str(tmp_path), "/")]
    jail = sandbox.Jail.of([python, "beside.py"], tmp_path, env)
    assert jail is not None and jail.readable == sandbox.visible_paths(
        [python, "beside.py"], tmp_path, env
    )
    bound = jail.argv("bwrap")
    assert all(
        bound[i + 1] in jail.readable
        for i, a in enumerate(bound)
        if a == "--ro-bind" and bound[i + 1].startswith(str(tmp_path))
    )
