"""`arena play`: a person against the bots, driven through a real pseudo-terminal."""

from __future__ import annotations

import fcntl
import json
import os
import re
import select
import signal
import struct
import termios
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from command import arena_process, arena_started
from replaymaker import replay_json

from arena.replays import replay as replay_module
from arena.replays import timeline
from arena.replays.timeline import StepKind
from arena.seats.human import HumanSeat, QuitGame
from arena.seats.replies import decode_reply
from arena.ui.play import AskPrompt, Keys, PlayOptions, make_setup, parse_rank

ANSI = re.compile(r"\x1b\[[0-9;?]*[ -/]*[@-~]|\x1b[()][0-9A-Za-z]|\r")
RANK_LABELS = {"A": "a", "J": "j", "C": "c", "Q": "q", "K": "k"}


class Screen:
    """`arena play` on a pseudo-terminal: what it wrote, with the colours stripped."""

    def __init__(self, tmp: Path, *args: str) -> None:
        self.master, slave = os.openpty()
        fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 50, 160, 0, 0))

        def controlling_terminal() -> None:
            fcntl.ioctl(0, termios.TIOCSCTTY, 0)

        env = {**os.environ, "TERM": "xterm-256color", "COLUMNS": "160", "LINES": "50"}
        env.pop("NO_COLOR", None)
        self.proc = arena_started(
            "play",
            "--delay",
            "0",
            "--replays",
            str(tmp / "replays"),
            *args,
            stdin=slave,
            stdout=slave,
            stderr=slave,
            cwd=tmp,
            env=env,
            start_new_session=True,
            preexec_fn=controlling_terminal,
            text=False,
        )
        os.close(slave)
        self.raw = b""
        self.read_to = 0  # how much of the text `expect` has already matched

    @property
    def text(self) -> str:
        return ANSI.sub("", self.raw.decode("utf-8", "replace"))

    def _pump(self, timeout: float) -> bool:
        ready, _, _ = select.select([self.master], [], [], timeout)
        if not ready:
            return False
        try:
            chunk = os.read(self.master, 65536)
        except OSError:  # EIO: the other side is closed
            return False
        self.raw += chunk
        return bool(chunk)

    def expect(self, pattern: str, timeout: float = 15.0) -> re.Match[str]:
        """Wait for `pattern` in the output after the last match."""
        deadline = time.monotonic() + timeout
        while True:
            found = re.compile(pattern).search(self.text, self.read_to)
            if found:
                self.read_to = found.end()
                return found
            remaining = deadline - time.monotonic()
            if remaining <= 0 or (
                not self._pump(min(remaining, 0.2))
                and self.proc.poll() is not None
                and not self._pump(0.05)
            ):
                raise AssertionError(
                    f"{pattern!r} not seen; screen ends with:\n{self.text[-3000:]}"
                )

    def type(self, keys: str | bytes) -> None:
        os.write(self.master, keys.encode() if isinstance(keys, str) else keys)

    def finish(self, timeout: float = 15.0) -> int:
        deadline = time.monotonic() + timeout
        while self.proc.poll() is None and time.monotonic() < deadline:
            self._pump(0.1)
        while self._pump(0.05):
            pass
        return self.proc.wait(max(0.1, deadline - time.monotonic()))

    def close(self) -> None:
        if self.proc.poll() is None:
            os.killpg(self.proc.pid, signal.SIGKILL)
            self.proc.wait()
        os.close(self.master)


@pytest.fixture
def screens(tmp_path: Path) -> Iterator[list[Screen]]:
    opened: list[Screen] = []
    yield opened
    for screen in opened:
        screen.close()


def start(screens: list[Screen], tmp: Path, *args: str) -> Screen:
    screen = Screen(tmp, *args)
    screens.append(screen)
    return screen


