"""Standings maths on hand-made results: split wins, Wilson intervals, ratings, pairwise, faults."""

from __future__ import annotations

import random

import pytest
from resultsmaker import result

from arena.tournaments.standings import Standings, wilson, win_shares


@pytest.mark.parametrize(
    ("wins", "trials", "low", "high"),
    [
        (5, 10, 0.236593, 0.763407),  # centre 0.5: symmetric
        (0, 10, 0.0, 0.277532),  # never 0-wide at the edge, unlike the normal approximation
        (10, 10, 0.722468, 1.0),
        (1, 1, 0.206549, 1.0),
        (81, 263, 0.255289, 0.366210),  # the textbook example: 81 of 263
        (2.5, 10, 0.080948, 0.557819),  # a split win counts as its share
    ],
)
def test_wilson_interval_matches_the_formula(
    wins: float, trials: int, low: float, high: float
) -> None:
    assert wilson(wins, trials) == pytest.approx((low, high), abs=1e-6)


def test_wilson_with_no_trials_says_nothing_is_known() -> None:
    assert wilson(0, 0) == (0.0, 1.0)


def test_a_shared_first_place_splits_the_win() -> None:
    assert win_shares([1, 1, 3]) == [0.5, 0.5, 0.0]
    assert win_shares([2, 1, 2]) == [0.0, 1.0, 0.0]
    assert win_shares([1, 1, 1, 1]) == [0.25] * 4


RESULTS = [
    result(0, ("ann", "bob"), (9, 4), (1, 2), ({}, {"timeout": 1}), (0, 2)),
    result(1, ("bob", "ann"), (6, 7), (2, 1), ({"exited": 1}, {}), (1, 0)),
    result(2, ("ann", "bob", "cy"), (4, 4, 5), (2, 2, 1), ({}, {}, {"not-json": 3}), (0, 0, 4)),
    result(3, ("cy", "ann", "bob"), (5, 5, 3), (1, 1, 3), ({"crashed": 1}, {}, {}), (0, 0, 0)),
]


def test_counts_split_wins_means_and_faults() -> None:
    standings = Standings.of(["ann", "bob", "cy"], RESULTS)
    rows = standings.rows
    assert standings.matches == 4
    assert (rows["ann"].matches, rows["bob"].matches, rows["cy"].matches) == (4, 4, 2)
    assert rows["ann"].wins == 2.5  # two outright, half of a shared first place
    assert rows["bob"].wins == 0
    assert rows["cy"].wins == 1.5
    assert rows["ann"].mean_books == pytest.approx((9 + 7 + 4 + 5) / 4)
    assert rows["ann"].mean_place == pytest.approx((1 + 1 + 2 + 1) / 4)
    assert rows["ann"].win_share == pytest.approx(2.5 / 4)
    assert rows["ann"].interval == pytest.approx(wilson(2.5, 4))
    assert rows["bob"].fault("timeout") == 1
    assert rows["bob"].crashes == 1  # exited
    assert rows["cy"].crashes == 1  # crashed
    assert rows["cy"].faults == {"not-json": 3, "crashed": 1}
    assert (rows["ann"].invalid_asks, rows["bob"].invalid_asks, rows["cy"].invalid_asks) == (
        0,
        3,
        4,
    )


def test_pairwise_counts_placing_ahead_with_ties_half() -> None:
    standings = Standings.of(["ann", "bob", "cy"], RESULTS)
    ann_bob = standings.pair("ann", "bob")
    assert ann_bob.matches == 4
    assert ann_bob.ahead == 1 + 1 + 0.5 + 1  # game 2 is a tie for second
    assert standings.pair("bob", "ann").ahead == 0.5
    assert standings.pair("cy", "ann").share == pytest.approx((1 + 0.5) / 2)
    assert standings.pair("ann", "nobody").matches == 0


def test_the_final_order_is_the_fits_whatever_the_order_of_play() -> None:
    """Three bots whose OpenSkill order depends on which matches came first: the standings'
    order, final or live (both the fit's since the board), does not, and it follows the
    head-to-head results."""
    rng = random.Random(4)
    outcomes = (
        [("hard", "easy")] * 107
        + [("easy", "hard")] * 93  # hard ahead of easy 107-93
        + [("hard", "random")] * 150
        + [("random", "hard")] * 50
        + [("easy", "random")] * 140
        + [("random", "easy")] * 60
    )
    orders = set()
    ranked = set()
    for _ in range(20):
        rng.shuffle(outcomes)
        results = [
            result(i, (winner, loser), (8, 5), (1, 2)) for i, (winner, loser) in enumerate(outcomes)
        ]
        standings = Standings.of(["easy", "hard", "random"], results)
        openskill = sorted(standings.rows.values(), key=lambda row: -row.ordinal)
        orders.add(tuple(row.name for row in openskill))
        ranked.add(tuple(row.name for row in standings.ranked()))
        ranked.add(tuple(row.name for row in standings.ranked(live=True)))
    assert len(orders) > 1  # OpenSkill's order moved with the order of play
    assert ranked == {("hard", "easy", "random")}


