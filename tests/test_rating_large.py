"""The rating fit above `rating.DENSE` participants: each connected component on its own."""

from __future__ import annotations

import math
import random

import pytest

from arena.tournaments import rating
from arena.tournaments.rating import Finish, fit


def _field() -> tuple[list[Finish], dict[str, float]]:
    """1250 pairs that met only each other (the first won all three), and 500 participants of
    strengths spread over 3 units of θ (~520 Elo), each meeting 4 others drawn at random, four
    matches each, drawn from the model: one large component."""
    played = []
    for i in range(1250):
        for game in range(3):
            played.append(Finish({f"win{i:04d}": 1, f"lose{i:04d}": 2}, ("pair", i, game)))
    rng = random.Random(3)
    strength = {f"net{i:04d}": 3 * i / 500 for i in range(500)}
    names = sorted(strength)
    for i, name in enumerate(names):
        for other in rng.sample(names[:i] + names[i + 1 :], 4):
            for game in range(4):
                odds = math.exp(strength[name] - strength[other])
                won = rng.random() < odds / (1 + odds)
                places = {name: 1, other: 2} if won else {name: 2, other: 1}
                played.append(Finish(places, ("net", name, other, game)))
    return played, strength


def test_three_thousand_participants_are_fitted_by_component() -> None:
    played, strength = _field()
    rng = random.Random(5)
    rng.shuffle(played)
    result = fit(played)
    assert len(result.rated) == 3000
    assert result.components is not None
    for i in range(1250):
        assert result[f"win{i:04d}"].position < result[f"lose{i:04d}"].position
        assert result.los(f"win{i:04d}", f"lose{i:04d}") > 0.5
    net = [result[name].rating for name in sorted(strength)]  # in order of true strength
    tenths = [sum(net[k : k + 50]) / 50 for k in range(0, 500, 50)]
    assert tenths == sorted(tenths)  # each tenth of the field above the one below, on average
    assert sum(b > a for a, b in zip(net, net[250:])) > 225  # 1.5 units apart: nearly always
    # a pair and the network are not linked by any match: nothing orders them
    assert not result.comparable("win0000", "net0000")
    assert result.los("win0000", "net0000") == 0.5
    assert result.difference("win0000", "net0000")[1] == math.inf
    assert result.covariance["win0000", "net0000"] == 0.0
    assert all(row.plus_minus > 0 for row in result.rated)


def _mixed() -> list[Finish]:
    rng = random.Random(9)
    strength = {f"bot{i:02d}": math.exp(i * 0.15) for i in range(30)}
    played = []
    for deal in range(300):
        table = rng.sample(sorted(strength), 3)
        left, places = list(table), {}
        while left:
            pick = rng.choices(left, [strength[n] for n in left])[0]
            places[pick] = len(places) + 1
            left.remove(pick)
        played.append(Finish(places, deal))
    for k in range(8):
        for game in range(5):
            won = rng.random() < 0.7
            played.append(Finish({f"x{k}a": 1 if won else 2, f"x{k}b": 2 if won else 1}, (k, game)))
    return played


@pytest.mark.parametrize("dense", [40, 20])  # 40: every component dense; 20: the 30 by CG
def test_the_component_fit_agrees_with_the_dense_fit(
    monkeypatch: pytest.MonkeyPatch, dense: int
) -> None:
    played = _mixed()
    whole = fit(played)
    assert whole.components is None
    monkeypatch.setattr(rating, "DENSE", dense)
    split = fit(played)
    assert split.components is not None
    assert [row.name for row in split.rated] == [row.name for row in whole.rated]
    for row in whole.rated:
        assert split[row.name].rating == pytest.approx(row.rating, abs=1e-6)
        assert split[row.name].matches == row.matches
    if dense == 40:  # the exact sandwich per component: the same intervals
        for row in whole.rated:
            assert split[row.name].plus_minus == pytest.approx(row.plus_minus, abs=1e-6)
    else:  # the diagonal of the information: near, not equal
        for row in whole.rated:
            assert split[row.name].plus_minus == pytest.approx(row.plus_minus, rel=0.25)
