"""Matches a limit ended (stalled, turn-limit) are marked wherever results are read: how many per
participant in the terminal and standings.json, and each in the report's match list, which can
show only those. A real run through the CLI whose every match hits `maxTurns`."""

from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner

from arena.ui.cli import app


def test_adjudicated_matches_are_counted_and_marked(tmp_path: Path) -> None:
    config = tmp_path / "config.toml"
    config.write_text(
        "seed = 4\ngames = 4\n[limits]\nmaxTurns = 3\n"
        '[[participants]]\nname = "ann"\nbot = "random"\n'
        '[[participants]]\nname = "bob"\nbot = "easy"\n'
    )
    done = CliRunner().invoke(app, ["run", str(config)])
    assert done.exit_code == 0, done.output
    assert "adjudicated (a limit ended the match" in done.output
    assert "stalled: 100 asks" not in done.output  # a stall's note: no match stalled
    assert "ann 4" in done.output and "bob 4" in done.output
    standings = json.loads((tmp_path / "replays" / "standings.json").read_text())
    rows = {row["name"]: row for row in standings["participants"]}
    assert rows["ann"]["adjudicated"] == 4 and rows["bob"]["adjudicated"] == 4
    page = (tmp_path / "replays" / "report.html").read_text()
    assert '"adjudicated":["turn-limit","turn-limit","turn-limit","turn-limit"]' in page
    assert 'id="adjudicated"' in page  # the filter


def test_a_stall_at_three_seats_says_how_two_seats_keep_the_turn(tmp_path: Path) -> None:
    # The whole pack dealt but one card, and a stall after one ask that moves no card: every
    # match stalls at once. (A season of the example bots at 3 seats: 74 of 120 stalled.)
    config = tmp_path / "config.toml"
    config.write_text(
        "seed = 4\ngames = 3\n[rules]\nstartingHandSize = 17\n[limits]\nmaxIdleTurns = 1\n"
        + "".join(f'[[participants]]\nname = "{n}"\nbot = "random"\n' for n in ("a", "b", "c"))
    )
    done = CliRunner().invoke(app, ["run", str(config), "--jobs", "1"])
    assert done.exit_code == 0, done.output
    assert "\nstalled: 1 ask in a row moved no card" in done.output
    assert 'nextPlayer = "Asked" lets two seats' in done.output.replace("\n", " ")


def test_matches_played_out_are_not_marked(tmp_path: Path) -> None:
    config = tmp_path / "config.toml"
    config.write_text(
        "seed = 4\ngames = 2\n"
        '[[participants]]\nname = "ann"\nbot = "random"\n'
        '[[participants]]\nname = "bob"\nbot = "easy"\n'
    )
    done = CliRunner().invoke(app, ["run", str(config)])
    assert done.exit_code == 0, done.output
    assert "adjudicated (a limit" not in done.output
    standings = json.loads((tmp_path / "replays" / "standings.json").read_text())
    assert all(row["adjudicated"] == 0 for row in standings["participants"])
