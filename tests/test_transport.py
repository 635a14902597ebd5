"""The transport on its own: reply decoding, the bounded log, and real subprocesses at the edges
(what only a process shows: pipes of the kernel, exit statuses, groups, reaping). The framing
rules are tested without a process in tests/test_channel.py."""

from __future__ import annotations

import json
import math
import os
import signal
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from arena.base import config as config_module
from arena.engine.match import NO_REPLY
from arena.referee.loop import MatchInterrupted, play_match
from arena.referee.seating import PASSED_ENVIRONMENT, make_participants
from arena.replays.replay import build, from_json, verify
from arena.seats.ending import close_all
from arena.seats.in_process import InProcessParticipant
from arena.seats.replies import MAX_DEPTH, BoundedLog, FaultKind, Wrapped, decode_reply
from arena.seats.transport import (
    ResourceLimits,
    SubprocessParticipant,
    wait_for_removals,
)
from arena.tournaments.runner import setup_for

# -- decoding a reply line ----------------------------------------------------------------


@pytest.mark.parametrize(
    ("line", "value"),
    [
        (b"null", None),
        (b"  7 \t\r", 7),  # surrounding spaces and a CR before the LF
        (b'{"player": 1, "cardId": 4}\r', {"player": 1, "cardId": 4}),
        (b"123456789012345678901234567890", 123456789012345678901234567890),  # exact
        (b"1e999", math.inf),  # beyond a double: counts as nothing, per contract §3.3
        (b"-0.5", -0.5),
    ],
)
def test_replies_that_are_json(line: bytes, value: Any) -> None:
    assert decode_reply(line) == value


@pytest.mark.parametrize(
    "line",
    [
        b"",
        b"   ",
        b"NaN",
        b"Infinity",
        b"-Infinity",
        b"1 2",
        b"{",
        b"\xff",
        b"\xef\xbb\xbfnull",
        b"9" * 5000,
        b"[" * 100_000,
        b"[" * (MAX_DEPTH + 1) + b"]" * (MAX_DEPTH + 1),
    ],
)
def test_replies_that_are_not(line: bytes) -> None:
    with pytest.raises(ValueError):
        decode_reply(line)


def test_nesting_up_to_the_limit_is_accepted() -> None:
    nested: list[Any] = []
    for _ in range(MAX_DEPTH - 1):
        nested = [nested]
    assert decode_reply(b"[" * MAX_DEPTH + b"]" * MAX_DEPTH) == nested


def _standard_reading(line: bytes) -> tuple[str, str]:
    """What the standard module alone makes of a reply line (repr tells 1 from 1.0, -0.0 from 0)."""

    def refuse(literal: str) -> Any:
        raise ValueError(literal)

    try:
        return "value", repr(json.JSONDecoder(parse_constant=refuse).decode(line.decode("utf-8")))
    except (ValueError, RecursionError):
        return "refused", ""


def _reading(line: bytes) -> tuple[str, str]:
    try:
        return "value", repr(decode_reply(line))
    except ValueError:
        return "refused", ""


# Pieces of JSON and of what is nearly JSON: orjson and the standard module differ at some.
_PIECES = [
    *'{}[]":,.+-eE019 \t\r\n\x0c\x00\x1fua',
    "true",
    "null",
    "NaN",
    "Infinity",
    "d800",
    "12345678901234567890",
    "\u00e9",
    "\ufeff",
]
_JSON = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(min_value=-(2**80), max_value=2**80)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=4),
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=3), inner, max_size=3)
    ),
    max_leaves=8,
)


@pytest.mark.slow
@settings(max_examples=3000, deadline=None)
@given(
    st.lists(st.sampled_from(_PIECES), max_size=12).map(lambda p: "".join(p).encode("utf-8"))
    | st.binary(max_size=12)
    | _JSON.map(lambda value: json.dumps(value).encode())
    | _JSON.map(
        lambda value: json.dumps(value, ensure_ascii=False).encode("utf-8", "surrogatepass")
    )
)
def test_a_reply_reads_as_the_standard_module_reads_it(line: bytes) -> None:
    """orjson reads a reply first (for speed): its value is always the standard module's, and
    it accepts nothing the standard module refuses."""
    assert _reading(line) == _standard_reading(line)


# -- the stderr log ----------------------------------------------------------------------


