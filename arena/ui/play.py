"""`arena play`: a person at the terminal against the built-in bots.

The match is an ordinary one: the match loop (`arena.referee.loop.play_match`) drives a
`HumanSeat` (seat 0) and in-process bots through the same message lines as any participant,
and the replay it writes verifies like any other. The screen is kept by a `Spectator`, the
loop's observer: each exchange's faults and each engine event become steps
(`arena.replays.timeline`), shown as the human seat sees them: nothing on screen comes from a
bot's hand.

This module and the CLI are the only ones that talk to the terminal.
"""

from __future__ import annotations

import os
import secrets
import select
import shlex
import termios
import time
import tty
from collections import deque
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any, Final, Self

from rich.console import Console
from rich.table import Table as RichTable
from rich.text import Text

from arena.base.config import RULE_SETS, LimitsSection, bot_command, named_rules, rules_file
from arena.base.errors import ConfigError
from arena.base.words import ordinal
from arena.bots import Level
from arena.engine.cards import Card
from arena.engine.events import Event
from arena.engine.match import MatchSetup, Outcome
from arena.engine.rules import Rules
from arena.engine.views import Message
from arena.referee.loop import MatchInterrupted, MatchRecord, Unobserved, play_match
from arena.replays import replay as replay_module
from arena.replays.timeline import Step, StepKind, TimelineBuilder, rank_name, rules_summary
from arena.seats.human import HumanSeat, QuitGame
from arena.seats.in_process import InProcessParticipant
from arena.seats.replies import Exchange, Participant, SeatFault
from arena.ui.show import Names, book_strip, hand_text, seat_style

HUMAN = 0
BOT_NAMES = ("Pip", "Wren", "Olly")
LEVELS = tuple(level for level in Level if level is not Level.RANDOM)
RANK_WORDS = {
    "a": 0,
    "ace": 0,
    "aces": 0,
    "j": 10,
    "jack": 10,
    "jacks": 10,
    "c": 11,
    "knight": 11,
    "knights": 11,
    "q": 12,
    "queen": 12,
    "queens": 12,
    "k": 13,
    "king": 13,
    "kings": 13,
    "t": 9,
}
_NUMBERS = ("two", "three", "four", "five", "six", "seven", "eight", "nine", "ten")
RANK_WORDS.update({word: rank for rank, word in enumerate(_NUMBERS, start=1)})
RANK_WORDS.update({word + ("es" if word == "six" else "s"): RANK_WORDS[word] for word in _NUMBERS})


# The game without --rules: the kitchen table's (the reference arena's rules, dealt by table size).
DEFAULT_RULE_SET: Final = "kitchen-table"


@dataclass(frozen=True)
class PlayOptions:
    opponents: int = 1
    level: str = "easy"
    seed: int = 0
    delay: float = 0.4
    replays: Path = Path("replays")
    name: str = "you"
    rules: Rules = field(default_factory=lambda: named_rules(DEFAULT_RULE_SET))
    rules_choice: str | None = None  # as given to --rules, to say how to play the deal again


def new_seed() -> int:
    return secrets.randbits(32)


def make_setup(options: PlayOptions) -> MatchSetup:
    """The match of `options`: by default 7 cards each for two players, 5 each for three or four."""
    names = [
        options.name,
        *(n if n != options.name else f"{n}-bot" for n in BOT_NAMES[: options.opponents]),
    ]
    return MatchSetup.from_seed(
        options.seed, names, options.rules, limits=LimitsSection().told_to_seats()
    )


def chosen_rules(choice: str | None, seats: int) -> Rules:
    """The rules of `--rules`: a ready rule set's name or a config file's `[rules]` and `[deck]`.

    Raises ConfigError (one line) for an unknown name, a bad file, or a deal the pack cannot cover.
    """
    if choice is None:
        rules = named_rules(DEFAULT_RULE_SET)
    elif choice in RULE_SETS:
        rules = named_rules(choice)
    elif choice.endswith(".toml") or "/" in choice:
        rules = rules_file(Path(choice))
    else:
        raise ConfigError(
            f"--rules: {choice!r} is neither a rule set ({', '.join(RULE_SETS)}) nor a .toml file"
        )
    try:
        rules.check_deal(seats)
    except ValueError as error:
        raise ConfigError(f"--rules: {error}") from None
    return rules


