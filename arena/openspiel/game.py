"""The arena's rules as an OpenSpiel Python game, `gofish_arena`, played by the engine.

A state is, first, chance nodes that lay out the pond card by card (the outcome is a card's id;
then, under `startingPlayer = "Random"`, one for the starting seat); then the engine's match on
that deck. A player's action is an ask: `q × 14 + r` asks seat `q` for rank `r`, made with the
first card of that rank in the hand. Draws take pond card 0: the pond was laid out by chance, so
that is a uniformly random card to every seat, as OpenSpiel's own `go_fish` draws. Returns at the
end are the places (1 for first … −1 for last, linear; equal books share a place).

Observations are `arena.env.encoding.SeatView`s: the string and the tensor of a seat are built
from the messages that seat was sent, and nothing else. States clone by continuing the engine
from the position (`Match.play_on`): a generator cannot be copied.

`deal_world` deals a position a seat cannot tell from the real one (its own hand and view kept;
the other hands and the pond dealt at random from the cards it has not seen, keeping each seat's
hand size, the cards public asks placed, and away from ranks a seat said go fish for): the
resampler of OpenSpiel's information-set MCTS.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Any

import numpy as np
import pyspiel

from arena.base.config import named_rules, rules_file
from arena.engine.cards import Card, new_pack
from arena.engine.match import Delivery, Match, MatchFlow, MatchSetup, Result
from arena.engine.rules import Rules, StartingPlayer, Table
from arena.env.encoding import DECISIONS, RANKS, SeatView, vector_length

NAME = "gofish_arena"
MAX_PLAYERS = 8

_TYPE = pyspiel.GameType(
    short_name=NAME,
    long_name="Go Fish under gofish-arena's rules",
    dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL,
    chance_mode=pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC,
    information=pyspiel.GameType.Information.IMPERFECT_INFORMATION,
    utility=pyspiel.GameType.Utility.GENERAL_SUM,
    reward_model=pyspiel.GameType.RewardModel.TERMINAL,
    max_num_players=MAX_PLAYERS,
    min_num_players=2,
    provides_information_state_string=False,
    provides_information_state_tensor=False,
    provides_observation_string=True,
    provides_observation_tensor=True,
    parameter_specification={"players": 2, "rules": "", "decks": 1, "knights": False},
)


def game_rules(params: dict[str, Any]) -> Rules:
    """`rules` (a ready rule set's name, a TOML file, or "" for the reference's rules), with
    `decks` and `knights`."""
    chosen = str(params.get("rules", ""))
    if not chosen:
        base = Rules()
    elif chosen.endswith(".toml"):
        from pathlib import Path

        base = rules_file(Path(chosen))
    else:
        base = named_rules(chosen)
    return Rules(
        **{
            **{name: getattr(base, name) for name in Rules.__dataclass_fields__},
            "number_of_decks": int(params.get("decks", 1)),
            "knights": bool(params.get("knights", False)),
        }
    )


class GofishArenaGame(pyspiel.Game):  # type: ignore[misc]  # (pyspiel ships no types)
    """`pyspiel.load_game("gofish_arena", {"players": 4, "rules": "family-table"})`."""

    def __init__(self, params: dict[str, Any] | None = None, rules: Rules | None = None) -> None:
        params = dict(params or {})
        self.seats = int(params.get("players", 2))
        self.rules = rules or game_rules(params)
        self.pack = new_pack(self.rules.number_of_decks, self.rules.knights)
        info = pyspiel.GameInfo(
            num_distinct_actions=self.seats * RANKS,
            max_chance_outcomes=max(len(self.pack), self.seats),
            num_players=self.seats,
            min_utility=-1.0,
            max_utility=1.0,
            utility_sum=None,
            max_game_length=len(self.pack) + 1 + max(5000, 4 * len(self.pack)),
        )
        super().__init__(_TYPE, info, params)
        self.names = tuple(f"seat_{seat}" for seat in range(self.seats))

    def new_initial_state(self) -> GofishArenaState:
        return GofishArenaState(self)

    def make_py_observer(self, iig_obs_type: Any = None, params: Any = None) -> SeatObserver:
        return SeatObserver(self.seats)


class Play:
    """The engine's match in progress and every seat's view; copied by continuing the engine
    from the position (the pending ask's seat), which gives the same ask again."""

    __slots__ = ("flow", "match", "result", "seat", "setup", "views")

    def __init__(self, setup: MatchSetup, views: list[SeatView]) -> None:
        self.setup = setup
        self.views = views
        self.match = Match(setup)
        self.flow: MatchFlow | None = None
        self.result: Result | None = None
        self.seat = -1

    @classmethod
    def dealt(cls, setup: MatchSetup, pack: int) -> Play:
        seats = len(setup.names)
        play = cls(setup, [SeatView(seat, seats, pack) for seat in range(seats)])
        play.flow = play.match.play()
        play.advance(None, first=True)
        return play

    @classmethod
    def position(cls, setup: MatchSetup, table: Table, seat: int, views: list[SeatView]) -> Play:
        """The match on `table` from the start of `seat`'s ask."""
        play = cls(setup, views)
        play.flow = play.match.play_on(table, seat)
        play.advance(None, first=True)
        return play

    def advance(self, reply: Any, *, first: bool = False) -> None:
        """Send `reply`, then answer the engine until a seat must ask, or the match ends."""
        assert self.flow is not None
        flow, views = self.flow, self.views
        try:
            delivery: Delivery = next(flow) if first else flow.send(reply)
            while True:
                seat, message = delivery
                views[seat].see(message)
                kind = message["type"]
                if kind == "ask":
                    self.seat = seat
                    return
                delivery = flow.send(0 if kind in DECISIONS else None)
        except StopIteration as stop:
            self.result = stop.value
            self.seat = -1

    def __deepcopy__(self, memo: dict[int, Any]) -> Play:
        views = [view.copy() for view in self.views]
        if self.result is not None:
            done = Play(self.setup, views)
            done.result = self.result
            return done
        return Play.position(self.setup, self.match.table.copy(), self.seat, views)


class GofishArenaState(pyspiel.State):  # type: ignore[misc]
    def __init__(self, game: GofishArenaGame, play: Play | None = None) -> None:
        super().__init__(game)
        self.rules = game.rules
        self.names = game.names
        self.pack = game.pack
        self.deck: list[int] = []  # the pond laid out so far by chance (card ids)
        self.start: int | None = None
        self.play = play

    # --- the OpenSpiel API -------------------------------------------------------------

    def current_player(self) -> int:
        if self.play is None:
            return int(pyspiel.PlayerId.CHANCE)
        if self.play.result is not None:
            return int(pyspiel.PlayerId.TERMINAL)
        return self.play.seat

    def _legal_actions(self, player: int) -> list[int]:
        assert self.play is not None
        held = sorted(self.play.views[player].ranks_held())
        seats = len(self.names)
        return sorted(q * RANKS + r for q in range(seats) if q != player for r in held)

    def chance_outcomes(self) -> list[tuple[int, float]]:
        if len(self.deck) < len(self.pack):
            left = sorted(set(range(len(self.pack))) - set(self.deck))
            return [(card, 1.0 / len(left)) for card in left]
        seats = len(self.names)
        return [(seat, 1.0 / seats) for seat in range(seats)]

    def _apply_action(self, action: int) -> None:
        if self.play is None:
            if len(self.deck) < len(self.pack):
                self.deck.append(action)
            else:
                self.start = action
            if len(self.deck) == len(self.pack) and (
                self.start is not None or self.rules.starting_player is StartingPlayer.FIRST_IN_LINE
            ):
                setup = MatchSetup(
                    self.rules,
                    self.names,
                    tuple(self.pack[card] for card in self.deck),
                    self.start or 0,
                )
                self.play = Play.dealt(setup, len(self.pack))
            return
        seat = self.play.seat
        asked, rank = divmod(action, RANKS)
        card = self.play.views[seat].ranks_held()[rank]
        self.play.advance({"player": asked, "cardId": card})

    def _action_to_string(self, player: int, action: int) -> str:
        if player == pyspiel.PlayerId.CHANCE:
            if len(self.deck) < len(self.pack):
                return f"Deal:{self.pack[action]['card']}"
            return f"Start:seat_{action}"
        asked, rank = divmod(action, RANKS)
        return f"Ask seat_{asked} for {['A', '2', '3', '4', '5', '6', '7', '8', '9', '10', 'J', 'C', 'Q', 'K'][rank]}"

    def is_terminal(self) -> bool:
        return self.play is not None and self.play.result is not None

    def returns(self) -> list[float]:
        seats = len(self.names)
        if self.play is None or self.play.result is None:
            return [0.0] * seats
        result = self.play.result
        return [result.reward(seat) for seat in range(seats)]

    def __str__(self) -> str:
        if self.play is None:
            return f"dealing: {len(self.deck)} of {len(self.pack)} cards laid out"
        table = self.play.match.table
        hands = " | ".join(" ".join(str(c["card"]) for c in hand) for hand in table.hands)
        return f"pond {len(table.pond)}, books {table.books}: {hands}"

    # --- for the bot ---------------------------------------------------------------------

    def view(self, seat: int) -> SeatView:
        assert self.play is not None
        return self.play.views[seat]


class SeatObserver:
    """OpenSpiel's observer: a seat's `SeatView` as a tensor and as a string."""

    def __init__(self, seats: int) -> None:
        self.tensor = np.zeros(vector_length(seats), np.float32)
        self.dict = {"observation": self.tensor}

    def set_from(self, state: GofishArenaState, player: int) -> None:
        if state.play is None:
            self.tensor.fill(0)
        else:
            self.tensor[:] = state.play.views[player].vector()

    def string_from(self, state: GofishArenaState, player: int) -> str:
        if state.play is None:
            return f"p{player} dealing {len(state.deck)}"
        return state.play.views[player].key()


def deal_world(
    rng: random.Random,
    setup: MatchSetup,
    mine: SeatView,
    books: Sequence[int],
    booked: Sequence[int],
) -> Play:
    """A position `mine`'s seat cannot tell from the real one, at its ask (see the module).

    `books`: each seat's books so far; `booked`: the ids of the cards in books (a seat's own
    are known; the others' may be a guess)."""
    me, seats = mine.seat, len(mine.sizes)
    pack = new_pack(setup.rules.number_of_decks, setup.rules.knights)
    hand = [pack[card["id"]] for card in mine.hand]
    gone = {card["id"] for card in hand} | set(booked)
    unseen = [card for card in pack if card["id"] not in gone]
    rng.shuffle(unseen)
    hands: list[list[Card]] = [[] for _ in range(seats)]
    hands[me] = hand
    # Cards the table was told a seat holds: one of that rank each, while any is unseen.
    for seat in range(seats):
        if seat == me:
            continue
        for rank in range(RANKS):
            if mine.holds[seat][rank] and len(hands[seat]) < mine.sizes[seat]:
                found = next((c for c in unseen if c["rank"] == rank), None)
                if found is not None:
                    unseen.remove(found)
                    hands[seat].append(found)
    deferred: list[Card] = []
    for seat in range(seats):
        if seat == me:
            continue
        lacks = mine.lacks[seat]
        while len(hands[seat]) < mine.sizes[seat] and (unseen or deferred):
            if unseen and not lacks[unseen[-1]["rank"]]:
                hands[seat].append(unseen.pop())
            elif unseen:
                deferred.append(unseen.pop())
            else:
                hands[seat].append(deferred.pop())
    pond = unseen + deferred
    rng.shuffle(pond)
    table = Table(seats, pond, setup.rules.knights)
    table.deal(0)  # (every hand may now hold a book: the engine checks them)
    for seat, cards in enumerate(hands):
        table.hands[seat][:] = cards
    table.books[:] = books
    views = []
    for seat in range(seats):
        view = mine.copy()
        if seat != me:
            view.seat = seat
            view.hand = [dict(card) for card in hands[seat]]
        views.append(view)
    return Play.position(setup, table, me, views)


def world_state(game: GofishArenaGame, play: Play) -> GofishArenaState:
    """A state of `game` in the position `play`."""
    state = GofishArenaState(game, play)
    state.deck = list(range(len(game.pack)))
    state.start = 0
    return state


def resampler(game: GofishArenaGame, rng: random.Random) -> Any:
    """OpenSpiel ISMCTS's resampler for states of `game` (`bot.set_resampler`): the hidden
    cards dealt again for the seat to move, with every seat's books and the booked cards as
    they are (docs/research.md says what that lets the search know)."""

    def resample(state: GofishArenaState, player: int) -> GofishArenaState:
        assert state.play is not None
        table = state.play.match.table
        held = {c["id"] for hand in table.hands for c in hand} | {c["id"] for c in table.pond}
        booked = [card for card in range(len(game.pack)) if card not in held]
        play = deal_world(rng, state.play.setup, state.view(player), table.books, booked)
        return world_state(game, play)

    return resample


def _register() -> None:
    if NAME not in pyspiel.registered_names():
        pyspiel.register_game(_TYPE, GofishArenaGame)


_register()
__all__ = ["NAME", "GofishArenaGame", "GofishArenaState", "Play", "deal_world", "resampler"]
