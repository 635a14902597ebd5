"""The luck correction (arena/luck): exact where it can be checked exactly, unbiased by measurement.

- the replay of a match's events on the engine's table ends where the match ended, under every
  rule set, with one and with several decks;
- every correction equals the slow way: the engine draws each candidate card on a copy of the
  table, and V is computed from scratch;
- a draw whose deck label leaves one candidate is no luck at all (a correction that ignored
  the deck labels would see luck there);
- the win-share corrections of a match sum to zero (the adjusted shares still sum to 1);
- identical bots: over a few hundred matches each seat's mean correction is zero within its
  interval, at 2, 3 and 4 seats (the large samples are bench/luck.py's).
"""

from __future__ import annotations

import math
import random
import statistics
from collections.abc import Callable, Sequence
from pathlib import Path

import orjson
import pytest
from command import arena_here
from test_viewer import Browser, browser  # noqa: F401 - the fixture

from arena.base.config import named_rules
from arena.bots import BOTS
from arena.engine.cards import Card, glyph
from arena.engine.events import Event, PickedUp, WentFishing
from arena.engine.match import Match, MatchSetup, Result
from arena.engine.rules import Rules
from arena.luck import measure
from arena.luck.correction import Tracker
from arena.luck.value import BITS, Valuer, valuer
from arena.tournaments.standings import win_shares

RULES = {
    "default": Rules(),
    "two decks, knights": Rules(number_of_decks=2, knights=True),
    "family-table": named_rules("family-table"),
    "family-two": named_rules("family-two"),
}


def play(seed: int, levels: Sequence[str], rules: Rules) -> tuple[Match, Result]:
    bots = [BOTS[level]() for level in levels]
    match = Match(MatchSetup.from_seed(seed, [f"{lv}-{s}" for s, lv in enumerate(levels)], rules))
    return match, match.play_out(bots)


def slow_chance(
    v: Valuer, tracker: Tracker, seat: int, index: int, could: Sequence[int]
) -> tuple[list[float], list[float]]:
    """The correction of one draw the slow way: the engine draws every candidate on a copy."""
    table = tracker.table

    def expected(hands: Sequence[Sequence[Card]]) -> list[float]:
        masks = [[0] * 14 for _ in hands]
        for s, hand in enumerate(hands):
            for card in hand:
                masks[s][card["rank"]] |= 1 << card["suit"]
        return v.expected(masks, tracker.left, table.books, tracker.mover, tracker.known)

    now = expected(table.hands)
    slope = v.slope(now, v.beta(sum(table.books), tracker.total))

    def after(i: int) -> list[float]:
        twin = table.copy()
        twin.draw(seat, i)
        return expected(twin.hands)

    outcomes = [after(i) for i in could]
    seats = range(table.seats)
    books = [after(index)[s] - sum(o[s] for o in outcomes) / len(could) for s in seats]
    win = [sum(slope[s][t] * books[t] for t in seats) for s in seats]
    return win, books


@pytest.mark.parametrize("name", list(RULES))
def test_the_replay_ends_where_the_match_did_and_each_draw_matches_the_slow_way(name: str) -> None:
    rules = RULES[name]
    v = valuer()
    for seed, levels in ((1, ["hard", "easy"]), (2, ["expert", "medium", "random", "hard"])):
        match, result = play(seed, levels, rules)
        tracker = Tracker(match.setup)
        for seat in range(len(levels)):
            for _ in range(rules.hand_size(len(levels))):
                tracker.draw(seat, 0)
        compared = 0
        for event in match.events:
            if isinstance(event, WentFishing | PickedUp):
                could = tracker.table.alike(event.place)
                fast = tracker.chance(v, event.seat, event.place, could)
                slow = slow_chance(v, tracker, event.seat, event.place, could)
                for got, want in zip(fast, slow):
                    assert got == pytest.approx(want, abs=1e-12)
                tracker.draw(event.seat, event.place)
                compared += 1
            else:
                tracker.apply(event)
            for s, hand in enumerate(tracker.table.hands):
                masks = [0] * 14
                for card in hand:
                    masks[card["rank"]] |= 1 << card["suit"]
                assert tracker.masks[s] == masks
        assert compared > 10
        assert tuple(tracker.table.books) == result.scores
        assert sum(tracker.left) == 0 or result.outcome != "completed"