def held_ranks(screen: Screen) -> list[str]:
    """The ranks of the last hand shown, as one would type them."""
    hand = screen.expect(r"your hand: ([^\n]*)\n").group(1)
    return [RANK_LABELS.get(label, label) for label in re.findall(r"\[(\w+)\]", hand)]


def the_replay(tmp: Path) -> dict[str, Any]:
    (path,) = (tmp / "replays").glob("*.json")
    data = replay_json(path)
    assert replay_module.verify(replay_module.from_json(data)) is None
    return data


def human_asks(data: dict[str, Any]) -> list[Any]:
    return [
        entry["reply"]
        for entry in data["transcript"]
        if entry["seat"] == 0 and entry["message"]["type"] == "ask"
    ]


def test_a_whole_game_by_typed_commands(tmp_path: Path, screens: list[Screen]) -> None:
    screen = start(screens, tmp_path, "--seed", "4", "--opponents", "1", "--level", "easy")
    screen.expect(r"seed 4 · 1 opponent\(s\), level easy: Pip")
    screen.expect(r"you: dealt (\S+ ){7}")
    typed = 0
    while True:
        found = screen.expect(r"your hand: |match over \((\w+)\)", timeout=20)
        if found.group(0).startswith("match over"):
            assert found.group(1) == "completed"
            break
        screen.read_to = found.start()
        rank = held_ranks(screen)[0]
        screen.expect("ask> ")
        screen.type(f"{rank} 1\r")
        typed += 1
        screen.expect(r"you asked Pip for \S+: (Pip handed over \d|go fish)")
        assert typed < 200
    assert screen.finish() == 0
    screen.expect(r"final placings")
    screen.expect(r"replay: replays/\S+\.json")
    data = the_replay(tmp_path)
    assert data["result"]["outcome"] == "completed"
    assert sum(data["result"]["scores"]) == 13
    assert [p["name"] for p in data["players"]] == ["you", "Pip"]
    asks = human_asks(data)
    assert len(asks) == typed and all(ask["player"] == 1 for ask in asks)
    assert "Traceback" not in screen.text


def test_keys_refusals_and_quitting(tmp_path: Path, screens: list[Screen]) -> None:
    screen = start(
        screens, tmp_path, "--seed", "9", "--opponents", "2", "--level", "medium", "--name", "Ann"
    )
    screen.expect(r"you: dealt (\S+ ){5}")  # three at the table: 5 cards each
    first = held_ranks(screen)[0]
    screen.expect("ask> ")
    missing = next(
        r
        for r in ("k", "q", "j", "10", "9", "8", "7", "6", "5", "4", "3", "2", "a")
        if r not in held_ranks_from_last(screen)
    )
    screen.type(f"{missing} 1\r")
    screen.expect("you hold no ")
    screen.type("x 1\r")
    screen.expect("is not a rank")
    screen.type(f"{first} 0\r")
    screen.expect("that is you")
    screen.type(f"{first} 7\r")
    screen.expect("is not a seat")
    screen.type("\x1b[C\x1b[D")  # → then ←: back on the first rank
    screen.type(" ")  # choose it
    screen.expect("from whom\\?")
    screen.type("2")  # ask seat 2
    screen.expect(r"you asked Wren for \S+: ")
    found = screen.expect(r"your hand: |match over", timeout=20)
    if found.group(0) == "your hand: ":
        screen.expect("ask> ")
        screen.type("quit\r")
        screen.expect("you left the game")
    assert screen.finish() == 0
    screen.expect(r"replay: replays/\S+\.json")
    data = the_replay(tmp_path)
    assert data["result"]["outcome"] in ("interrupted", "completed")
    assert data["players"][0]["name"] == "Ann"
    asks = human_asks(data)
    assert asks[0]["player"] == 2
    assert "Traceback" not in screen.text


def held_ranks_from_last(screen: Screen) -> list[str]:
    text = screen.text
    hand = text[text.rindex("your hand: ") :].split("\n", 1)[0]
    return [RANK_LABELS.get(label, label).lower() for label in re.findall(r"\[(\w+)\]", hand)]