# -- the screen's view of the match: an observer of the match loop -----------------------


class Spectator(Unobserved):
    """Turns each exchange's faults and each engine event into steps, shown as they happen."""

    def __init__(self, setup: MatchSetup) -> None:
        self.builder = TimelineBuilder(setup)
        self.transcript: list[Exchange] = []
        self.ui: TerminalUI | None = None

    def sending(self, index: int, seat: int, message: Message) -> None:
        if self.ui is not None and seat != HUMAN and message["type"] == "ask":
            self.ui.before_bot_move()

    def exchanged(self, index: int, exchange: Exchange) -> None:
        self.transcript.append(exchange)
        answer = exchange.answer
        steps = [
            self.builder.fault(SeatFault(exchange.seat, index, fault))
            for fault in (answer.unsolicited, answer.fault)
            if fault is not None
        ]
        self._show(steps)

    def happened(self, event: Event) -> None:
        step = self.builder.event(event, self.transcript)
        self._show([step] if step is not None else [])

    def _show(self, steps: list[Step]) -> None:
        if self.ui is not None and steps:
            self.ui.show_steps(steps)


# -- keys ------------------------------------------------------------------------------

_SEQUENCES = {
    b"\x1b[D": "left",
    b"\x1b[C": "right",
    b"\x1b[A": "up",
    b"\x1b[B": "down",
    b"\x1b[H": "home",
    b"\x1b[F": "end",
    b"\x1b[1~": "home",
    b"\x1b[4~": "end",
    b"\x1b[7~": "home",
    b"\x1b[8~": "end",
    b"\x1bOD": "left",
    b"\x1bOC": "right",
    b"\x1bOH": "home",
    b"\x1bOF": "end",
}


LINE_LIMIT = 1000  # characters of a piped line that are kept (a command is a few words)


