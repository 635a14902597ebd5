"""`arena replay review`: the coach weighs a seat's asks from that seat's view alone.

The coach is handed what one seat was sent and answered (`coach.view_of`), never the deck or
another seat's messages: a replay whose hidden cards are changed gives the same review. Real
matches of built-in bots through the real CLI; the coach's own numbers come from a seeded search,
so a review is the same every time it is made.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from replaymaker import make_replay
from rigging import Pack, ask, rules, run, setup
from typer.testing import CliRunner

from arena.replays import coach
from arena.ui.cli import app

NAMES = ["me", "rival", "third"]


@pytest.fixture(scope="module")
def three_seats(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("review")
    return make_replay(folder, NAMES, seed=11, bots=("medium", "hard", "expert"))


def review_json(path: Path, *options: str) -> dict[str, Any]:
    result = CliRunner().invoke(app, ["replay", "review", str(path), "--worlds", "40", *options])
    assert result.exit_code == 0, result.output
    document: dict[str, Any] = json.loads(result.output)
    return document


def with_other_hidden_cards(path: Path, seat: int, out: Path) -> Path:
    """The same replay for `seat`'s eyes, with the cards it never saw changed: the pond order
    after the deal reversed, and every card in another seat's hands and draws replaced by one
    stand-in card (the replay stays valid: the same number of cards, all of them wrong)."""
    document = json.loads(path.read_text(encoding="utf-8"))
    dealt = document["config"]["rules"]["startingHandSize"] * len(document["players"])
    deck = document["deck"]
    document["deck"] = deck[:dealt] + deck[dealt:][::-1]
    stand_in = deck[-1]
    for entry in document["transcript"]:
        if entry["seat"] != seat:
            message = entry["message"]
            if "hand" in message:
                message["hand"] = [stand_in] * len(message["hand"])
            if message["type"] in ("go-fish-result", "pick-up-result"):
                message["card"] = [stand_in] * len(message["card"])
    out.write_text(json.dumps(document), encoding="utf-8")
    return out


def test_the_review_lists_the_asks_master_would_make_otherwise_costliest_first(
    three_seats: Path,
) -> None:
    review = review_json(three_seats, "--seat", "0", "--json")
    assert review["seat"] == 0 and review["level"] == "master" and review["asks"] > 0
    decisions = review["decisions"]
    assert decisions, "medium and master disagree somewhere in a whole match"
    for decision in decisions:
        assert decision["made"] != decision["suggested"]
        assert decision["books"]["error"] >= 0 and decision["worlds"] == 40
    costs = [d["winChance"]["gain"] + 0.05 * d["books"]["gain"] for d in decisions]
    assert costs == sorted(costs, reverse=True)
    # The same review every time: the search is seeded by the replay.
    assert review_json(three_seats, "--seat", "0", "--json") == review


def _without_verdict(review: dict[str, Any]) -> dict[str, Any]:
    return {key: value for key, value in review.items() if key != "verdict"}


def test_the_coach_never_uses_a_card_the_seat_did_not_see(
    three_seats: Path, tmp_path: Path
) -> None:
    changed = with_other_hidden_cards(three_seats, 0, tmp_path / "hidden-changed.json")
    original = json.loads(three_seats.read_text(encoding="utf-8"))
    assert json.loads(changed.read_text(encoding="utf-8"))["deck"] != original["deck"]
    # (The verdict weighs the draws, which are the match's, hidden cards and all.)
    assert _without_verdict(review_json(changed, "--seat", "0", "--json")) == _without_verdict(
        review_json(three_seats, "--seat", "0", "--json")
    )
    # What seat 1 was sent did change, so its review may; seat 0's view is all that counts.
    from arena.replays import replay

    before, after = replay.read(three_seats), replay.read(changed)
    assert coach.view_of(before, 0) == coach.view_of(after, 0)
    assert coach.view_of(before, 1) != coach.view_of(after, 1)


def test_the_table_names_each_ask_and_the_gain_with_its_interval(three_seats: Path) -> None:
    result = CliRunner().invoke(
        app, ["replay", "review", str(three_seats), "--seat", "0", "--worlds", "40", "--top", "2"]
    )
    assert result.exit_code == 0, result.output
    assert "Review of seat 0 (me) by master" in result.output
    assert "master would ask" in result.output and "±" in result.output
    said = " ".join(result.output.split())
    found = re.search(r"(\d+) of its \d+ asks differ", said)
    assert found is not None, said
    differ = int(found.group(1))
    assert (f"… and {differ - 2} more (--top 0 shows all)." in said) == (differ > 2), said


def test_an_invalid_ask_is_weighed_as_the_turn_it_lost(pack: Pack) -> None:
    deck = pack.full_deck(["7S 2C 9D", "7H 5D 6D", "KS QH JD"])
    played = run(
        setup(deck, rules(3), seats=3), asks=[ask(0, pack.one("7S")), ask(0, pack.one("5D"))]
    )
    view = [
        (index, sent.message, sent.reply)
        for index, sent in enumerate(played.transcript)
        if sent.seat == 0
    ]
    decision = next(d for d in coach.review(view, worlds=20) if d.turn == 1)
    assert decision.made is None and decision.refusal is not None
    assert "itself" in decision.refusal
    assert decision.suggested[0] in (1, 2)


@pytest.mark.parametrize(
    ("options", "message"),
    [
        (["--seat", "7"], "--seat 7: the replay has seats 0..2"),
        (["--seat", "0", "--level", "grandmaster"], "--level grandmaster: not one of"),
        (["--seat", "0", "--worlds", "1"], "--worlds 1: give 2 to 100000"),
    ],
)
def test_bad_options_are_one_line_and_exit_2(
    three_seats: Path, options: list[str], message: str
) -> None:
    result = CliRunner().invoke(app, ["replay", "review", str(three_seats), *options])
    assert result.exit_code == 2
    assert message in result.output and "Traceback" not in result.output


def test_rules_the_simulator_does_not_play_are_refused_in_one_line(tmp_path: Path) -> None:
    path = make_replay(tmp_path, ["a", "b"], rules="luckyDraw = true")
    result = CliRunner().invoke(app, ["replay", "review", str(path), "--seat", "0"])
    assert result.exit_code == 2
    assert "luckyDraw = True" in result.output and "Traceback" not in result.output


# -- only what is significant, and a verdict (issue 41) --------------------------------------


def test_only_asks_whose_alternative_gains_beyond_doubt_are_marked(three_seats: Path) -> None:
    review = review_json(three_seats, "--seat", "0", "--json")
    decisions = review["decisions"]
    marked = [d for d in decisions if d["significant"]]
    assert marked and len(marked) < len(decisions)  # this match has both kinds
    for d in decisions:  # significant: the gain's 95% interval lies above zero
        low = d["winChance"]["gain"] - 1.96 * d["winChance"]["error"]
        assert d["significant"] is (low > 0), d
    assert all(d["step"] == f"#step={d['at']}" for d in decisions)
    table = (
        CliRunner()
        .invoke(
            app,
            ["replay", "review", str(three_seats), "--seat", "0", "--worlds", "40", "--top", "0"],
        )
        .output
    )
    rows = [line for line in table.splitlines() if line.lstrip().startswith("✦")]
    assert [int(row.split()[1]) for row in rows] == [d["at"] for d in marked]
    assert table.splitlines()[-1] == review["verdict"]
    assert review["verdict"].startswith(f"Verdict: its {len(marked)} ✦ ask")
    assert "win chance; the draws gave it" in review["verdict"]


def test_the_viewer_marks_only_the_significant_asks(three_seats: Path) -> None:
    from arena.replays import replay
    from arena.ui import viewer

    data = replay.read(three_seats)
    decisions = coach.review(coach.view_of(data, 0), worlds=40, seed=data.seed or 0)
    marks = viewer.review_marks(data, 0, "master", decisions)
    assert [m["at"] for m in marks["marks"]] == [d.at for d in decisions if coach.significant(d)]
    assert len(marks["marks"]) < len(decisions)
    assert marks["verdict"] == coach.verdict(data, 0, decisions)


def test_a_review_with_nothing_significant_says_the_result_was_the_draws(
    three_seats: Path,
) -> None:
    from arena.replays import replay

    data = replay.read(three_seats)
    decisions = coach.review(coach.view_of(data, 0), worlds=40, seed=data.seed or 0)
    unsure = [d for d in decisions if not coach.significant(d)]
    said = coach.verdict(data, 0, unsure)
    assert said.startswith("Verdict: no ask of its cost win chance beyond doubt; the draws gave")
    assert "not from its choices" in said