def test_a_draw_its_deck_label_leaves_no_choice_in_is_no_luck() -> None:
    """Two decks: the pond holds one card of deck 1 (a rank seat 0 holds three suits of) among
    cards of deck 0. A draw at its position could have taken nothing else: its correction is
    exactly 0. Taken as uniform over the whole pond it would be a lucky draw."""

    def card(id_: int, deck: int, suit: int, rank: int) -> Card:
        return Card(id=id_, card=glyph(suit, rank), deck=deck, suit=suit, rank=rank)

    deck = [card(0, 0, 0, 5), card(1, 0, 1, 5), card(2, 0, 2, 5), card(3, 0, 0, 9)]  # seat 0
    deck += [card(4, 0, 0, 1), card(5, 0, 1, 2), card(6, 0, 2, 3), card(7, 0, 3, 4)]  # seat 1
    deck += [card(8 + r, 0, 1, r) for r in (6, 7, 8, 10)]  # the pond: deck 0 …
    deck += [card(20, 1, 3, 5)]  # … and the one card of deck 1, completing seat 0's fives
    rules = Rules(number_of_decks=2, starting_hand_size=4, starting_player="First in line")  # type: ignore[arg-type]
    setup = MatchSetup(rules, ("a", "b"), tuple(deck), 0)
    dealt = measure(setup, [])
    lone: list[Event] = [PickedUp(0, 0, 4, 20, 5)]
    assert measure(setup, lone).share == pytest.approx(dealt.share, abs=1e-15)
    assert measure(setup, lone).books == pytest.approx(dealt.books, abs=1e-15)
    # The same draw with every pond card of one deck is luck, and good luck for seat 0.
    one_deck = [c if c["id"] != 20 else card(20, 0, 3, 5) for c in deck]
    setup = MatchSetup(Rules(starting_hand_size=4), ("a", "b"), tuple(one_deck), 0)
    lucky = measure(setup, lone).share[0] - measure(setup, []).share[0]
    assert lucky > 0.01


@pytest.mark.parametrize("name", list(RULES))
def test_the_adjusted_shares_of_a_match_still_sum_to_one(name: str) -> None:
    for seed in range(3):
        match, result = play(seed, ["hard", "medium", "easy"], RULES[name])
        luck = measure(match.setup, match.events)
        assert luck.events > 20
        assert math.fsum(luck.adjusted_shares(win_shares(result.places))) == pytest.approx(1)
        assert any(abs(x) > 1e-3 for x in luck.share)


@pytest.mark.parametrize(
    ("levels", "rules", "matches"),
    [
        (["easy", "easy"], Rules(), 300),
        (["easy", "easy", "easy"], Rules(), 200),
        (["random"] * 4, Rules(number_of_decks=2), 150),
    ],
)
def test_identical_bots_are_given_no_luck_on_average(
    levels: list[str], rules: Rules, matches: int
) -> None:
    """Each seat's mean correction is 0 within 4 standard errors, and the adjusted share of
    each seat is 1/n within its interval as wide as the raw one's (seeds 50000 and up)."""
    seats = len(levels)
    luck: list[list[float]] = [[] for _ in range(seats)]
    adjusted: list[list[float]] = [[] for _ in range(seats)]
    for seed in range(50_000, 50_000 + matches):
        match, result = play(seed, levels, rules)
        measured = measure(match.setup, match.events)
        for s, (x, a) in enumerate(
            zip(measured.share, measured.adjusted_shares(win_shares(result.places)))
        ):
            luck[s].append(x)
            adjusted[s].append(a)
    for s in range(seats):
        error = statistics.stdev(luck[s]) / math.sqrt(matches)
        assert abs(statistics.mean(luck[s])) < 4 * error, (s, statistics.mean(luck[s]), error)
        error = statistics.stdev(adjusted[s]) / math.sqrt(matches)
        assert abs(statistics.mean(adjusted[s]) - 1 / seats) < 4 * error