class Keys:
    """Keys from the terminal, one at a time (cbreak mode); from a pipe, a line at a time.

    `read` returns a key name (`left`, `right`, `home`, `end`, `enter`, `esc`, `backspace`,
    `eof`) or one printable character. A line from a pipe comes as its characters, then `enter`.
    """

    def __init__(self, fd: int) -> None:
        self.fd = fd
        self.is_tty = os.isatty(fd)
        self.saved: list[Any] | None = None
        self.buffer = b""
        self.queue: deque[str] = deque()

    def __enter__(self) -> Self:
        if self.is_tty:
            self.saved = termios.tcgetattr(self.fd)
            tty.setcbreak(self.fd)  # keeps ISIG: Ctrl-C still interrupts
        return self

    def __exit__(self, *exc: object) -> None:
        if self.saved is not None:
            termios.tcsetattr(self.fd, termios.TCSADRAIN, self.saved)
            self.saved = None

    def _fill(self, wait: float | None = None) -> bool:
        if wait is not None and not select.select([self.fd], [], [], wait)[0]:
            return False
        chunk = os.read(self.fd, 1024)
        self.buffer += chunk
        return bool(chunk)

    def read(self) -> str:
        if not self.is_tty:
            return self._read_line_mode()
        while True:
            if not self.buffer and not self._fill():
                return "eof"
            key = self._take()
            if key is not None:
                return key

    def _read_line_mode(self) -> str:
        while not self.queue:
            line = self._next_line()
            if line is None:
                return "eof"
            self.queue.extend([*line.decode("utf-8", "replace").rstrip("\r")[:LINE_LIMIT], "enter"])
        return self.queue.popleft()

    def _next_line(self) -> bytes | None:
        """The next line from the pipe (the last may lack its newline), cut to 4 x LINE_LIMIT
        bytes: the rest of a longer line is read and dropped, so a megabyte without a newline
        costs one pass over it. None at the end of input."""
        kept = bytearray()
        room = 4 * LINE_LIMIT
        while True:
            end = self.buffer.find(b"\n")
            if end >= 0:
                kept += self.buffer[: max(0, min(end, room - len(kept)))]
                self.buffer = self.buffer[end + 1 :]
                return bytes(kept)
            kept += self.buffer[: max(0, room - len(kept))]
            self.buffer = os.read(self.fd, 1 << 16)
            if not self.buffer:
                return bytes(kept) if kept else None

    def _take(self) -> str | None:
        data = self.buffer
        first = data[0]
        if first == 0x1B:
            if len(data) == 1 and not self._fill(0.05):
                self.buffer = b""
                return "esc"
            data = self.buffer
            for sequence, name in _SEQUENCES.items():
                if data.startswith(sequence):
                    self.buffer = data[len(sequence) :]
                    return name
            if data[1:2] in (b"[", b"O"):  # an unknown sequence: drop it up to its final byte
                end = 2
                while end < len(data) and not 0x40 <= data[end] <= 0x7E:
                    end += 1
                self.buffer = data[end + 1 :]
                return None
            self.buffer = data[1:]
            return "esc"
        size = 1 if first < 0x80 else 2 if first >> 5 == 0b110 else 3 if first >> 4 == 0b1110 else 4
        while len(self.buffer) < size and self._fill(0.05):
            pass
        raw, self.buffer = self.buffer[:size], self.buffer[size:]
        char = raw.decode("utf-8", "replace")
        special = {
            "\r": "enter",
            "\n": "enter",
            "\x7f": "backspace",
            "\x08": "backspace",
            "\x04": "eof",
        }
        if char in special:
            return special[char]
        if char == "\x03":
            raise KeyboardInterrupt
        return char if char.isprintable() else None


# -- choosing an ask -------------------------------------------------------------------


def parse_rank(word: str) -> int | None:
    word = word.strip().lower()
    if word in RANK_WORDS:
        return RANK_WORDS[word]
    word = word.removesuffix("s")
    if word.isdigit() and 2 <= int(word) <= 10:
        return int(word) - 1
    return RANK_WORDS.get(word)


