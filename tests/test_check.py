"""`arena check`: the reasons it gives for invalid replies, the situations it plays, and the
real command run against a good bot and a gallery of broken ones (`tests/checkbots/`)."""

from __future__ import annotations

import functools
import os
import re
import shutil
import signal
import stat
import subprocess
import sys
import time
import uuid
from pathlib import Path
from typing import Any

import pytest
from command import arena_here, said

from arena.base.config import LimitsSection
from arena.base.errors import ConfigError
from arena.bots import BOTS as BUILT_IN_BOTS
from arena.engine.cards import Card, new_pack
from arena.engine.match import NO_REPLY, Delivery, MatchSetup, play_out
from arena.engine.rules import Ask, NextPlayer, Refusal, Rules, verify_ask
from arena.referee import check, check_report, hints
from arena.referee.loop import play_match
from arena.seats.in_process import InProcessParticipant
from arena.seats.replies import Answer, Fault, FaultKind

ARENA = str(Path(sys.executable).parent / "arena")
ROOT = Path(__file__).parent.parent
BOTS = Path(__file__).parent / "checkbots"
PACK = new_pack(1, knights=False)
# id 18 is the 6 of hearts (rank 5); id 0 the ace of spades (rank 0); id 51 the king of clubs.
HAND: list[Card] = [PACK[18], PACK[0], PACK[51]]


# -- the reasons ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("reply", "kind", "words"),
    [
        (
            {"player": 1, "cardId": 5},
            "ask-card-not-in-hand",
            "cardId 5 is not the id of a card in your hand; it is the rank of your",
        ),
        ({"player": 1, "cardId": 13}, "ask-card-not-in-hand", "send its id 51"),
        ({"player": 0, "cardId": 18}, "ask-itself", "asks itself (you are seat 0)"),
        ({"player": 2, "cardId": 18}, "ask-player-not-a-seat", "seats are 0..1"),
        ({"player": -1, "cardId": 18}, "ask-player-not-a-seat", "player -1 is not a seat"),
        ({"player": "bob", "cardId": 18}, "ask-player-not-a-seat", 'got "bob"'),
        ({"player": True, "cardId": 18}, "ask-player-not-a-seat", "got true"),
        ({"cardId": 18}, "ask-no-player", "no `player` key"),
        ({"player": 1}, "ask-no-card-id", "no `cardId` key"),
        ({"Player": 1, "cardId": 18}, "ask-no-player", "write `player`, not `Player`"),
        ({"player": 1, "card_id": 18}, "ask-no-card-id", "write `cardId`, not `card_id`"),
        (
            {"player": 1, "CardID": 18},
            "ask-no-card-id",
            "case and all: write `cardId`, not `CardID`",
        ),
        ({"player": 1, "rank": "6"}, "ask-no-card-id", "never with a rank"),
        ({"player": 1, "cardId": 7}, "ask-card-not-in-hand", "ids: 18, 0, 51"),
        ({"player": 1, "cardId": "18"}, "ask-card-id-not-a-number", 'got "18"'),
        ({"player": 1, "cardId": dict(PACK[18])}, "ask-card-not-id", "send only its `id`"),
        ([1, 18], "ask-not-an-object", "got [1,18]"),
        (None, "ask-not-an-object", "got null"),
    ],
)
def test_an_invalid_ask_is_explained(reply: Any, kind: str, words: str) -> None:
    problem = verify_ask(reply, 0, 2, HAND)
    assert isinstance(problem, Refusal)
    assert problem.reason == kind
    assert words in problem.detail


@pytest.mark.parametrize(
    "reply", [{"player": 1, "cardId": 18}, {"player": 1.0, "cardId": 0.0, "why": "extra"}]
)
def test_a_valid_ask_has_no_problem(reply: Any) -> None:
    assert isinstance(verify_ask(reply, 0, 2, HAND), Ask)


def _judged(ask: Any, pond: Any) -> tuple[list[check.Problem], dict[int, Any]]:
    """A real match through the match loop, seat 0 answering every `ask` with `ask` and every
    pond message with `pond`: what `arena check` reports from its record, and seat 0's hand at
    each of its asks, by message number."""
    setup = MatchSetup.from_seed(3, ("you", "random-1"), Rules())

    def seat_0(message: Any) -> Any:
        return ask if message["type"] == "ask" else pond if "pond" in message else None

    random = BUILT_IN_BOTS["random"]().handle
    record = play_match(
        setup, [InProcessParticipant(seat_0), InProcessParticipant(random)], LimitsSection()
    )
    hands = {
        at: entry.message["hand"]
        for at, entry in enumerate(record.transcript)
        if entry.seat == 0 and entry.message["type"] == "ask"
    }
    return check.rule_problems(record), hands


