"""Property: real replays and real results lines, mutated at random, fed to `replay
verify`, `show`, `html`, `fork` and `arena run --resume`: a clean exit (0, 1 or 2) and one line,
never a traceback. The matches are played once per session; each example mutates a copy."""

from __future__ import annotations

import json
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from replaymaker import make_replay
from typer.testing import CliRunner

from arena.ui.cli import app

HOSTILE = st.sampled_from(
    [
        None,
        "x",
        "",
        -1,
        0,
        1,
        99,
        2**70,
        -(2**70),
        1.5,
        1e308,
        True,
        [],
        {},
        [[[[[]]]]],
        "\ud800",
        "../../escaped/PWNED",
        "/etc/passwd",
        {"at": "x"},
        ["1", 2],
        "\u202e\u200b",
    ]
)
EXAMPLES = settings(
    max_examples=40,
    deadline=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)


@pytest.fixture(scope="session")
def replay_text(tmp_path_factory: pytest.TempPathFactory) -> str:
    path = make_replay(tmp_path_factory.mktemp("mutated"), ["ada", "hal"], bad=True)
    return path.read_text(encoding="utf-8")


@pytest.fixture(scope="session")
def tournament(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A real tournament of four matches: its config, replays and results.jsonl."""
    folder = tmp_path_factory.mktemp("tournament")
    seats = "".join(
        f'[[participants]]\nname = "{name}"\nbot = "{level}"\n'
        for name, level in (("ada", "easy"), ("hal", "random"), ("eve", "random"))
    )
    (folder / "config.toml").write_text(
        f"seed = 5\ngames = 4\n[tournament]\nseats = 2\n{seats}", encoding="utf-8"
    )
    result = CliRunner().invoke(app, ["run", str(folder / "config.toml"), "--jobs", "1", "--quiet"])
    assert result.exit_code == 0, result.output
    assert len((folder / "replays" / "results.jsonl").read_text(encoding="utf-8").splitlines()) == 4
    return folder


def _paths(value: Any, prefix: tuple[Any, ...] = ()) -> Iterator[tuple[Any, ...]]:
    """Every place in a JSON document (a key of an object, an index of an array)."""
    yield prefix
    if isinstance(value, dict):
        for key, item in value.items():
            yield from _paths(item, (*prefix, key))
    elif isinstance(value, list):
        for index, item in enumerate(value[:12]):  # the first few entries of long lists
            yield from _paths(item, (*prefix, index))


@st.composite
def mutations(draw: st.DrawFn, document: Any) -> Any:
    """`document` with one to three places replaced by a hostile value, or removed."""
    copy = json.loads(json.dumps(document))
    places = [path for path in _paths(copy) if path]
    for _ in range(draw(st.integers(1, 3))):
        path = draw(st.sampled_from(places))
        parent = copy
        try:
            for step in path[:-1]:
                parent = parent[step]
            if draw(st.booleans()) and isinstance(parent, dict):
                parent.pop(path[-1], None)
            else:
                parent[path[-1]] = draw(HOSTILE)
        except (KeyError, IndexError, TypeError):
            continue  # an earlier mutation changed the way there
    return copy


def _clean(result: Any, arguments: list[str]) -> None:
    assert result.exit_code in (0, 1, 2), (arguments, result.exit_code, result.output)
    assert result.exception is None or isinstance(result.exception, SystemExit), (
        arguments,
        repr(result.exception),
    )
    assert "Traceback" not in result.output, (arguments, result.output)


def _dump(document: Any) -> str:
    return json.dumps(document, ensure_ascii=True)


@pytest.mark.parametrize("command", ["verify", "show", "html", "fork"])
def test_a_mutated_replay_is_a_clean_exit(replay_text: str, command: str) -> None:
    document = json.loads(replay_text)

    @EXAMPLES
    @given(mutated=mutations(document))
    def check(mutated: Any) -> None:
        with tempfile.TemporaryDirectory() as folder:
            path = Path(folder) / "replay.json"
            path.write_text(_dump(mutated), encoding="utf-8")
            arguments = {
                "verify": ["replay", "verify", str(path)],
                "show": ["replay", "show", str(path)],
                "html": ["replay", "html", str(path), "-o", str(Path(folder) / "page.html")],
                "fork": [
                    "replay",
                    "fork",
                    str(path),
                    "--at",
                    "3",
                    "-o",
                    str(Path(folder) / "fork.json"),
                ],
            }[command]
            _clean(CliRunner().invoke(app, arguments), arguments)

    check()


def test_a_mutated_results_line_is_a_clean_resume(tournament: Path) -> None:
    lines = (tournament / "replays" / "results.jsonl").read_text(encoding="utf-8").splitlines()
    documents = [json.loads(line) for line in lines]

    @settings(
        max_examples=25,
        deadline=None,
        derandomize=True,
        suppress_health_check=[HealthCheck.too_slow],
    )
    @given(which=st.integers(0, len(lines) - 1), data=st.data())
    def check(which: int, data: st.DataObject) -> None:
        mutated = data.draw(mutations(documents[which]))
        with tempfile.TemporaryDirectory() as folder:
            copy = Path(folder) / "t"
            shutil.copytree(tournament, copy)
            results = copy / "replays" / "results.jsonl"
            kept = [line for number, line in enumerate(lines) if number != which]
            results.write_text("\n".join([*kept, _dump(mutated)]) + "\n", encoding="utf-8")
            arguments = ["run", str(copy / "config.toml"), "--resume", "--jobs", "1", "--quiet"]
            result = CliRunner().invoke(app, arguments)
            _clean(result, arguments)
            # Nothing written outside the tournament's replays folder, whatever the line said.
            assert sorted(p.name for p in copy.iterdir()) == ["config.toml", "replays"]
            assert not [p for p in Path(folder).iterdir() if p.name != "t"]

    check()