def test_the_seats_masks_are_the_bits_of_their_suits() -> None:
    assert [BITS[m] for m in range(16)] == [m.bit_count() for m in range(16)]


def test_a_results_line_carries_the_adjusted_shares_and_a_bad_one_is_refused() -> None:
    from arena.tournaments import results
    from tests.test_results_line import LINE

    luck = {"winShare": [0.2, 0.8], "books": [4.5, 8.5], "v": "1"}
    line, why = results._parse(orjson.dumps({**LINE, "luckAdjusted": luck}))
    assert line is not None, why
    assert line.luck_adjusted is not None and line.luck_adjusted.winShare == [0.2, 0.8]
    assert line.model_dump(mode="json")["luckAdjusted"] == luck
    for bad in ({**luck, "winShare": [0.2]}, {**luck, "books": "many"}):
        line, why = results._parse(orjson.dumps({**LINE, "luckAdjusted": bad}))
        assert line is None and why.startswith("luckAdjusted must")


def _sprt_errors(
    share0: float, outcome: Callable[[random.Random, float], float], tests: int
) -> tuple[float, float]:
    """NormalTest of share0 against share0 + 0.05 on seeded outcomes (`outcome(rng, truth)`):
    the share of `tests` tests that accept H1 with the truth at share0, and H0 at share1."""
    from arena.tournaments.sprt import Decision, Hypotheses, NormalTest

    hypotheses = Hypotheses(share0, share0 + 0.05)
    rates = []
    for truth, wrong in ((share0, Decision.H1), (share0 + 0.05, Decision.H0)):
        rng = random.Random(round(truth * 100))
        errors = 0
        for _ in range(tests):
            test = NormalTest(hypotheses)
            while test.add(outcome(rng, truth)) is None:
                pass
            errors += test.decision is wrong
        rates.append(errors / tests)
    return rates[0], rates[1]


def test_the_sprt_on_adjusted_shares_keeps_its_error_rates() -> None:
    """1,000 seeded tests a side, nominal alpha = beta = 0.05 (the real-data check is
    bench/luck.py): on normal outcomes, and on skewed ones shaped like a candidate's adjusted
    group outcomes at 4 seats (4 matches won with probability 0.3, plus the noise the
    correction leaves), where a sample short of wins has a low mean and a low variance at once:
    fishtest's linearised LLR on the variance of 20 outcomes accepted a false H0 in 6.5 % of
    these; the generalised LLR from 50 outcomes keeps under 6 %."""

    def normal(rng: random.Random, truth: float) -> float:
        return rng.gauss(truth, 0.3)

    def four_seats(rng: random.Random, truth: float) -> float:
        wins = sum(rng.random() < 0.3 for _ in range(4)) / 4
        return truth + 0.8 * (wins - 0.3) + rng.gauss(0, 0.08)

    for share0, outcome in ((0.5, normal), (0.25, four_seats)):
        false_h1, false_h0 = _sprt_errors(share0, outcome, 1000)
        assert false_h1 < 0.06 and false_h0 < 0.06, (outcome.__name__, false_h1, false_h0)


@pytest.mark.parametrize(("options", "adjusted"), [([], True), (["--raw"], False)])
def test_arena_sprt_tests_adjusted_shares_unless_raw(
    tmp_path: Path, options: list[str], adjusted: bool
) -> None:
    import json
    import sys

    run = arena_here(
        *("sprt", "--seed", "5", "--jobs", "1", "--games", "4", "--vs", "hard", "-q", *options),
        *("--", sys.executable, "-m", "arena.bots", "medium"),
        cwd=tmp_path,
    )
    assert run.returncode == 3, run.stderr  # no decision in 4 matches
    standings = json.loads((tmp_path / "replays" / "standings.json").read_text())
    assert standings["sprt"]["luckAdjusted"] is adjusted
    lines = (tmp_path / "replays" / "results.jsonl").read_text().splitlines()
    assert all("luckAdjusted" in json.loads(line) for line in lines)
    shares = [p["luckAdjusted"]["winShare"] for p in standings["participants"]]
    assert all(isinstance(share, float) for share in shares)


