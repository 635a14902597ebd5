"""A replay read back (`replay.read`) is the arena's own typed values, exactly as they were
written: every fault kind, from files the real CLI wrote for the golden configs."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest
from command import arena_here

from arena.base.errors import ReplayError
from arena.engine.match import Outcome
from arena.replays import replay
from arena.seats.replies import FaultKind

GOLDEN = Path(__file__).parent / "golden"
# Between them, every fault kind of a process and of a reply.
CONFIGS = [
    "fault-bad-asks",
    "fault-bad-pond",
    "fault-exit",
    "fault-flood",
    "fault-hang",
    "fault-long-line",
    "fault-not-json",
    "fault-signal",
    "fault-start-failed",
    "fault-unsolicited",
    "tournament-duplicate-reuse",
]


@pytest.fixture(scope="module")
def written(tmp_path_factory: pytest.TempPathFactory) -> list[Path]:
    work = tmp_path_factory.mktemp("golden")
    shutil.copytree(GOLDEN / "configs", work / "configs")
    shutil.copytree(GOLDEN / "fakes", work / "fakes")
    # A program whose interpreter is missing: the kernel cannot start it (`start-failed`).
    orphan = work / "fakes" / "no-interpreter"
    orphan.write_text("#!/no/such/interpreter\n")
    orphan.chmod(0o755)
    (work / "configs" / "start-failed.toml").write_text(
        'seed = 7\n[[participants]]\nname = "orphan"\ncommand = ["../fakes/no-interpreter"]\n'
        '[[participants]]\nname = "steady"\nbot = "easy"\n'
    )
    # A program that writes more to stderr than the seat's log may hold (`log-full`).
    (work / "fakes" / "chatty.py").write_text(
        "import json, sys\n"
        "for line in sys.stdin:\n"
        "    message = json.loads(line)\n"
        "    sys.stderr.write('x' * 300 + '\\n')\n"
        "    reply = None\n"
        "    if message['type'] == 'ask':\n"
        "        reply = {'player': message['opponentsHandSizes'].index(None) ^ 1,"
        " 'cardId': message['hand'][0]['id']}\n"
        "    elif message['type'] in ('go-fish', 'pick-up'):\n"
        "        reply = 0\n"
        "    print(json.dumps(reply), flush=True)\n"
    )
    (work / "configs" / "log-full.toml").write_text(
        'seed = 7\n[limits]\nstderrBytes = 2048\n[[participants]]\nname = "chatty"\n'
        'command = ["python3", "../fakes/chatty.py"]\n'
        '[[participants]]\nname = "steady"\nbot = "easy"\n'
    )
    # Each in a copy of its own (one run writes into a replays folder at a time), in this
    # process: the runs' own processes are their participants.
    for name in [*CONFIGS, "start-failed", "log-full"]:
        own = work / "runs" / name
        (own / "configs").mkdir(parents=True)
        shutil.copy(work / "configs" / f"{name}.toml", own / "configs")
        shutil.copytree(work / "fakes", own / "fakes", symlinks=True)
        done = arena_here(
            *("run", str(own / "configs" / f"{name}.toml"), "-q", "--jobs", "1"),
            env={**os.environ, "NO_COLOR": "1"},
        )
        assert done.returncode == 0, done.stderr
    return sorted(work.rglob("*-g[0-9][0-9][0-9][0-9]-*.json"))


def test_every_fault_kind_is_among_the_files(written: list[Path]) -> None:
    kinds = {f.kind for path in written for f in replay.read(path).faults}
    assert kinds == set(FaultKind) - {FaultKind.CRASHED}  # a bot of the arena's own raising


def test_a_replay_reads_back_as_the_values_it_was_written_from(written: list[Path]) -> None:
    for path in written:
        document = json.loads(path.read_text(encoding="utf-8"))
        typed = replay.read(path)
        assert [e.as_json() for e in typed.transcript] == document["transcript"], path
        assert [f.as_json() for f in typed.faults] == document["faults"], path
        assert typed.result.as_json() == document["result"], path
        assert typed.result.outcome in set(Outcome)
        assert [card for card in typed.deck] == document["deck"]
        assert [
            {"seat": p.seat, "name": p.name, "command": list(p.command)} for p in typed.players
        ] == [{k: p[k] for k in ("seat", "name", "command")} for p in document["players"]]
        assert (typed.match, typed.deal_seed, typed.seed) == (
            document["game"],
            document["dealSeed"],
            document["seed"],
        )
        assert typed.starting_player == document["startingPlayer"]
        assert replay.verify(typed) is None, path


@pytest.mark.parametrize(
    ("change", "named"),
    [
        (lambda d: d["transcript"][0].update(seat="0"), "transcript.0.seat"),
        (lambda d: d["deck"][0].update(id=0.0), "deck.0.id"),
        (
            lambda d: d["faults"].append({"seat": 0, "at": 0, "kind": "gremlins", "detail": ""}),
            "faults.0.kind",
        ),
        (lambda d: d["result"].update(margin=3), "result.margin"),
        (lambda d: d["players"][0].update(inProcess="yes"), "players.0.inProcess"),
        (lambda d: d.update(game=-1), "game"),
    ],
)
def test_a_value_the_arena_would_not_write_is_refused_naming_its_key(
    written: list[Path], tmp_path: Path, change: object, named: str
) -> None:
    source = next(p for p in written if not json.loads(p.read_text())["faults"])
    document = json.loads(source.read_text(encoding="utf-8"))
    change(document)  # type: ignore[operator]
    path = tmp_path / "edited.json"
    path.write_text(json.dumps(document), encoding="utf-8")
    with pytest.raises(ReplayError, match=rf"edited\.json: {named}: "):
        replay.read(path)
