"""Replays to look at, made by playing quick matches between built-in bots (and a bad one)."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from typer.testing import CliRunner

from arena.replays import replay
from arena.ui.cli import app

# Answers every message, but `ask` with a line that is not JSON: a fault and an invalid ask.
BAD_BOT = (
    "import json, sys\n"
    "for line in sys.stdin:\n"
    "    message = json.loads(line)\n"
    "    print('no' if message['type'] == 'ask' else 'null', flush=True)\n"
)


def make_replay(
    folder: Path,
    names: list[str],
    seed: int = 11,
    bots: tuple[str, ...] = ("easy", "random"),
    bad: bool = False,
    rules: str = "",
) -> Path:
    """Play one match (seat 0 the bad bot when `bad`) and return its replay file."""
    folder.mkdir(parents=True, exist_ok=True)
    seats = []
    for index, name in enumerate(names):
        if bad and index == 0:
            (folder / "bad_bot.py").write_text(BAD_BOT, encoding="utf-8")
            how = 'command = ["python3", "bad_bot.py"]'
        else:
            how = f'bot = "{bots[index % len(bots)]}"'
        seats.append(f"[[participants]]\nname = {json.dumps(name)}\n{how}\n")
    config = folder / "config.toml"
    table = f"[rules]\n{rules}\n" if rules else ""
    config.write_text(
        f"seed = {seed}\n{table}[tournament]\ninProcessBots = true\n" + "".join(seats),
        encoding="utf-8",
    )
    result = CliRunner().invoke(app, ["run", str(config)])
    assert result.exit_code == 0, result.output
    (path,) = sorted((folder / "replays").glob("*.json"))
    return path


def replay_json(path: Path) -> dict[str, Any]:
    """A replay file's JSON, as a user reads it, once `replay.read` has accepted the file."""
    replay.read(path)
    document: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    return document


@dataclass(frozen=True)
class Read:
    """A replay file both ways: as the arena reads it, and its JSON as a user reads it."""

    replay: replay.Replay
    json: dict[str, Any]

    @classmethod
    def of(cls, path: Path) -> Read:
        return cls(replay.read(path), replay_json(path))


def quit_game(folder: Path, seed: int = 4) -> Path:
    """A game of `arena play` (a real process) left at once with `quit`: an interrupted replay."""
    from command import arena_process

    folder.mkdir(parents=True, exist_ok=True)
    done = arena_process(
        "play", "--seed", str(seed), "--delay", "0", cwd=folder, input="quit\n", timeout=60
    )
    assert done.returncode == 0, done.stderr
    (path,) = sorted((folder / "replays").glob("*-interrupted.json"))
    return path
