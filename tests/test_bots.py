"""The built-in bots (arena/bots/) and the standalone participant scripts.

Bots play real matches on the arena's engine, in-process through `Bot.handle` and as real
subprocesses over pipes; both forms must give the very same replies.
"""

from __future__ import annotations

import ast
import json
import os
import queue
import random
import shutil
import subprocess
import sys
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest
from command import arena_here
from hypothesis import given, settings
from hypothesis import strategies as st

from arena.bots import BOTS, HardBot, main
from arena.bots.master import MasterBot
from arena.engine.match import MatchSetup, Outcome, Result, play_out
from arena.engine.rules import NextPlayer, Rules

ROOT = Path(__file__).resolve().parent.parent
PARTICIPANTS = ROOT / "participants"
LEVELS = sorted(BOTS)

Transcript = list[tuple[int, dict[str, Any], Any]]


def play_in_process(
    levels: Sequence[str], seed: int, rules: Rules | None = None, *, worlds: int | None = None
) -> tuple[Result, Transcript]:
    """One match, a fresh bot per seat, every message answered by `Bot.handle`; `master`
    searches `worlds` determinisations an ask where given (its budget; 40 by default)."""
    bots = [
        MasterBot(worlds=worlds) if level == "master" and worlds else BOTS[level]()
        for level in levels
    ]
    names = [f"{level}{seat}" for seat, level in enumerate(levels)]
    transcript: Transcript = []
    result = play_out(
        MatchSetup.from_seed(seed, names, rules or Rules()),
        bots,
        lambda delivery, reply: transcript.append((*delivery, reply)),
    )
    return result, transcript


def assert_every_decision_is_valid(transcript: Transcript, seats: int) -> None:
    for seat, message, reply in transcript:
        kind = message["type"]
        if kind == "ask":
            assert set(reply) == {"player", "cardId"}, reply
            assert type(reply["player"]) is int and type(reply["cardId"]) is int
            assert reply["player"] != seat and 0 <= reply["player"] < seats, (seat, reply)
            assert reply["cardId"] in {card["id"] for card in message["hand"]}, (message, reply)
        elif kind in ("go-fish", "pick-up"):
            size = len(message["pond"]) if kind == "go-fish" else message["pond"]
            assert type(reply) is int and 0 <= reply < size, (message, reply)
        elif kind == "init":
            assert reply is None  # the built-in bots do not ask to be reused
        else:
            assert reply is None, (kind, reply)


# --- in-process -------------------------------------------------------------------------


@pytest.mark.parametrize("level", LEVELS)
def test_each_level_plays_valid_asks_to_the_end_of_a_classic_match(level: str) -> None:
    for seed in range(8):
        result, transcript = play_in_process([level, "easy"] if seed % 2 else ["easy", level], seed)
        assert result.outcome is Outcome.COMPLETED
        assert sum(result.scores) == 13
        assert_every_decision_is_valid(transcript, 2)
        assert sum(1 for _, m, _ in transcript if m["type"] == "ask") > 0