def test_ctrl_c_ends_cleanly_and_keeps_the_replay(tmp_path: Path, screens: list[Screen]) -> None:
    screen = start(screens, tmp_path, "--seed", "21", "--opponents", "3", "--level", "hard")
    screen.expect("ask> ")
    screen.type("\x03")
    assert screen.finish() == 130
    screen.expect("interrupted")
    screen.expect(r"replay: replays/\S+-interrupted\.json")  # named as `arena run` names one
    assert "books so far (the match was not finished: no places)" in screen.text
    assert "1st" not in screen.text[screen.text.index("books so far") :]
    data = the_replay(tmp_path)
    assert data["result"]["outcome"] == "interrupted"
    assert len(data["players"]) == 4
    _, steps = timeline.build(replay_module.from_json(data))  # an interrupted one can be watched
    assert steps[0].kind is StepKind.DEAL and steps[-1].kind is StepKind.END
    assert "Traceback" not in screen.text
    assert not termios_left_raw(screen)


def termios_left_raw(screen: Screen) -> bool:
    """Whether the terminal was left without echo (the game must restore it)."""
    attrs = termios.tcgetattr(screen.master)
    return not attrs[3] & termios.ECHO


def test_with_one_opponent_enter_is_the_whole_ask_and_the_screen_says_so(
    tmp_path: Path, screens: list[Screen]
) -> None:
    # Issue 41: the docs said "then the seat's number", which then landed in the next prompt.
    screen = start(screens, tmp_path, "--seed", "4", "--opponents", "1", "--level", "easy")
    screen.expect("or use ←/→ and Enter, which asks at once")
    screen.expect(r"your hand: ")
    screen.expect(r"ask> rank ‹\w+› \(←/→, Enter asks Pip\)")
    screen.type("\r")
    screen.expect(r"you asked Pip for \S+: ")
    assert "from whom" not in screen.text
    screen.expect("ask> ", timeout=20)
    screen.type("help\r")
    screen.expect(r"with one opponent that is the whole ask")
    screen.type("quit\r")
    assert screen.finish() == 0


def test_commands_from_a_pipe(tmp_path: Path) -> None:
    done = arena_process(
        "play",
        "--seed",
        "1",
        "--delay",
        "0",
        "--replays",
        "out",
        input="x 1\nquit\n",
        cwd=tmp_path,
        timeout=60,
    )
    text = done.stdout
    assert done.returncode == 0, text + done.stderr
    assert "'x' is not a rank" in text and "you left the game" in text
    assert "\x1b" not in text  # not a terminal: no colours, no cursor movement
    (path,) = (tmp_path / "out").glob("*.json")
    assert replay_module.verify(replay_module.read(path)) is None


def play_piped(
    tmp_path: Path, seed: int, lines: str, *more: str
) -> tuple[str, list[tuple[int, int]]]:
    """`arena play` with its commands from a pipe: what it printed, and the human's asks
    (seat 0's replies to `ask`) in its replay."""
    done = arena_process(
        "play", "--seed", str(seed), "--delay", "0", *more, input=lines, cwd=tmp_path, timeout=60
    )
    assert done.returncode == 0, done.stdout + done.stderr
    (path,) = (tmp_path / "replays").glob("*.json")
    transcript = json.loads(path.read_text())["transcript"]
    asks = []  # (seat asked, rank asked for)
    for entry in transcript:
        if entry["seat"] == 0 and entry["message"]["type"] == "ask":
            ranks = {card["id"]: card["rank"] for card in entry["message"]["hand"]}
            asks.append((entry["reply"]["player"], ranks[entry["reply"]["cardId"]]))
    return done.stdout, asks