class AskPrompt:
    """One ask being chosen: a rank by arrow keys or by name, then a seat by number or name."""

    def __init__(
        self,
        hand: Sequence[Card],
        sizes: Sequence[int | None],
        names: Sequence[str],
        human: int,
        *,
        arrows: bool = True,
    ) -> None:
        self.arrows = arrows  # keys come one at a time (a terminal), not a line from a pipe
        self.hand = list(hand)
        self.held = sorted({card["rank"] for card in hand})
        self.sizes = list(sizes)
        self.names = list(names)
        self.human = human
        self.cursor = 0
        self.chosen: int | None = None
        self.buffer = ""
        self.note = ""  # what went wrong with the last command, shown once

    def opponents(self) -> list[int]:
        return [seat for seat in range(len(self.names)) if seat != self.human]

    def _chose(self, rank: int) -> tuple[int, int] | None:
        """`rank` is chosen: with one opponent that is the whole ask, else "from whom?"."""
        self.chosen = rank
        self.cursor = self.held.index(rank)
        [*others] = self.opponents()
        return self._ask(rank, str(others[0])) if len(others) == 1 else None

    def key(self, key: str) -> tuple[int, int] | None:
        """Handle one key; the (seat, card id) of the ask when one is made. Raises QuitGame."""
        self.note = ""
        if key == "eof":
            raise QuitGame
        if key == "esc":
            self.chosen, self.buffer = None, ""
        elif key == "backspace":
            self.buffer = self.buffer[:-1]
        elif key in ("left", "right", "home", "end", "up", "down") and not self.buffer:
            last = len(self.held) - 1
            step = {"left": -1, "up": -1, "right": 1, "down": 1}.get(key, 0)
            self.cursor = (
                0
                if key == "home"
                else last
                if key == "end"
                else max(0, min(last, self.cursor + step))
            )
            self.chosen = None
        elif key == "enter":
            if self.buffer.strip():
                command, self.buffer = self.buffer, ""
                return self.command(command)
            self.buffer = ""
            return self._chose(self.held[self.cursor])
        elif key == " " and not self.buffer:
            return self._chose(self.held[self.cursor])
        elif len(key) == 1:
            if key.isdigit() and not self.buffer and self.chosen is not None:
                return self._ask(self.chosen, key)
            self.buffer += key
        return None

    def command(self, text: str) -> tuple[int, int] | None:
        words = text.replace(",", " ").split()
        if not words:
            return None
        if words[0].lower() in ("quit", "exit"):  # not "q": that is Queens, as in "q 1"
            raise QuitGame
        if words[0].lower() in ("h", "help", "?"):
            self.note = 'type RANK WHO, e.g. "7 1" or "q pip" (ask seat 1 for 7s)' + (
                ", or choose a rank with ←/→ and Enter"
                + (
                    " (with one opponent that is the whole ask)"
                    if len(self.opponents()) == 1
                    else ", then press the seat's number; Esc lets go"
                )
                if self.arrows
                else ""
            )
            self.note += "; quit leaves the game"
            return None
        if words[0].lower() == "ask":
            words = words[1:]
            if [word.lower() for word in words[:1]] == ["for"]:  # "ask for 7s": one opponent
                words = words[1:]
            if len(words) >= 2 and words[-2].lower() == "for":  # "ask pip for 7"
                words = [words[-1], words[0]]
        rank = parse_rank(words[0]) if words else None
        if rank is None:
            self.note = f"{words[0] if words else '?'!r} is not a rank (A 2 … 10 J Q K)"
            return None
        if rank not in self.held:
            self.note = f"you hold no {rank_name(rank, True)}: ask for a rank you hold"
            return None
        if len(words) < 2:
            return self._chose(rank)
        self.chosen = rank
        self.cursor = self.held.index(rank)
        return self._ask(rank, " ".join(words[1:]))

    def _ask(self, rank: int, who: str) -> tuple[int, int] | None:
        seat = self._seat(who)
        if seat is None:
            self.note = f"{who!r} is not a seat: " + ", ".join(
                f"{s} {self.names[s]}" for s in self.opponents()
            )
            return None
        if seat == self.human:
            self.note = "that is you: ask another seat"
            return None
        holding = [s for s in self.opponents() if (self.sizes[s] or 0) > 0]
        if (self.sizes[seat] or 0) == 0 and holding:
            self.note = f"{self.names[seat]} has no cards: ask someone who has"
            return None
        card = next(card for card in self.hand if card["rank"] == rank)
        return seat, card["id"]

    def _seat(self, who: str) -> int | None:
        who = who.strip().lower()
        if who.isdigit():
            seat = int(who)
            return seat if 0 <= seat < len(self.names) else None
        if who in ("me", "you", "myself"):
            return self.human
        matches = [s for s in self.opponents() if self.names[s].lower().startswith(who)]
        return matches[0] if len(matches) == 1 else None

    def line(self) -> Text:
        text = Text("ask> ", style="bold")
        if self.chosen is None:
            if self.arrows:
                text.append("rank ")
                text.append(f"‹{rank_name(self.held[self.cursor])}›", style="reverse")
                others = self.opponents()
                # With one opponent Enter is the whole ask: no seat number follows.
                enter = f"Enter asks {self.names[others[0]][:12]}" if len(others) == 1 else "Enter"
                text.append(f' (←/→, {enter}) or type "7 1"; quit leaves: ', style="dim")
            else:
                text.append('type RANK WHO, e.g. "7 1"; quit leaves: ', style="dim")
        else:
            text.append(f"{rank_name(self.chosen, True)} from whom? ")
            for seat in self.opponents():
                text.append(f"{seat} ", style="bold")
                text.append(self.names[seat][:12] + "  ", style=seat_style(seat))
            text.append("(Esc lets go): ", style="dim")
        text.append(self.buffer)
        return text