def test_a_run_shows_raw_and_adjusted_shares_side_by_side(tmp_path: Path, browser: Browser) -> None:  # noqa: F811
    """A real run (in-process bots): standings.json has `luckAdjusted` beside `winShare`, and
    the report's standings table shows both with their intervals (real Chromium)."""
    import json

    from typer.testing import CliRunner

    from arena.ui.cli import app

    (tmp_path / "config.toml").write_text(
        'seed = 7\ngames = 6\n[tournament]\nseats = 2\n[[participants]]\nname = "exp"\nbot = "expert"\n'
        '[[participants]]\nname = "hrd"\nbot = "hard"\n',
        encoding="utf-8",
    )
    assert CliRunner().invoke(app, ["run", str(tmp_path / "config.toml"), "-q"]).exit_code == 0
    standings = json.loads((tmp_path / "replays" / "standings.json").read_text())
    for row in standings["participants"]:
        luck = row["luckAdjusted"]
        assert luck["matches"] == row["matches"] == 6
        low, high = luck["winShare95"]
        assert low < luck["winShare"] < high
    shares = sorted(row["luckAdjusted"]["winShare"] for row in standings["participants"])
    assert math.fsum(shares) == pytest.approx(1, abs=1e-5)
    browser.open((tmp_path / "replays" / "report.html").as_uri(), also=("Network", "Log"))
    assert browser.js("document.body.dataset.ready") == "1"
    heads = browser.js(
        "[...document.querySelectorAll('#standings-table th')].map(t => t.textContent)"
    )
    cells = browser.js(
        "[...document.querySelectorAll('#standings-table tbody tr')].map(tr => [...tr.children].map(td => td.textContent))"
    )
    at = heads.index("luck-adjusted (95 %)")  # the share and its interval, one column
    rows = [cell for cell in cells if len(cell) > 1]  # (not the "provisional" line above them)
    assert len(rows) == 2
    for cell in rows:
        share, interval = cell[at].split(" (")
        assert share.endswith(" %") and interval.endswith(")") and "–" in interval


@pytest.mark.slow
def test_arena_standings_rates_on_adjusted_shares_when_asked(tmp_path: Path) -> None:
    """A real run (two copies of `hard` and `medium`, 2 seats): `arena standings
    --luck-adjusted` fits the ratings on the adjusted win shares: other ratings than the
    finishing orders', narrower intervals for every participant (less luck in them), and the
    identical bots still not told apart."""
    import json

    from typer.testing import CliRunner

    from arena.ui.cli import app

    (tmp_path / "config.toml").write_text(
        'seed = 11\ngames = 180\n[tournament]\nseats = 2\n[[participants]]\nname = "h1"\nbot = "hard"\n'
        '[[participants]]\nname = "h2"\nbot = "hard"\n[[participants]]\nname = "m"\nbot = "medium"\n',
        encoding="utf-8",
    )
    runner = CliRunner()
    assert runner.invoke(app, ["run", str(tmp_path / "config.toml"), "-q"]).exit_code == 0
    folder = str(tmp_path / "replays")
    documents = {}
    for options in ([], ["--luck-adjusted"]):
        shown = runner.invoke(app, ["standings", folder, "--json", *options])
        assert shown.exit_code == 0, shown.output
        documents[bool(options)] = json.loads(shown.output)
    raw, adjusted = documents[False], documents[True]
    assert "luckAdjusted" not in raw["rating"] and adjusted["rating"]["luckAdjusted"] is True
    raw_rows = {row["name"]: row["rating"] for row in raw["participants"]}
    rows = {row["name"]: row["rating"] for row in adjusted["participants"]}
    assert any(abs(rows[n]["elo"] - raw_rows[n]["elo"]) > 1 for n in rows)
    for name, rating in rows.items():
        assert rating["plusMinus"] < raw_rows[name]["plusMinus"], name
    position = {row["name"]: p + 1 for p, row in enumerate(adjusted["participants"])}
    for first, second in (("h1", "h2"), ("h2", "h1")):
        low, high = rows[first]["places"]
        assert low <= position[second] <= high  # not told apart
    table = runner.invoke(app, ["standings", folder, "--luck-adjusted"])
    assert table.exit_code == 0 and "rated on luck-adjusted win shares" in table.output
