"""A bot that leaves at `match-end` without the reply it owes played its match to the end: the
real CLI counts no fault (no crash, no exit) for it; one that crashes there is still counted."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
from command import arena_here

QUIET = Path(__file__).parent / "checkbots" / "quiet_at_match_end.py"
CRASH = (  # the same bot, ending with status 3 where it left with 0
    "import runpy, sys\n"
    "sys.path.insert(0, sys.argv[1].rsplit('/', 1)[0])\n"
    "runpy.run_path(sys.argv[1], run_name='__main__')\n"
    "sys.exit(3)\n"
)


@pytest.mark.parametrize("crash", [False, True], ids=["exit-0", "exit-3"])
def test_leaving_at_match_end_is_no_fault_and_a_crash_there_still_is(
    tmp_path: Path, crash: bool
) -> None:
    command = [sys.executable, str(QUIET)]
    if crash:
        (tmp_path / "crash.py").write_text(CRASH)
        command = [sys.executable, str(tmp_path / "crash.py"), str(QUIET)]
    (tmp_path / "config.toml").write_text(
        "seed = 3\ngames = 2\n[limits]\nsandbox = 'none'\n"
        f"[[participants]]\nname = 'quiet'\ncommand = {json.dumps(command)}\n"
        "[[participants]]\nname = 'r'\nbot = 'random'\n"
    )
    done = arena_here("run", "config.toml", "--jobs", "1", cwd=tmp_path)
    assert done.returncode == 0, done.stdout + done.stderr
    results = (tmp_path / "replays" / "results.jsonl").read_text()
    lines = [json.loads(line) for line in results.splitlines()]
    assert len(lines) == 2 and all(line["outcome"] == "completed" for line in lines)
    for line in lines:
        quiet = line["seating"].index("quiet")
        [entry] = [
            e
            for e in json.loads((tmp_path / "replays" / line["replay"]).read_text())["transcript"]
            if e["seat"] == quiet and e["message"]["type"] == "match-end"
        ]
        assert entry["noReply"]["kind"] == "exited"  # the missing reply stays in the transcript
        assert line["faults"][quiet] == ({"exited": 1} if crash else {})
    standings = json.loads((tmp_path / "replays" / "standings.json").read_text())
    [row] = [p for p in standings["participants"] if p["name"] == "quiet"]
    assert row["faults"]["byKind"] == ({"exited": 2} if crash else {})
    assert row["faults"]["crashes"] == (2 if crash else 0)
