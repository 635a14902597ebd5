"""The replay file (contract §6): writing it, reading it and verifying it (its models are
`arena.replays.models`).

A replay holds the effective settings, the shuffled deck, the starting seat and every
message with its reply; from those alone `verify` plays the match again with the engine and
checks that every message and the result come out the same.
"""

from __future__ import annotations

import json
import math
import shlex
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

import orjson
from pydantic import ValidationError

from arena import __version__
from arena.base import jsontext
from arena.base.config import DeckSection, LimitsSection, RulesSection, engine_rules
from arena.base.errors import ReplayError
from arena.base.files import UnreadableFile, read_capped, safe_part, write_new
from arena.engine import cards, events
from arena.engine.cards import new_pack
from arena.engine.match import NO_REPLY, MatchSetup, Outcome, Result
from arena.engine.rules import shown
from arena.engine.views import Message
from arena.referee.loop import MatchRecord, Unobserved, play_match
from arena.replays.models import EntryModel, FaultModel, PlayerModel, ReplayModel
from arena.replays.schema import MESSAGE, MESSAGES
from arena.seats.recorded import Recording
from arena.seats.replies import Answer, Exchange, Fault, SeatFault

FORMAT = "gofish-arena-replay/1"
# The largest replay read back (docs/hostile.md): far above any match the limits allow (a
# seat's replies are capped at 8 MiB by default), far below what would exhaust memory.
REPLAY_LIMIT = 256 << 20


