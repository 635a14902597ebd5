"""The coach: a seat's asks weighed against a stronger policy's, from that seat's view alone.

    decisions = review(view_of(replay, seat), level="master", worlds=200, seed=7)

`view_of` takes from a replay what one seat was sent, in order, each message with the reply the
seat gave: nothing else reaches `review`, so it cannot use a hidden card (tests/test_coach.py
reviews two replays that differ only in cards the seat never saw and demands the same review).

Two bots read the view as the seat did: one of `level` (the policy that proposes another ask)
and a `master` whose card count samples determinisations — deals of the unseen cards that agree
with everything public and with the seat's own hand (arena/bots/master.py). At each ask where
the proposal differs from the ask made, both are played in the same `worlds` determinisations
with the same rollout luck (every seat then playing `hard`'s public-memory policy on the
simulator, arena/bots/simulator.py), to the end of the match or `horizon` asks, books still
open shared out. The paired differences give what the ask made cost, in match points (1 a win,
½ a shared first place, 0 a loss: a win chance) and in the seat's books, each with its standard
error. An invalid ask is weighed as what it did: the turn passed to the next seat.

Standard library only, deterministic for a given view, level, worlds and seed.
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from arena.base.normal import Z95
from arena.bots import BOTS, Level
from arena.bots.master import MODELLED_RULES, OFF_VALUES, MasterBot
from arena.bots.simulator import Policy, Sim, expected_books, play_out
from arena.engine.cards import Card
from arena.engine.rules import Refusal, verify_ask
from arena.replays.replay import Replay, setup_of

__all__ = ["CoachError", "Decision", "review", "significant", "verdict", "view_of"]


Seen = tuple[int, Mapping[str, Any], Any]  # transcript index, the message sent, the seat's reply


class CoachError(ValueError):
    """The view cannot be reviewed (rules the simulator does not play, no ask at all…)."""


@dataclass(frozen=True)
class Estimate:
    """A paired mean over the worlds and its standard error."""

    mean: float
    error: float


@dataclass(frozen=True)
class Decision:
    """One ask the coach would have made otherwise."""

    at: int  # the transcript index of the `ask` message (as `replay show` prints it)
    turn: int  # the seat's n-th ask of the match, from 1
    made: tuple[int, int] | None  # (seat asked, rank asked for); None: an invalid ask
    refusal: str | None  # why the ask made was invalid, in the engine's words
    suggested: tuple[int, int]
    win: Estimate  # match points the suggestion adds over the ask made
    books: Estimate  # the seat's books the suggestion adds over the ask made
    worlds: int

    @property
    def cost(self) -> float:
        """What the ask made lost, for sorting: match points first, books to break ties."""
        return self.win.mean + 0.05 * self.books.mean


def review(
    view: Sequence[Seen],
    *,
    level: str = Level.MASTER,
    worlds: int = 200,
    horizon: int = 60,
    seed: int = 0,
) -> list[Decision]:
    """The seat's asks where `level` would have asked otherwise, the costliest first.

    Raises CoachError when the view has no `init` or the match's rules are not the simulator's.
    """
    try:
        Level.named(level)
    except ValueError as error:
        raise CoachError(f"level {error}") from None
    if worlds < 2:
        raise CoachError("worlds must be at least 2 (an error needs two samples)")
    judge, proposer = MasterBot(worlds=0), BOTS[level]()
    decisions: list[Decision] = []
    turn = 0
    for index, seen, reply in view:
        message = dict(seen)
        kind = message.get("type")
        if kind == "init":
            for bot in (judge, proposer):
                bot.handle(message)
            if not judge.modelled():
                rules = judge.settings.get("rules", {})
                raise CoachError(
                    "the coach's simulator plays the reference's rules and nextPlayer only; "
                    f"this match has {_unmodelled(rules)}"
                )
            continue
        if kind != "ask":
            for bot in (judge, proposer):
                bot.handle(message)
            continue
        turn += 1
        hand = message.get("hand") or []
        judge.handle(message)  # brings its count up to date (its own choice is not used)
        suggested_reply = proposer.handle(message)
        suggested = _ask_of(suggested_reply, judge.seat, judge.seats, hand)
        made = _ask_of(reply, judge.seat, judge.seats, hand)
        if suggested is None or suggested == made:
            continue
        rng = random.Random(f"{seed}:{judge.seat}:{turn}")
        win, books = _weigh(judge, suggested, made, worlds, horizon, rng)
        refusal = None if made is not None else _refusal(reply, judge.seat, judge.seats, hand)
        decisions.append(Decision(index, turn, made, refusal, suggested, win, books, worlds))
    decisions.sort(key=lambda d: (-d.cost, d.at))
    return decisions


def view_of(replay: Replay, seat: int) -> list[Seen]:
    """The messages `seat` was sent, with its replies (NO_REPLY for none), until it stopped."""
    seen: list[Seen] = []
    for index, exchange in enumerate(replay.transcript):
        if exchange.seat == seat:
            if not exchange.answer.delivered:
                break  # its participant had stopped: it saw nothing more
            seen.append((index, exchange.message, exchange.reply))
    return seen


def _ask_of(reply: Any, seat: int, seats: int, hand: Sequence[Card]) -> tuple[int, int] | None:
    """(seat asked, rank) of a valid ask reply, judged by the engine; None when invalid."""
    ask = verify_ask(reply, seat, seats, hand)
    if isinstance(ask, Refusal):
        return None
    return ask.asked, ask.card["rank"]


def _refusal(reply: Any, seat: int, seats: int, hand: Sequence[Card]) -> str:
    ask = verify_ask(reply, seat, seats, hand)
    return ask.detail if isinstance(ask, Refusal) else ""


def _weigh(
    judge: MasterBot,
    suggested: tuple[int, int],
    made: tuple[int, int] | None,
    worlds: int,
    horizon: int,
    rng: random.Random,
) -> tuple[Estimate, Estimate]:
    """Suggested minus made, in match points and in books, paired by world and rollout luck."""
    rules = judge.settings.get("rules", {})
    min_hand = int(rules.get("minHandSize", 1))
    next_player = str(rules.get("nextPlayer", "Asked"))
    holds, lacks = judge.public_memory()
    books = judge.books_by_seat()
    me = judge.seat
    points: list[float] = []
    gained: list[float] = []
    for _ in range(worlds):
        hands, pond = judge.sample_world(rng)
        root = Sim(hands, pond, books, min_hand, next_player)
        luck = rng.getrandbits(32)
        outcome = []
        for ask in (suggested, made):
            sim = root.copy()
            policy = Policy(holds, lacks, random.Random(luck))
            if ask is None:
                mover = (me + 1) % sim.seats  # an invalid ask: the turn passes on
            else:
                moved, mover = sim.ask(me, ask[0], ask[1])
                policy.seen(sim, me, ask[0], ask[1], moved)
            play_out(sim, mover, policy, horizon)
            final = expected_books(sim)
            outcome.append((_point(final, me), final[me]))
        points.append(outcome[0][0] - outcome[1][0])
        gained.append(outcome[0][1] - outcome[1][1])
    return _estimate(points), _estimate(gained)


def _point(books: Sequence[float], seat: int) -> float:
    theirs = max(b for s, b in enumerate(books) if s != seat)
    return 1.0 if books[seat] > theirs else 0.5 if books[seat] == theirs else 0.0


def _estimate(samples: Sequence[float]) -> Estimate:
    mean = sum(samples) / len(samples)
    spread = sum((x - mean) ** 2 for x in samples) / (len(samples) - 1)
    return Estimate(mean, (spread / len(samples)) ** 0.5)


def _unmodelled(rules: dict[str, Any]) -> str:
    extra = [
        f"{key} = {value!r}"
        for key, value in rules.items()
        if key not in MODELLED_RULES and value not in OFF_VALUES
    ]
    return ", ".join(extra) or f"nextPlayer = {rules.get('nextPlayer')!r}"


def significant(decision: Decision) -> bool:
    """Whether the coach's ask gains win chance beyond doubt: its 95% interval above zero."""
    return decision.win.mean - Z95 * decision.win.error > 0