# -- the screen ------------------------------------------------------------------------


class TerminalUI:
    """What the person sees and types: the human seat's `Chooser` and the step printer."""

    def __init__(
        self, console: Console, keys: Keys, setup: MatchSetup, delay: float, spectator: Spectator
    ) -> None:
        self.console = console
        self.keys = keys
        self.setup = setup
        self.delay = delay
        self.spectator = spectator
        self.names = Names(setup.names, you=HUMAN)
        self.quit = False
        self.prompted = False  # a prompt is on the last line, without its newline

    def say(self, text: Text) -> None:
        self.console.print(text)

    def show_steps(self, steps: Sequence[Step]) -> None:
        for step in steps:
            line = step.seen[HUMAN]
            if line is None:
                continue
            style = "red" if step.fault else "bold" if step.kind is StepKind.BOOK else ""
            self.say(Text("  ").append_text(self.names.line(line, style)))

    def before_bot_move(self) -> None:
        self.console.file.flush()
        if self.delay > 0:
            time.sleep(self.delay)

    def choose_ask(self, message: dict[str, Any]) -> tuple[int, int]:
        hand: list[Card] = list(message.get("hand") or [])
        sizes = list(message.get("opponentsHandSizes") or [])
        sizes[HUMAN] = len(hand)
        pond = message.get("pond")
        self._table(hand, sizes, len(pond) if isinstance(pond, list) else 0)
        names = [self.names.of(s).plain for s in range(len(self.setup.names))]
        prompt = AskPrompt(hand, sizes, names, HUMAN, arrows=self.keys.is_tty)
        prompt.names[HUMAN] = "you"
        self._prompt(prompt)
        try:
            while True:
                key = self.keys.read()
                try:
                    choice = prompt.key(key)
                except QuitGame:
                    self.quit = True
                    raise
                if prompt.note:
                    self._clear_line()
                    self.say(Text("  " + prompt.note, style="yellow"))
                if choice is not None:
                    return choice
                if self.keys.is_tty or key == "enter":  # from a pipe: once per line
                    self._prompt(prompt)
        finally:
            self._clear_line()

    def _clear_line(self) -> None:
        if self.console.is_terminal:
            self.console.file.write("\r\x1b[2K")
        elif not self.prompted:
            return
        else:
            self.console.file.write("\n")
        self.prompted = False
        self.console.file.flush()

    def _prompt(self, prompt: AskPrompt) -> None:
        if self.console.is_terminal:
            self.console.file.write("\r\x1b[2K")
        self.console.print(prompt.line(), end="")
        self.console.file.flush()
        self.prompted = True

    def _table(self, hand: list[Card], sizes: list[int], pond: int) -> None:
        books = self.spectator.builder.booked
        self.console.rule(f"your turn · pond {pond}", style="dim")
        for seat in range(len(self.setup.names)):
            row = Text(f"  {seat} ").append_text(self.names.of(seat))
            count = len(books[seat])
            row.append(f"  {sizes[seat]} cards  {count} book{'s' if count != 1 else ''}")
            if books[seat]:
                row.append(" (" + " ".join(rank_name(r) for r in books[seat]) + ")")
            self.say(row)
        self.say(Text("  books: ").append_text(book_strip(books, self.setup.rules.knights)))
        self.say(Text("  your hand: ").append_text(hand_text(hand)))

    def welcome(self, options: PlayOptions) -> None:
        self.console.rule("Go Fish", style="bold")
        line = Text(
            f"seed {options.seed} · {options.opponents} opponent(s), level {options.level}: "
        )
        for seat in range(1, len(self.setup.names)):
            line.append_text(self.names.of(seat)).append(" ")
        self.say(line)
        self.say(
            Text(f"rules: {rules_summary(self.setup.rules, len(self.setup.names))}", style="dim")
        )
        self.say(
            Text(
                "Ask for a rank you hold; four of a rank make a book; most books wins. "
                'Type RANK WHO (e.g. "7 1")'
                + (
                    (
                        " or use ←/→ and Enter, which asks at once"
                        if len(self.setup.names) == 2
                        else " or use ←/→, Enter and the seat number"
                    )
                    if self.keys.is_tty
                    else ""
                )
                + '. "help"; "quit" leaves.',
                style="dim",
            )
        )

    def finish(self, record: MatchRecord, path: Path, options: PlayOptions) -> None:
        result = record.result
        self.show_steps([self.spectator.builder.end(result, len(record.transcript))])
        finished = result.outcome is not Outcome.INTERRUPTED
        # A match left before its end has no places: books so far are not a result.
        title = (
            "final placings" if finished else "books so far (the match was not finished: no places)"
        )
        table = RichTable(title=title, title_justify="left")
        for column in ("place", "seat", "books", "ranks booked"):
            table.add_column(column)
        order = sorted(range(len(result.scores)), key=lambda s: (result.places[s], s))
        books = self.spectator.builder.booked
        for seat in order:
            table.add_row(
                ordinal(result.places[seat]) if finished else "-",
                self.names.of(seat),
                str(result.scores[seat]),
                " ".join(rank_name(r) for r in books[seat]) or "-",
            )
        if result.scores:
            self.console.print(table)
        self.say(Text(f"replay: {_relative(path)}"))
        again = f"arena play --seed {options.seed} --opponents {options.opponents} --level {options.level}"
        if options.rules_choice is not None:
            again += f" --rules {shlex.quote(options.rules_choice)}"
        self.say(Text(f"this deal again: {again}", style="dim"))