def test_an_ask_is_judged_exactly_as_the_rules_judge_it() -> None:
    candidates = [None, 1, "x", [], {}, True]
    for player in [-1, 0, 1, 2, 1.0, 1.5, True, "1", None]:
        for card_id in [0, 5, 18, 18.0, 51, 52, 13, True, "18", None, dict(PACK[18])]:
            candidates.append({"player": player, "cardId": card_id})
    for reply in candidates:
        problems, hands = _judged(reply, 0)
        judged = {at: verify_ask(reply, 0, 2, hand) for at, hand in hands.items()}
        refused = {at: j.reason for at, j in judged.items() if isinstance(j, Refusal)}
        asks = {p.at: p.kind for p in problems if p.message_type == "ask"}
        assert asks == refused, reply


@pytest.mark.parametrize("reply", [0, 3, -1, 2.5, 10**20])
def test_a_number_is_a_pond_index(reply: Any) -> None:
    problems, _ = _judged({"player": 5, "cardId": -1}, reply)
    assert [p for p in problems if p.message_type != "ask"] == []


@pytest.mark.parametrize("reply", ["3", None, True, [0], {"index": 0}])
def test_anything_else_is_not_a_pond_index(reply: Any) -> None:
    problems, _ = _judged({"player": 5, "cardId": -1}, reply)
    pond = [p for p in problems if p.message_type != "ask"]
    assert pond, reply
    for problem in pond:
        assert problem.kind == FaultKind.BAD_POND_INDEX == "bad-pond-index"
        assert problem.message_type in ("go-fish", "pick-up")
        assert "counts as 0" in problem.why


def test_a_relative_program_is_resolved_against_the_working_folder(tmp_path: Path) -> None:
    (tmp_path / "bots").mkdir()
    program = tmp_path / "bots" / "bot"
    program.write_text("#!/bin/sh\n")
    program.chmod(program.stat().st_mode | stat.S_IXUSR)
    assert check.resolve_command(["bots/bot", "--fast"], tmp_path) == [str(program), "--fast"]
    assert check.resolve_command(["python3", "x.py"], tmp_path) == ["python3", "x.py"]
    with pytest.raises(ConfigError, match="not executable"):
        program.chmod(0o644)
        check.resolve_command(["bots/bot"], tmp_path)
    with pytest.raises(ConfigError, match="not found"):
        check.resolve_command(["./missing"], tmp_path)
    with pytest.raises(ConfigError, match="no command"):
        check.resolve_command([], tmp_path)


# -- the situations ---------------------------------------------------------------------------


def checked_seat_messages(scenario: check.Scenario) -> list[dict[str, Any]]:
    """What the checked program's seat is sent when every seat plays the checker's random
    opponent."""
    players = [BUILT_IN_BOTS["random"]() for _ in scenario.setup.names]
    sent = []

    def keep(delivery: Delivery, reply: Any) -> None:
        if delivery.seat == scenario.seat:
            sent.append(delivery.message)

    result = play_out(scenario.setup, players, keep)
    assert result.outcome == "completed", scenario.name
    return sent


SCENARIOS = {scenario.name: scenario for scenario in check.scenarios(LimitsSection())}


def test_the_scenarios_are_the_ones_announced() -> None:
    assert list(SCENARIOS) == [
        "normal match",
        "empty pond",
        "several decks",
        "knights",
        "empty hands",
        "family rules",
        "unknown message",
    ]
    assert [s.unknown_message for s in SCENARIOS.values()] == [False] * 6 + [True]


def test_the_empty_pond_scenario_asks_with_an_empty_pond() -> None:
    asks = [m for m in checked_seat_messages(SCENARIOS["empty pond"]) if m["type"] == "ask"]
    assert asks and all(m["pond"] == [] for m in asks)


def test_the_several_decks_scenario_deals_duplicate_cards_to_four_seats() -> None:
    sent = checked_seat_messages(SCENARIOS["several decks"])
    assert len(sent[0]["players"]) == 4  # the family rules have 3: every table size to 4 is met
    assert sent[0]["seat"] == 3 and sent[0]["players"][3]["name"] == "you"  # not seat 0
    decks = {card["deck"] for m in sent if m["type"] == "ask" for card in m["hand"]}
    assert decks == {0, 1, 2}
    assert max(card["id"] for m in sent if m["type"] == "ask" for card in m["hand"]) > 104


