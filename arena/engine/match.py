"""The flow of a match (contract §2–3) as a pure generator.

`Match(setup).play()` yields a `Delivery` for every message of the match, in the order the
rules send them, and is sent back each reply: the parsed JSON value, or `NO_REPLY` when the
participant gave none that could be read (missing, late, not JSON, or gone). It returns the
`Result`. No I/O, no clock, no randomness: the same setup and replies give the same messages.

    match = Match(setup)
    flow = match.play()
    delivery = next(flow)
    while True:
        try:
            delivery = flow.send(reply_to(delivery))
        except StopIteration as stop:
            result = stop.value
            break

In-process bots (anything with `handle(message) -> reply`, as the SDK's `Bot`) play a whole
match with `play_out(setup, bots)` (or `Match(setup).play_out(bots)` to read its events and
table after); the referee's match loop drives participants with clocks and faults instead.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Generator, Mapping, Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any, Final, NamedTuple, Protocol

from arena.engine import views
from arena.engine.cards import Card, shuffled_pack
from arena.engine.events import (
    Asked,
    AskRefused,
    BookLaid,
    Event,
    Judged,
    LuckyDraw,
    NoOneToAsk,
    PickedUp,
    PondReplyRead,
    WentFishing,
)
from arena.engine.rules import (
    Refusal,
    Rules,
    StartingPlayer,
    Table,
    is_pond_number,
    place_reward,
    pond_index,
    verify_ask,
)

# The caps' defaults are declared with the other settings; named here too for the env.
from arena.engine.settings import DEFAULT_MAX_IDLE_TURNS as DEFAULT_MAX_IDLE_TURNS  # noqa: PLC0414
from arena.engine.settings import DEFAULT_MAX_TURNS as DEFAULT_MAX_TURNS  # noqa: PLC0414


class _NoReply:
    __slots__ = ()

    def __repr__(self) -> str:
        return "NO_REPLY"


NO_REPLY: Final = _NoReply()
"""Sent into the generator when a seat's reply is missing, late, not JSON, or never asked for."""


class Outcome(StrEnum):
    COMPLETED = "completed"
    DID_NOT_START = "did-not-start"
    TURN_LIMIT = "turn-limit"  # `max_turns` asks were made
    STALLED = "stalled"  # `max_idle_turns` asks in a row moved no card
    INTERRUPTED = "interrupted"  # the arena was stopped mid-match (set by the match loop)


class Delivery(NamedTuple):
    seat: int
    message: dict[str, Any]


@dataclass(frozen=True)
class Result:
    outcome: Outcome
    scores: tuple[int, ...]
    places: tuple[int, ...]  # finishing order: 1 + how many seats laid more books

    def as_json(self) -> dict[str, Any]:
        return {
            "outcome": str(self.outcome),
            "scores": list(self.scores),
            "ranks": list(self.places),
        }

    def reward(self, seat: int, kind: str = "places") -> float:
        """What `seat` is paid at the end by the research interfaces (arena/env, arena/openspiel,
        `reward=`): `"places"`, its place (`place_reward`); `"books"`, the books it laid."""
        if kind == "books":
            return float(self.scores[seat])
        return place_reward(self.places[seat], len(self.places))


@dataclass(frozen=True)
class MatchSetup:
    """Everything a match needs: from it and the replies alone the match replays exactly."""

    rules: Rules
    names: tuple[str, ...]
    deck: tuple[Card, ...]  # the shuffled pack, in pond order before the deal
    starting_player: int
    limits: Mapping[str, Any] = field(default_factory=dict)  # told to each seat in `init`
    max_turns: int = DEFAULT_MAX_TURNS
    max_idle_turns: int = DEFAULT_MAX_IDLE_TURNS

    @classmethod
    def from_seed(cls, seed: int, names: Sequence[str], rules: Rules, **options: Any) -> MatchSetup:
        """Shuffle with `random.Random(seed)`, then draw the starting seat from the same generator."""
        rng = random.Random(seed)
        deck = shuffled_pack(rng, rules.number_of_decks, rules.knights)
        if rules.starting_player is StartingPlayer.RANDOM:
            starting_player = rng.randrange(len(names))
        else:
            starting_player = 0
        return cls(rules, tuple(names), tuple(deck), starting_player, **options)


MatchFlow = Generator[Delivery, Any, Result]


class Answerer(Protocol):
    """What answers one seat's messages in-process: a built-in bot, an SDK `Bot`."""

    def handle(self, message: dict[str, Any], /) -> Any: ...


Exchanged = Callable[[Delivery, Any], None]
"""Told each delivery and the reply its seat gave, before the reply is sent to the match."""

_NO_READABLE_ASK: Final = Refusal(
    "no-reply", "no reply that could be read (see the transcript entry)"
)


