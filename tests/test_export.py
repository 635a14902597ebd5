"""`arena export`: one row per decision of real replays, through the real CLI."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from arena.replays import replay
from arena.ui.cli import app
from tests.replaymaker import make_replay


def _export(folder: Path, output: Path) -> Any:
    return CliRunner().invoke(app, ["export", str(folder), "-o", str(output)])


@pytest.fixture(scope="module")
def replays(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Two replays in one run folder: bots, and a bad bot whose asks are not JSON."""
    root = tmp_path_factory.mktemp("export")
    first = make_replay(root / "a", ["ada", "bea"], seed=3)
    second = make_replay(root / "b", ["bad", "cy"], seed=4, bad=True)
    folder = root / "replays"
    folder.mkdir()
    for path in (first, second):
        (folder / path.name).write_bytes(path.read_bytes())
    (folder / "standings.json").write_text('{"format": "gofish-arena-standings/1"}')
    return folder


def test_every_decision_is_a_row_with_the_view_as_sent(replays: Path, tmp_path: Path) -> None:
    output = tmp_path / "decisions.jsonl"
    result = _export(replays, output)
    assert result.exit_code == 0, result.output
    assert "from 2 replays" in result.output and "rows/s" in result.output
    rows = [json.loads(line) for line in output.read_text().splitlines()]
    expected = []
    for path in sorted(replays.glob("*.json")):
        if path.name == "standings.json":
            continue
        data = json.loads(path.read_text())
        for at, entry in enumerate(data["transcript"]):
            if entry["message"]["type"] in ("ask", "go-fish", "pick-up"):
                expected.append((path.name, at, entry))
    assert len(rows) == len(expected) > 0
    for row, (name, at, entry) in zip(rows, expected, strict=True):
        data = json.loads((replays / name).read_text())
        assert (row["replay"], row["at"], row["seat"]) == (name, at, entry["seat"])
        assert row["view"] == entry["message"]
        assert row["type"] == entry["message"]["type"]
        assert row["books"] == data["result"]["scores"][row["seat"]]
        assert row["place"] == data["result"]["ranks"][row["seat"]]
        assert row["player"] == data["players"][row["seat"]]["name"]
        assert row["fingerprint"] == data["players"][row["seat"]].get("fingerprint")
        if row["type"] == "ask":
            assert set(row["legal"]["cardIds"]) == {c["id"] for c in entry["message"]["hand"]}
            assert row["seat"] not in row["legal"]["players"]
    bad_asks = [r for r in rows if r["player"] == "bad" and r["type"] == "ask"]
    assert bad_asks and all(not r["valid"] and r["noReply"] == "not-json" for r in bad_asks)
    good_asks = [r for r in rows if r["player"] == "ada" and r["type"] == "ask"]
    assert good_asks and all(
        r["valid"] and r["action"]["cardId"] in r["legal"]["cardIds"] for r in good_asks
    )


def test_parquet_holds_the_same_rows(replays: Path, tmp_path: Path) -> None:
    pq = pytest.importorskip("pyarrow.parquet", reason="the [parquet] extra is not installed")
    lines, table = tmp_path / "d.jsonl", tmp_path / "d.parquet"
    assert _export(replays, lines).exit_code == 0
    result = _export(replays, table)
    assert result.exit_code == 0, result.output
    rows = pq.read_table(table).to_pylist()
    expected = [json.loads(line) for line in lines.read_text().splitlines()]
    assert len(rows) == len(expected)
    for row, wanted in zip(rows, expected, strict=True):
        for column in ("view", "legal", "action"):
            assert json.loads(row[column]) == wanted[column]
            wanted[column] = row[column]
        assert row == wanted


def test_a_bad_replay_is_one_line_and_exit_2_with_nothing_written(
    replays: Path, tmp_path: Path
) -> None:
    folder = tmp_path / "mixed"
    folder.mkdir()
    for path in replays.glob("*.json"):
        (folder / path.name).write_bytes(path.read_bytes())
    broken = json.loads(next(p for p in sorted(replays.glob("*.json"))).read_text())
    broken["transcript"][3]["seat"] = "zero"
    (folder / "zz-broken.json").write_text(json.dumps(broken))
    output = tmp_path / "out.jsonl"
    result = _export(folder, output)
    assert result.exit_code == 2
    assert len(result.output.strip().splitlines()) == 1
    assert "zz-broken.json" in result.output and "Traceback" not in result.output
    assert not output.exists() and not list(tmp_path.glob(".writing-*"))


@pytest.mark.parametrize(
    ("arguments", "says"),
    [
        (["nowhere", "-o", "x.jsonl"], "no such file or folder"),
        ([".", "-o", "x.csv"], "the output is a .jsonl or .parquet file"),
    ],
)
def test_usage_errors(arguments: list[str], says: str) -> None:
    result = CliRunner().invoke(app, ["export", *arguments])
    assert result.exit_code == 2 and says in result.output


def test_an_existing_output_is_never_replaced(replays: Path, tmp_path: Path) -> None:
    output = tmp_path / "taken.jsonl"
    output.write_text("mine\n")
    result = _export(replays, output)
    assert result.exit_code == 2 and "exists already" in result.output
    assert output.read_text() == "mine\n"


def test_rows_come_from_the_read_replay(replays: Path) -> None:
    from arena.replays.export import rows

    path = next(p for p in sorted(replays.glob("*.json")) if p.name != "standings.json")
    found = list(rows(replay.read(path), path.name))
    assert {row["type"] for row in found} <= {"ask", "go-fish", "pick-up"}
    assert all(row["delivered"] for row in found)


def test_the_fingerprint_is_the_replays_when_it_has_one(replays: Path, tmp_path: Path) -> None:
    folder = tmp_path / "signed"
    folder.mkdir()
    source = next(p for p in sorted(replays.glob("*.json")) if p.name != "standings.json")
    data = json.loads(source.read_text())
    data["players"][0]["fingerprint"] = "ab" * 32
    data["players"][1].pop("fingerprint", None)  # a replay from before fingerprints: none
    (folder / source.name).write_text(json.dumps(data))
    output = tmp_path / "signed.jsonl"
    assert _export(folder, output).exit_code == 0
    rows = [json.loads(line) for line in output.read_text().splitlines()]
    assert {row["fingerprint"] for row in rows if row["seat"] == 0} == {"ab" * 32}
    assert {row["fingerprint"] for row in rows if row["seat"] == 1} == {None}
