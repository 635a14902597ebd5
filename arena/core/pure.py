"""The core in pure Python: arena/core/_core.c line for line, for a machine that built no C.

Same class, same methods, same results (tests/test_core.py plays both against the engine and
against each other); about two orders of magnitude slower. Buffers are any writable objects of
the buffer protocol (numpy arrays, `array.array`), written through `memoryview`s.
"""

from __future__ import annotations

import random
from typing import Any

from arena.engine.rules import place_reward, places_of

R = 14
RUNNING, COMPLETED, TURN_LIMIT, STALLED = 0, 1, 2, 3
EV_ASKED, EV_REFUSED, EV_FISHED, EV_PICKED, EV_BOOK, EV_LUCKY, EV_NO_ONE = range(7)
REFUSED_NOT_AN_OBJECT, REFUSED_ITSELF, REFUSED_NOT_IN_HAND = range(3)
NEXT_ASKED, NEXT_CLOCKWISE, NEXT_AFTER_ASKER = range(3)
MASK64 = (1 << 64) - 1
DRAW_SALT = 0x6A09E667F3BCC909


def rng_below(state: int, bound: int) -> tuple[int, int]:
    """splitmix64: (the new state, a number below `bound`)."""
    state = (state + 0x9E3779B97F4A7C15) & MASK64
    z = state
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & MASK64
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & MASK64
    z ^= z >> 31
    return state, (z >> 33) % bound


class Game:
    __slots__ = (
        "books",
        "events",
        "hands",
        "holds",
        "idle",
        "known_pond",
        "lacks",
        "next_seed",
        "pond",
        "rng",
        "seat",
        "sent",
        "status",
        "stride",
        "turns",
    )

    def __init__(self, seats: int) -> None:
        self.pond: list[int] = []
        self.hands: list[list[int]] = [[] for _ in range(seats)]
        self.books = [0] * seats
        self.holds = [[0] * R for _ in range(seats)]
        self.lacks = [[[0] * R for _ in range(seats)] for _ in range(seats)]
        self.known_pond = [0] * seats
        self.events: list[tuple[int, ...]] = []
        self.rng = self.next_seed = self.stride = 0
        self.seat = self.turns = self.idle = self.sent = 0
        self.status = COMPLETED