def test_bounded_log_keeps_head_and_tail_and_says_where_it_cut() -> None:
    log = BoundedLog(100)
    for index in range(10_000):
        log.feed(b"line %05d\n" % index)
    text = log.text()
    assert text.startswith("line 00000\n")
    assert "[arena: log cut here at 100 bytes;" in text
    assert text.endswith("line 09999\n")
    assert len(text) < 100 + 2048 + 200
    assert log.tail_size < 2048 + 11  # the tail is bounded too


def test_short_log_is_kept_whole() -> None:
    log = BoundedLog(100)
    log.feed(b"hello\n")
    assert log.text() == "hello\n"


# -- real subprocesses ---------------------------------------------------------------------


def _participant(tmp_path: Path, source: str, **options: Any) -> SubprocessParticipant:
    script = tmp_path / "bot.py"
    script.write_text(source)
    return SubprocessParticipant(
        [sys.executable, str(script)], tmp_path, dict(os.environ), **options
    )


@pytest.fixture
def spawn(tmp_path: Path) -> Iterator[Any]:
    made: list[SubprocessParticipant] = []

    def make(source: str, **options: Any) -> SubprocessParticipant:
        participant = _participant(tmp_path, source, **options)
        made.append(participant)
        participant.start()
        return participant

    yield make
    close_all(made, 0)
    for participant in made:
        assert participant.proc is not None and participant.proc.returncode is not None


ECHO = "import sys\nfor line in sys.stdin:\n    sys.stdout.write(line)\n    sys.stdout.flush()\n"


def test_echo_round_trip(spawn: Any) -> None:
    participant = spawn(ECHO)
    answer = participant.exchange(b'{"type": "x"}\n', 5.0)
    assert answer.value == {"type": "x"} and answer.fault is None and answer.delivered


def test_gone_participant_is_not_waited_on(spawn: Any) -> None:
    participant = spawn("import sys\nsys.exit(4)\n")
    first = participant.exchange(b"1\n", 5.0)
    assert first.fault is not None and first.fault.exit_code == 4
    began = time.monotonic()
    later = participant.exchange(b"2\n", 5.0)
    assert later.value is NO_REPLY and not later.delivered and later.fault is None
    assert time.monotonic() - began < 0.01


def test_has_ended_does_not_reap_and_kill_takes_the_whole_group(spawn: Any, tmp_path: Path) -> None:
    source = (
        "import os, sys, time\n"
        "sys.stdin.readline()\n"
        "child = os.fork()\n"
        "if child == 0:\n"
        "    time.sleep(60)\n"
        "    os._exit(0)\n"
        "print(child, flush=True)\n"
        "sys.stdin.readline()\n"
    )
    participant = spawn(source)
    assert participant.proc is not None
    answer = participant.exchange(b"go\n", 5.0)  # the reply is the forked child's pid
    child = int(answer.value)
    participant.end_input()
    deadline = time.monotonic() + 5
    while not participant.has_ended():
        assert time.monotonic() < deadline
        time.sleep(0.01)
    assert participant.proc.returncode is None  # not reaped: its pid still names the group
    os.kill(child, 0)  # the child lives on after its parent ended
    participant.kill()
    participant.kill()  # again: harmless
    assert participant.proc.returncode == 0 and participant.exit_code == 0
    deadline = time.monotonic() + 2
    while (
        Path(f"/proc/{child}").exists()
        and "Z" not in Path(f"/proc/{child}/stat").read_text().split(")")[1][:3]
    ):
        assert time.monotonic() < deadline, "the forked child outlived the kill"
        time.sleep(0.01)


def test_a_participants_temporary_folder_is_its_own_and_removed_after_it_stops(
    spawn: Any, tmp_path: Path
) -> None:
    # Unsandboxed, a participant gets TMPDIR of its own; it is removed in the background once
    # the participant is stopped (the next match does not wait for it), and waited for at exit.
    source = "import os, sys\nopen(os.path.join(os.environ['TMPDIR'], 'mine'), 'w').write('x')\n"
    source += "import json\nsys.stdin.readline()\n"
    source += "print(json.dumps(os.environ['TMPDIR']), flush=True)\nsys.stdin.read()\n"
    participant = spawn(source)
    answer = participant.exchange(b'{"type": "init"}\n', 10.0)
    folder = Path(answer.value if isinstance(answer.value, str) else "")
    assert answer.fault is None and folder.is_dir() and (folder / "mine").exists()
    assert folder != Path(os.environ.get("TMPDIR", "/tmp"))
    close_all([participant], 1.0)
    wait_for_removals()
    assert not folder.exists()