def test_ratings_reward_winners_and_do_not_depend_on_arrival_order() -> None:
    standings = Standings.of(["ann", "bob", "cy"], RESULTS)
    rows = standings.rows
    assert rows["ann"].mu > 25 > rows["bob"].mu
    assert rows["ann"].sigma < 25 / 3  # four matches narrowed the uncertainty
    # four matches: everyone is provisional (no place, no order claimed); the fit still rates
    ranked = standings.ranked()
    assert all(row.line is not None and row.line.place == "" for row in ranked)
    assert min(ranked, key=lambda row: row.line.rating if row.line else 0).name == "bob"
    shuffled = list(RESULTS)
    random.Random(1).shuffle(shuffled)
    assert Standings.of(["ann", "bob", "cy"], shuffled).as_json() == standings.as_json()


def test_json_holds_every_figure() -> None:
    document = Standings.of(["ann", "bob", "cy"], RESULTS).as_json(tournament="t", seed=1)
    assert document["tournament"] == "t" and document["matches"] == 4
    ann = next(p for p in document["participants"] if p["name"] == "ann")
    assert ann["wins"] == 2.5 and ann["winShare"] == 0.625
    assert ann["winShare95"] == [pytest.approx(v, abs=1e-6) for v in wilson(2.5, 4)]
    assert ann["rating"] == {
        "standing": "provisional",  # 4 deals: no place
        "elo": ann["rating"]["elo"],
        "plusMinus": ann["rating"]["plusMinus"],
        "place": None,
        "places": None,
        "deals": 4,
        "losBelow": None,
    }
    assert document["rating"]["look"]["method"] == "holm"
    assert "virtual win" in document["rating"]["prior"]
    assert set(ann["live"]) == {"mu", "sigma", "ordinal"}
    assert document["rating"]["deals"] == 4  # each match its own deal: the lines have no seeds
    bob = next(p for p in document["participants"] if p["name"] == "bob")
    assert bob["faults"] == {
        "timeouts": 1,
        "invalidAsks": 3,
        "crashes": 1,
        "byKind": {"exited": 1, "timeout": 1},
    }
    pair = next(p for p in document["pairwise"] if (p["first"], p["second"]) == ("ann", "bob"))
    assert pair == {"first": "ann", "second": "bob", "matches": 4, "ahead": 3.5, "share": 0.875}


def test_the_terminal_table_places_the_ranked_and_lists_the_rest_apart() -> None:
    """The run's table, final and live: the ranked with places, the provisional marked and
    placed after them, the one with no match apart; the live ± wider (a sequence)."""
    from rich.console import Console

    from arena.tournaments.board import Live
    from arena.ui.tournament_view import standings_table

    rng = random.Random(5)
    lines = []
    for match in range(120):
        seating = tuple(rng.sample(["ann", "bob", "cy"], 2))
        first = seating[0] if rng.random() < 0.5 else seating[1]
        if "ann" in seating:
            first = "ann" if rng.random() < 0.8 else next(n for n in seating if n != "ann")
        places = (1, 2) if first == seating[0] else (2, 1)
        lines.append(result(match, seating, (7, 6) if places == (1, 2) else (6, 7), places))
    lines += [result(200 + k, ("new", "bob"), (7, 6), (1, 2)) for k in range(2)]
    standings = Standings.of(["ann", "bob", "cy", "new", "idle"], lines, plan=Live(100))
    shown = {}
    for live in (False, True):
        console = Console(record=True, width=200)
        console.print(standings_table(standings, title="t", live=live))
        shown[live] = console.export_text()
    final_rows = {
        cells[1]: cells
        for cells in (line.split() for line in shown[False].splitlines())
        if len(cells) > 2 and cells[1] in standings.rows
    }
    assert final_rows["ann"][0] == "1" and final_rows["new"][0] == "prov."
    assert final_rows["idle"][0] == "–" and "no match" in shown[False]
    assert "95% CS" in shown[True] and "every look" in shown[True] and "LOS" not in shown[True]
    words = " ".join(shown[False].split())  # the caption wraps
    assert "provisional" in words and "95% for the whole table" in words
    final = standings.board()
    live_board = standings.board(standings.plan)
    for name in ("ann", "bob", "cy"):
        assert live_board[name].plus_minus > final[name].plus_minus


def test_wins_that_shared_places_split_print_to_two_decimals_at_most() -> None:
    from arena.base.terminal import share_count

    assert [share_count(w) for w in (52.0, 51.5, 155 / 3, 0.0, 1 / 3)] == [
        "52",
        "51.5",
        "51.67",
        "0",
        "0.33",
    ]
