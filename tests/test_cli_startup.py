"""The command line as a user meets it: help text that says what it means, `arena replay verify`
of many files and folders in one process, `--version`, and a start-up that loads only what a
command uses."""

from __future__ import annotations

import json
import re
import signal
import subprocess
import sys
from pathlib import Path

import pytest
from command import arena_process, arena_started, bare_env

HEAVY = ("pydantic", "rich", "orjson", "openskill", "dask", "arena.base.config", "arena.replays")


def _arena(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    return arena_process(*args, timeout=120, cwd=cwd, env=bare_env(COLUMNS="200"))


def test_help_text_is_not_eaten_by_markup() -> None:
    shown = _arena("run", "--help")
    assert shown.returncode == 0, shown.stderr
    text = " ".join(shown.stdout.split())
    assert "needs gofish-arena[dask]" in text
    assert "[default: the number of cores]" in text
    assert "--resume Continue" in text  # a flag: no value shown after it
    assert "<bool>" not in text


@pytest.mark.parametrize(
    "command",
    [
        "run",
        "report",
        "sprt",
        "play",
        "schema",
        "check",
        "replay verify",
        "replay show",
        "replay fork",
        "replay html",
    ],
)
def test_help_names_every_option_value_by_its_metavar_not_a_python_type(command: str) -> None:
    shown = _arena(*command.split(), "--help")
    assert shown.returncode == 0, shown.stderr
    usage = shown.stdout.splitlines()[0]
    assert usage.startswith("Usage: ") and f" {command} [OPTIONS]" in usage, usage
    options = shown.stdout.split("\nOptions:\n", 1)[1]
    typed = re.findall(r"<[A-Za-z][^>]*>", options)  # "<path>", "<int>": typer's, not a metavar
    assert typed == [], typed


def test_help_and_import_load_nothing_heavy() -> None:
    probe = (
        "import sys\n"
        "from arena.ui import cli\n"
        "sys.argv = ['arena', '--help']\n"
        "try:\n    cli.main()\nexcept SystemExit:\n    pass\n"
        f"print(sorted({{m.split('.')[0] if not m.startswith('arena') else m for m in sys.modules}} & set({HEAVY!r})))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, timeout=60, check=True
    )
    assert done.stdout.strip().splitlines()[-1] == "[]", done.stdout


def _replays(folder: Path, games: int) -> list[Path]:
    config = folder / "c.toml"
    config.write_text(
        f'seed = 9\ngames = {games}\n[[participants]]\nname = "a"\nbot = "random"\n'
        '[[participants]]\nname = "b"\nbot = "easy"\n'
    )
    assert _arena("run", str(config), "--quiet", "--jobs", "1", cwd=folder).returncode == 0
    return sorted(p for p in (folder / "replays").glob("*.json") if p.name != "standings.json")


def test_arena_version(tmp_path: Path) -> None:
    from arena import __version__

    shown = arena_process("--version", cwd=tmp_path)
    assert (shown.returncode, shown.stdout, shown.stderr) == (
        0,
        f"gofish-arena {__version__}\n",
        "",
    )


def test_verify_takes_files_and_folders_and_names_each_that_differs(tmp_path: Path) -> None:
    replays = _replays(tmp_path, 6)
    assert len(replays) == 6
    done = _arena("replay", "verify", "replays", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert done.stdout.count(": ok (") == 6 and "6 replays: 6 ok" in done.stdout
    tampered = tmp_path / "tampered.json"
    data = json.loads(replays[2].read_text())
    data["result"]["scores"][0] += 1
    tampered.write_text(json.dumps(data))
    done = _arena("replay", "verify", str(replays[0]), "tampered.json", "replays", cwd=tmp_path)
    assert done.returncode == 1
    assert "tampered.json: differs: result" in done.stderr
    assert "8 replays: 7 ok, 1 failed" in done.stdout
    empty = tmp_path / "empty"
    empty.mkdir()
    done = _arena("replay", "verify", "empty", cwd=tmp_path)
    assert done.returncode == 2 and "no replay" in done.stderr


def test_verify_of_a_glob_skips_the_runs_standings_and_names_any_other_json(
    tmp_path: Path,
) -> None:
    _replays(tmp_path, 2)  # two matches: a standings.json beside them, which replays/*.json names
    named = sorted(str(p.relative_to(tmp_path)) for p in (tmp_path / "replays").glob("*.json"))
    assert "replays/standings.json" in named
    done = _arena("replay", "verify", *named, cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert "replays/standings.json: skipped, not a replay" in done.stdout
    assert "2 replays: 2 ok" in done.stdout
    (tmp_path / "list.json").write_text("[1, 2]")
    done = _arena("replay", "verify", "list.json", cwd=tmp_path)
    assert done.returncode == 1
    assert done.stderr.strip() == (
        'list.json: not a replay (no "format"; a replay\'s is "gofish-arena-replay/1")'
    )
    shown = _arena("replay", "show", "replays/standings.json", cwd=tmp_path)
    assert shown.returncode == 2
    assert shown.stderr.strip() == (
        'replays/standings.json: not a replay (its "format" is "gofish-arena-standings/3"; '
        'a replay\'s is "gofish-arena-replay/1")'
    )


def _modules_after(*args: str) -> set[str]:
    """The modules a whole `arena ARGS` loaded, run in a fresh interpreter."""
    probe = (
        "import sys\n"
        "from arena.ui import cli\n"
        f"sys.argv = ['arena', *{list(args)!r}]\n"
        "try:\n    cli.main()\nexcept SystemExit:\n    pass\n"
        "print(' '.join(sorted(sys.modules)), file=sys.stderr)\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, timeout=60, check=True
    )
    return set(done.stderr.strip().splitlines()[-1].split())


def test_replay_show_and_verify_load_only_what_they_use(tmp_path: Path) -> None:
    [one] = _replays(tmp_path, 1)
    unused = {"dask", "openskill", "arena.referee.seating"}
    unused |= {"arena.seats.transport", "arena.seats.process", "arena.seats.channel"}
    unused |= {"arena.seats.sandbox"}  # they start no process
    unused |= {"arena.tournaments.tournament", "arena.tournaments.runner", "arena.ui.report"}
    shown = _modules_after("replay", "show", str(one))
    verified = _modules_after("replay", "verify", str(one))
    assert "arena.ui.show" in shown and "arena.replays.replay" in verified  # they did run
    assert not shown & unused and not verified & unused, (shown | verified) & unused
    assert "rich" not in verified  # its lines are plain
    assert "rich" not in _modules_after("replay", "show")  # a usage error: one plain line


@pytest.mark.parametrize(("stop", "status"), [(signal.SIGINT, 130), (signal.SIGTERM, 143)])
def test_a_verify_stopped_by_a_signal_says_interrupted_without_a_traceback(
    tmp_path: Path, stop: signal.Signals, status: int
) -> None:
    replays = _replays(tmp_path, 20) * 30  # 600 to verify: seconds of work to stop
    verifying = arena_started("replay", "verify", *map(str, replays))
    assert verifying.stdout is not None
    assert ": ok (" in verifying.stdout.readline()  # it is replaying matches now
    verifying.send_signal(stop)
    out, err = verifying.communicate(timeout=60)
    assert verifying.returncode == status, err
    assert err == "interrupted\n"
    assert out.count(": ok (") < len(replays) - 1  # it stopped before the end