def test_start_failure_is_a_fault(tmp_path: Path) -> None:
    script = tmp_path / "plain.txt"
    script.write_text("not a program\n")
    script.chmod(0o755)
    participant = SubprocessParticipant([str(script)], tmp_path, {})
    participant.start()
    assert (
        participant.start_fault is not None
        and participant.start_fault.kind is FaultKind.START_FAILED
    )
    assert not participant.alive and not participant.exchange(b"1\n", 1.0).delivered


def test_in_process_bot_crash_is_a_fault() -> None:
    def handle(message: Any) -> Any:
        raise RuntimeError("bug")

    participant = InProcessParticipant(handle)
    answer = participant.exchange(b"{}\n", 1.0)
    assert answer.fault is not None and answer.fault.kind is FaultKind.CRASHED
    assert "RuntimeError: bug" in participant.stderr_text()
    assert not participant.exchange(b"{}\n", 1.0).delivered


def _alarm_interrupt(seconds: float) -> None:
    def interrupt(signum: int, frame: Any) -> None:
        raise KeyboardInterrupt

    signal.signal(signal.SIGALRM, interrupt)
    signal.setitimer(signal.ITIMER_REAL, seconds)


def test_ctrl_c_during_the_grace_still_kills_every_group(spawn: Any) -> None:
    stubborn = "import signal, sys, time\nsignal.signal(signal.SIGTERM, signal.SIG_IGN)\nsys.stdin.read()\ntime.sleep(60)\n"
    participants = [spawn(stubborn), spawn(stubborn)]
    previous = signal.getsignal(signal.SIGALRM)
    _alarm_interrupt(0.2)
    try:
        began = time.monotonic()
        with pytest.raises(KeyboardInterrupt):
            close_all(participants, 30.0)
        assert time.monotonic() - began < 2.0
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)
    for participant in participants:
        assert participant.proc is not None and participant.proc.returncode == -signal.SIGKILL


# -- the match loop's side of processes --------------------------------------------------------


def _config(tmp_path: Path, body: str) -> Path:
    path = tmp_path / "config.toml"
    path.write_text(body)
    return path


def test_participant_gets_only_the_documented_environment(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("SECRET_TOKEN", "do-not-pass")
    monkeypatch.setenv("LANG", "C.UTF-8")
    script = tmp_path / "env.py"
    script.write_text(
        "import json, os, sys\nsys.stdin.readline()\nprint(json.dumps(dict(os.environ)), flush=True)\n"
    )
    path = _config(
        tmp_path,
        (
            "[[participants]]\nname = 'e'\n"
            f"command = [{json.dumps(sys.executable)}, 'env.py']\nenv = {{ EXTRA = 'yes' }}\n"
            "[[participants]]\nname = 'r'\nbot = 'random'\n"
        ),
    )
    config, seats = config_module.load(path)
    [participant, _] = make_participants(seats, config.limits)
    assert isinstance(participant, SubprocessParticipant)
    participant.start()
    try:
        env = participant.exchange(b"{}\n", 10.0).value
    finally:
        close_all([participant], 0)
    assert env.pop("ARENA_SEAT") == "0" and env.pop("ARENA_NAME") == "e"
    assert env.pop("PYTHONUNBUFFERED") == "1" and env.pop("EXTRA") == "yes"
    assert "SECRET_TOKEN" not in env
    env.pop("PWD", None)  # set by the sandbox (bwrap) to the working directory it chose
    env.pop("JAVA_TOOL_OPTIONS", None)  # the sandbox's -XX:-UsePerfData (docs/sandbox.md)
    assert set(env) <= set(PASSED_ENVIRONMENT)
    assert env["LANG"] == "C.UTF-8"


def test_interrupt_mid_match_stops_everyone_and_the_record_verifies(tmp_path: Path) -> None:
    slow = Path(__file__).parent / "hostile" / "slow.py"
    path = _config(
        tmp_path,
        (
            "seed = 5\n"
            f"[[participants]]\nname = 's'\ncommand = [{json.dumps(sys.executable)}, {json.dumps(str(slow))}, '0.01']\n"
            "[[participants]]\nname = 'r'\nbot = 'random'\n"
        ),
    )
    config, seats = config_module.load(path)
    participants = make_participants(seats, config.limits)
    previous = signal.getsignal(signal.SIGALRM)
    _alarm_interrupt(0.8)
    try:
        with pytest.raises(MatchInterrupted) as stopped:
            play_match(
                setup_for(config, ["s", "r"], 5),
                participants,
                config.limits,
                [s.command for s in seats],
            )
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)
    record = stopped.value.record
    assert record.result.outcome == "interrupted" and record.transcript
    assert (
        verify(from_json(json.loads(json.dumps(build(record, seed=5, limits=config.limits)))))
        is None
    )
    for participant in participants:
        assert isinstance(participant, SubprocessParticipant)
        assert participant.proc is not None and participant.proc.returncode is not None
        with pytest.raises(ProcessLookupError):
            os.killpg(participant.proc.pid, 0)