def test_the_knights_scenario_shows_knights() -> None:
    sent = checked_seat_messages(SCENARIOS["knights"])
    assert sent[0]["settings"]["deck"]["knights"] is True
    assert any(card["rank"] == 11 for m in sent if "hand" in m for card in m["hand"])


def test_the_empty_hands_scenario_picks_up_before_the_first_ask() -> None:
    sent = checked_seat_messages(SCENARIOS["empty hands"])
    types = [m["type"] for m in sent]
    assert sent[1] == {"type": "starting-hand", "hand": []}
    assert types.index("pick-up") < types.index("ask")
    assert any(0 in m["opponentsHandSizes"] for m in sent if m["type"] == "ask")


def test_the_family_rules_scenario_sends_lucky_draws_and_refills_an_empty_hand() -> None:
    sent = checked_seat_messages(SCENARIOS["family rules"])
    rules = sent[0]["settings"]["rules"]
    assert rules["luckyDraw"] is True and rules["nextPlayer"] == "After asker"
    assert rules["startingHandSize"] == 5 and len(sent[0]["players"]) == 3
    types = [m["type"] for m in sent]
    assert "lucky-draw" in types and "pick-up" in types
    # Before seat 0's first decision: a program meets `lucky-draw` however it plays.
    first = min(types.index(kind) for kind in ("ask", "go-fish", "pick-up") if kind in types)
    assert "lucky-draw" in types[:first]


@pytest.mark.parametrize(
    ("next_player", "loud"), [(NextPlayer.CLOCKWISE, True), (NextPlayer.ASKED, False)]
)
def test_the_stalled_note_says_loudly_what_clockwise_means(
    next_player: NextPlayer, loud: bool
) -> None:
    note = hints.stalled_note(Rules(next_player=next_player))
    assert note.startswith("stalled: 100 asks in a row moved no card")
    assert ("AFTER THE ONE ASKED" in note) is loud


@pytest.mark.parametrize(
    ("next_player", "seats", "told"),
    [(NextPlayer.ASKED, 3, True), (NextPlayer.ASKED, 2, False), (NextPlayer.AFTER_ASKER, 4, False)],
)
def test_the_stalled_note_says_how_two_seats_keep_the_turn_from_a_third(
    next_player: NextPlayer, seats: int, told: bool
) -> None:
    # A season of the example bots at 3 seats: 74 of 120 matches stalled under "Asked" (two of
    # them asking each other for ranks they lack, the third never asking), none under "After
    # asker".
    note = hints.stalled_note(Rules(next_player=next_player), seats)
    assert ('"After asker" passes it round the table' in note) is told


def test_a_stalled_check_shows_its_note() -> None:
    from rich.console import Console

    stalled = check.ScenarioReport(
        "several decks", "3 decks", outcome="stalled", note="stalled: why"
    )
    console = Console(width=200, record=True, color_system=None)
    for part in check_report.render(check.CheckReport(["bot"], [stalled])):
        console.print(part)
    assert "stalled: why" in console.export_text()


@pytest.mark.parametrize(("seconds", "warned"), [(7.8, True), (4.0, False)])
def test_a_start_up_near_its_limit_is_a_warning(seconds: float, warned: bool) -> None:
    # A Rust bot's debug build built its tables in 7.8 s of the 10: it passed, and would time
    # out at init on a tournament's busier machine.
    started = check.ScenarioReport("normal match", "2 seats", startup=seconds)
    report = check.CheckReport(["bot"], [started], startup_limit=10.0)
    text = " ".join(str(getattr(part, "plain", "")) for part in check_report.render(report))
    assert f"({seconds * 10:.0f}% of the 10 s limit)" in text
    assert ("warning: the start-up took 78% of its limit" in text) is warned
    assert ("cargo build --release" in text) is warned


@pytest.mark.parametrize(("kind", "code", "told"), [("hand-update", 0, True), ("ask", 1, False)])
def test_a_program_that_leaves_mid_match_is_told_to_read_on(
    kind: str, code: int, told: bool
) -> None:
    # A Rust bot's loop returned after its first hand-update, exit status 0: no crash to see.
    ended = Fault(FaultKind.EXITED, f"process ended (exit code {code})", exit_code=code)
    [problem] = check.answer_problems({"type": kind}, Answer(NO_REPLY, fault=ended), 5)
    assert problem.kind == ("exited" if code == 0 else "crashed")
    assert ("it left in the middle of the match: read a line, answer it" in problem.why) is told


