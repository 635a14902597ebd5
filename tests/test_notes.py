"""Notes beside each decision: what a bot writes to stderr while a message is outstanding is
attached to that exchange, even when it writes the note and the reply back to back — real bots
in Python, Node and C, several messages in a row, and the real CLI's replay read back typed."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from command import arena_here

from arena.replays import replay
from arena.seats.ending import close_all
from arena.seats.transport import SubprocessParticipant

PYTHON = """
import sys
for number, line in enumerate(sys.stdin):
    sys.stderr.write(f"note {number}: thinking\\n")
    sys.stdout.write("null\\n")
    sys.stdout.flush()
"""
NODE = """
const readline = require("readline");
let number = 0;
readline.createInterface({ input: process.stdin }).on("line", () => {
  console.error(`note ${number}: thinking`);
  process.stdout.write("null\\n");
  number += 1;
});
"""
C = r"""
#include <stdio.h>
int main(void) {
    char line[1 << 16];
    for (int number = 0; fgets(line, sizeof line, stdin); number++) {
        fprintf(stderr, "note %d: thinking\n", number);
        printf("null\n");
        fflush(stdout);
    }
    return 0;
}
"""


def _command(language: str, folder: Path) -> list[str]:
    if language == "python":
        (folder / "bot.py").write_text(PYTHON)
        return [sys.executable, str(folder / "bot.py")]
    if language == "node":
        node = shutil.which("node")
        if node is None:
            pytest.skip("no node here")
        (folder / "bot.js").write_text(NODE)
        return [node, str(folder / "bot.js")]
    compiler = shutil.which("cc") or shutil.which("gcc")
    if compiler is None:
        pytest.skip("no C compiler here")
    (folder / "bot.c").write_text(C)
    subprocess.run([compiler, "-O1", "-o", str(folder / "bot"), str(folder / "bot.c")], check=True)
    return [str(folder / "bot")]


@pytest.mark.parametrize("language", ["python", "node", "c"])
def test_a_note_written_right_before_the_reply_lands_on_its_exchange(
    tmp_path: Path, language: str
) -> None:
    participant = SubprocessParticipant(_command(language, tmp_path), tmp_path, dict(os.environ))
    participant.start()
    try:
        answers = [participant.exchange(b'{"type": "x"}\n', 10.0) for _ in range(40)]
    finally:
        close_all([participant], 0.5)
    assert [a.fault for a in answers] == [None] * 40
    assert [a.notes for a in answers] == [f"note {n}: thinking\n" for n in range(40)]


def test_notes_go_into_the_replay_and_come_back_typed(tmp_path: Path) -> None:
    command = _command("python", tmp_path)
    (tmp_path / "config.toml").write_text(
        "seed = 5\ngames = 1\n[limits]\nsandbox = 'none'\n"
        f"[[participants]]\nname = 'noted'\ncommand = {json.dumps(command)}\n"
        "[[participants]]\nname = 'r'\nbot = 'random'\n"
    )
    done = arena_here("run", "config.toml", cwd=tmp_path)
    assert done.returncode == 0, done.stdout + done.stderr
    [path] = (tmp_path / "replays").glob("*.json")
    document = json.loads(path.read_text())
    mine = [e for e in document["transcript"] if e["seat"] == 0]
    # The bot plays null to everything (no legal ask: faults), yet every message has its note.
    assert [e["notes"] for e in mine] == [f"note {n}: thinking\n" for n in range(len(mine))]
    assert not any("notes" in e for e in document["transcript"] if e["seat"] == 1)
    read = replay.read(path)
    assert [x.notes for x in read.transcript if x.seat == 0] == [e["notes"] for e in mine]
    assert all(x.notes == "" for x in read.transcript if x.seat == 1)
    log = path.with_name(path.stem + ".seat0.stderr.log")  # the full log stays as it was
    assert log.read_text().count(": thinking\n") == len(mine)


def test_the_replay_schema_has_notes_as_an_optional_string() -> None:
    from arena.replays import schema

    document = json.dumps(schema.files())
    entry = schema.REPLAY.json_schema()["$defs"]["ReplayEntry"]
    assert entry["properties"]["notes"]["anyOf"] == [{"type": "string"}, {"type": "null"}]
    assert "notes" not in entry.get("required", []) and '"notes"' in document
