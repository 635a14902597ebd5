"""The line channel's framing rules, against an in-memory peer (no process, no real time).

Each test scripts what the peer writes and when (`arena.seats.scripted`); its clock moves only
while the channel waits, so timeouts of seconds take microseconds. What only a real process
shows (groups, reaping, pipes of the kernel) is in tests/test_transport.py.
"""

from __future__ import annotations

from collections.abc import Sequence

from arena.engine.match import NO_REPLY
from arena.seats.channel import NOTE_CAP, NOTE_CUT, NOTES_CAP, LineChannel
from arena.seats.replies import FaultKind
from arena.seats.scripted import Output, ScriptedPipes


def _channel(peer: ScriptedPipes, **options: int) -> LineChannel:
    return LineChannel(peer, clock=peer.clock, **options)


def echo(line: bytes) -> Sequence[Output]:
    return [Output(line)]


def test_echo_round_trip() -> None:
    peer = ScriptedPipes(echo)
    answer = _channel(peer).exchange(b'{"type": "x"}\n', 5.0)
    assert answer.value == {"type": "x"} and answer.fault is None and answer.delivered
    assert peer.lines == [b'{"type": "x"}\n']


def test_line_exactly_at_the_cap_is_read_and_one_more_byte_is_not() -> None:
    def quoted(line: bytes) -> Sequence[Output]:
        n = int(line)
        return [Output(b'"' + b"x" * (n - 2) + b'"\n')]

    channel = _channel(ScriptedPipes(quoted), line_cap=1000)
    assert channel.exchange(b"1000\n", 5.0).value == "x" * 998
    answer = channel.exchange(b"1001\n", 5.0)
    assert answer.fault is not None and answer.fault.kind is FaultKind.LINE_TOO_LONG
    assert not channel.alive


def test_a_reply_arriving_in_pieces_is_one_line() -> None:
    def pieces(line: bytes) -> Sequence[Output]:
        return [
            Output(b'{"pla', after=0.1),
            Output(b'yer": 1}', after=0.2),
            Output(b"\n", after=0.3),
        ]

    peer = ScriptedPipes(pieces)
    answer = _channel(peer).exchange(b"1\n", 5.0)
    assert answer.value == {"player": 1} and 0.3 <= answer.seconds < 0.5


def test_rest_of_a_line_begun_unasked_is_not_the_reply() -> None:
    replies = iter(
        [
            [Output(b"null\n"), Output(b'{"half": ', after=0.01)],
            [Output(b'"line"}\n7\n', after=0.1)],
        ]
    )
    peer = ScriptedPipes(lambda line: next(replies))
    channel = _channel(peer)
    assert channel.exchange(b"1\n", 5.0).value is None
    peer.now += 0.1  # time passes between two messages
    answer = channel.exchange(b"2\n", 5.0)
    assert answer.unsolicited is not None and answer.unsolicited.raw == '{"half": '
    assert answer.value == 7 and answer.fault is None


def test_unasked_whole_lines_are_discarded_and_described() -> None:
    peer = ScriptedPipes(echo)
    channel = _channel(peer)
    peer.emit(b"1\n2\n")
    answer = channel.exchange(b"3\n", 5.0)
    assert answer.value == 3
    assert answer.unsolicited is not None and answer.unsolicited.kind is FaultKind.UNSOLICITED
    assert answer.unsolicited.detail == "4 bytes written when nothing was asked (discarded)"


def test_an_unasked_flood_is_stopped_before_anything_is_written() -> None:
    peer = ScriptedPipes(echo)
    channel = _channel(peer, line_cap=10_000)
    peer.emit(b"x" * 4999 + b"\n")  # much at once, and more keeps coming
    for step in range(1, 100):
        peer.emit(b"x" * 999 + b"\n", after=step * 0.001)
    answer = channel.exchange(b"1\n", 5.0)
    assert not answer.delivered and answer.value is NO_REPLY and not peer.lines
    assert (
        answer.unsolicited is not None
        and "stopped for the rest of the match" in answer.unsolicited.detail
    )
    assert not channel.alive


def test_participant_not_reading_its_input_times_out() -> None:
    peer = ScriptedPipes(stdin_room=1 << 16)
    peer.stop_reading()
    channel = _channel(peer)
    began = peer.clock()
    answer = channel.exchange(b"x" * (1 << 20) + b"\n", 0.3)  # more than a pipe holds
    assert peer.clock() - began < 1.5
    assert answer.fault is not None and answer.fault.kind is FaultKind.TIMEOUT
    assert "not reading its input" in answer.fault.detail
    assert not channel.alive


def test_closed_stdin_is_an_exit() -> None:
    peer = ScriptedPipes()
    peer.close_stdin()
    answer = _channel(peer).exchange(b"x" * (1 << 17) + b"\n", 2.0)
    assert answer.fault is not None and answer.fault.kind is FaultKind.EXITED
    assert "closed its stdin but kept running" in answer.fault.detail


def test_gone_participant_is_not_waited_on() -> None:
    peer = ScriptedPipes()
    peer.end(4)
    channel = _channel(peer)
    first = channel.exchange(b"1\n", 5.0)
    assert first.fault is not None and first.fault.exit_code == 4
    assert first.fault.detail == "process ended (exit code 4)"
    began = peer.clock()
    later = channel.exchange(b"2\n", 5.0)
    assert later.value is NO_REPLY and not later.delivered and later.fault is None
    assert peer.clock() - began < 0.01


def test_an_end_by_a_signal_is_named() -> None:
    peer = ScriptedPipes(lambda line: [Output(b"oops", "stderr")])
    peer.end(-11, after=0.5)
    answer = _channel(peer).exchange(b"1\n", 5.0)
    assert answer.fault is not None and answer.fault.detail == "process ended by signal SIGSEGV"
    assert answer.fault.stderr_tail == "oops"  # the fault carries the end of its stderr