def test_a_reply_without_its_newline_is_told_that_and_only_that() -> None:
    # A Rust bot's write!(out, "{}", reply) instead of writeln!: no time limit would help it.
    late = Fault(
        FaultKind.TIMEOUT,
        "no reply line within 10 s; stopped for the rest of the match; 4 bytes came without a "
        "newline: end each reply with one",
        raw="null",
    )
    [problem] = check.answer_problems({"type": "init"}, Answer(NO_REPLY, fault=late), 0)
    assert problem.why.endswith("4 bytes came without a newline: end each reply with one")


def test_init_tells_the_limits_of_the_check() -> None:
    limits = LimitsSection(reply_timeout=0.25, startup_timeout=3)
    init = checked_seat_messages(check.scenarios(limits)[0])[0]
    assert init["settings"]["limits"]["replyTimeout"] == 0.25
    assert init["settings"]["limits"]["startupTimeout"] == 3


# -- the command, for real ----------------------------------------------------------------------


@functools.cache
def run_check(*argv: str, cwd: Path = ROOT) -> subprocess.CompletedProcess[str]:
    env = {
        **os.environ,
        "COLUMNS": "400",
    }  # wide enough that no reason is wrapped, however long the examples
    return arena_here("check", *argv, cwd=cwd, env=env)  # a traceback would fail here


def bot(name: str, *options: str) -> subprocess.CompletedProcess[str]:
    return run_check(*options, "--", "python3", f"tests/checkbots/{name}.py")


def own_copy(name: str, folder: Path) -> Path:
    """checkbots/NAME.py (and good.py, which some import) in a folder of this test's own, named
    nowhere else: `survivors` of it are this test's, never another's beside it (pytest-xdist)."""
    own = folder / f"bots-{uuid.uuid4().hex}"
    own.mkdir()
    for file in {f"{name}.py", "good.py"}:
        shutil.copy(ROOT / "tests" / "checkbots" / file, own / file)
    return own / f"{name}.py"


def own_bot(name: str, folder: Path, *options: str) -> tuple[subprocess.CompletedProcess[str], str]:
    """`bot(name, *options)` on an own copy (`own_copy`), and what its `survivors` are found by."""
    copy = own_copy(name, folder)
    return run_check(*options, "--", "python3", str(copy)), str(copy.parent)


def survivors(path: str, grace: float = 5.0) -> list[int]:
    """Processes still running whose command line mentions `path`, once those killed as the
    check ended have had `grace` seconds to be gone (a SIGKILL is not an exit: the kernel
    takes its moment, which a check run in this process no longer spends exiting)."""
    deadline = time.monotonic() + grace
    while (found := _running(path)) and time.monotonic() < deadline:
        time.sleep(0.05)
    return found


def _running(path: str) -> list[int]:
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit() and int(entry.name) != os.getpid():
            try:
                if path.encode() in (entry / "cmdline").read_bytes():
                    found.append(int(entry.name))
            except OSError:
                continue
    return found


def row(output: str, check_name: str) -> str:
    """The table row of one check."""
    return next(line for line in output.splitlines() if line.startswith(f"│ {check_name} "))


def test_a_good_bot_passes_every_check(tmp_path: Path) -> None:
    done, marker = own_bot("good", tmp_path)
    assert done.returncode == 0, done.stdout
    for name in SCENARIOS:
        assert "│ passed │" in row(done.stdout, name)
    assert "outcome: completed" in done.stdout
    assert "start-up (spawn to init reply): " in done.stdout
    assert "% of the 10 s limit)   reply latency: median " in done.stdout
    assert "invalid replies" not in done.stdout
    assert "PASS: all 7 checks passed" in done.stdout
    assert survivors(marker) == []


def test_garbage_fails_with_not_json() -> None:
    done = bot("garbage")
    assert done.returncode == 1
    assert "not-json" in done.stdout
    assert "ok, got it" in done.stdout
    assert "FAIL: 7 of 7 checks failed" in done.stdout


