"""The board (arena/tournaments/board.py) and the fit's floor under it: who is placed, and the
key cells of bench/standings.py on small seeded simulations of known strengths, each of which
today's claims (the bare sandwich, per-pair 95 % places at every look) fail."""

from __future__ import annotations

import math
import random
from collections.abc import Mapping, Sequence

import pytest

from arena.tournaments import board
from arena.tournaments.rating import ELO, Finish, fit


def _play(theta: Mapping[str, float], table: Sequence[str], rng: random.Random) -> dict[str, int]:
    """A finishing order drawn from Plackett–Luce: each place to one of those left, by w."""
    left, places = list(table), {}
    while left:
        pick = rng.choices(left, [math.exp(theta[name]) for name in left])[0]
        places[pick] = len(places) + 1
        left.remove(pick)
    return places


def _field(
    theta: Mapping[str, float], matches: int, seats: int, rng: random.Random, deal: object = 0
) -> list[Finish]:
    names = sorted(theta)
    return [Finish(_play(theta, rng.sample(names, seats), rng), (deal, m)) for m in range(matches)]


# --- who is placed ---


def test_unplayed_are_listed_apart_and_provisional_have_no_place() -> None:
    rng = random.Random(1)
    theta = {"a": 1.0, "b": 0.0, "c": -1.0}
    played = _field(theta, 60, 2, rng)
    played += [Finish({"new": 1, "a": 2}, ("new", k)) for k in range(3)]  # three deals
    fitted = fit(played, names=["idle", "a", "b", "c", "new"])
    table = board.of(fitted)
    assert table.unplayed == ("idle",)
    assert [line.name for line in table.provisional] == ["new"]
    new = table["new"]
    assert new.standing is board.Standing.PROVISIONAL and new.place == "" and new.places is None
    assert new.win_share == 1.0 and new.win_interval[0] < 0.5 < new.win_interval[1] <= 1.0
    assert new.deals == 3 and new.plus_minus > 0
    assert [line.name for line in table.ranked] == ["a", "b", "c"]
    assert all(line.places is not None and line.places[1] <= 3 for line in table.ranked)
    document = table.as_json()
    assert document["unplayed"] == ["idle"] and document["provisional"][0]["place"] is None
    assert "virtual win" in document["prior"]
    assert document["look"]["method"] == "holm"
    with pytest.raises(KeyError):
        table["idle"]


def test_a_participant_is_placed_from_five_deals_not_five_matches() -> None:
    many_in_one = [Finish({"x": 1, "y": 2}, "deal") for _ in range(8)]
    five = [Finish({"x": 1, "y": 2}, k) for k in range(5)]
    assert {line.name for line in board.of(fit(many_in_one)).provisional} == {"x", "y"}
    assert {line.name for line in board.of(fit(five)).ranked} == {"x", "y"}


def test_every_deal_split_evenly_is_no_certainty() -> None:
    """Each deal's two rotations split 1–1: every deal's score is 0, so the bare sandwich
    gives everyone ±0; the model's own variance does not."""
    played = []
    for deal in range(6):
        for first, second in (("a", "b"), ("b", "c"), ("c", "a")):
            played.append(Finish({first: 1, second: 2}, (deal, first)))
            played.append(Finish({first: 2, second: 1}, (deal, first)))
    assert all(row.plus_minus < 1e-6 for row in fit(played, floor=False).rated)
    floored = fit(played)
    assert all(row.plus_minus > 50 for row in floored.rated)  # ±90: 24 matches each
    assert all(line.place == "1–3" for line in board.of(floored).ranked)


def test_a_live_board_says_how_it_was_planned() -> None:
    fitted = fit(_field({"a": 1.0, "b": 0.0}, 40, 2, random.Random(2)))
    final, live = board.of(fitted), board.of(fitted, board.Live(planned=100))
    assert live.as_json()["look"] == {
        "kind": "live",
        "method": "normal mixture",
        "alpha": 0.05,
        "interval": "confidence sequence (valid at every look)",
        "plannedMatches": 100,
        "seats": 2,
    }
    for name in ("a", "b"):  # a sequence is wider than one look's interval
        assert live[name].plus_minus > final[name].plus_minus
        low, high = live[name].win_interval
        assert high - low > final[name].win_interval[1] - final[name].win_interval[0]
    with pytest.raises(ValueError):
        board.Live(planned=0)


# --- the key cells of bench/standings.py, small and seeded ---


def test_intervals_cover_with_two_matches_a_bot() -> None:
    """10 bots of spread strengths, 2 matches a bot at two seats: the nominal 95 % interval
    covers the true strength (against the field's mean); the bare sandwich's did in 0.75."""
    rng = random.Random(1)
    covered = {True: 0, False: 0}
    total = 0
    for f in range(100):
        names = [f"b{i}" for i in range(10)]
        theta = {name: rng.gauss(0, 0.6) for name in names}
        played = _field(theta, 10, 2, rng, f)
        mean = sum(theta.values()) / len(theta)
        fits = {floor: fit(played, names=names, floor=floor) for floor in (True, False)}
        for row in fits[True].rated:
            if row.matches:
                total += 1
                for floor, fitted in fits.items():
                    line = fitted[row.name]
                    covered[floor] += abs(line.rating - ELO * (theta[row.name] - mean)) <= (
                        line.plus_minus
                    )
    assert covered[True] / total >= 0.95
    assert covered[False] / total <= 0.85


def test_a_final_table_of_equals_tells_none_apart() -> None:
    """8 equal bots, 30 matches each: Holm over the pairs told some pair apart in at most a
    few fields; the per-pair places did in more than half."""
    rng = random.Random(2)
    fields, holm, pairwise = 60, 0, 0
    names = [f"b{i}" for i in range(8)]
    for f in range(fields):
        fitted = fit(_field(dict.fromkeys(names, 0.0), 120, 2, rng, f))
        holm += bool(board.of(fitted).told_apart)
        pairwise += any(row.places != (1, 8) for row in fitted.rated)
    assert holm / fields <= 0.07
    assert pairwise / fields >= 0.4


def test_daily_looks_at_equals_tell_none_apart() -> None:
    """6 equal bots, 10 days of 2 matches a bot: a live board read every day told some pair
    apart in a season at most rarely; the fit's 95 % read every day, in about half."""
    rng = random.Random(3)
    seasons, days, names = 40, 10, [f"b{i}" for i in range(6)]
    live_claims = daily_claims = 0
    look = board.Live(planned=days * 2, seats=2)
    for season in range(seasons):
        played: list[Finish] = []
        live = daily = False
        for day in range(days):
            played += _field(dict.fromkeys(names, 0.0), 6, 2, rng, (season, day))
            fitted = fit(played, names=names)
            live = live or bool(board.of(fitted, look).told_apart)
            daily = daily or any(fitted.apart(a, b) for a in names for b in names if a < b)
        live_claims += live
        daily_claims += daily
    assert live_claims / seasons <= 0.08
    assert daily_claims / seasons >= 0.35


def test_unequal_bots_are_told_apart_in_the_right_order() -> None:
    rng = random.Random(4)
    theta = {"strong": 1.5, "middle": 0.0, "weak": -1.5}
    table = board.of(fit(_field(theta, 150, 2, rng)))
    assert [line.place for line in table.ranked] == ["1", "2", "3"]
    assert table.above("strong", "weak") and not table.above("weak", "strong")
