"""Gauntlets and their SPRT: the candidate's schedule, the test fed in schedule order,
and whole runs through the real CLI with answers known beforehand (expert beats easy; two
random bots that differ only in their seed are not told apart; two copies of one deterministic
bot give degenerate data)."""

from __future__ import annotations

import itertools
import json
import math
import random
import subprocess
import sys
import time
from collections import Counter
from fractions import Fraction
from pathlib import Path
from typing import Any

import pytest
from command import arena_here
from resultsmaker import result

from arena.tournaments import tournament
from arena.tournaments.candidate import CandidateTest
from arena.tournaments.gauntlet import Gauntlet
from arena.tournaments.results import ResultLine
from arena.tournaments.sprt import NORMAL_MIN_GROUPS, Hypotheses

ROOT = Path(__file__).resolve().parent.parent
SEEDED = ROOT / "tests" / "sprtbots" / "seeded_random.py"

# --- the schedule ------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("players", "seats", "candidate"), [(2, 2, 1), (4, 2, 0), (4, 4, 2), (5, 3, 4), (6, 4, 1)]
)
def test_the_candidate_sits_every_seat_of_every_group_once(
    players: int, seats: int, candidate: int
) -> None:
    plan = Gauntlet(players, seats, seed=5, candidate=candidate)
    for group in range(3 * plan.combinations * plan.cyclic_orders):
        slots = [plan.slot(group * seats + r) for r in range(seats)]
        assert sorted(slot.seating.index(candidate) for slot in slots) == list(range(seats))
        assert {slot.deal_seed for slot in slots} == {5 + group * seats}
        assert all(len(set(slot.seating)) == seats for slot in slots)
        assert all(
            slot.seating == slots[0].seating[-r:] + slots[0].seating[:-r]
            for r, slot in enumerate(slots)
            if r
        )