def test_a_silent_bot_times_out_and_the_rest_is_skipped(tmp_path: Path) -> None:
    silent = own_copy("silent", tmp_path)
    started = time.monotonic()
    done = run_check("--timeout", "0.3", "--startup-timeout", "0.5", "--", "python3", str(silent))
    assert time.monotonic() - started < 10
    assert done.returncode == 1
    assert "│ failed " in row(done.stdout, "normal match")
    assert "no reply line within 0.5 s, and it was stopped (still running)" in done.stdout
    # Tried again, it answered neither a flood of messages nor the end of its input, and
    # then exited: it never writes its replies to stdout.
    said = " ".join(done.stdout.split())
    assert "it wrote nothing to stdout at all: it read its input to the end and exited" in said
    assert "flush" not in done.stdout
    assert "the arena stopped the program after its timeout; it had not ended" in done.stdout
    assert "│ skipped │" in row(done.stdout, "knights")
    assert "start-up (spawn to init reply): -" in done.stdout
    assert survivors(str(silent.parent)) == []


def test_a_crash_after_init_is_reported_with_its_stderr() -> None:
    done = bot("crash_after_init", "--timeout", "1")
    assert done.returncode == 1
    assert "#2 starting-hand" in done.stdout
    assert "crashed" in done.stdout and "process ended (exit code 1) before replying" in done.stdout
    assert "stderr of the program, last lines (normal match):" in done.stdout
    assert "KeyError: 'cards'" in done.stdout


def test_asking_with_ranks_is_named_as_such() -> None:
    done = bot("ranks")
    assert done.returncode == 1
    assert "ask-card-not-in-hand" in done.stdout and "ask-rank-not-id" not in done.stdout
    assert (
        "it is the rank of your" in done.stdout
        and "to ask for that rank, send its id" in done.stdout
    )


def test_debug_prints_on_stdout_are_reported() -> None:
    done = bot("debug_prints")
    assert done.returncode == 1
    assert "not-json" in done.stdout and "thinking about" in done.stdout
    assert "unsolicited-output" in done.stdout
    assert "debug prints go to stderr" in done.stdout


def test_asking_itself_is_reported() -> None:
    done = bot("asks_itself")
    assert done.returncode == 1
    assert "ask-itself" in done.stdout and "asks itself (you are seat 0)" in done.stdout
    # What it wrote to stderr while answering is shown beside the problem (its notes).
    assert "its notes" in done.stdout
    assert "asking seat 0, the one with the most" in " ".join(done.stdout.split())


def test_a_string_pond_index_is_reported() -> None:
    done = bot("pond_string")
    assert done.returncode == 1
    assert "bad-pond-index" in done.stdout
    assert "│ passed │" in row(done.stdout, "empty pond")  # no draw there: nothing to get wrong


def test_a_bot_that_chokes_on_an_unknown_message_fails_that_check_and_the_family_rules() -> None:
    done = bot("strict_types")
    assert done.returncode == 1
    assert "│ failed " in row(done.stdout, "unknown message")
    assert "#2 future-message" in done.stdout  # numbered from 0 across seats, as replay show does
    assert "unknown message type future-message" in done.stdout
    # The family rules send `lucky-draw`, a type a bot written for the reference does not know.
    assert "│ failed " in row(done.stdout, "family rules")
    assert "FAIL: 2 of 7 checks failed" in done.stdout


@pytest.mark.skipif(shutil.which("node") is None, reason="needs Node.js")
def test_a_bot_that_throws_on_lucky_draw_fails_the_family_rules_however_it_plays() -> None:
    # It plays every ask validly, so it meets `lucky-draw` only because the scenario's deal
    # shows one to every seat before seat 0 decides anything.
    done = run_check("--", "node", "tests/checkbots/unknown_type.js")
    assert done.returncode == 1
    assert "│ failed " in row(done.stdout, "family rules")
    assert "lucky-draw" in done.stdout
    assert "answer null to any type you do not know" in done.stdout
    # Node writes the error line first and the stack after it: the frames are folded.
    assert "Error: unknown message lucky-draw" in done.stdout
    assert "more stack lines" in done.stdout
    assert "FAIL: 2 of 7 checks failed" in done.stdout


def test_a_relative_program_path_runs_from_the_working_folder(tmp_path: Path) -> None:
    (tmp_path / "sub").mkdir()
    program = tmp_path / "sub" / "good.py"
    program.write_text(f"#!{sys.executable}\n" + (BOTS / "good.py").read_text())
    program.chmod(0o755)
    done = run_check("--timeout", "1", "--", "sub/good.py", cwd=tmp_path)
    assert done.returncode == 0, done.stdout