def build(
    record: MatchRecord,
    *,
    seed: int | None,
    limits: LimitsSection,
    extra: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """The replay document of a played match."""
    setup = record.setup
    return {
        "format": FORMAT,
        "arena": f"gofish-arena {__version__}",
        "config": {**setup.rules.as_seed_names(), "limits": limits.model_dump()},
        "seed": seed,
        "players": [_player(record, seat, name) for seat, name in enumerate(setup.names)],
        "startingPlayer": setup.starting_player,
        **(extra or {}),
        "startedAt": record.started_at,
        "durationSeconds": round(record.seconds, 3),
        "result": record.result.as_json(),
        "faultCounts": record.fault_counts(),
        "faults": [fault.as_json() for fault in record.faults],
        "timings": record.timings,
        "deck": list(setup.deck),
        "events": [events.as_json(event) for event in record.events],
        "transcript": [exchange.as_json() for exchange in record.transcript],
    }


def _player(record: MatchRecord, seat: int, name: str) -> dict[str, Any]:
    player: dict[str, Any] = {"seat": seat, "name": name, "command": record.commands[seat]}
    if seat < len(record.in_process) and record.in_process[seat]:
        # The command it would run as; it played inside the arena, with the same replies.
        player["inProcess"] = True
    if seat < len(record.confinement) and record.confinement[seat]:
        player["sandbox"] = record.confinement[seat]  # how it was confined (docs/sandbox.md)
    if seat < len(record.isolation) and record.isolation[seat]:
        player["isolation"] = list(record.isolation[seat])  # e.g. ["uid of its own", "seccomp"]
    return player


_ONE_PER_LINE = ("deck", "events", "transcript", "faults")


def dumps(replay: dict[str, Any]) -> bytes:
    """Readable JSON: one card, event or transcript entry per line."""
    parts = []
    for key, value in replay.items():
        if key in _ONE_PER_LINE and isinstance(value, list) and value:
            items = b",\n    ".join(_dump(item) for item in value)
            parts.append(b'  "%s": [\n    %s\n  ]' % (key.encode(), items))
        else:
            parts.append(b'  "%s": %s' % (key.encode(), _dump(value)))
    return b"{\n" + b",\n".join(parts) + b"\n}\n"


def _dump(value: Any) -> bytes:
    try:
        return orjson.dumps(value)
    except (orjson.JSONEncodeError, TypeError):
        # A reply with an integer beyond 64 bits or a lone surrogate: the standard module
        # writes both; numbers beyond a double's range were read as infinities and count as
        # nothing, so they are written as null.
        return json.dumps(_finite(value), ensure_ascii=True, allow_nan=False).encode()


def _finite(value: Any) -> Any:
    if isinstance(value, float) and not math.isfinite(value):
        return None
    if isinstance(value, dict):
        return {key: _finite(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_finite(item) for item in value]
    return value


def file_stem(stamp: str, match: int, names: list[str] | tuple[str, ...]) -> str:
    """`STAMP-gNNNN-ann-vs-bob`: each name made safe for a file and cut to 16 characters; two
    seats that would read the same there (`a/b` and `a_b`) get their seat number (`a_b.0`)."""
    parts = [safe_part(name, 16) for name in names]
    parts = [f"{part}.{seat}" if parts.count(part) > 1 else part for seat, part in enumerate(parts)]
    return f"{stamp}-g{match:04d}-" + "-vs-".join(parts)[:120]


def write(folder: Path, stem: str, document: bytes, logs: Sequence[str]) -> Path:
    """Write a replay (as `dumps` made it) and each seat's non-empty stderr log beside it,
    never overwriting a file. Raises WriteError."""
    path = write_new(folder, stem, ".json", document)
    for seat, log in enumerate(logs):
        if log:
            write_new(
                folder, f"{path.stem}.seat{seat}", ".stderr.log", log.encode("utf-8", "replace")
            )
    return path


@dataclass(frozen=True)
class RecordedPlayer:
    """A seat of a replay: who played it and how."""

    seat: int
    name: str
    command: tuple[str, ...]  # the argument list run (for a bot in the arena: as it would run)
    in_process: bool  # a built-in bot that played inside the arena
    sandbox: str | None  # how it was confined (docs/sandbox.md); None in older replays
    fingerprint: str | None = None  # `players[].fingerprint` when the replay has one

    @property
    def program(self) -> str:
        """Who played the seat, in a word: the level of a built-in bot (`… -m arena.bots
        hard`), else the program (`python3 bots/new.py` is `new`, `./mybot` is `mybot`)."""
        return program_name(self.command)

    @property
    def played_by(self) -> str:
        """Who played the seat, in full: a built-in bot's level, else its whole command line
        (`python3 bots/new.py --depth 3`), as a fork's header shows a replaced seat."""
        return built_in_level(self.command) or shlex.join(self.command)


def built_in_level(command: Sequence[str]) -> str | None:
    """The level of a built-in bot's command (`… -m arena.bots hard`), else None."""
    if len(command) == 4 and tuple(command[1:3]) == ("-m", "arena.bots"):
        return str(command[3])
    return None


def program_name(command: Sequence[str]) -> str:
    """A command in a word: its built-in level, or the first word naming a file, or its
    program (see `RecordedPlayer.program`)."""
    if (level := built_in_level(command)) is not None:
        return level
    files = [word for word in command if "/" in word or "." in Path(word).name]
    word = files[0] if files else (command[0] if command else "?")
    return (Path(word).stem or Path(word).name or word)[:64]


@dataclass(frozen=True)
class ForkOrigin:
    """Where a forked replay leaves its source (contract §6.5)."""

    at: int  # the transcript index from which it plays live
    turn: int | None  # the turn `--at turn:T` named, if it was given so
    source: str  # the source file's name
    replaced: tuple[int, ...]  # the seats given another participant


@dataclass(frozen=True)
class Replay:
    """A replay file as read back and checked (`read`), in the arena's own types.

    What verifying and showing use; the rest of the file (events, timings, faultCounts…) is
    informative and stays there. `settings` are the recorded `config`'s rules, deck and limits
    under their TOML names: `setup_of` checks them as strictly as a config.
    """

    format: str
    settings: Mapping[str, Mapping[str, Any]]
    seed: int | None
    deal_seed: int | None  # a tournament match's deal ("dealSeed")
    match: int | None  # a tournament match's index ("game")
    players: tuple[RecordedPlayer, ...]
    starting_player: int
    deck: tuple[cards.Card, ...]
    transcript: tuple[Exchange, ...]
    result: Result
    faults: tuple[SeatFault, ...]
    fault_counts: tuple[Mapping[str, int], ...] | None
    fork: ForkOrigin | None

    def shown_names(self, names: Sequence[str]) -> list[str]:
        """The seats' `names` as shown: a fork's replaced seat by who played it there (its
        level or program), not by the recorded name it keeps (its messages before the point
        are the source's, names and all)."""
        shown = list(names)
        for seat in self.fork.replaced if self.fork is not None else ():
            if 0 <= seat < min(len(shown), len(self.players)):
                shown[seat] = self.players[seat].program
        return shown

    @classmethod
    def of(cls, model: ReplayModel) -> Replay:
        """The typed replay of a validated file."""
        return cls(
            format=model.format,
            settings={
                "rules": model.config.rules,
                "deck": model.config.deck,
                "limits": model.config.limits,
            },
            seed=model.seed,
            deal_seed=model.dealSeed,
            match=model.game,
            players=tuple(
                RecordedPlayer(
                    p.seat, p.name, tuple(p.command), p.inProcess, p.sandbox, _fingerprint(p)
                )
                for p in model.players
            ),
            starting_player=model.startingPlayer,
            deck=tuple(cards.Card(**card.model_dump()) for card in model.deck),  # type: ignore[typeddict-item]
            transcript=tuple(_exchange(entry) for entry in model.transcript),
            result=Result(
                model.result.outcome, tuple(model.result.scores), tuple(model.result.ranks)
            ),
            faults=tuple(SeatFault(f.seat, f.at, _fault(f)) for f in model.faults),
            fault_counts=None if model.faultCounts is None else tuple(model.faultCounts),
            fork=None
            if model.fork is None
            else ForkOrigin(
                model.fork.at,
                model.fork.turn,
                model.fork.source,
                tuple(r.seat for r in model.fork.replaced),
            ),
        )


def _fingerprint(player: PlayerModel) -> str | None:
    """The player's `fingerprint` when the file gives one as a string (a key the model may
    only allow as an extra)."""
    found = getattr(player, "fingerprint", None)
    return found if isinstance(found, str) else None


def _fault(model: FaultModel) -> Fault:
    return Fault(model.kind, model.detail, model.raw, model.exitCode, model.stderrTail)


def _exchange(entry: EntryModel) -> Exchange:
    """A transcript entry: a reply marked `noReply` or not delivered is NO_REPLY whatever its
    `reply` key holds."""
    no_reply = entry.noReply is not None or not entry.delivered
    answer = Answer(
        NO_REPLY if no_reply else entry.reply,
        fault=None if entry.noReply is None else _fault(entry.noReply),
        unsolicited=None if entry.unsolicited is None else _fault(entry.unsolicited),
        delivered=entry.delivered,
        notes=entry.notes or "",
    )
    return Exchange(entry.seat, entry.message, answer)


def read(path: Path) -> Replay:
    """Load and check a replay file (a file anyone may have edited).

    Raises ReplayError, one line naming the file and the key: a file that is not a regular
    file under REPLAY_LIMIT, not JSON (NaN and Infinity are not JSON), nested too deeply, or
    not shaped as the arena writes replays (`ReplayModel`, every message as the contract's
    models in `arena.replays.schema` say).
    """
    try:
        data = jsontext.loads(read_capped(path, REPLAY_LIMIT))
    except FileNotFoundError:
        raise ReplayError(f"{path}: no such file") from None
    except UnreadableFile as error:
        raise ReplayError(f"{path}: {error}") from None
    except RecursionError:
        raise ReplayError(f"{path}: not a JSON replay: nested too deeply") from None
    except OSError as error:
        raise ReplayError(f"{path}: cannot read: {error.strerror or error}") from None
    except ValueError as error:
        raise ReplayError(f"{path}: not a JSON replay: {error}") from None
    return from_json(data, str(path))


def own(document: bytes, where: str = "replay") -> Replay:
    """A replay document this run has just built (`runner`'s bytes, the very bytes it writes
    as the file), typed as `read` types the file: its shape checked by `ReplayModel`, but not
    each transcript message again against the contract's models, as a file anyone may have
    edited is: the messages are the referee's own, as the engine built them, and that check
    is most of the cost of reading a replay (the viewer page `arena run` builds for each
    match; docs/report.md). Raises ReplayError, as `read`."""
    try:
        data = jsontext.loads(document)
    except RecursionError:
        raise ReplayError(f"{where}: not a JSON replay: nested too deeply") from None
    except ValueError as error:
        raise ReplayError(f"{where}: not a JSON replay: {error}") from None
    return from_json(data, where, messages=False)


class NotAReplay(ReplayError):
    """A JSON file that is not a replay at all; `format` is its own "format", when a string."""

    def __init__(self, message: str, format: object) -> None:
        super().__init__(message)
        self.format = format if isinstance(format, str) else None


def from_json(data: Any, where: str = "replay", *, messages: bool = True) -> Replay:
    """A replay document, as JSON values, checked against `ReplayModel` (each transcript
    message against the contract's models, `arena.replays.schema.MESSAGE`, unless not
    `messages`: the run's own document, `own`) and typed.

    Raises ReplayError, one line naming `where` (the file) and the key.
    """
    kind = data.get("format") if isinstance(data, dict) else None
    if not (isinstance(kind, str) and kind.startswith(FORMAT.split("/")[0] + "/")):
        # A run's standings.json, say: `replays/*.json` names it too.
        what = f'its "format" is {shown(kind, 80)}' if isinstance(kind, str) else 'no "format"'
        raise NotAReplay(f'{where}: not a replay ({what}; a replay\'s is "{FORMAT}")', kind)
    try:
        model = ReplayModel.model_validate(data)
        for index, entry in enumerate(model.transcript if messages else ()):
            # A known type checked by its own model: the key then names no union member.
            kind = entry.message.get("type")
            adapter = MESSAGES.get(kind, MESSAGE) if isinstance(kind, str) else MESSAGE
            try:
                adapter.validate_python(entry.message)
            except ValidationError as error:
                problem = _problem(error, f"transcript[{index}].message")
                raise ReplayError(f"{where}: {problem}") from None
        return Replay.of(model)
    except ValidationError as error:
        raise ReplayError(f"{where}: {_problem(error)}") from None
    except RecursionError:
        raise ReplayError(f"{where}: not a JSON replay: nested too deeply") from None


def _problem(error: ValidationError, within: str = "") -> str:
    """The first problem pydantic found, as one line naming its key (below `within`)."""
    problem = error.errors(include_url=False)[0]
    key = ".".join([*filter(None, [within]), *(str(part) for part in problem["loc"])])
    message = str(problem["msg"]).removeprefix("Value error, ")
    return f"{key}: {message}" if key else message


def setup_of(replay: Replay) -> MatchSetup:
    """The match setup a replay records. Raises ReplayError, one line naming the key
    (`config.rules.startingHandSize: …`), for settings that `arena run` would have refused:
    a replay is checked as strictly as a config."""
    limits = _table(replay, "limits", LimitsSection)
    return MatchSetup(
        rules=engine_rules(
            _table(replay, "rules", RulesSection), _table(replay, "deck", DeckSection)
        ),
        names=tuple(player.name for player in replay.players),
        deck=replay.deck,
        starting_player=replay.starting_player,
        **limits.match_options(),
    )


_Table = TypeVar("_Table", RulesSection, DeckSection, LimitsSection)


def _table(replay: Replay, name: str, section: type[_Table]) -> _Table:
    """One recorded table of settings, read as a config's. Raises ReplayError."""
    try:
        return section.read(replay.settings[name])
    except ValidationError as error:
        raise ReplayError(_problem(error, f"config.{name}")) from None


def verify(replay: Replay) -> str | None:
    """Play the recorded replies again; the first difference as a sentence, or None.

    Values are compared as JSON, so `1`, `1.0` and `true` are three different values.
    """
    if replay.format != FORMAT:
        return f"format: {shown(replay.format, 240)} is not {FORMAT!r}"
    try:
        setup = setup_of(replay)
    except ReplayError as error:
        return str(error)
    wrong_deck = deck_problem(setup)
    if wrong_deck is not None:
        return wrong_deck
    if replay.seed is not None:
        # The deal (and a random starting seat) follow from the recorded seed.
        seed = replay.seed if replay.deal_seed is None else replay.deal_seed
        dealt = MatchSetup.from_seed(seed, setup.names, setup.rules)
        if [_same(card) for card in dealt.deck] != [_same(card) for card in setup.deck]:
            return "deck: not the shuffle of the recorded seed"
        if dealt.starting_player != setup.starting_player:
            return f"startingPlayer: the recorded seed starts seat {dealt.starting_player}"
    transcript = list(replay.transcript)
    recording = Recording(transcript)
    same = _SameMessages(transcript)
    record = play_match(
        setup,
        [recording.seat(seat) for seat in range(len(setup.names))],
        LimitsSection(),
        observer=same,
        should_stop=lambda: recording.exhausted or same.problem is not None,
    )
    if same.problem is not None:
        return same.problem
    index = recording.next
    if record.unsent is not None:
        if replay.result.outcome != Outcome.INTERRUPTED:
            return f"transcript[{index}]: missing; the engine sends {_show((record.unsent.seat, record.unsent.message))}"
    elif index != len(transcript):
        return f"transcript[{index}]: recorded, but the match is over by then"
    if record.result != replay.result:
        recorded, engine = shown(replay.result.as_json(), 240), shown(record.result.as_json(), 240)
        return f"result: recorded {recorded}, the engine gives {engine}"
    return None


class _SameMessages(Unobserved):
    """Notes the first message the engine sends that is not the one recorded at its index."""

    def __init__(self, transcript: list[Exchange]) -> None:
        self.transcript = transcript
        self.problem: str | None = None

    def sending(self, index: int, seat: int, message: Message) -> None:
        entry = self.transcript[index]
        recorded = (entry.seat, entry.message)
        if self.problem is None and _same(recorded) != _same((seat, message)):
            self.problem = (
                f"transcript[{index}]: recorded {_show(recorded)}, "
                f"the engine sends {_show((seat, message))}"
            )


def deck_problem(setup: MatchSetup) -> str | None:
    """Why a recorded deck is not the pack of its settings, shuffled; None when it is."""
    rules = setup.rules
    expected = sorted(_same(card) for card in new_pack(rules.number_of_decks, rules.knights))
    if sorted(_same(card) for card in setup.deck) != expected:
        return "deck: not the pack of these settings, shuffled"
    return None


def _same(value: Any) -> bytes:
    """A form in which equal JSON is equal and `1`, `1.0` and `true` are not."""
    try:
        return orjson.dumps(value, option=orjson.OPT_SORT_KEYS)
    except (orjson.JSONEncodeError, TypeError):
        return json.dumps(_finite(value), sort_keys=True).encode()


def _show(delivery: tuple[int, Any]) -> str:
    seat, message = delivery
    return f"seat {seat} ← {shown(message, 160)}"
