"""The sandbox (`arena.seats.sandbox`) with real processes: the program inside is the program
outside, what a sandboxed participant may read, signals and start failures, the config keys,
and `bwrap` missing. The spies (`tests/test_spies.py`) try to get out."""

from __future__ import annotations

import json
import os
import shutil
import stat
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

import pytest
from replaymaker import replay_json

import arena
from arena.base import config as config_module
from arena.base.errors import ConfigError
from arena.referee.seating import make_participants
from arena.seats import sandbox
from arena.seats.ending import close_all
from arena.seats.replies import FaultKind
from arena.seats.transport import SubprocessParticipant

needs_bwrap = pytest.mark.needs("bwrap")  # (conftest: skipped and counted without it)

PY_IDENTITY = (
    "import json, os, sys\nsys.stdin.readline()\n"
    "print(json.dumps({'executable': sys.executable, 'prefix': sys.prefix, 'base': sys.base_prefix,"
    " 'version': sys.version, 'path': sys.path[1:], 'cwd': os.getcwd(), 'home': os.environ.get('HOME')}),"
    " flush=True)\n"
)
JS_IDENTITY = (
    "const rl = require('readline').createInterface({input: process.stdin});\n"
    "rl.once('line', () => { console.log(JSON.stringify({executable: process.execPath,"
    " version: process.version, versions: process.versions, cwd: process.cwd()})); });\n"
)


def _exchange(command: list[str], cwd: Path, mode: sandbox.Confinement, env: dict[str, str]) -> Any:
    participant = SubprocessParticipant(command, cwd, env, sandbox=mode)
    participant.start()
    try:
        answer = participant.exchange(b"{}\n", 20.0)
    finally:
        close_all([participant], 0)
    assert answer.fault is None, (answer.fault, participant.stderr_text())
    return answer.value


def _env(path: str) -> dict[str, str]:
    return {"PATH": path, "HOME": str(Path.home()), "LANG": "C.UTF-8"}


def _pyenv_shims() -> Path:
    return Path(os.environ.get("PYENV_ROOT", Path.home() / ".pyenv")) / "shims"


def _interpreters() -> list[Any]:
    shims = _pyenv_shims()
    return [
        pytest.param("venv", [sys.executable], os.environ.get("PATH", os.defpath), id="venv"),
        pytest.param(
            "pyenv",
            ["python3"],
            f"{shims}:/usr/bin:/bin",
            id="pyenv-shim",
            # (os.access, not exists(): a PYENV_ROOT another user may not enter is no pyenv)
            marks=pytest.mark.skipif(
                not os.access(shims / "python3", os.X_OK), reason="no pyenv here"
            ),
        ),
        pytest.param(
            "system",
            ["/usr/bin/python3"],
            "/usr/bin:/bin",
            id="system",
            marks=pytest.mark.skipif(
                not Path("/usr/bin/python3").exists(), reason="no system Python"
            ),
        ),
        pytest.param("shebang", [], f"{shims}:/usr/bin:/bin", id="shebang-env-python3"),
    ]


@needs_bwrap
@pytest.mark.parametrize(("kind", "command", "path"), _interpreters())
def test_the_python_inside_is_the_python_outside(
    tmp_path: Path, kind: str, command: list[str], path: str
) -> None:
    script = tmp_path / "bot" / "identity.py"
    script.parent.mkdir()
    if kind == "shebang":  # a script run by its `#!/usr/bin/env python3` line, found on PATH
        script.write_text("#!/usr/bin/env python3\n" + PY_IDENTITY)
        script.chmod(0o755)
        argv = [str(script)]
    else:
        script.write_text(PY_IDENTITY)
        argv = [*command, str(script)]
    outside = _exchange(argv, tmp_path, "none", _env(path))
    inside = _exchange(argv, tmp_path, "bwrap", _env(path))
    for key in ("executable", "prefix", "base", "version"):
        assert inside[key] == outside[key], (key, inside, outside)
    assert inside["cwd"] == str(script.parent) and inside["home"] == sandbox.HOME


@needs_bwrap
@pytest.mark.skipif(shutil.which("node") is None, reason="no Node.js here")
def test_the_node_inside_is_the_node_outside(tmp_path: Path) -> None:
    script = tmp_path / "identity.js"
    script.write_text(JS_IDENTITY)
    path = os.environ.get("PATH", os.defpath)
    outside = _exchange(["node", str(script)], tmp_path, "none", _env(path))
    inside = _exchange(["node", str(script)], tmp_path, "bwrap", _env(path))
    assert (
        inside["executable"] == outside["executable"] and inside["versions"] == outside["versions"]
    )