@pytest.mark.parametrize(
    ("argv", "words"),
    [
        ((), "Missing argument"),
        (("--",), "Missing argument"),
        (("--", "no-such-program-here"), "program 'no-such-program-here' not found on PATH"),
        (("--", "./no-such-file.py"), "not found"),
        (("--timeout", "0", "--", "python3"), "is not a number above 0"),
    ],
)
def test_a_usage_error_exits_2(argv: tuple[str, ...], words: str) -> None:
    done = run_check(*argv)
    assert done.returncode == 2
    assert words in done.stderr


def test_a_child_the_bot_leaves_behind_is_stopped_with_it(tmp_path: Path) -> None:
    forks = own_copy("forks_a_child", tmp_path)
    done = run_check("--", "python3", str(forks))
    assert done.returncode == 0, done.stdout
    assert survivors(str(forks.parent)) == []


# -- one vocabulary ------------------------------------------------------------------------------


def test_a_discarded_line_shows_its_newline_as_backslash_n() -> None:
    done = bot("debug_prints")
    assert done.returncode == 1
    # Which lines were waiting when a message was due depends on timing; each row shows them
    # with every newline as `\n` (never as `?`, nor as a line break in the cell).
    rows = [line for line in done.stdout.splitlines() if "unsolicited-output" in line]
    assert rows
    for row in rows:
        assert re.search(r"(thinking about \d+ cards|null|\}|\d)\\n", row), row
        assert "?" not in row, row


def test_skipped_checks_are_not_counted_as_failed() -> None:
    done = bot("silent", "--timeout", "0.3", "--startup-timeout", "0.5")
    assert "FAIL: 1 of 7 checks failed, 6 not run after it" in done.stdout


def test_one_reply_is_one_reply() -> None:
    from arena.referee import check as check_module

    scenario = check_module.ScenarioReport("normal match", "2 seats", latencies=[0.001])
    report = check_module.CheckReport(["bot"], [scenario])
    text = " ".join(str(getattr(part, "plain", "")) for part in check_report.render(report))
    assert "over 1 reply" in text and "over 1 replies" not in text


def test_a_bare_file_name_gets_the_dot_slash_it_needs() -> None:
    done = run_check("--", "ranks.py", cwd=ROOT / "tests" / "checkbots")
    assert done.returncode == 2
    assert done.stderr.strip() == (
        "program 'ranks.py' not found on PATH; to run the file ranks.py here, write `./ranks.py` "
        "(executable, with a #! line) or `python3 ranks.py`"
    )


def test_piped_output_does_not_cut_names_at_80_columns() -> None:
    env = {key: value for key, value in os.environ.items() if key != "COLUMNS"}
    done = subprocess.run(
        [ARENA, "check", "--", "python3", "tests/checkbots/ranks.py"],
        capture_output=True,
        text=True,
        cwd=ROOT,
        env=env,
        timeout=60,
        check=False,
    )
    assert max(len(line) for line in done.stdout.splitlines()) > 80
    assert "│ ask-card-not-in-hand │" in done.stdout


def test_a_bot_that_asks_for_reuse_plays_a_second_match_in_the_same_process(tmp_path: Path) -> None:
    done, marker = own_bot("reuse_good", tmp_path)
    assert done.returncode == 0, done.stdout
    assert "│ passed " in row(done.stdout, "reuse")
    assert "PASS: all 8 checks passed" in done.stdout
    assert survivors(marker) == []


def test_keeping_the_first_match_in_a_reused_process_is_caught(tmp_path: Path) -> None:
    done, marker = own_bot("reuse_stale", tmp_path)
    assert done.returncode == 1
    assert "│ failed " in row(done.stdout, "reuse")
    assert "kept-state" in done.stdout and "start afresh at every `init`" in done.stdout
    assert "│ passed " in row(done.stdout, "normal match")  # one match at a time, it is fine
    assert survivors(marker) == []


@pytest.mark.slow
def test_a_bot_that_asks_for_reuse_then_ends_anyway_gets_a_warning_as_arena_run_treats_it(
    tmp_path: Path,
) -> None:
    # `arena run` plays a match whose kept process is found gone at `init` again with a fresh
    # process: no fault. The check says the same, whether or not the loop saw the exit in time.
    done, marker = own_bot("reuse_then_exit", tmp_path)
    assert done.returncode == 0, done.stdout
    assert "│ passed " in row(done.stdout, "reuse")
    assert "but ended after match-end" in done.stdout and "reuse = True" in done.stdout
    assert "PASS: all 8 checks passed" in done.stdout
    assert survivors(marker) == []


