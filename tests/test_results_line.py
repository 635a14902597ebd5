"""A `results.jsonl` line keeps the file's keys (`game`, `ranks`, `dealSeed`) whatever the Python
names (`match`, `places`, `deal_seed`): read back, dumped again, it is the same line."""

from __future__ import annotations

import orjson
import pytest

from arena.tournaments import results

LINE = {
    "tournament": "0123456789abcdef",
    "run": "20261130-221500-abcdef",
    "stamp": "20261130-221500",
    "seed": 40,
    "game": 3,
    "seating": ["a", "b"],
    "seats": [1, 0],
    "group": 1,
    "rotation": 1,
    "matchSeed": 43,
    "dealSeed": 42,
    "outcome": "completed",
    "scores": [4, 9],
    "ranks": [2, 1],
    "faults": [{}, {"timeout": 1}],
    "invalidAsks": [0, 2],
    "seconds": 0.25,
    "replay": "20261130-221500-g0003-b-vs-a.json",
    "added": "by another helper",
}


def test_a_results_line_round_trips_with_its_file_keys() -> None:
    line, why = results._parse(orjson.dumps(LINE))
    assert line is not None, why
    assert (line.match, line.places, line.deal_seed, line.match_seed) == (3, [2, 1], 42, 43)
    assert line.invalid_asks == [0, 2]
    assert line.model_dump(mode="json") == LINE


@pytest.mark.parametrize(
    ("change", "reason"),
    [
        ({"game": -1}, "game: Input should be greater than or equal to 0"),
        ({"ranks": [1, 1]}, "ranks [1, 1] do not follow from scores [4, 9]"),
        ({"dealSeed": "42"}, "dealSeed: Input should be a valid integer"),
    ],
)
def test_a_bad_line_is_named_by_its_file_keys(change: dict[str, object], reason: str) -> None:
    line, why = results._parse(orjson.dumps({**LINE, **change}))
    assert line is None and why == reason


def test_a_python_name_is_not_a_file_key() -> None:
    spelled = {key: value for key, value in LINE.items() if key != "game"} | {"match": 3}
    line, why = results._parse(orjson.dumps(spelled))
    assert line is None and why == "game: Field required"