@needs_bwrap
def test_a_compiled_binary_runs_from_its_folder(tmp_path: Path) -> None:
    cc = shutil.which("cc") or shutil.which("gcc")
    if cc is None:
        pytest.skip("no C compiler here")
    source = Path(__file__).parent.parent / "participants" / "examples" / "most_held.c"
    binary = tmp_path / "bin" / "most_held"
    binary.parent.mkdir()
    subprocess.run([cc, "-O2", "-o", str(binary), str(source)], check=True, capture_output=True)
    participant = SubprocessParticipant(
        [str(binary)], tmp_path, _env("/usr/bin:/bin"), sandbox="bwrap"
    )
    participant.start()
    try:
        answer = participant.exchange(
            b'{"type": "match-end", "scores": [0, 0], "ranks": [1, 1]}\n', 10.0
        )
    finally:
        close_all([participant], 0)
    assert answer.fault is None, participant.stderr_text()


@needs_bwrap
def test_a_death_by_signal_names_the_signal(tmp_path: Path) -> None:
    script = tmp_path / "dies.py"
    script.write_text(
        "import os, signal, sys\nsys.stdin.readline()\nos.kill(os.getpid(), signal.SIGSEGV)\n"
    )
    participant = SubprocessParticipant(
        [sys.executable, str(script)], tmp_path, _env(os.defpath), sandbox="bwrap"
    )
    participant.start()
    try:
        answer = participant.exchange(b"{}\n", 10.0)
    finally:
        close_all([participant], 0)
    assert answer.fault is not None and answer.fault.kind is FaultKind.EXITED
    assert answer.fault.exit_code == -11 and "SIGSEGV" in answer.fault.detail


@needs_bwrap
def test_an_exit_status_is_the_programs_own(tmp_path: Path) -> None:
    script = tmp_path / "quits.py"
    script.write_text("import sys\nsys.stdin.readline()\nsys.exit(3)\n")
    participant = SubprocessParticipant(
        [sys.executable, str(script)], tmp_path, _env(os.defpath), sandbox="bwrap"
    )
    participant.start()
    try:
        answer = participant.exchange(b"{}\n", 10.0)
    finally:
        close_all([participant], 0)
    assert answer.fault is not None and answer.fault.exit_code == 3, answer.fault


@needs_bwrap
@pytest.mark.parametrize("program", ["./missing", "./not-executable"])
def test_a_program_that_cannot_start_is_a_start_failure(tmp_path: Path, program: str) -> None:
    (tmp_path / "not-executable").write_text("#!/bin/sh\n")
    participant = SubprocessParticipant([program], tmp_path, _env(os.defpath), sandbox="bwrap")
    participant.start()
    try:
        assert (
            participant.start_fault is not None
            and participant.start_fault.kind is FaultKind.START_FAILED
        )
    finally:
        close_all([participant], 0)


