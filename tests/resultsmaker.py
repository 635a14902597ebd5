"""Synthetic results.jsonl lines: a tournament's shape (real schedule, seeds, file names) without
playing it, for report tests and the report benchmark. Scores are drawn, biased by strength."""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

import orjson

from arena.replays.replay import file_stem
from arena.tournaments import results
from arena.tournaments.results import ResultLine
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


def typed(lines: list[dict[str, Any]]) -> list[ResultLine]:
    """Lines as `results.read` gives them back; a line it would skip fails the test."""
    found = []
    for data in lines:
        line, why = results.checked(data)
        assert line is not None, why
        found.append(line)
    return found


def result(
    match: int,
    names: tuple[str, ...] | list[str],
    scores: tuple[int, ...] | list[int] | None = None,
    places: tuple[int, ...] | list[int] = (),
    faults: tuple[dict[str, int], ...] = (),
    invalid_asks: tuple[int, ...] = (),
) -> ResultLine:
    """One match's results line from the few facts a test gives (the rest made up)."""
    seats = len(names)
    return ResultLine.model_validate(
        {
            "tournament": "0123456789abcdef",
            "run": "20260101-000000-abcdef",
            "stamp": "20260101-000000",
            "seed": 1,
            "game": match,
            "seating": list(names),
            "seats": list(range(seats)),
            "group": match,
            "rotation": 0,
            "matchSeed": match,
            "dealSeed": match,
            "outcome": "completed",
            "scores": list(scores if scores is not None else [0] * seats),
            "ranks": list(places),
            "faults": [dict(counts) for counts in faults],
            "invalidAsks": list(invalid_asks),
            "seconds": 0.01,
            "replay": f"20260101-000000-g{match:04d}.json",
        }
    )