@pytest.mark.parametrize(("players", "seats"), [(4, 2), (5, 3), (6, 4), (4, 3)])
def test_others_are_drawn_fairly_and_every_table_comes_in_every_order(
    players: int, seats: int
) -> None:
    plan = Gauntlet(players, seats, seed=3, candidate=0)
    per_cycle = plan.combinations * seats
    # After each cycle every other has played equally often, each combination once.
    for cycle in range(1, plan.cyclic_orders + 1):
        slots = [plan.slot(game) for game in range(cycle * per_cycle)]
        played = Counter(p for slot in slots for p in slot.seating if p != 0)
        assert set(played.values()) == {cycle * per_cycle * (seats - 1) // (players - 1)}
    # A round (every cycle) is every seating with the candidate exactly once.
    expected = {s for s in itertools.permutations(range(players), seats) if 0 in s}
    assert plan.seatings == len(expected)
    assert Counter(plan.slot(g).seating for g in range(plan.seatings)) == Counter(expected)


def test_the_gauntlet_is_lazy_and_a_function_of_the_seed() -> None:
    started = time.perf_counter()
    far = Gauntlet(30, 4, seed=8, candidate=7).slot(10**15)
    assert time.perf_counter() - started < 1.0  # nothing is built for the games before it
    assert far == Gauntlet(30, 4, seed=8, candidate=7).slot(10**15)
    assert 7 in far.seating
    assert [Gauntlet(5, 3, 1, 2).slot(g) for g in range(60)] == [
        Gauntlet(5, 3, 1, 2).slot(g) for g in range(60)
    ]
    assert [Gauntlet(5, 3, 1, 2).slot(g) for g in range(60)] != [
        Gauntlet(5, 3, 2, 2).slot(g) for g in range(60)
    ]


# --- the test fed from results lines -----------------------------------------------------


def _line(game: int, seating: list[str], ranks: list[int]) -> ResultLine:
    return result(game, seating, places=ranks)


def _lines(games: int, seats: int, seed: int) -> list[ResultLine]:
    """Results lines of a 'cand' against others with random ranks (shared places too)."""
    rng = random.Random(seed)
    lines = []
    for game in range(games):
        ranks = [rng.choice([1, 1, 2, 3]) for _ in range(seats)]
        names = ["cand"] + [f"o{i}" for i in range(1, seats)]
        rng.shuffle(names)
        lines.append(_line(game, names, ranks))
    return lines


def test_groups_count_in_schedule_order_whatever_order_lines_arrive_in() -> None:
    lines = _lines(400, 3, seed=1)
    hypotheses = Hypotheses(0.3, 0.4, min_groups=5)
    ordered = CandidateTest("cand", 3, hypotheses)
    ordered.observe_all(lines)
    shuffled = CandidateTest("cand", 3, hypotheses)
    for line in random.Random(2).sample(lines, len(lines)):
        shuffled.observe(line)
    assert ordered.sprt is not None and shuffled.sprt is not None
    assert ordered.sprt.history == shuffled.sprt.history
    assert (ordered.decision, ordered.groups) == (shuffled.decision, shuffled.groups)


def test_a_group_waits_for_its_missing_match_and_never_reads_its_outcome_to_decide() -> None:
    lines = _lines(60, 2, seed=3)
    test = CandidateTest("cand", 2, Hypotheses(0.4, 0.6, min_groups=1))
    test.observe_all(line for line in lines if line.match != 9)  # game 9 interrupted: no line
    assert test.groups == 4  # groups 0-3; group 4 lacks a match, every later group waits behind it
    test.observe(lines[9])  # --resume played it again
    whole = CandidateTest("cand", 2, Hypotheses(0.4, 0.6, min_groups=1))
    whole.observe_all(lines)  # as if game 9 had never been missing
    assert test.sprt is not None and whole.sprt is not None and test.groups > 4
    assert (test.groups, test.decision, test.sprt.history) == (
        whole.groups,
        whole.decision,
        whole.sprt.history,
    )


def test_a_decision_is_kept_when_later_matches_finish() -> None:
    winning = [
        _line(
            g,
            ["cand", "x"] if g % 2 == 0 else ["x", "cand"],
            [1, 2] if g % 2 == 0 else [2, 1],
        )
        for g in range(200)
    ]
    test = CandidateTest("cand", 2, Hypotheses(0.5, 0.6, min_groups=20))
    test.observe_all(winning[:60])
    assert test.decision is not None and test.groups == 20
    llr = test.sprt.llr if test.sprt else None
    losing = [line.model_copy(update={"places": line.places[::-1]}) for line in winning[60:]]
    test.observe_all(losing)
    assert (test.groups, test.sprt.llr if test.sprt else None) == (20, llr)
    assert test.later == 160  # games 40-199
    assert test.estimate().outcomes == 100  # the figures of every group are still shown


def test_group_outcomes_are_mean_points_with_shared_places() -> None:
    test = CandidateTest("cand", 3)
    test.observe_all(
        [
            _line(0, ["cand", "a", "b"], [1, 1, 3]),  # 1/2
            _line(1, ["b", "cand", "a"], [1, 2, 2]),  # 0
            _line(2, ["a", "b", "cand"], [1, 1, 1]),  # 1/3
        ]
    )
    assert test.outcomes == {Fraction(5, 18): 1}


# --- whole runs through the CLI ----------------------------------------------------------


def _arena(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return arena_here(*args, cwd=cwd)


def _config(
    tmp_path: Path,
    participants: str,
    *,
    games: int = 4000,
    seats: int = 2,
    candidate: str,
    share0: float,
    share1: float,
    seed: int = 7,
    extra: str = "",
) -> Path:
    path = tmp_path / "gauntlet.toml"
    path.write_text(
        f'seed = {seed}\ngames = {games}\n[tournament]\nseats = {seats}\ncandidate = "{candidate}"\n'
        f"[sprt]\nshare0 = {share0}\nshare1 = {share1}\n{extra}\n{participants}",
        encoding="utf-8",
    )
    return path


BOTS = '[[participants]]\nname = "easy"\nbot = "easy"\n[[participants]]\nname = "expert"\nbot = "expert"\n'


def _standings(tmp_path: Path) -> dict[str, Any]:
    document: dict[str, Any] = json.loads((tmp_path / "replays" / "standings.json").read_text())
    return document


def test_expert_against_easy_accepts_h1_at_bounds_it_clearly_beats(tmp_path: Path) -> None:
    # Expert's share against easy is about 0.8: share 0.5 rather than 0.4 is clear (it wins
    # every group: 14 groups; against hard, at 0.54, it took 97). From 5 groups, not the
    # default 20, so that the test decides when the evidence does.
    config = _config(
        tmp_path, BOTS, candidate="expert", share0=0.4, share1=0.5, extra="minGroups = 5"
    )
    done = _arena("run", str(config), "--jobs", "2", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert "H1 accepted: expert is better than easy" in done.stdout
    test = _standings(tmp_path)["sprt"]
    assert test["decision"] == "H1" and test["llr"] >= test["upper"] == pytest.approx(2.944439)
    assert test["matches"] == 2 * test["groups"]
    history = test["history"]
    assert [g for g, _ in history] == list(range(1, test["groups"] + 1))
    assert history[-1][1] == test["llr"]
    lines = (tmp_path / "replays" / "results.jsonl").read_text().splitlines()
    # Stopped: beyond the verdict's matches only those in flight (4 with 2 jobs) or being written.
    assert test["matches"] <= len(lines) <= test["matches"] + 4 + tournament.BACKLOG
    assert "expert against each opponent" in done.stdout
    (row,) = _standings(tmp_path)["againstEach"]
    assert row["opponent"] == "easy" and row["matches"] == len(lines)
    assert row["score95"][0] < row["score"] < row["score95"][1]


@pytest.mark.slow
def test_two_random_bots_differing_only_in_their_seed_do_not_accept_h1(tmp_path: Path) -> None:
    participants = "".join(
        f'[[participants]]\nname = "r{seed}"\ncommand = ["{sys.executable}", "{SEEDED}", "{seed}"]\n'
        for seed in (1, 2)
    )
    config = _config(
        tmp_path,
        participants,
        candidate="r1",
        share0=0.5,
        share1=0.8,
        seed=11,
        extra="minGroups = 5",
    )
    done = _arena("run", str(config), "--jobs", "1", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    test = _standings(tmp_path)["sprt"]
    assert test["decision"] == "H0", done.stdout
    assert not test["degenerate"]  # real variance: their matches differ
    assert "H0 accepted: r1 is not better than r2" in done.stdout


def test_two_copies_of_one_deterministic_bot_are_degenerate_and_go_to_h0(tmp_path: Path) -> None:
    participants = "".join(f'[[participants]]\nname = "{n}"\nbot = "medium"\n' for n in ("a", "b"))
    config = _config(
        tmp_path,
        participants,
        candidate="a",
        share0=0.5,
        share1=0.55,
        extra="alpha = 0.2\nbeta = 0.2\nminGroups = 5",
    )
    done = _arena("run", str(config), "--jobs", "1", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    test = _standings(tmp_path)["sprt"]
    assert (test["decision"], test["degenerate"]) == ("H0", True)
    # About log(beta / (1 - alpha)) / log(0.9) groups: 13.2 at alpha = beta = 0.2 (27.9 at 0.05).
    assert 13 <= test["groups"] <= 16
    assert "every group scored exactly 1/2" in done.stdout


def test_resume_rebuilds_the_test_and_continues_it(tmp_path: Path) -> None:
    config = _config(
        tmp_path, BOTS, candidate="expert", share0=0.4, share1=0.5, games=16, extra="minGroups = 5"
    )
    first = _arena("run", str(config), "--jobs", "1", cwd=tmp_path)
    assert first.returncode == 0, first.stderr
    assert "no decision by the cap of 16 matches" in first.stdout
    before = _standings(tmp_path)
    assert (before["sprt"]["decision"], before["sprt"]["groups"]) == (None, 8)
    again = _arena("run", str(config), "--games", "4000", "--resume", "--jobs", "1", cwd=tmp_path)
    assert again.returncode == 0, again.stderr
    after = _standings(tmp_path)
    assert after["run"] == before["run"]
    assert after["sprt"]["history"][:8] == before["sprt"]["history"]
    assert after["sprt"]["decision"] == "H1"
    # A decided test plays nothing more, even with a larger cap.
    third = _arena("run", str(config), "--games", "8000", "--resume", "--jobs", "1", cwd=tmp_path)
    assert third.returncode == 0, third.stderr
    assert _standings(tmp_path)["sprt"] == after["sprt"]
    assert (
        len((tmp_path / "replays" / "results.jsonl").read_text().splitlines()) == after["matches"]
    )


@pytest.mark.parametrize(
    ("extra", "participants", "candidate", "share1", "message"),
    [
        (
            "",
            BOTS,
            "nobody",
            0.5,
            "tournament.candidate: 'nobody' is not the name of a participant",
        ),
        ("", BOTS, "expert", 0.3, "share1 (0.3) must be above share0 (0.4)"),
        ("alpha = 0.7", BOTS, "expert", 0.5, "sprt.alpha"),
    ],
)
def test_a_bad_gauntlet_or_test_is_one_line_and_exit_2(
    tmp_path: Path, extra: str, participants: str, candidate: str, share1: float, message: str
) -> None:
    config = _config(
        tmp_path, participants, candidate=candidate, share0=0.4, share1=share1, extra=extra
    )
    done = _arena("run", str(config), cwd=tmp_path)
    assert done.returncode == 2
    assert message in done.stderr and len(done.stderr.strip().splitlines()) == 1, done.stderr
    assert not (tmp_path / "replays").exists()


def test_a_test_needs_a_candidate(tmp_path: Path) -> None:
    config = tmp_path / "c.toml"
    config.write_text("[sprt]\nshare0 = 0.5\nshare1 = 0.55\n" + BOTS, encoding="utf-8")
    done = _arena("run", str(config), cwd=tmp_path)
    assert (
        done.returncode == 2 and "sprt: a sequential test needs tournament.candidate" in done.stderr
    )


# --- arena sprt: the everyday question without a config ----------------------------------


@pytest.mark.slow
def test_arena_sprt_answers_from_the_command_line_and_resumes(tmp_path: Path) -> None:
    expert = [sys.executable, str(ROOT / "participants" / "expert_bot.py")]
    options = [
        "sprt",
        "--raw",  # (the adjusted test would wait for 50 groups whatever --min-groups says)
        "--vs",
        "easy",
        "--share0",
        "0.4",
        "--share1",
        "0.5",
        "--alpha",
        "0.2",
        "--beta",
        "0.2",
        "--min-groups",
        "5",
        "--seed",
        "3",
        "--jobs",
        "2",
    ]
    first = _arena(*options, "--games", "6", "--", *expert, cwd=tmp_path)
    assert first.returncode == 3, first.stderr  # no decision by the cap
    assert "no decision by the cap of 6 matches" in first.stdout
    again = _arena(*options, "--games", "400", "--resume", "--", *expert, cwd=tmp_path)
    assert again.returncode == 0, again.stderr
    assert "H1 accepted: expert_bot is better than easy" in again.stdout
    document = _standings(tmp_path)
    assert document["candidate"] == "expert_bot" and document["sprt"]["decision"] == "H1"
    assert document["sprt"]["lower"] == pytest.approx(math.log(0.2 / 0.8), abs=1e-6)
    history = document["sprt"]["history"]
    assert history[0][0] == 1 and len(history) == document["sprt"]["groups"]


@pytest.mark.parametrize(
    ("arguments", "message"),
    [
        (
            ["--vs", "hard", "--share0", "0.5", "--share1", "0.4"],
            "arena sprt: --share1: share1 (0.4) must be above share0 (0.5)",
        ),
        (
            ["--vs", "hard", "--seats", "3"],
            "--seats 3: the candidate and 1 opponent fill 2 to 2 seats",
        ),
        (["--vs", "hard", "--alpha", "0.6"], "arena sprt: --alpha: "),
        (
            ["--vs", "./nowhere"],
            "arena sprt: participants[1].command: program './nowhere' not found",
        ),
        (
            ["--vs", "hard", "--", "./nowhere"],
            "arena sprt: the candidate's command: program './nowhere' not found",
        ),
    ],
)
def test_arena_sprt_refuses_bad_options_in_one_line(
    tmp_path: Path, arguments: list[str], message: str
) -> None:
    if "--" not in arguments:
        arguments = [*arguments, "--", sys.executable, "x.py"]
    done = _arena("sprt", *arguments, cwd=tmp_path)
    assert done.returncode == 2
    assert message in done.stderr and len(done.stderr.strip().splitlines()) == 1, done.stderr
    assert not (tmp_path / "replays").exists()


@pytest.mark.slow
def test_a_four_seat_gauntlet_tests_the_candidate_against_the_field(tmp_path: Path) -> None:
    participants = "".join(
        f'[[participants]]\nname = "{level}"\nbot = "{level}"\n'
        for level in ("random", "easy", "medium", "expert")
    )
    config = _config(
        tmp_path,
        participants,
        seats=4,
        candidate="expert",
        share0=0.25,
        share1=0.35,
        extra="minGroups = 5",  # (it decides at 9 groups: the default 20 would play 44 more)
    )
    done = _arena("run", str(config), "--jobs", "1", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert "H1 accepted: expert is better than random, easy and medium" in done.stdout
    document = _standings(tmp_path)
    assert document["sprt"]["matches"] == 4 * document["sprt"]["groups"]
    lines = [
        json.loads(line)
        for line in (tmp_path / "replays" / "results.jsonl").read_text().splitlines()
    ]
    assert all("expert" in line["seating"] for line in lines)
    assert {line["seating"].index("expert") for line in lines if line["group"] == 0} == {0, 1, 2, 3}
    assert {row["opponent"] for row in document["againstEach"]} == {"random", "easy", "medium"}


def test_arena_sprt_names_its_participants_from_their_programs_uniquely() -> None:
    from arena.ui.sprt_command import config_data, participant_name

    assert participant_name(["python3", "bots/my_bot.py"]) == "my_bot"
    assert participant_name(["./mybot", "--fast"]) == "mybot"
    data = config_data(
        ["python3", "hard.py"],
        ["hard", "hard", "node old.js"],
        seats=3,
        share0=None,
        share1=None,
        alpha=0.05,
        beta=0.05,
        min_groups=20,
        games=None,
        seed=None,
        name=None,
        replays="replays",
        timeout=2.0,
    )
    assert [p["name"] for p in data["participants"]] == ["hard", "hard-2", "hard-3", "old"]
    assert data["participants"][3]["command"] == ["node", "old.js"]
    assert data["sprt"]["share0"] == pytest.approx(1 / 3) and data["sprt"][
        "share1"
    ] == pytest.approx(1 / 3 + 0.05)
    assert data["tournament"] == {"seats": 3, "candidate": "hard"}


@pytest.mark.parametrize(("adjusted", "first"), [(False, 20), (True, NORMAL_MIN_GROUPS)])
def test_standings_json_says_when_the_test_can_first_decide(adjusted: bool, first: int) -> None:
    # The adjusted test (NormalTest) decides from NORMAL_MIN_GROUPS outcomes, not from the
    # configured 20: standings.json's minGroups is the floor the test applies.
    test = CandidateTest("cand", 2, Hypotheses(0.4, 0.6, min_groups=20), adjusted=adjusted)
    shown = test.as_json()
    assert shown is not None and shown["minGroups"] == first