def test_python_values_printed_instead_of_json_are_named_as_such() -> None:
    done = bot("python_repr")
    assert done.returncode == 1
    # The same fault in every check: one row that says so, not seven.
    assert re.search(r"│ all 7 checks +│ #0 init +│ not-json +│ None +│", done.stdout)
    assert done.stdout.count("not-json") == 1
    assert "that is how Python prints a value: write json.dumps(value)" in done.stdout  # unwrapped


def test_leaving_at_match_end_without_a_reply_is_a_warning_not_a_failed_check() -> None:
    # The match was played to its end: every check runs and passes, each with one line of
    # warning naming the missing reply (arena run counts no fault for it either).
    done = bot("quiet_at_match_end")
    assert done.returncode == 0, done.stdout
    assert "not run" not in done.stdout and "did not finish" not in done.stdout
    assert "outcome: completed" in done.stdout
    assert done.stdout.count("match-end wants a reply too (null), then exit") == 7
    assert done.stdout.count("warning: ended at match-end without replying") == 7
    assert "PASS: all 7 checks passed" in done.stdout


def test_a_bot_that_reads_to_the_end_of_its_input_is_asked_whether_it_does(tmp_path: Path) -> None:
    done, marker = own_bot("reads_to_the_end", tmp_path, "--startup-timeout", "0.5")
    assert done.returncode == 1
    said = " ".join(done.stdout.split())
    assert (
        "no reply line within 0.5 s, and it was stopped (still running): it answers only "
        "once its input has ended: it reads all of stdin before replying"
    ) in said
    assert "holds its replies in a buffer" not in done.stdout
    assert survivors(marker) == []


def test_a_bot_that_reckons_its_opponent_as_one_minus_its_seat_fails_on_the_last_seat() -> None:
    done = bot("one_minus_seat")
    assert done.returncode == 1
    assert "│ passed " in row(done.stdout, "normal match")  # seat 0 of two: 1 - 0 is a seat
    assert "│ failed " in row(done.stdout, "several decks")
    assert "player -2 is not a seat (seats are 0..3)" in done.stdout


def test_a_bot_written_for_three_seats_at_most_fails_at_the_four_seat_table() -> None:
    done = bot("three_seats_at_most")
    assert done.returncode == 1
    assert "│ failed " in row(done.stdout, "several decks")
    assert "│ passed " in row(done.stdout, "family rules")  # three seats: fine
    assert "AssertionError: written for 2 or 3 players" in done.stdout