def _relative(path: Path) -> str:
    try:
        return str(path.relative_to(Path.cwd()))
    except ValueError:
        return str(path)


# -- the game --------------------------------------------------------------------------


def bot_participant(level: str) -> Participant:
    from arena.bots import BOTS  # stdlib-only, and written separately: imported when needed

    return InProcessParticipant(BOTS[level]().handle)


def play(
    options: PlayOptions,
    console: Console,
    stdin_fd: int = 0,
    bots: Callable[[str], Participant] = bot_participant,
) -> int:
    """Play one match; write its replay. 0 when it ended or the player quit, 130 on Ctrl-C.

    Raises WriteError if the replay cannot be written.
    """
    setup = make_setup(options)
    limits = LimitsSection(close_grace=0)
    spectator = Spectator(setup)
    commands = [[], *([*bot_command(options.level)] for _ in range(options.opponents))]
    status = 0
    with Keys(stdin_fd) as keys:
        ui = TerminalUI(console, keys, setup, options.delay, spectator)
        ui.welcome(options)
        deal = spectator.builder.deal()
        ui.show_steps([deal] if deal else [])
        spectator.ui = ui
        participants: list[Participant] = [HumanSeat(ui)]
        participants += [bots(options.level) for _ in range(options.opponents)]
        try:
            record = play_match(setup, participants, limits, commands, observer=spectator)
        except MatchInterrupted as stop:
            record = stop.record
            status = 0 if ui.quit else 130
            ui.say(Text("you left the game" if ui.quit else "interrupted", style="yellow"))
    extra = {"game": 0, "humanSeat": HUMAN, "level": options.level}
    document = replay_module.build(record, seed=options.seed, limits=limits, extra=extra)
    stamp = datetime.now().strftime("%Y%m%d-%H%M%S")
    stem = replay_module.file_stem(stamp, 0, setup.names)
    if record.result.outcome is Outcome.INTERRUPTED:
        stem += "-interrupted"  # as `arena run` names a match it did not finish
    path = replay_module.write(options.replays, stem, replay_module.dumps(document), record.logs)
    ui.finish(record, path, options)
    return status