def test_no_shell_ever(tmp_path: Path) -> None:
    (tmp_path / "bot.py").write_text("import sys\nsys.exit(0)\n")
    path = _config(
        tmp_path,
        (
            f"[[participants]]\nname = 'a'\ncommand = {json.dumps(sys.executable + ' bot.py; touch pwned')}\n"
            "[[participants]]\nname = 'b'\nbot = 'random'\n"
        ),
    )
    config, seats = config_module.load(path)
    assert seats[0].command == (sys.executable, "bot.py;", "touch", "pwned")
    participants = make_participants(seats, config.limits)
    participants[0].start()
    assert isinstance(participants[0], SubprocessParticipant)
    assert participants[0].proc is not None
    participants[0].proc.wait(10)
    close_all(participants, 0)
    assert not (tmp_path / "pwned").exists()
    assert participants[0].proc.returncode == 2  # python: can't open file 'bot.py;'


def test_internal_error_mid_match_still_stops_everyone(tmp_path: Path) -> None:
    """A bug of the arena (here: a participant wrapper that raises) propagates, processes stopped."""
    slow = Path(__file__).parent / "hostile" / "stubborn.py"
    path = _config(
        tmp_path,
        (
            f"[[participants]]\nname = 's'\ncommand = [{json.dumps(sys.executable)}, {json.dumps(str(slow))}]\n"
            "[[participants]]\nname = 'r'\nbot = 'random'\n"
        ),
    )
    config, seats = config_module.load(path)
    participants = make_participants(seats, config.limits)
    real = participants[1]
    calls = 0

    class Buggy(Wrapped):
        def exchange(self, line: bytes, timeout: float) -> Any:
            nonlocal calls
            calls += 1
            if calls == 10:
                raise RuntimeError("a bug in the arena")
            return real.exchange(line, timeout)

    with pytest.raises(RuntimeError, match="a bug in the arena"):
        play_match(
            setup_for(config, ["s", "r"], 1),
            [participants[0], Buggy(real)],
            config.limits,
            [s.command for s in seats],
        )
    assert isinstance(participants[0], SubprocessParticipant) and participants[0].proc is not None
    assert participants[0].proc.returncode == -signal.SIGKILL  # the stubborn one: killed, reaped
    with pytest.raises(ProcessLookupError):
        os.killpg(participants[0].proc.pid, 0)


PDEATHSIG_REPORTER = """
import ctypes, sys
signal = ctypes.c_int()
ctypes.CDLL(None).prctl(2, ctypes.byref(signal))  # PR_GET_PDEATHSIG
sys.stdin.readline()
print(signal.value, flush=True)
"""


@pytest.mark.parametrize(
    "limits",
    [ResourceLimits(), ResourceLimits(cpu_seconds=30)],
    ids=["fast-spawn", "with-rlimits"],
)
def test_every_participant_dies_with_the_arena(tmp_path: Path, limits: ResourceLimits) -> None:
    """The parent-death signal is SIGKILL, whichever way the process was started."""
    participant = SubprocessParticipant(
        [sys.executable, "-c", PDEATHSIG_REPORTER], tmp_path, dict(os.environ), limits=limits
    )
    participant.start()
    try:
        answer = participant.exchange(b"null\n", 10.0)
    finally:
        close_all([participant], 0.5)
    assert answer.value == signal.SIGKILL


def test_an_in_process_bot_replying_nan_gives_one_bad_reply_not_a_crash() -> None:
    replies = iter([float("nan"), 3])
    participant = InProcessParticipant(lambda message: next(replies))
    first = participant.exchange(b"{}\n", 1.0)
    assert first.fault is not None and first.fault.kind is FaultKind.NOT_JSON
    assert participant.alive
    assert participant.exchange(b"{}\n", 1.0).value == 3