@settings(max_examples=60, deadline=None)
@given(
    seed=st.integers(0, 2**32 - 1),
    levels=st.lists(st.sampled_from(LEVELS), min_size=2, max_size=5),
    decks=st.integers(1, 3),
    knights=st.booleans(),
    hand=st.integers(0, 12),
    min_hand=st.integers(0, 6),
    next_player=st.sampled_from(list(NextPlayer)),
)
def test_every_level_asks_validly_and_finishes_under_any_rules(
    seed: int,
    levels: list[str],
    decks: int,
    knights: bool,
    hand: int,
    min_hand: int,
    next_player: NextPlayer,
) -> None:
    pack = decks * 4 * (14 if knights else 13)
    rules = Rules(
        starting_hand_size=min(hand, pack // len(levels)),
        min_hand_size=min_hand,
        next_player=next_player,
        number_of_decks=decks,
        knights=knights,
    )
    # `master` on a fifth of its budget: the same search, over fewer sampled worlds.
    result, transcript = play_in_process(levels, seed, rules, worlds=8)
    assert_every_decision_is_valid(transcript, len(levels))
    # Bots that only make valid asks never stall a match: every card ends in a book.
    assert result.outcome is Outcome.COMPLETED
    assert sum(result.scores) == pack // 4


@pytest.mark.parametrize("level", LEVELS)
def test_a_match_replays_identically_whatever_the_global_random_state(level: str) -> None:
    random.seed(1)
    first = play_in_process([level, level, "random"], 99)
    random.seed(2)
    for _ in range(5):
        random.random()
    second = play_in_process([level, level, "random"], 99)
    assert first == second


@pytest.mark.parametrize("level", ["random", "easy", "medium", "hard"])
def test_randomised_levels_play_differently_on_different_deals(level: str) -> None:
    replies = {
        str([r for _, m, r in play_in_process([level, level], seed)[1] if m["type"] == "ask"])
        for seed in range(4)
    }
    assert len(replies) == 4


def tally(first: str, second: str, games: int, seed: int) -> tuple[int, int, int, int]:
    """Wins and books of `first` and `second` over seeded 2-seat matches, seats alternating."""
    wins = [0, 0]
    books = [0, 0]
    for i in range(games):
        levels = [first, second] if i % 2 == 0 else [second, first]
        scores = play_in_process(levels, seed + i)[0].scores
        mine, theirs = (scores[0], scores[1]) if i % 2 == 0 else (scores[1], scores[0])
        books[0] += mine
        books[1] += theirs
        wins[0 if mine > theirs else 1] += 1  # 13 books: never a tie at two seats
    return wins[0], wins[1], books[0], books[1]


def test_hard_beats_easy_in_wins_and_books() -> None:
    hard_wins, easy_wins, hard_books, easy_books = tally("hard", "easy", 200, 1)
    assert hard_wins > easy_wins and hard_books > easy_books


def test_expert_beats_hard() -> None:
    # At two seats expert's edge (0.539 over 4,000 games) is within the noise of a few hundred;
    # at four seats (0.75 in bench/bot_strength.py) it is not.
    expert_wins = hard_wins = 0
    for i in range(150):
        levels = ["expert", "hard"] * 2 if i % 2 == 0 else ["hard", "expert"] * 2
        scores = play_in_process(levels, 1 + i)[0].scores
        best = {
            level: max(s for s, lv in zip(scores, levels, strict=True) if lv == level)
            for level in levels
        }
        expert_wins += best["expert"] > best["hard"]
        hard_wins += best["hard"] > best["expert"]
    assert expert_wins > 1.5 * hard_wins


def test_bots_see_only_what_the_sdk_gives_them() -> None:
    """arena/bots/ imports the SDK, its own modules and the standard library, never the engine;
    and `arena.core`, for master's compiled rollouts only: a pure function of the world the bot
    sampled itself (tests/test_core.py holds it to simulator.rollouts_in_python)."""
    for path in sorted((ROOT / "arena" / "bots").glob("*.py")):
        tree = ast.parse(path.read_text())
        imported = {
            alias.name
            for node in ast.walk(tree)
            if isinstance(node, ast.Import)
            for alias in node.names
        } | {node.module or "" for node in ast.walk(tree) if isinstance(node, ast.ImportFrom)}
        arena_modules = {name for name in imported if name.split(".")[0] == "arena"}
        assert arena_modules <= {
            "arena.sdk",
            "arena.bots",
            "arena.bots.master",
            "arena.bots.simulator",
            "arena.core",
        }
        assert all(
            name.split(".")[0] in sys.stdlib_module_names | {"arena", "__future__"}
            for name in imported
        )


def test_main_refuses_an_unknown_level(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["grandmaster"]) == 2
    assert "usage: python -m arena.bots" in capsys.readouterr().err
    assert main([]) == 2


# --- over real pipes --------------------------------------------------------------------


class Piped:
    """A participant process fed one line per message, read back with a deadline."""

    def __init__(self, command: Sequence[str]) -> None:
        env = {
            "PATH": os.environ.get("PATH", ""),
            "PYTHONUNBUFFERED": "1",
        }  # no PYTHONPATH: standalone
        self.process = subprocess.Popen(
            list(command),
            cwd=ROOT,
            env=env,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            encoding="utf-8",
            start_new_session=True,
        )
        self.lines: queue.Queue[str | None] = queue.Queue()
        self.errors: list[str] = []
        self.threads = [
            threading.Thread(target=self._read, daemon=True),
            threading.Thread(target=self._drain, daemon=True),
        ]
        for thread in self.threads:
            thread.start()

    def _read(self) -> None:
        assert self.process.stdout is not None
        for line in self.process.stdout:
            self.lines.put(line)
        self.lines.put(None)

    def _drain(self) -> None:
        assert self.process.stderr is not None
        self.errors.extend(self.process.stderr)

    def handle(self, message: dict[str, Any]) -> Any:
        assert self.process.stdin is not None
        self.process.stdin.write(json.dumps(message, ensure_ascii=False) + "\n")
        self.process.stdin.flush()
        line = self.lines.get(timeout=30)
        assert line is not None, f"the participant closed its stdout: {''.join(self.errors)}"
        return json.loads(line)

    def finish(self) -> int:
        """Close stdin and wait; the exit code (the process group is killed in any case)."""
        try:
            assert self.process.stdin is not None
            self.process.stdin.close()
            return self.process.wait(timeout=10)
        finally:
            if self.process.poll() is None:
                os.killpg(self.process.pid, 9)
                self.process.wait()
            for thread in self.threads:
                thread.join(timeout=10)  # both pipes are at end of file once the process is gone
            assert self.process.stdout is not None and self.process.stderr is not None
            self.process.stdout.close()
            self.process.stderr.close()


def play_piped(
    commands: Sequence[Sequence[str]], seed: int, rules: Rules | None = None
) -> tuple[Result, Transcript]:
    seats = [Piped(command) for command in commands]
    transcript: Transcript = []
    try:
        names = [f"p{seat}" for seat in range(len(seats))]
        result = play_out(
            MatchSetup.from_seed(seed, names, rules or Rules()),
            seats,
            lambda delivery, reply: transcript.append((*delivery, reply)),
        )
    finally:
        codes = [seat.finish() for seat in seats]
    assert codes == [0] * len(seats), [seat.errors for seat in seats]
    return result, transcript


def script(name: str) -> list[str]:
    return [sys.executable, str(PARTICIPANTS / name)]


STANDALONE = {
    "random": script("random_bot.py"),
    "easy": script("easy_bot.py"),
    "medium": script("medium_bot.py"),
    "hard": script("hard_bot.py"),
    "expert": script("expert_bot.py"),
    "master": script("master_bot.py"),
}


@pytest.mark.parametrize("level", LEVELS)
def test_the_standalone_script_replies_exactly_as_the_bot_in_process(level: str) -> None:
    rules = Rules(number_of_decks=1)
    piped = play_piped([STANDALONE[level], STANDALONE[level], STANDALONE[level]], 5, rules)
    in_process = play_in_process([level] * 3, 5, rules)
    assert piped[0] == in_process[0]
    assert [r for _, _, r in piped[1]] == [json.loads(json.dumps(r)) for _, _, r in in_process[1]]


@pytest.mark.parametrize("level", ["hard", "expert", "master"])
def test_python_m_arena_bots_replies_exactly_as_the_bot_in_process(level: str) -> None:
    command = [sys.executable, "-m", "arena.bots", level]
    piped = play_piped([command, STANDALONE["easy"]], 11)
    in_process = play_in_process([level, "easy"], 11)
    assert [r for _, _, r in piped[1]] == [json.loads(json.dumps(r)) for _, _, r in in_process[1]]


@pytest.mark.skipif(shutil.which("node") is None, reason="needs Node.js")
def test_the_javascript_random_bot_plays_a_valid_match() -> None:
    node = shutil.which("node")
    assert node is not None
    rules = Rules(number_of_decks=2, knights=True, next_player=NextPlayer.CLOCKWISE)
    result, transcript = play_piped(
        [
            [node, str(PARTICIPANTS / "random_bot.js")],
            STANDALONE["easy"],
            [node, str(PARTICIPANTS / "random_bot.js")],
        ],
        3,
        rules,
    )
    assert result.outcome is Outcome.COMPLETED
    assert_every_decision_is_valid(transcript, 3)
    again = play_piped(
        [
            [node, str(PARTICIPANTS / "random_bot.js")],
            STANDALONE["easy"],
            [node, str(PARTICIPANTS / "random_bot.js")],
        ],
        3,
        rules,
    )
    assert again == (result, transcript)  # seeded from the match: the same every run


def test_a_standalone_script_answers_unknown_messages_and_exits_at_match_end() -> None:
    for command in [STANDALONE["random"], STANDALONE["expert"]]:
        seat = Piped(command)
        try:
            assert seat.handle({"type": "something-new", "x": [1, 2]}) is None
            assert seat.handle({"type": "match-end", "scores": [0, 0], "ranks": [1, 1]}) is None
            assert seat.process.wait(timeout=10) == 0  # without waiting for stdin to close
        finally:
            seat.finish()


@pytest.mark.parametrize(
    "name",
    [
        "easy_bot.py",
        "medium_bot.py",
        "hard_bot.py",
        "expert_bot.py",
        "master_bot.py",
        "random_bot.py",
        "level_bot.py hard",
    ],
)
def test_a_standalone_script_runs_with_no_site_packages_from_any_folder(
    name: str, tmp_path: Path
) -> None:
    """`-I -S`: no site-packages (so no installed arena, no pydantic), not even the script's folder."""
    script, *level = name.split()
    ask = {
        "type": "ask",
        "hand": [{"id": 3, "card": "x", "deck": 0, "suit": 0, "rank": 3}],
        "opponentsHandSizes": [None, 5],
        "pond": [0, 0],
    }
    lines = "".join(
        json.dumps(m) + "\n" for m in [{"type": "starting-hand", "hand": ask["hand"]}, ask]
    )
    done = subprocess.run(
        [sys.executable, "-I", "-S", str(PARTICIPANTS / script), *level],
        input=lines,
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert [json.loads(line) for line in done.stdout.splitlines()] == [
        None,
        {"player": 1, "cardId": 3},
    ]


@pytest.mark.needs("bwrap")
def test_level_scripts_play_one_another_each_in_its_sandbox(tmp_path: Path) -> None:
    """A sandbox shows a participant only its own program's files, and masks every other
    participant's: a level script that needed `level_bot.py`, which the other seat names, would
    not start."""
    (tmp_path / "config.toml").write_text(
        "seed = 1\ngames = 2\n[limits]\nsandbox = 'bwrap'\n"
        f"[[participants]]\nname = 'lvl'\ncommand = {json.dumps([*script('level_bot.py'), 'hard'])}\n"
        f"[[participants]]\nname = 'exp'\ncommand = {json.dumps(script('expert_bot.py'))}\n"
    )
    done = arena_here("run", "config.toml", "--quiet", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    lines = [
        json.loads(line)
        for line in (tmp_path / "replays" / "results.jsonl").read_text().splitlines()
    ]
    assert [(line["outcome"], line["faults"]) for line in lines] == [("completed", [{}, {}])] * 2


def test_the_level_script_names_an_unknown_level_in_one_usage_line() -> None:
    done = subprocess.run(
        [sys.executable, str(PARTICIPANTS / "level_bot.py"), "grandmaster"],
        input="",
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert (done.returncode, done.stdout) == (2, "")
    assert done.stderr == "usage: python -m arena.bots {random,easy,medium,hard,expert,master}\n"


def _rigged_hard(asks: list[tuple[int, int, int, int]], hand: list[int]) -> HardBot:
    """A `hard` bot at seat 0 of two, holding `hand` (ranks), having seen `asks` (asker,
    asked, rank, cards moved)."""
    from arena.sdk import AskSeen, Card

    bot = HardBot()
    bot.reset()
    bot.hand = [Card(id=i, rank=rank, suit=i % 4, deck=0, glyph="") for i, rank in enumerate(hand)]
    bot.hand_sizes = [len(hand), 5]
    bot.asks = [
        AskSeen(asker, asked, Card(id=90 + n, rank=rank, suit=0, deck=0, glyph=""), moved, False)
        for n, (asker, asked, rank, moved) in enumerate(asks)
    ]
    return bot


def test_hard_never_asks_again_for_the_rank_it_was_just_handed() -> None:
    # Seat 0 asked seat 1 for 7s and was handed two: seat 1 holds no 7 now. It holds three 7s
    # and one 2: asking seat 1 for 7s again is a sure miss; 2s may hit.
    for seed in range(20):
        bot = _rigged_hard([(0, 1, 6, 2)], hand=[6, 6, 6, 1])
        bot.rng.seed(seed)
        ask = bot.choose_ask()
        asked_rank = next(card.rank for card in bot.hand if card.id == ask.card_id)
        assert (ask.seat, asked_rank) == (1, 1)


def test_hard_asks_for_its_largest_rank_when_every_rank_is_open() -> None:
    bot = _rigged_hard([], hand=[6, 6, 6, 1])
    ask = bot.choose_ask()
    assert next(card.rank for card in bot.hand if card.id == ask.card_id) == 6
