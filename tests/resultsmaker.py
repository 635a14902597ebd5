"""Synthetic results.jsonl lines: a tournament's shape (real schedule, seeds, file names) without
playing it, for report tests and the report benchmark. Scores are drawn, biased by strength."""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

import orjson

from arena.replays.replay import file_stem
from arena.tournaments.schedule import Schedule

KINDS = ("timeout", "not-json", "exited")


def results_lines(
    names: list[str],
    games: int,
    *,
    seats: int = 2,
    seed: int = 1,
    run: str = "20260101-000000-abcdef",
    tournament: str = "0123456789abcdef",
    faulty: str | None = None,
) -> list[dict[str, Any]]:
    """`games` lines of one run; participant i is a bit stronger than i+1; `faulty` faults often."""
    schedule = Schedule(len(names), seats, seed, duplicate=True)
    draw = random.Random(seed)
    stamp = run[:15]
    lines = []
    for game in range(games):
        slot = schedule.slot(game)
        seating = [names[i] for i in slot.seating]
        weights = [1.0 + 0.3 * (len(names) - i) for i in slot.seating]
        scores = [0] * seats
        for _ in range(13):
            scores[draw.choices(range(seats), weights)[0]] += 1
        ranks = [1 + sum(other > mine for other in scores) for mine in scores]
        faults: list[dict[str, int]] = [{} for _ in seats * [0]]
        if faulty in seating and draw.random() < 0.3:
            faults[seating.index(faulty)] = {draw.choice(KINDS): 1}
        lines.append(
            {
                "tournament": tournament,
                "run": run,
                "stamp": stamp,
                "seed": seed,
                "game": game,
                "seating": seating,
                "seats": list(slot.seating),
                "group": slot.group,
                "rotation": slot.rotation,
                "matchSeed": slot.seed,
                "dealSeed": slot.deal_seed,
                "outcome": "completed",
                "scores": scores,
                "ranks": ranks,
                "faults": faults,
                "invalidAsks": [0] * seats,
                "seconds": 0.01,
                "replay": file_stem(stamp, game, seating) + ".json",
            }
        )
    return lines


def write_results(folder: Path, lines: list[dict[str, Any]]) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / "results.jsonl"
    with open(path, "ab") as file:
        file.write(b"".join(orjson.dumps(line) + b"\n" for line in lines))
    return path