def _config(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "config.toml"
    path.write_text(text)
    return path


SEATS = "[[participants]]\nname = 'a'\nbot = 'random'\n[[participants]]\nname = 'b'\nbot = 'easy'\n"


def test_the_sandbox_key_takes_three_values(tmp_path: Path) -> None:
    for mode in ("auto", "bwrap", "none"):
        config, _ = config_module.load(_config(tmp_path, f"[limits]\nsandbox = '{mode}'\n{SEATS}"))
        assert config.limits.sandbox == mode
    with pytest.raises(ConfigError, match=r"limits\.sandbox"):
        config_module.load(_config(tmp_path, f"[limits]\nsandbox = 'docker'\n{SEATS}"))


@pytest.mark.parametrize(
    ("given", "why"),
    [
        ("'config.toml'", "overlaps the config file"),
        ("'.'", "overlaps the config file"),
        ("'replays'", "overlaps the replays folder"),
        ("'replays/results.jsonl'", "overlaps the replays folder"),
        ("'nowhere'", "not found"),
    ],
)
def test_read_only_paths_are_refused_where_they_would_show_a_secret(
    tmp_path: Path, given: str, why: str
) -> None:
    (tmp_path / "replays").mkdir()
    (tmp_path / "replays" / "results.jsonl").write_text("")
    text = f"[[participants]]\nname = 'a'\nbot = 'random'\nreadOnly = [{given}]\n[[participants]]\nname = 'b'\nbot = 'easy'\n"
    with pytest.raises(ConfigError, match=why) as error:
        config_module.load(_config(tmp_path, text))
    assert "participants[0].readOnly[0]" in str(error.value) and "\n" not in str(error.value)


@needs_bwrap
def test_a_read_only_folder_is_readable_and_nothing_else_of_the_organisers(tmp_path: Path) -> None:
    (tmp_path / "book").mkdir()
    (tmp_path / "book" / "openings.txt").write_text("ask for kings")
    (tmp_path / "secret.txt").write_text("the organiser's")
    (tmp_path / "bot").mkdir()
    (tmp_path / "bot" / "reader.py").write_text(
        "import json, sys\nsys.stdin.readline()\nfound = {}\n"
        "for name in sys.argv[1:]:\n"
        "    try:\n        found[name] = open(name).read()\n"
        "    except OSError as error:\n        found[name] = type(error).__name__\n"
        "    try:\n        open(name, 'a').write('x')\n        found[name + ' written'] = True\n"
        "    except OSError:\n        pass\n"
        "print(json.dumps(found), flush=True)\n"
    )
    book, secret, config = (
        str(tmp_path / "book" / "openings.txt"),
        str(tmp_path / "secret.txt"),
        str(tmp_path / "config.toml"),
    )
    text = (
        f"[[participants]]\nname = 'a'\ncommand = {json.dumps([sys.executable, 'bot/reader.py', book, secret, config])}\n"
        "readOnly = ['book']\n[[participants]]\nname = 'b'\nbot = 'easy'\n"
    )
    loaded, seats = config_module.load(_config(tmp_path, text))
    [participant, _] = make_participants(
        seats, loaded.limits.model_copy(update={"sandbox": "bwrap"})
    )
    assert isinstance(participant, SubprocessParticipant)
    participant.start()
    try:
        found = participant.exchange(b"{}\n", 10.0).value
    finally:
        close_all([participant], 0)
    # The secret is named in its own command line: named, it is bound (a data file), as the
    # organiser chose; the config never is, named or not. (Writing at the config's path
    # makes a file in its private /tmp, where the config's folder seems to be.)
    found.pop(config + " written", None)
    assert found == {
        book: "ask for kings",
        secret: "the organiser's",
        config: "FileNotFoundError",
    }, found
    assert (
        "readOnly" in Path(config).read_text()
        and (tmp_path / "book" / "openings.txt").read_text() == "ask for kings"
    )


def test_bwrap_required_and_missing_is_exit_2_with_how_to_install(tmp_path: Path) -> None:
    _config(
        tmp_path,
        f"[limits]\nsandbox = 'bwrap'\n{SEATS}".replace("bot = 'random'", "bot = 'random'"),
    )
    env = {"PATH": str(tmp_path / "empty"), "HOME": str(Path.home())}
    (tmp_path / "empty").mkdir()
    result = subprocess.run(
        [sys.executable, "-m", "arena", "run", "config.toml"],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert result.returncode == 2, result.stderr
    assert (
        "apt-get install bubblewrap" in result.stderr
        and len(result.stderr.strip().splitlines()) == 1
    )
    assert not (tmp_path / "replays" / "results.jsonl").exists()


def test_auto_without_bwrap_warns_once_and_plays_unsandboxed(tmp_path: Path) -> None:
    text = f"[limits]\nsandbox = 'auto'\n[tournament]\ninProcessBots = false\n{SEATS}"
    _config(tmp_path, text)
    (tmp_path / "empty").mkdir()
    env = {"PATH": str(tmp_path / "empty"), "HOME": str(Path.home())}
    result = subprocess.run(
        [sys.executable, "-m", "arena", "run", "config.toml", "--games", "2", "--quiet"],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    warnings = [
        line for line in result.stderr.splitlines() if line.startswith("warning: no sandbox")
    ]
    assert len(warnings) == 1 and "read the config" in warnings[0], result.stderr
    for path in (tmp_path / "replays").glob("*-g*.json"):
        data = replay_json(path)
        assert [p["sandbox"] for p in data["players"]] == ["none", "none"]
        assert data["config"]["limits"]["sandbox"] == "none"


@needs_bwrap
def test_bwrap_works_for_a_normal_user_too(tmp_path: Path) -> None:
    setpriv = shutil.which("setpriv")
    if os.getuid() != 0 or setpriv is None:
        pytest.skip("needs root, to become another user")
    package = Path(arena.__file__).resolve().parent  # the sandbox shows it to the participant
    closed = [p for p in (package, *package.parents) if not p.stat().st_mode & stat.S_IXOTH]
    if closed:  # e.g. a checkout inside `mktemp -d`: another user cannot reach the arena
        pytest.skip(f"{closed[0]} is closed to other users, so user 65534 cannot see the arena")
    folder = Path(tempfile.mkdtemp(prefix="arena-nobody-"))  # pytest's folders are root's only
    try:
        folder.chmod(0o755)
        script = folder / "identity.py"
        script.write_text(PY_IDENTITY)
        script.chmod(0o644)
        jail = sandbox.Jail.of(["/usr/bin/python3", str(script)], folder, _env("/usr/bin:/bin"))
        assert jail is not None
        argv = jail.argv(sandbox.bwrap_path() or "bwrap", root=False)
        result = subprocess.run(
            [setpriv, "--reuid=65534", "--regid=65534", "--clear-groups", *argv],
            input="{}\n",
            capture_output=True,
            text=True,
            timeout=30,
            check=False,
            env=jail.env,
        )
    finally:
        shutil.rmtree(folder)
    assert result.returncode == 0, result.stderr
    found = json.loads(result.stdout)
    assert found["executable"] == "/usr/bin/python3" and found["cwd"] == str(folder)


@needs_bwrap
@pytest.mark.parametrize(
    ("body", "sentence"),
    [
        ("    open('state.txt', 'w').write(line)\n", "tried to write outside its temporary folder"),
        (
            "    import socket; socket.create_connection(('127.0.0.1', 9), timeout=2)\n",
            "tried to use the network",
        ),
        (
            # rustup's own words from `arena check -- cargo run --release`: its home is not there
            (
                '    import sys; sys.exit("error: rustup could not choose a version of cargo to '
                "run, because one wasn't specified explicitly, and no default is configured.\")\n"
            ),
            "found no Rust toolchain",
        ),
    ],
)
def test_check_runs_in_the_sandbox_and_says_what_to_do_instead(
    tmp_path: Path, body: str, sentence: str
) -> None:
    random_bot = (Path(__file__).parent.parent / "participants" / "random_bot.py").read_text()
    (tmp_path / "bot.py").write_text("if True:\n    line = ''\n" + body + random_bot)
    env = {**os.environ, "COLUMNS": "300", "NO_COLOR": "1"}
    sandboxed = subprocess.run(
        [sys.executable, "-m", "arena", "check", "--", sys.executable, "bot.py"],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert sandboxed.returncode == 1 and "in the sandbox (bwrap)" in sandboxed.stdout
    # (As root it runs as `nobody`, refused the folder before its read-only mount is seen.)
    said = [sentence, "was refused a file"] if "write" in sentence else [sentence]
    assert any(f"in the sandbox: it {s}" in sandboxed.stdout for s in said), sandboxed.stdout
    if "write" in sentence:  # unsandboxed, the same bot passes: the sandbox made the difference
        free = subprocess.run(
            [
                sys.executable,
                "-m",
                "arena",
                "check",
                "--sandbox",
                "none",
                "--",
                sys.executable,
                "bot.py",
            ],
            cwd=tmp_path,
            env=env,
            capture_output=True,
            text=True,
            timeout=120,
            check=False,
        )
        assert free.returncode == 0 and "unsandboxed" in free.stdout, free.stdout


def test_a_drawn_seed_is_too_large_to_search_and_plays_again(tmp_path: Path) -> None:
    from arena.tournaments import tournament

    path = _config(tmp_path, SEATS)
    config, seats = config_module.load(path)
    drawn = [tournament.prepare(path, config, seats).seed for _ in range(8)]
    assert max(drawn) >= 2**40 and all(0 <= seed < 2**63 for seed in drawn)  # 63 bits, not 32
    again, _ = config_module.load(path, seed=max(drawn))  # `--seed` takes it back
    assert again.seed == max(drawn)
