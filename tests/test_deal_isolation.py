"""No process that has seen a deal lives while another process plays that deal (issue 23, 5):
another rotation of a duplicate group, with reuse, in one worker or two; and a match played
again after a kept process was found gone at its `init`. Real CLI, real processes: each bot
notes, at its starting hand, its pid, its hand and the pids of the run alive at that moment
(`tests/hostile/deal_witness.py`); the replays say which deal each hand was."""

from __future__ import annotations

import json
import sys
from collections import defaultdict
from pathlib import Path
from typing import Any

import pytest
from command import arena_here

HOSTILE = Path(__file__).parent / "hostile"
WITNESS = [sys.executable, str(HOSTILE / "deal_witness.py")]


def _run(folder: Path, seats: dict[str, list[str]], games: int, *args: str) -> list[dict[str, Any]]:
    env = f"env = {{ DEAL_NOTES = {json.dumps(str(folder / 'notes.jsonl'))} }}\n"
    body = f"seed = 11\ngames = {games}\n[limits]\nsandbox = 'none'\n[tournament]\nreuse = true\n"
    for name, command in seats.items():
        body += f"[[participants]]\nname = '{name}'\ncommand = {json.dumps(command)}\n{env}"
    (folder / "config.toml").write_text(body)
    done = arena_here("run", "config.toml", *args, cwd=folder)
    assert done.returncode == 0, done.stdout + done.stderr
    return [json.loads(line) for line in (folder / "notes.jsonl").read_text().splitlines()]


class _Games:
    """Which deal and which game a note was written in, from the replays: a hand names its deal
    (every rotation deals the same hands to the same seats), the deal and who sat at the
    note's seat name the game."""

    def __init__(self, folder: Path) -> None:
        self.deal: dict[tuple[int, ...], int] = {}
        self.game: dict[tuple[int, int, str], int] = {}
        for path in (folder / "replays").glob("*-g*.json"):
            document = json.loads(path.read_text())
            for player in document["players"]:
                key = (document["dealSeed"], player["seat"], player["name"])
                self.game[key] = document["game"]
            for entry in document["transcript"]:
                if entry["message"]["type"] == "starting-hand":
                    hand = tuple(sorted(card["id"] for card in entry["message"]["hand"]))
                    self.deal[hand] = document["dealSeed"]

    def __call__(self, note: dict[str, Any]) -> tuple[int, int]:
        deal = self.deal[tuple(note["hand"])]
        return deal, self.game[deal, note["seat"], note["name"]]


@pytest.mark.parametrize("jobs", ["1", "2"])
def test_no_process_that_saw_a_deal_is_alive_while_another_rotation_plays_it(
    tmp_path: Path, jobs: str
) -> None:
    notes = _run(tmp_path, {"a": WITNESS, "b": WITNESS}, 8, "--jobs", jobs)
    where = _Games(tmp_path)
    seen: dict[int, list[tuple[float, int, int]]] = defaultdict(list)  # deal: (when, pid, game)
    for note in notes:
        deal, game = where(note)
        seen[deal].append((note["at"], note["pid"], game))
    assert len(seen) == 4 and all(len(s) == 4 for s in seen.values())  # 2 rotations x 2 seats
    for note in notes:
        deal, game = where(note)
        earlier = {pid for at, pid, g in seen[deal] if g != game and at < note["at"]}
        assert not earlier & set(note["alive"]), (note, earlier)
    # Reuse still works where it may: a process plays on into the next group's deal.
    games_of: dict[int, set[int]] = defaultdict(set)
    for note in notes:
        games_of[note["pid"]].add(where(note)[1])
    assert any(len(games) > 1 for games in games_of.values())


def test_a_mulligan_at_init_stops_every_process_of_the_discarded_attempt(tmp_path: Path) -> None:
    mulligan = [sys.executable, str(HOSTILE / "mulligan.py")]
    notes = _run(tmp_path, {"m": mulligan, "w": WITNESS}, 4, "--jobs", "1")
    where = _Games(tmp_path)
    by_game: dict[int, list[dict[str, Any]]] = defaultdict(list)
    for note in notes:
        by_game[where(note)[1]].append(note)
    # The match that began with the kept `m` exiting at its init was played twice: the witness
    # of the discarded attempt is gone before the new attempt's witness sees the deal.
    [twice] = [notes for notes in by_game.values() if len(notes) == 2]
    first, second = sorted(twice, key=lambda note: note["at"])
    assert first["pid"] != second["pid"]
    assert first["pid"] not in second["alive"]