class Batch:
    """N games stepped at once (the twin of the compiled `Batch` of _core.c)."""

    def __init__(
        self,
        games: int,
        seats: int,
        hand_size: int,
        min_hand: int,
        next_player: int,
        decks: int,
        knights: bool,
        lucky: bool,
        refill_empty: int,
        refill_on_turn: bool,
        draw_when_no_one: bool,
        random_start: bool,
        max_turns: int,
        max_idle: int,
        record: bool,
        books_reward: bool,
    ) -> None:
        ranks = 14 if knights else 13
        if (
            games < 1
            or not 2 <= seats <= 64
            or not 1 <= decks <= 64
            or min(hand_size, min_hand, refill_empty) < 0
            or not 0 <= next_player <= 2
            or seats * hand_size > decks * 4 * ranks
        ):
            raise ValueError("settings out of range for the core")
        self.seats, self.hand_size, self.min_hand = seats, hand_size, min_hand
        self.next_player, self.lucky, self.refill_empty = next_player, lucky, refill_empty
        self.refill_on_turn, self.draw_when_no_one = refill_on_turn, draw_when_no_one
        self.random_start, self.max_turns, self.max_idle = random_start, max_turns, max_idle
        self.record, self.books_reward = record, books_reward
        self.pack = decks * 4 * ranks
        slots = [r for r in range(R) if knights or r != 11]
        self.rank_of = [slots[card % ranks] for card in range(self.pack)]
        self.suit_of = [(card % (4 * ranks)) // ranks for card in range(self.pack)]
        self.length = R + 2 * seats + 5 + 2 * seats * R
        self.games = [Game(seats) for _ in range(games)]

    # --- the rules, as in _core.c ---------------------------------------------------------

    def _event(self, g: Game, kind: int, seat: int, *values: int) -> None:
        if self.record:
            g.events.append((kind, g.sent - 1, seat, *values, *([0] * (5 - len(values)))))

    def _draw(self, g: Game, seat: int, kind: int) -> int:
        g.sent += 1
        g.rng, index = rng_below(g.rng, len(g.pond))
        card = g.pond.pop(index)
        g.hands[seat].append(card)
        self._event(g, kind, seat, index, card, self.rank_of[card])
        g.sent += 1
        g.known_pond[seat] = len(g.pond)
        return card

    def _pick_up(self, g: Game, seat: int, target: int) -> int:
        drawn = 0
        while len(g.hands[seat]) < target and g.pond:
            self._draw(g, seat, EV_PICKED)
            drawn += 1
        return drawn

    def _refill(self, g: Game, seat: int, turn_starts: bool = False) -> int:
        target = self.min_hand
        if not g.hands[seat] and self.refill_empty and (turn_starts or not self.refill_on_turn):
            target = max(target, self.refill_empty)
        return self._pick_up(g, seat, target)

    def _next_book(self, g: Game, seat: int, after: int) -> int:
        suits = [0] * R
        for card in g.hands[seat]:
            suits[self.rank_of[card]] |= 1 << self.suit_of[card]
        for rank in range(after + 1, R):
            if suits[rank] == 0xF:
                return rank
        return -1

    def _lay_book(self, g: Game, seat: int, rank: int) -> None:
        taken, ids, kept = 0, [], []
        for card in g.hands[seat]:
            bit = 1 << self.suit_of[card]
            if self.rank_of[card] == rank and not taken & bit:
                taken |= bit
                ids.append(card)
            else:
                kept.append(card)
        g.hands[seat] = kept
        g.books[seat] += 1
        self._event(g, EV_BOOK, seat, rank, *ids)

    def _check_books(self, g: Game, seat: int) -> None:
        found = True
        while found:
            found = False
            rank = self._next_book(g, seat, -1)
            while rank >= 0:
                found = True
                self._lay_book(g, seat, rank)
                self._refill(g, seat)
                rank = self._next_book(g, seat, rank)

    def _check_books_all(self, g: Game) -> None:
        for seat in range(self.seats):
            self._check_books(g, seat)

    def _finish(self, g: Game, status: int) -> int:
        g.status = status
        g.sent += self.seats
        return status

    def _advance(self, g: Game) -> int:
        n = self.seats
        while True:
            seat = g.seat
            anyone = any(g.hands)
            if not g.pond and not anyone:
                return self._finish(g, COMPLETED)
            if not g.hands[seat] and self.refill_empty and g.pond:
                self._refill(g, seat, turn_starts=True)
                self._check_books_all(g)
                continue
            if not anyone:
                self._pick_up(g, seat, max(self.min_hand, 1))
                self._check_books_all(g)
                continue
            if not g.hands[seat]:
                g.seat = (seat + 1) % n
                continue
            if g.turns >= self.max_turns:
                return self._finish(g, TURN_LIMIT)
            if g.idle >= self.max_idle:
                return self._finish(g, STALLED)
            g.turns += 1
            if (
                self.draw_when_no_one
                and g.pond
                and not any(hand for other, hand in enumerate(g.hands) if other != seat)
            ):
                g.idle = 0
                self._event(g, EV_NO_ONE, seat)
                self._draw(g, seat, EV_FISHED)
                self._check_books_all(g)
                g.seat = (seat + 1) % n
                continue
            g.sent += 1
            g.known_pond[seat] = len(g.pond)
            return RUNNING

    def _resolve_ask(self, g: Game, asker: int, asked: int, card: int, rank: int) -> int:
        given = g.hands[asked]
        moving = [c for c in given if self.rank_of[c] == rank]
        if moving:
            g.hands[asked] = [c for c in given if self.rank_of[c] != rank]
            g.hands[asker].extend(moving)
        moved = len(moving)
        self._event(g, EV_ASKED, asker, asked, card, rank, moved)
        if moved:
            self._check_books_all(g)
        left_empty = not g.hands[asked]
        drew = self._refill(g, asked)
        if drew and left_empty and self.refill_empty:
            self._check_books(g, asked)
        g.holds[asker][rank] = 1
        g.holds[asked][rank] = 0
        for viewer in range(self.seats):
            lacks = g.lacks[viewer]
            lacks[asker][rank] = 0
            lacks[asked][rank] = 1
            if not moved and g.known_pond[viewer]:
                lacks[asker] = [0] * R
        g.sent += self.seats
        return moved

    def _after_miss(self, asker: int, asked: int) -> int:
        if self.next_player == NEXT_ASKED:
            return asked
        if self.next_player == NEXT_CLOCKWISE:
            return (asked + 1) % self.seats
        return (asker + 1) % self.seats

    def _act(self, g: Game, action: int) -> int:
        n, seat = self.seats, g.seat
        if g.status != RUNNING:
            return g.status
        reason, asked, rank, card = -1, 0, 0, -1
        if not 0 <= action < n * R:
            reason = REFUSED_NOT_AN_OBJECT
        else:
            asked, rank = divmod(action, R)
            if asked == seat:
                reason = REFUSED_ITSELF
            else:
                card = next((c for c in g.hands[seat] if self.rank_of[c] == rank), -1)
                if card < 0:
                    reason = REFUSED_NOT_IN_HAND
        if reason >= 0:
            self._event(g, EV_REFUSED, seat, reason)
            g.idle += 1
            g.seat = (seat + 1) % n
            return self._advance(g)
        if self._resolve_ask(g, seat, asked, card, rank):
            g.idle = 0
            return self._advance(g)
        if g.pond:
            g.idle = 0
            drawn = self._draw(g, seat, EV_FISHED)
            if self.lucky and self.rank_of[drawn] == rank:
                self._event(g, EV_LUCKY, seat, drawn, rank)
                g.sent += n
                g.holds[seat][rank] = 1
                self._check_books_all(g)
                return self._advance(g)
        else:
            g.idle += 1
        self._check_books_all(g)
        g.seat = self._after_miss(seat, asked)
        return self._advance(g)

    def _deal(self, g: Game, seed: int) -> int:
        rng = random.Random(seed)
        pond = list(range(self.pack))
        rng.shuffle(pond)
        n = self.seats
        g.seat = rng.randrange(n) if self.random_start else 0
        g.rng = (seed ^ DRAW_SALT) & MASK64
        g.turns = g.idle = 0
        g.status = RUNNING
        g.events = []
        g.books = [0] * n
        g.holds = [[0] * R for _ in range(n)]
        g.lacks = [[[0] * R for _ in range(n)] for _ in range(n)]
        size = self.hand_size
        g.hands = [pond[s * size : (s + 1) * size] for s in range(n)]
        g.pond = pond[n * size :]
        g.sent = 2 * n
        g.known_pond = [len(g.pond)] * n
        self._check_books_all(g)
        return self._advance(g)

    def _observe(self, g: Game, obs: Any, mask: Any, at: int) -> None:
        n, length = self.seats, self.length
        values = [0.0] * length
        allowed = [0] * (n * R)
        if g.status == RUNNING:
            seat = g.seat
            for card in g.hands[seat]:
                values[self.rank_of[card]] += 1
            values[R + seat] = 1
            sizes = [len(hand) for hand in g.hands]
            values[R + n : R + 2 * n] = sizes
            values[R + 2 * n] = len(g.pond)
            values[R + 2 * n + 1] = (self.pack - sum(sizes) - len(g.pond)) // 4
            values[R + 2 * n + 2] = 1
            start = R + 2 * n + 5
            values[start : start + n * R] = [bit for row in g.holds for bit in row]
            values[start + n * R :] = [bit for row in g.lacks[seat] for bit in row]
            for other in range(n):
                if other != seat:
                    for rank in range(R):
                        allowed[other * R + rank] = int(values[rank] > 0)
        obs[at * length : (at + 1) * length] = memoryview(_floats(values)).cast("B").cast("f")
        mask[at * n * R : (at + 1) * n * R] = memoryview(bytes(allowed)).cast("b")

    def _random_ask(self, g: Game) -> int:
        n, seat = self.seats, g.seat
        held = sorted({self.rank_of[card] for card in g.hands[seat]})
        g.rng, pick = rng_below(g.rng, len(held) * (n - 1))
        other = pick // len(held)
        if other >= seat:
            other += 1
        return other * R + held[pick % len(held)]

    def _rewards(self, g: Game) -> list[float]:
        if self.books_reward:
            return [float(b) for b in g.books]
        n = self.seats
        return [place_reward(place, n) for place in places_of(g.books)]

    # --- the methods of the compiled Batch --------------------------------------------------

    def _game(self, i: int) -> Game:
        if not 0 <= i < len(self.games):
            raise IndexError("no game of that index")
        return self.games[i]

    def reset(self, i: int, seed: int, stride: int = 0) -> int:
        if not 0 <= seed < 1 << 64 or not 0 <= stride < 1 << 64:
            raise OverflowError("a seed is a number from 0 to 2**64 - 1")
        g = self._game(i)
        g.next_seed, g.stride = (seed + stride) & MASK64, stride
        return self._deal(g, seed)

    def act(self, i: int, action: int) -> int:
        return self._act(self._game(i), action)

    def play_out(self, i: int) -> int:
        g = self._game(i)
        status = g.status
        while status == RUNNING:
            status = self._act(g, self._random_ask(g))
        return status

    def observe(self, obs: Any, mask: Any, seats: Any) -> None:
        views = _views(self, obs, mask, seats)
        for i, g in enumerate(self.games):
            self._observe(g, views[0], views[1], i)
            views[2][i] = g.seat if g.status == RUNNING else -1

    def step(self, actions: Any, obs: Any, mask: Any, seats: Any, rewards: Any, ended: Any) -> int:
        chosen = _view(actions, len(self.games), "q", "actions")
        views = _views(self, obs, mask, seats)
        paid = _view(rewards, len(self.games) * self.seats, "f", "rewards")
        over = _view(ended, len(self.games), "b", "ended")
        n = self.seats
        for i, g in enumerate(self.games):
            status = self._act(g, chosen[i])
            over[i] = status
            if status != RUNNING:
                paid[i * n : (i + 1) * n] = (
                    memoryview(_floats(self._rewards(g))).cast("B").cast("f")
                )
                seed = g.next_seed
                g.next_seed = (g.next_seed + g.stride) & MASK64
                self._deal(g, seed)
            else:
                paid[i * n : (i + 1) * n] = memoryview(_floats([0.0] * n)).cast("B").cast("f")
            self._observe(g, views[0], views[1], i)
            views[2][i] = g.seat if g.status == RUNNING else -1
        return 0

    def sample(self, actions: Any) -> None:
        out = _view(actions, len(self.games), "q", "actions")
        for i, g in enumerate(self.games):
            out[i] = self._random_ask(g) if g.status == RUNNING else -1

    def run(self, games: int, seed: int) -> tuple[int, int]:
        g, asks = self.games[0], 0
        for k in range(games):
            status = self._deal(g, (seed + k) & MASK64)
            while status == RUNNING:
                status = self._act(g, self._random_ask(g))
                asks += 1
        return games, asks

    def events(self, i: int) -> list[tuple[int, ...]]:
        return list(self._game(i).events)

    def state(self, i: int) -> tuple[int, int, list[int], list[list[int]], list[int], int]:
        g = self._game(i)
        hands = [list(hand) for hand in g.hands]
        return g.status, g.seat, list(g.books), hands, list(g.pond), g.sent


def _floats(values: list[float]) -> Any:
    import array

    return array.array("f", values)


def _view(buffer: Any, items: int, kind: str, what: str) -> Any:
    view = memoryview(buffer).cast("B")
    size = {"q": 8, "f": 4, "b": 1, "i": 4}[kind]
    if len(view) != items * size:
        raise ValueError(
            f"{what}: a buffer of {items} items of {size} bytes, got {len(view)} bytes"
        )
    return view.cast(kind)  # type: ignore[call-overload]


def _views(batch: Batch, obs: Any, mask: Any, seats: Any) -> tuple[Any, ...]:
    count, n = len(batch.games), batch.seats
    return (
        _view(obs, count * batch.length, "f", "obs"),
        _view(mask, count * n * R, "b", "mask"),
        _view(seats, count, "i", "seats"),
    )