@pytest.mark.parametrize(("stop", "status"), [(signal.SIGINT, 130), (signal.SIGTERM, 143)])
def test_a_check_stopped_by_a_signal_says_interrupted_without_a_traceback(
    stop: signal.Signals, status: int, tmp_path: Path
) -> None:
    silent = own_copy("silent", tmp_path)
    checking = subprocess.Popen(
        [ARENA, "check", "--", "python3", str(silent)],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    # Inside the normal match (the program never answers its init): once the program runs,
    # the check has its handlers, however long a busy machine took to start it.
    deadline = time.monotonic() + 60
    while not set(_running(str(silent.parent))) - {checking.pid} and time.monotonic() < deadline:
        time.sleep(0.05)
    time.sleep(0.2)
    checking.send_signal(stop)
    out, err = checking.communicate(timeout=30)
    assert checking.returncode == status, (out, err)
    assert said(err) == ["interrupted"]
    assert survivors(str(silent.parent)) == []


def test_a_bot_that_does_not_ask_for_reuse_gets_no_reuse_check() -> None:
    assert "reuse" not in bot("good").stdout


# -- what the sandbox held (issue 41) -------------------------------------------------------


def _reading_bot(tmp_path: Path) -> tuple[Path, Path]:
    """A folder with `bot.py` (the Python example) that reads a file of a folder beside it at
    start (`../data/table.txt`, a path its command does not name); and that other folder."""
    data, folder = tmp_path / "data", tmp_path / "bot"
    data.mkdir()
    folder.mkdir()
    (data / "table.txt").write_text("weights\n")
    example = (ROOT / "participants" / "examples" / "most_held.py").read_text()
    (folder / "bot.py").write_text(
        example.replace(
            "    main()\n", f"    open({str(data / 'table.txt')!r}).read()\n    main()\n"
        )
    )
    return folder, data


@pytest.mark.needs("bwrap")
def test_a_file_the_sandbox_did_not_hold_is_named_with_how_to_add_it(tmp_path: Path) -> None:
    folder, data = _reading_bot(tmp_path)
    args = ["python3", "bot/bot.py"]
    refused = arena_here("check", "--sandbox", "bwrap", "--", *args, cwd=tmp_path)
    assert refused.returncode == 1, refused.stdout
    [hint] = [line for line in refused.stdout.splitlines() if line.startswith("in the sandbox:")]
    assert f"{folder} and the system's folders, nothing else of {tmp_path};" in hint, hint
    assert "--read-only PATH" in hint and 'readOnly = ["PATH"]' in hint, hint
    allowed = arena_here(
        "check", "--sandbox", "bwrap", "--read-only", "data", "--", *args, cwd=tmp_path
    )
    assert allowed.returncode == 0, allowed.stdout
    assert f"it may also read {data}" in allowed.stdout.splitlines()[0]


def test_a_read_only_path_that_is_not_there_is_one_line(tmp_path: Path) -> None:
    done = arena_here("check", "--read-only", "gone", "--", "python3", "x.py", cwd=tmp_path)
    assert done.returncode == 2 and done.stdout == ""
    assert said(done.stderr) == [f"--read-only: 'gone' not found (looked for {tmp_path / 'gone'})"]


# -- why a program did not reply, named (issue 41) -------------------------------------------


def _rust(name: str, folder: Path) -> Path:
    """The Rust bot `name` of the check bots, built with rustc into `folder` (skipped without
    rustc)."""
    rustc = shutil.which("rustc")
    if rustc is None:
        pytest.skip("needs rustc")
    binary = folder / f"{name}-{uuid.uuid4().hex[:8]}"
    subprocess.run(
        [rustc, "-O", "-o", str(binary), str(BOTS / f"{name}.rs")],
        check=True,
        capture_output=True,
        timeout=300,
    )
    return binary


def _first_problem(stdout: str) -> str:
    """The problems table's first row, its wrapped cells joined: what the reader reads first."""
    table = stdout[stdout.index("invalid replies (first of each kind)") :]
    return " ".join(table.split())


@pytest.mark.parametrize(
    ("name", "cause", "not_said"),
    [
        ("buffered", "it answers, but holds its replies in a buffer", "reads all of stdin"),
        ("reads_to_the_end", "it answers only once its input has ended", "in a buffer"),
    ],
)
def test_a_rust_bot_that_never_replies_is_told_why_it_does_not(
    tmp_path: Path, name: str, cause: str, not_said: str
) -> None:
    # The two print the same nothing: started again and tried two ways, each shows its cause.
    program = _rust(name, tmp_path)
    done = run_check("--startup-timeout", "0.5", "--", str(program))
    assert done.returncode == 1
    said = _first_problem(done.stdout)
    assert f"no reply line within 0.5 s, and it was stopped (still running): {cause}" in said
    assert not_said not in said and "several causes remain" not in said
    assert "the program ended or was stopped" not in done.stdout  # it never ended
    assert "the arena stopped the program after its timeout; it had not ended" in done.stdout
    assert survivors(str(program)) == []


def test_a_python_bot_whose_replies_wait_in_a_buffer_is_told_to_flush(tmp_path: Path) -> None:
    own = tmp_path / "buffered.py"
    own.write_text(
        "import sys\nout = open(1, 'w', buffering=1 << 16)\n"
        "for line in sys.stdin:\n    out.write('null\\n')\n"
    )
    done = run_check("--startup-timeout", "0.5", "--", "python3", str(own))
    assert done.returncode == 1
    assert "it answers, but holds its replies in a buffer" in _first_problem(done.stdout)


def test_a_java_bot_silent_at_an_informational_message_is_told_it_wants_null(
    tmp_path: Path,
) -> None:
    java = shutil.which("java")
    if java is None:
        pytest.skip("needs Java")
    shutil.copy(BOTS / "OnlyDecisions.java", tmp_path)
    done = run_check(
        "--timeout", "0.5", "--", java, str(tmp_path / "OnlyDecisions.java"), cwd=tmp_path
    )
    assert done.returncode == 1
    said = _first_problem(done.stdout)
    # The first thing said of the timeout is the cause the transcript shows.
    assert (
        "no reply line within 0.5 s, and it was stopped (still running): it answered 1 message "
        "before, but not this `starting-hand`, which only informs: every message wants one reply "
        "line, `null` for those that need no decision"
    ) in said