class Match:
    """One match in progress. `table` and `events` may be read at any time (e.g. on interrupt)."""

    def __init__(self, setup: MatchSetup) -> None:
        self.setup = setup
        self.rules = setup.rules
        self.table = Table(len(setup.names), list(setup.deck), setup.rules.knights)
        self.events: list[Event] = []
        # Every reply read that the rules refused (an ask) or reinterpreted (a pond index that is
        # no number), in order: the one judgement of each reply; faults and counts read it.
        self.judged: list[Judged] = []
        self.sent = 0  # deliveries so far: the transcript index of the next message

    def result(self, outcome: Outcome) -> Result:
        return Result(outcome, tuple(self.table.books), tuple(self.table.places()))

    def play(self) -> MatchFlow:
        table, seats = self.table, range(self.table.seats)
        if len(table.pond) < self.rules.cards_to_deal(table.seats):
            return self.result(Outcome.DID_NOT_START)
        table.deal(self.rules.hand_size(table.seats))
        for seat in seats:
            yield self._tell(
                seat, views.init(seat, self.setup.names, self.rules, self.setup.limits)
            )
        for seat in seats:
            yield self._tell(seat, views.starting_hand(table, seat))
        yield from self._check_books_all()
        outcome = yield from self._turns(self.setup.starting_player)
        for seat in seats:
            yield self._tell(seat, views.match_end(table.books, table.places()))
        return self.result(outcome)

    def play_out(self, bots: Sequence[Answerer], exchanged: Exchanged | None = None) -> Result:
        """The whole match in this thread, each message answered by its seat's bot in
        `bots`; `exchanged(delivery, reply)` is told each exchange before the reply is sent."""
        flow = self.play()
        send = flow.send
        try:
            delivery = next(flow)
        except StopIteration as stop:
            result: Result = stop.value
            return result
        while True:
            reply = bots[delivery.seat].handle(delivery.message)
            if exchanged is not None:
                exchanged(delivery, reply)
            try:  # only the match's own end: a bot's StopIteration is its fault, not the end
                delivery = send(reply)
            except StopIteration as stop:
                result = stop.value
                return result

    def play_on(self, table: Table, seat: int) -> MatchFlow:
        """The match continued on `table` (a position: a searching bot's world) from the start
        of `seat`'s turn: no deal and no opening message, then the turns and `match-end` of
        `play`. The caps count from here."""
        self.table = table
        outcome = yield from self._turns(seat)
        for other in range(table.seats):
            yield self._tell(other, views.match_end(table.books, table.places()))
        return self.result(outcome)

    def _turns(self, seat: int) -> Generator[Delivery, Any, Outcome]:
        table, rules, seats = self.table, self.rules, self.table.seats
        turns = idle = 0
        while True:
            if table.table_is_empty():
                return Outcome.COMPLETED
            if not table.hands[seat] and rules.refill_empty_hand and table.pond:
                # An empty hand draws a fresh one when its turn comes (`refillEmptyHand`); a
                # refill that lays a book and empties the hand again comes back here.
                yield from self._refill(seat, turn_starts=True)
                yield from self._check_books_all()
                continue
            if not any(table.hands):
                # Nobody can ask but the pond holds cards (hand sizes of 0): the seat to move
                # picks up, and its turn starts again.
                yield from self._pick_up(seat, max(rules.min_hand_size, 1))
                yield from self._check_books_all()
                continue
            if not table.hands[seat]:
                seat = (seat + 1) % seats  # an empty hand with nothing to draw sits out
                continue
            if turns >= self.setup.max_turns:
                return Outcome.TURN_LIMIT
            if idle >= self.setup.max_idle_turns:
                return Outcome.STALLED
            turns += 1
            if rules.draw_when_no_one_to_ask and table.pond and self._no_one_to_ask(seat):
                # Nobody else holds a card: draw instead of asking, then the turn passes on.
                idle = 0
                self.events.append(NoOneToAsk(self.sent - 1, seat))
                yield from self._draw(seat, "go-fish")
                yield from self._check_books_all()
                seat = (seat + 1) % seats
                continue
            reply = yield self._deliver(seat, views.ask(table, seat))
            ask = (
                _NO_READABLE_ASK
                if reply is NO_REPLY
                else verify_ask(reply, seat, seats, table.hands[seat])
            )
            if isinstance(ask, Refusal):
                refused = AskRefused(self.sent - 1, seat, ask.reason, ask.detail)
                self.events.append(refused)
                if reply is not NO_REPLY:  # a reply that could not be read is a fault already
                    self.judged.append(refused)
                idle += 1
                seat = (seat + 1) % seats
                continue
            asked, card = ask.asked, ask.card
            moved = yield from self._resolve_ask(seat, asked, card)
            if moved:
                idle = 0
                continue  # a hit: the same seat asks again
            if table.pond:
                idle = 0
                drawn = yield from self._draw(seat, "go-fish")
                if rules.lucky_draw and drawn["rank"] == card["rank"]:
                    # The asked rank from the pond: shown to every seat, and the seat asks again.
                    self.events.append(LuckyDraw(self.sent - 1, seat, drawn["id"], drawn["rank"]))
                    for other in range(seats):
                        yield self._tell(other, views.lucky_draw(seat, drawn))
                    yield from self._check_books_all()
                    continue
            else:
                idle += 1
            yield from self._check_books_all()
            seat = rules.next_player.after_miss(seat, asked, seats)

    def _no_one_to_ask(self, seat: int) -> bool:
        return not any(hand for other, hand in enumerate(self.table.hands) if other != seat)

    def _resolve_ask(self, asker: int, asked: int, card: Card) -> Generator[Delivery, Any, int]:
        table = self.table
        moved = table.hand_over(asked, asker, card["rank"])
        self.events.append(Asked(self.sent - 1, asker, asked, card["id"], card["rank"], moved))
        if moved:
            yield from self._check_books_all()
        left_empty = not table.hands[asked]
        drew = yield from self._refill(asked)
        if drew and left_empty and self.rules.refill_empty_hand:
            # A fresh hand drawn at once is book-checked before anyone is told (and a refill
            # that lays a book refills again); a hand that kept cards only tops up to
            # `minHandSize`, and a book among those cards waits for the next book check.
            yield from self._check_books(asked)
        for seat in range(table.seats):
            yield self._tell(seat, views.hand_update(table, seat, asker, asked, card, moved))
        return moved

    def _check_books_all(self) -> Generator[Delivery, Any, None]:
        for seat in range(self.table.seats):
            yield from self._check_books(seat)

    def _check_books(self, seat: int) -> Generator[Delivery, Any, None]:
        """Sweep the ranks in order, laying each book and refilling; sweep again until none."""
        table = self.table
        found = True
        while found:
            found = False
            rank = table.next_book(seat)
            while rank is not None:
                found = True
                book = table.lay_book(seat, rank)
                self.events.append(
                    BookLaid(self.sent - 1, seat, rank, tuple(c["id"] for c in book))
                )
                yield from self._refill(seat)
                rank = table.next_book(seat, after=rank)

    def _refill(self, seat: int, *, turn_starts: bool = False) -> Generator[Delivery, Any, int]:
        """Pick up what the rules say `seat`'s hand must hold now (`Rules.refill_target`)."""
        target = self.rules.refill_target(len(self.table.hands[seat]), turn_starts=turn_starts)
        return (yield from self._pick_up(seat, target))

    def _pick_up(self, seat: int, target: int) -> Generator[Delivery, Any, int]:
        """Draw until `seat` holds `target` cards or the pond is empty; return how many drawn."""
        table = self.table
        drawn = 0
        while len(table.hands[seat]) < target and table.pond:
            yield from self._draw(seat, "pick-up")
            drawn += 1
        return drawn

    def _draw(self, seat: int, kind: str) -> Generator[Delivery, Any, Card]:
        table = self.table
        if kind == "go-fish":
            reply = yield self._deliver(seat, views.go_fish(table))
        else:
            reply = yield self._deliver(seat, views.pick_up(table))
        index = pond_index(reply, len(table.pond))
        if reply is not NO_REPLY and not is_pond_number(reply):
            self.judged.append(PondReplyRead(self.sent - 1, seat, kind, reply))
        card = table.draw(seat, index)
        drew = WentFishing if kind == "go-fish" else PickedUp
        self.events.append(drew(self.sent - 1, seat, index, card["id"], card["rank"]))
        if kind == "go-fish":
            yield self._tell(seat, views.go_fish_result(table, seat, card))
        else:
            yield self._tell(seat, views.pick_up_result(table, seat, card))
        return card

    def _deliver(self, seat: int, message: dict[str, Any]) -> Delivery:
        self.sent += 1
        return Delivery(seat, message)

    # An informational message: it still waits for a reply, which is simply not read. (A plain
    # function, not a one-yield generator, which cost about 5% of a whole match.)
    _tell = _deliver

    # An event's `at` is `self.sent - 1`: the transcript index of the last message sent before
    # it happened (for an ask or a draw, the message whose reply made it happen).


def play(setup: MatchSetup) -> MatchFlow:
    """Shorthand for `Match(setup).play()`."""
    return Match(setup).play()


def play_out(
    setup: MatchSetup, bots: Sequence[Answerer], exchanged: Exchanged | None = None
) -> Result:
    """Shorthand for `Match(setup).play_out(bots, exchanged)`."""
    return Match(setup).play_out(bots, exchanged)