def draws(replay: Replay, seat: int) -> float | None:
    """The win share the draws from the pond gave `seat` in this match (the luck correction,
    docs/luck.md); None when it cannot be measured (a match stopped before its end)."""
    from arena.base.errors import ArenaError
    from arena.luck.correction import EventMismatch, measure
    from arena.referee.loop import replay_transcript

    try:
        record = replay_transcript(setup_of(replay), replay.transcript)
        if str(record.result.outcome) == "interrupted":
            return None
        return measure(record.setup, record.events).share[seat]
    except (ArenaError, EventMismatch, ValueError, IndexError):
        return None


def verdict(replay: Replay, seat: int, decisions: Sequence[Decision]) -> str:
    """One line: how much of the seat's result its choices explain, against the draws."""
    places = replay.result.places
    first = sum(place == 1 for place in places)
    result = (
        "win"
        if places[seat] == 1 and first == 1
        else "shared first place"
        if places[seat] == 1
        else "loss"
    )
    marked = [d for d in decisions if significant(d)]
    cost = sum(d.win.mean for d in marked)
    luck = draws(replay, seat)
    drawn = "" if luck is None else f"; the draws gave it {100 * luck:+.0f}% win share"
    if not marked:
        return (
            f"Verdict: no ask of its cost win chance beyond doubt{drawn}: this {result} came "
            "from the draws and the other seats, not from its choices."
        )
    weighs = (
        ""
        if luck is None
        else f": {'its choices' if cost > abs(luck) else 'the draws'} weigh more in this {result}"
    )
    return (
        f"Verdict: its {len(marked)} ✦ ask{'s' if len(marked) > 1 else ''} cost it about "
        f"{100 * cost:.0f}% win chance{drawn}{weighs}."
    )