def test_play_takes_ranks_in_words_any_case_and_asks_the_only_opponent_at_once(
    tmp_path: Path,
) -> None:
    # Seed 2 deals the human a five (and no one else is at the table to ask).
    shown, asks = play_piped(tmp_path, 2, "ASK FOR FIVES\nquit\n")
    assert "not a rank" not in shown and "from whom" not in shown, shown
    assert asks == [(1, 4)]  # seat 1 for fives (rank 4: A is 0)
    assert "←" not in shown  # from a pipe there are no arrow keys to advertise


def test_play_asks_from_whom_only_when_there_is_a_choice(tmp_path: Path) -> None:
    shown, asks = play_piped(tmp_path, 2, "fives\nquit\n", "--opponents", "2")
    assert "from whom?" in shown and asks == [], shown


# -- the pieces, without a terminal --------------------------------------------------------


def test_parse_rank() -> None:
    assert [
        parse_rank(w) for w in ("a", "Ace", "2", "10", "t", "j", "Q", "kings", "7s", "1", "11", "x")
    ] == [
        0,
        0,
        1,
        9,
        9,
        10,
        12,
        13,
        6,
        None,
        None,
        None,
    ]


def _prompt() -> AskPrompt:
    card = lambda i, rank: {"id": i, "card": "?", "deck": 0, "suit": i % 4, "rank": rank}
    return AskPrompt(
        [card(1, 6), card(2, 12), card(3, 6)], [None, 3, 0, 2], ["you", "Pip", "Wren", "Olly"], 0
    )


def test_prompt_by_keys() -> None:
    prompt = _prompt()
    assert prompt.held == [6, 12]
    assert prompt.key("right") is None and prompt.cursor == 1
    assert prompt.key("enter") is None and prompt.chosen == 12
    assert prompt.key("esc") is None and prompt.chosen is None
    assert prompt.key("home") is None and prompt.key(" ") is None and prompt.chosen == 6
    assert prompt.key("2") is None and "no cards" in prompt.note  # Wren holds none, others do
    assert prompt.key("3") == (3, 1)


def test_prompt_by_commands() -> None:
    prompt = _prompt()
    for key in "q pip":
        assert prompt.key(key) is None
    assert prompt.key("enter") == (1, 2)
    assert prompt.command("ask olly for 7") == (3, 1)
    assert prompt.command("7") is None and prompt.chosen == 6
    assert prompt.command("help") is None and "RANK WHO" in prompt.note
    with pytest.raises(QuitGame):
        prompt.command("quit")
    assert prompt.command("q") is None and prompt.chosen == 12  # q is Queens, never "quit"
    with pytest.raises(QuitGame):
        prompt.key("eof")


def test_keys_from_a_pipe_come_a_line_at_a_time() -> None:
    read, write = os.pipe()
    os.write(write, b"7 1\nq\n")
    os.close(write)
    keys = Keys(read)
    got = [keys.read() for _ in range(7)]
    os.close(read)
    assert got == ["7", " ", "1", "enter", "q", "enter", "eof"]


def test_human_seat_speaks_the_protocol() -> None:
    class Scripted:
        def choose_ask(self, message: dict[str, Any]) -> tuple[int, int]:
            return 1, message["hand"][0]["id"]

    seat = HumanSeat(Scripted())
    line = lambda m: json.dumps(m).encode() + b"\n"
    assert seat.exchange(line({"type": "init", "seat": 0}), 1.0).value is None
    ask = {
        "type": "ask",
        "hand": [{"id": 5, "rank": 3, "suit": 0, "deck": 0, "card": "?"}],
        "opponentsHandSizes": [None, 2],
        "pond": [0],
    }
    assert seat.exchange(line(ask), 1.0).value == {"player": 1, "cardId": 5}
    assert seat.exchange(line({"type": "go-fish", "pond": [0, 0]}), 1.0).value == 0
    assert decode_reply(b"0") == 0