def test_a_reply_without_its_newline_is_kept_as_the_raw_text_of_the_timeout() -> None:
    peer = ScriptedPipes(lambda line: [Output(b'{"player": 1')])
    answer = _channel(peer).exchange(b"null\n", 0.5)
    assert answer.fault is not None and answer.fault.kind is FaultKind.TIMEOUT
    assert answer.fault.raw == '{"player": 1'
    assert "without a newline" in answer.fault.detail
    assert "12 bytes came without a newline: end each reply with one" in answer.fault.detail


def test_a_timeout_with_nothing_written_asks_the_usual_causes() -> None:
    peer = ScriptedPipes()
    answer = _channel(peer).exchange(b"null\n", 2.0)
    assert answer.fault is not None and answer.fault.kind is FaultKind.TIMEOUT
    assert answer.fault.detail.startswith("no reply line within 2 s; stopped")
    assert "is its output flushed" in answer.fault.detail
    assert 2.0 <= answer.seconds < 2.1


def test_a_reply_that_is_not_json_is_one_fault_and_the_seat_plays_on() -> None:
    replies = iter([b"None\n", b"5\n"])
    channel = _channel(ScriptedPipes(lambda line: [Output(next(replies))]))
    first = channel.exchange(b"1\n", 1.0)
    assert first.fault is not None and first.fault.kind is FaultKind.NOT_JSON
    assert "write json.dumps(value)" in first.fault.detail and first.fault.raw == "None"
    assert channel.alive and channel.exchange(b"2\n", 1.0).value == 5


def test_replies_over_the_cap_of_a_match_stop_the_seat_and_a_new_match_counts_again() -> None:
    peer = ScriptedPipes(lambda line: [Output(b'"' + b"y" * 598 + b'"\n')])
    channel = _channel(peer, reply_cap=1024)
    assert channel.exchange(b"1\n", 1.0).fault is None
    channel.begin_match()
    assert channel.exchange(b"2\n", 1.0).fault is None  # 600 bytes in this match
    answer = channel.exchange(b"3\n", 1.0)  # 1,200
    assert answer.fault is not None and answer.fault.kind is FaultKind.TOO_MUCH_OUTPUT
    assert not channel.alive


def test_stderr_is_kept_in_a_bounded_log_while_it_waits() -> None:
    def noisy(line: bytes) -> Sequence[Output]:
        return [Output(b"e" * 5000, "stderr"), Output(b"1\n", after=0.2)]

    channel = _channel(ScriptedPipes(noisy), stderr_cap=1000)
    assert channel.exchange(b"1\n", 1.0).value == 1
    assert channel.log.text().startswith("e" * 1000 + "\n[arena: log cut here at 1000 bytes;")


def test_a_trickle_of_unasked_output_ends_the_seat_within_its_reply_limit() -> None:
    peer = ScriptedPipes(echo)
    channel = _channel(peer)
    peer.emit(b"x" * 4096)
    for step in range(1, 10_000):  # 1 byte every 10 ms: 100 s of it
        peer.emit(b"x", after=step * 0.01)
    answer = channel.exchange(b"1\n", 2.0)
    assert not answer.delivered and not peer.lines and not channel.alive
    assert answer.unsolicited is not None and answer.unsolicited.kind is FaultKind.UNSOLICITED
    assert "more still coming after 2 s (its reply limit)" in answer.unsolicited.detail
    assert 2.0 <= peer.clock() < 2.1


# -- notes: stderr written while a message is outstanding --------------------------------------


def test_stderr_written_for_a_message_is_its_notes_and_between_messages_is_not() -> None:
    def noted(line: bytes) -> Sequence[Output]:
        return [Output(b"thinking about " + line.strip(), "stderr"), Output(line, after=0.01)]

    peer = ScriptedPipes(noted)
    channel = _channel(peer)
    assert channel.exchange(b"1\n", 1.0).notes == "thinking about 1"
    peer.emit(b"idle chatter\n", "stderr")  # nothing outstanding: the log's only
    peer.now += 0.1
    assert channel.exchange(b"2\n", 1.0).notes == "thinking about 2"
    assert "idle chatter" in channel.log.text()


def test_notes_are_cut_per_exchange_and_per_match_with_the_cut_marked() -> None:
    peer = ScriptedPipes(lambda line: [Output(b"n" * 5000, "stderr"), Output(b"0\n")])
    channel = _channel(peer)
    first = channel.exchange(b"1\n", 1.0).notes
    assert first == "n" * NOTE_CAP + NOTE_CUT
    for _ in range(NOTES_CAP // NOTE_CAP - 2):
        assert channel.exchange(b"1\n", 1.0).notes == "n" * NOTE_CAP + NOTE_CUT
    assert channel.exchange(b"1\n", 1.0).notes == "n" * NOTE_CAP + NOTE_CUT  # the last 2 KiB
    assert channel.exchange(b"1\n", 1.0).notes == NOTE_CUT  # the match's notes are full
    channel.begin_match()
    assert channel.exchange(b"1\n", 1.0).notes == first  # a new match keeps notes again
    assert len(channel.log.text()) < (1 << 20) + 4096  # the log stays as capped as before


def test_a_note_at_a_timeout_stays_with_that_exchange() -> None:
    peer = ScriptedPipes(lambda line: [Output(b"stuck in search\n", "stderr")])
    answer = _channel(peer).exchange(b"1\n", 0.5)
    assert answer.fault is not None and answer.fault.kind is FaultKind.TIMEOUT
    assert answer.notes == "stuck in search\n"
