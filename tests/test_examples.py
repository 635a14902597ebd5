"""The example bots in participants/examples (Python, JavaScript, C, Rust, Java): scripted lines,
then real matches. An example whose compiler or runtime is not on the machine is skipped.

Each example is run as a real subprocess: first fed a scripted conversation over a pipe (its
strategy and its manners: a reply to every line, `null` to the unknown, exit at `match-end`),
then entered in real matches by `arena run` against a built-in bot.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from command import arena_here

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = ROOT / "participants" / "examples"


def card(id: int, rank: int, suit: int) -> dict[str, Any]:
    return {
        "id": id,
        "card": chr(0x1F0A1 + 16 * suit + rank),
        "deck": 0,
        "suit": suit,
        "rank": rank,
    }


@pytest.fixture(scope="module")
def c_example(tmp_path_factory: pytest.TempPathFactory) -> Path:
    compiler = shutil.which("cc") or shutil.which("gcc")
    if compiler is None:
        pytest.skip("needs a C compiler")
    binary = tmp_path_factory.mktemp("c") / "most_held"  # never built into the checkout
    subprocess.run(
        [
            compiler,
            "-std=c99",
            "-O2",
            "-Wall",
            "-Wextra",
            "-pedantic",
            "-Werror",
            "-o",
            str(binary),
            str(EXAMPLES / "most_held.c"),
        ],
        check=True,
        capture_output=True,
        timeout=120,
    )
    return binary


@pytest.fixture(scope="module")
def rust_example(tmp_path_factory: pytest.TempPathFactory) -> Path:
    rustc = shutil.which("rustc")
    if rustc is None:
        pytest.skip("needs rustc")
    binary = tmp_path_factory.mktemp("rust") / "most_held"  # never built into the checkout
    subprocess.run(
        [rustc, "-O", "-D", "warnings", "-o", str(binary), str(EXAMPLES / "most_held.rs")],
        check=True,
        capture_output=True,
        timeout=300,
    )
    return binary


def command(language: str, request: pytest.FixtureRequest) -> list[str]:
    if language == "python":
        return [sys.executable, str(EXAMPLES / "most_held.py")]
    if language == "javascript":
        node = shutil.which("node")
        if node is None:
            pytest.skip("needs Node.js")
        return [node, str(EXAMPLES / "most_held.js")]
    if language == "java":
        java = shutil.which("java")
        if java is None:
            pytest.skip("needs Java")
        return [java, str(EXAMPLES / "MostHeld.java")]  # (Java 11+ runs a source file)
    return [str(request.getfixturevalue(f"{language}_example"))]


LANGUAGES = ["python", "javascript", "c", "rust", "java"]

HAND = [card(0, 0, 0), card(4, 4, 0), card(17, 4, 1), card(51, 12, 3)]
AFTER_HIT = [*HAND, card(12, 12, 0)]
# (message, the reply expected) in order; the expectations are the examples' documented strategy.
CONVERSATION: list[tuple[dict[str, Any], Any]] = [
    (
        {
            "type": "init",
            "seat": 0,
            "players": [{"seat": s, "name": f"p{s}"} for s in range(3)],
            "opponents": [None, "p1", "p2"],
            "settings": {"rules": {}, "deck": {}, "limits": {}},
        },
        None,
    ),
    ({"type": "starting-hand", "hand": HAND}, None),
    # Seat 2 asks seat 1 for Kings and misses: seat 2 holds a King.
    (
        {
            "type": "hand-update",
            "askingPlayer": 2,
            "playerAsked": 1,
            "card": card(38, 12, 2),
            "result": 0,
            "hand": HAND,
        },
        None,
    ),
    ({"type": "future-message", "payload": {"nested": [1, "two", None]}}, None),
    # A seat known to hold one of our ranks is asked for it, with a card id of that rank.
    (
        {"type": "ask", "hand": HAND, "opponentsHandSizes": [None, 5, 9], "pond": [0] * 30},
        {"player": 2, "cardId": 51},
    ),
    (
        {
            "type": "hand-update",
            "askingPlayer": 0,
            "playerAsked": 2,
            "card": card(51, 12, 3),
            "result": 1,
            "hand": AFTER_HIT,
        },
        None,
    ),
    # Nothing known any more: the rank held most (5s and Kings, two each: the lowest, 5s), asked
    # of the seat with the most cards.
    (
        {"type": "ask", "hand": AFTER_HIT, "opponentsHandSizes": [None, 9, 8], "pond": [0] * 30},
        {"player": 1, "cardId": 4},
    ),
    ({"type": "go-fish", "pond": [0, 0, 0]}, 0),
    (
        {"type": "go-fish-result", "card": [card(30, 4, 2)], "hand": [*AFTER_HIT, card(30, 4, 2)]},
        None,
    ),
    ({"type": "pick-up", "pond": 7}, 0),
    ({"type": "match-end", "scores": [1, 0, 0], "ranks": [1, 2, 2]}, None),
]


@pytest.mark.parametrize("language", LANGUAGES)
def test_example_follows_the_conversation_and_exits_at_match_end(
    language: str, request: pytest.FixtureRequest
) -> None:
    lines = "".join(json.dumps(message, ensure_ascii=False) + "\n" for message, _ in CONVERSATION)
    done = subprocess.run(
        command(language, request),
        input=lines,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    replies = [json.loads(line) for line in done.stdout.splitlines()]
    assert replies == [expected for _, expected in CONVERSATION]


def test_the_c_build_output_is_ignored_by_git() -> None:
    ignored = (EXAMPLES / ".gitignore").read_text().split()
    assert "most_held" in ignored


@pytest.mark.parametrize("language", LANGUAGES)
def test_example_plays_real_matches_without_a_fault(
    language: str, request: pytest.FixtureRequest, tmp_path: Path
) -> None:
    program = json.dumps(command(language, request))
    config = tmp_path / "config.toml"
    config.write_text(
        'seed = 5\ngames = 2\n\n[rules]\nnextPlayer = "Clockwise"\n\n'
        f'[[participants]]\nname = "example"\ncommand = {program}\n\n'
        '[[participants]]\nname = "hard"\nbot = "hard"\n\n'
        '[[participants]]\nname = "easy"\nbot = "easy"\n'
    )
    done = arena_here("run", str(config), cwd=tmp_path)
    assert done.returncode == 0, done.stdout + done.stderr
    replays = [
        json.loads(path.read_text())
        for path in sorted((tmp_path / "replays").glob("*.json"))
        if "transcript" in path.read_text()
    ]
    assert len(replays) == 2
    for replay in replays:
        seat = next(p["seat"] for p in replay["players"] if p["name"] == "example")
        assert replay["result"]["outcome"] == "completed"
        assert replay["faults"] == []
        assert not [e for e in replay["events"] if e["event"] == "invalid-ask"]
        asks = [
            e for e in replay["transcript"] if e["seat"] == seat and e["message"]["type"] == "ask"
        ]
        assert asks, "the example never had a turn"
        assert all(e["reply"]["player"] != seat for e in asks)


def test_every_example_is_tested_and_the_docs_say_which_languages_are_not() -> None:
    # An example is played above, or it is not in participants/examples; a language the test
    # machines lack (Go, Ruby, PHP, Lua) is shown in docs/protocol.md as untested, not shipped.
    suffixes = {".py": "python", ".js": "javascript", ".c": "c", ".rs": "rust", ".java": "java"}
    shipped = {suffixes[path.suffix] for path in EXAMPLES.iterdir() if path.suffix in suffixes}
    assert shipped == set(LANGUAGES)
    assert not [p.name for p in EXAMPLES.iterdir() if p.suffix in (".go", ".rb", ".php", ".lua")]
    protocol = " ".join((ROOT / "docs" / "protocol.md").read_text(encoding="utf-8").split())
    assert "no Go toolchain, nor Ruby, PHP or Lua: the loop below is untested here" in protocol
    assert "```go" in protocol and "```rust" in protocol and "```java" in protocol