def test_the_deal_follows_the_seed_games() -> None:
    assert make_setup(PlayOptions(opponents=1, seed=3)).rules.hand_size(2) == 7
    setup = make_setup(PlayOptions(opponents=3, seed=3, name="Pip"))
    assert setup.rules.hand_size(len(setup.names)) == 5
    assert len(set(setup.names)) == 4


@pytest.mark.parametrize(
    ("choice", "expected"),
    [
        ("family-table", {"luckyDraw": True, "refillWhen": "On its turn", "dealBySeats": True}),
        ("configs/family-two.toml", {"luckyDraw": True, "refillEmptyHand": 7}),
        ("classic", {"startingHandSize": 7, "nextPlayer": "Asked"}),
    ],
)
def test_play_starts_with_a_rule_set_by_name_or_file(
    tmp_path: Path, choice: str, expected: dict[str, Any]
) -> None:
    root = Path(__file__).parents[1]
    rules = choice if "/" not in choice else str(root / choice)
    done = arena_process(
        "play",
        "--opponents",
        "2",
        "--rules",
        rules,
        "--seed",
        "4",
        "--delay",
        "0",
        "--replays",
        "out",
        input="quit\n",
        cwd=tmp_path,
        timeout=60,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    (path,) = (tmp_path / "out").glob("*.json")
    data = replay_json(path)
    assert replay_module.verify(replay_module.from_json(data)) is None
    assert expected.items() <= data["config"]["rules"].items()
    told = data["transcript"][0]["message"]["settings"]["rules"]
    assert told["startingHandSize"] == (7 if choice == "classic" else 5)  # three at the table


@pytest.mark.parametrize(
    ("choice", "error"),
    [
        (
            "nope",
            (
                "--rules: 'nope' is neither a rule set (classic, family-two, family-table, "
                "kitchen-table)"
            ),
        ),
        ("missing.toml", "missing.toml: no such config file"),
        ("/dev/zero", "/dev/zero: cannot read: not a regular file"),  # not read for ever
    ],
)
def test_play_refuses_an_unknown_rule_set_in_one_line(
    tmp_path: Path, choice: str, error: str
) -> None:
    done = arena_process("play", "--rules", choice, cwd=tmp_path, timeout=60)
    assert done.returncode == 2 and done.stderr.startswith(error), done.stderr
    assert done.stderr.count("\n") == 1 and not list(tmp_path.iterdir())


def test_play_refuses_a_rules_file_over_the_config_limit(tmp_path: Path) -> None:
    huge = tmp_path / "huge.toml"
    huge.write_bytes(b"# " + b"x" * (1 << 20) + b"\n[rules]\n")
    done = arena_process("play", "--rules", str(huge), cwd=tmp_path, timeout=60)
    assert done.returncode == 2, done.stderr
    assert (
        done.stderr
        == f"{huge}: cannot read: {huge.stat().st_size} bytes, over the limit of 1 MiB\n"
    )
    assert [p.name for p in tmp_path.iterdir()] == ["huge.toml"]


@pytest.mark.parametrize(
    ("name", "error"),
    [
        ("", "--name: 0 characters; a name has 1 to 64"),
        ("x" * 65, "--name: 65 characters; a name has 1 to 64"),
        ("a\x1b[2Jb", "--name: holds U+001B (a control character)"),
        ("a\u202eb", "--name: holds U+202E (RIGHT-TO-LEFT OVERRIDE)"),
    ],
)
def test_play_checks_the_name_as_a_config_does(tmp_path: Path, name: str, error: str) -> None:
    # It was recorded as given: an empty name, or one that rewrites the terminal of whoever
    # later reads the replay.
    done = arena_process("play", "--name", name, "--delay", "0", cwd=tmp_path, input="", timeout=60)
    assert done.returncode == 2, done.stderr
    assert done.stderr.startswith(error) and done.stderr.count("\n") == 1, done.stderr
    assert not list(tmp_path.iterdir())
