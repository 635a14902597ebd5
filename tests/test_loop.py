"""The match loop: its observer hook, its stop poll, and replaying a record through it."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
from command import arena_here

from arena.base.config import LimitsSection
from arena.bots import BOTS
from arena.engine.events import Event
from arena.engine.match import MatchSetup, Outcome
from arena.engine.rules import Rules
from arena.engine.views import Message
from arena.referee.loop import Unobserved, play_match, replay_transcript
from arena.replays.replay import build, from_json, verify
from arena.seats.in_process import InProcessParticipant
from arena.seats.recorded import Recording
from arena.seats.replies import Exchange

LIMITS = LimitsSection()


def _bots(seats: int) -> list[InProcessParticipant]:
    return [InProcessParticipant(BOTS["easy"]().handle) for _ in range(seats)]


def _setup(seed: int = 7, seats: int = 3) -> MatchSetup:
    return MatchSetup.from_seed(
        seed, [f"s{n}" for n in range(seats)], Rules(), **LIMITS.match_options()
    )


class Diary(Unobserved):
    """Writes down what the loop tells it, in order."""

    def __init__(self) -> None:
        self.lines: list[tuple[str, int]] = []
        self.events: list[Event] = []

    def sending(self, index: int, seat: int, message: Message) -> None:
        self.lines.append(("sending", index))

    def exchanged(self, index: int, exchange: Exchange) -> None:
        self.lines.append(("exchanged", index))

    def happened(self, event: Event) -> None:
        self.lines.append(("happened", event.at))
        self.events.append(event)


def test_the_observer_hears_every_message_and_event_in_order() -> None:
    diary = Diary()
    record = play_match(_setup(), _bots(3), LIMITS, observer=diary)
    assert record.result.outcome is Outcome.COMPLETED
    sent = [index for what, index in diary.lines if what == "sending"]
    answered = [index for what, index in diary.lines if what == "exchanged"]
    assert sent == answered == list(range(len(record.transcript)))
    assert diary.events == record.events and record.events
    # Each message is sent, then answered, then the events its reply caused are heard.
    for position, (what, index) in enumerate(diary.lines):
        if what == "happened":
            before = [i for w, i in diary.lines[:position] if w == "exchanged"]
            assert before[-1] == index


def test_a_stop_ends_the_match_interrupted_before_the_next_message() -> None:
    sent: list[int] = []

    class Counter(Unobserved):
        def sending(self, index: int, seat: int, message: Message) -> None:
            sent.append(index)

    record = play_match(
        _setup(), _bots(3), LIMITS, observer=Counter(), should_stop=lambda: len(sent) >= 40
    )
    assert record.result.outcome is Outcome.INTERRUPTED
    assert len(record.transcript) == 40 and sent == list(range(40))
    assert record.unsent is not None  # the message the engine was about to send
    whole = play_match(_setup(), _bots(3), LIMITS)
    assert (record.unsent.seat, record.unsent.message) == (
        whole.transcript[40].seat,
        whole.transcript[40].message,
    )
    # The record of a stopped match is a replay that verifies, as an interrupted one.
    document = json.loads(json.dumps(build(record, seed=7, limits=LIMITS)))
    assert document["result"]["outcome"] == "interrupted"
    assert verify(from_json(document)) is None


def test_a_completed_match_has_no_unsent_message() -> None:
    record = play_match(_setup(3, 2), _bots(2), LIMITS)
    assert record.result.outcome is Outcome.COMPLETED and record.unsent is None


def test_a_record_played_again_through_the_loop_is_the_same_match() -> None:
    played = play_match(_setup(11, 4), _bots(4), LIMITS)
    again = replay_transcript(played.setup, played.transcript)
    assert again.result == played.result
    assert again.events == played.events
    assert [(e.seat, e.message, e.reply) for e in again.transcript] == [
        (e.seat, e.message, e.reply) for e in played.transcript
    ]
    part = replay_transcript(played.setup, played.transcript[:25])
    assert part.result.outcome is Outcome.INTERRUPTED and len(part.transcript) == 25


def test_recorded_answers_come_back_as_recorded_and_then_not_delivered() -> None:
    played = play_match(_setup(5, 2), _bots(2), LIMITS)
    recording = Recording(played.transcript)
    seat = recording.seat(0)
    answers = [seat.exchange(b"{}\n", 1.0) for _ in played.transcript]
    assert [a.value for a in answers] == [e.answer.value for e in played.transcript]
    assert recording.exhausted
    assert seat.exchange(b"{}\n", 1.0).delivered is False


# --- A bot that leaves at `match-end` without the reply it owes played its match to the end: the
# real CLI counts no fault (no crash, no exit) for it; one that crashes there is still counted.


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
