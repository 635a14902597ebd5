"""The built-in bots, from a coin-flipper to a card counter, on the SDK and the standard library.

    python -m arena.bots LEVEL        # play one match over stdin/stdout

Levels (`easy`, `medium` and `hard` after the browser game `arena play` is modelled on; `random`
plays like the reference arena's sample participant; `expert` and `master` are this project's):

- `random`: a random card of its hand, a random other seat, a random pond index;
- `easy`: a random rank it holds, a random seat that has cards;
- `medium`: easy, but first asks a seat that asked for one of its ranks in the last eight asks,
  and avoids a seat that said go fish for the rank in those asks;
- `hard`: remembers every ask; asks a seat known to hold one of its ranks, else the rank it
  holds most of, avoiding a seat that said go fish for it since that seat last drew;
- `expert`: counts cards: from every public event it keeps how many cards of each rank each
  seat must hold, and which ranks a seat cannot hold beyond the cards it has drawn since, and
  asks where the chance of a hit, weighed against telling the table what it holds, is best;
- `master` (arena/bots/master.py): expert's count, reading also what a passed sure hit says of
  a hand, expert's score with its own weights, and at three seats or more a search: it deals
  the hidden cards many ways consistent with the count and plays its best asks out in each.

Every bot sees only what any seat is told: its own hand and draws, the `hand-update`s, the
hand sizes and the pond size. Its only randomness is the SDK's seeded `rng`.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterable, Sequence
from enum import StrEnum

from arena.sdk import Ask, AskSeen, Bot, Card, Draw, LuckyDraw, pack_size

__all__ = [
    "BOTS",
    "EasyBot",
    "ExpertBot",
    "HardBot",
    "MasterBot",
    "MediumBot",
    "RandomBot",
    "main",
]


class RandomBot(Bot):
    """The reference arena's `participant-TEMP`: the SDK's defaults are exactly that."""


class EasyBot(Bot):
    def choose_ask(self) -> Ask:
        held = self.ranks_in_hand()
        rank = self.rng.choice(sorted(held))
        return Ask(self.rng.choice(self.others_with_cards()), held[rank][0].id)


class Memory:
    """What a sequence of asks says out loud: who holds which rank, who said go fish for it.

    A seat that asked for a rank holds it (and still does after a hit); a seat that handed a
    rank over or said go fish for it holds none of it then. A go-fish answer stands until that
    seat draws, because the card drawn could be anything.
    """

    def __init__(self, seats: int, asks: Iterable[AskSeen]) -> None:
        self.holds: list[set[int]] = [set() for _ in range(seats)]
        self.denied: list[set[int]] = [set() for _ in range(seats)]
        for seen in asks:
            self.holds[seen.asker].add(seen.rank)
            self.denied[seen.asker].discard(seen.rank)
            self.holds[seen.asked].discard(seen.rank)
            # Handed over or said go fish: either way it holds none of the rank now.
            self.denied[seen.asked].add(seen.rank)
            if seen.went_fishing:
                self.denied[seen.asker].clear()

    def known_ask(self, bot: Bot) -> Ask | None:
        """An ask that the table has said will hit, if there is one."""
        held = bot.ranks_in_hand()
        for seat in bot.others_with_cards():
            for rank in sorted(self.holds[seat] & held.keys()):
                return Ask(seat, held[rank][0].id)
        return None

    def seat_for(self, bot: Bot, rank: int) -> int:
        """A random seat with cards that has not said go fish for `rank` (any, if all have)."""
        seats = bot.others_with_cards()
        fresh = [seat for seat in seats if rank not in self.denied[seat]]
        return bot.rng.choice(fresh or seats)


class MediumBot(Bot):
    window = 8  # asks remembered

    def choose_ask(self) -> Ask:
        memory = Memory(self.seats, self.asks[-self.window :])
        known = memory.known_ask(self)
        if known is not None:
            return known
        held = self.ranks_in_hand()
        rank = self.rng.choice(sorted(held))
        return Ask(memory.seat_for(self, rank), held[rank][0].id)


class HardBot(Bot):
    def choose_ask(self) -> Ask:
        memory = Memory(self.seats, self.asks)
        known = memory.known_ask(self)
        if known is not None:
            return known
        held = self.ranks_in_hand()
        # Never a sure miss while another ask may hit: only ranks some seat has not just
        # handed over or denied (all of them when every seat has).
        seats = self.others_with_cards()
        open_ranks = {
            r: cards for r, cards in held.items() if any(r not in memory.denied[s] for s in seats)
        }
        held = open_ranks or held
        most = max(len(cards) for cards in held.values())
        rank = self.rng.choice(sorted(r for r, cards in held.items() if len(cards) == most))
        return Ask(memory.seat_for(self, rank), held[rank][0].id)


class CardCount:
    """Per seat and rank: the cards that seat must hold, and how many unseen cards could be it.

    `least[s][r]` is how many cards of rank `r` seat `s` is known to hold (it asked with one,
    it was handed some). `room[s][r]` caps how many of its other cards can be of rank `r`:
    0 just after it said go fish for `r` or handed `r` over, one more for every card it has
    drawn unseen since, and `None` (no cap) when nothing is known. Hand sizes, the pond and
    the other seats' books are followed here too, because cards are conserved: what is missing
    from the table at an `ask` went into books.
    """

    def __init__(
        self,
        me: int,
        sizes: list[int],
        pond: int,
        refill_target: Callable[[int], int],
        decks: int,
    ) -> None:
        self.me = me
        self.least = [[0] * 14 for _ in sizes]
        self.room: list[list[int | None]] = [[None] * 14 for _ in sizes]
        self.sizes = list(sizes)
        self.pond = pond
        self.refill_target = refill_target  # `Bot.refill_target`: minHandSize, refillEmptyHand
        # With one deck, four cards of a rank are its four suits: a book, laid at once.
        self.one_deck = decks == 1
        self.booked = [0] * 14  # books of each rank that other seats have laid
        self.books_seen = 0  # books laid by other seats that `booked` accounts for

    def drew_unseen(self, seat: int, cards: int = 1) -> None:
        self.sizes[seat] += cards
        self.room[seat] = [None if room is None else room + cards for room in self.room[seat]]

    def saw(self, seen: AskSeen) -> None:
        """Apply one `hand-update`, and the draws that the rules make follow from it."""
        asker, asked, rank, moved = seen.asker, seen.asked, seen.rank, seen.moved
        least = self.least
        least[asker][rank] = max(least[asker][rank], 1) + moved
        self.sizes[asker] += moved
        self.sizes[asked] -= moved
        least[asked][rank] = 0
        self.room[asked][rank] = 0
        if self.one_deck and least[asker][rank] >= 4:
            self._booked_by(asker, rank)
        if moved:
            self._refill(asked)
        if seen.went_fishing:
            self.pond -= 1
            self.drew_unseen(asker)

    def lucky(self, seat: int, rank: int) -> None:
        """`seat` showed the card its go-fish drew (counted unseen by `saw`): rank `rank`."""
        self.room[seat] = [None if room is None else max(room - 1, 0) for room in self.room[seat]]
        self.least[seat][rank] += 1
        if self.one_deck and self.least[seat][rank] >= 4:
            self._booked_by(seat, rank)

    def _booked_by(self, seat: int, rank: int) -> None:
        """`seat` holds all four cards of `rank` (one deck): it lays the book and refills."""
        self.least[seat][rank] = 0
        self.room[seat][rank] = 0
        self.sizes[seat] -= 4
        if seat != self.me:
            self.booked[rank] += 1
            self.books_seen += 1
        self._refill(seat)

    def _refill(self, seat: int) -> None:
        cards = min(max(self.refill_target(self.sizes[seat]) - self.sizes[seat], 0), self.pond)
        if cards > 0:
            self.pond -= cards
            self.drew_unseen(seat, cards)

    def refresh(
        self,
        sizes: Sequence[int],
        pond: int,
        books_elsewhere: int,
        unbookable: set[int],
        held: set[int],
    ) -> None:
        """Exact sizes are known (at an `ask`): account for books laid unseen.

        `books_elsewhere` is how many books the other seats have laid (the pack less every
        hand, the pond and our own books). Each one not yet accounted for is put on the rank,
        not in `unbookable`, whose cards the table was closest to gathering in one hand.
        """
        self.pond = pond
        for seat, size in enumerate(sizes):
            if size > self.sizes[seat]:
                self.drew_unseen(seat, 1)
            self.sizes[seat] = size
        while self.books_seen < books_elsewhere:
            self.books_seen += 1
            open_ranks = [r for r in range(14) if r not in unbookable]
            if not open_ranks:
                break
            rank = max(open_ranks, key=lambda r: (max(k[r] for k in self.least), -r))
            self.booked[rank] += 1
            for seat in range(len(sizes)):
                if self.one_deck or self.least[seat][rank] == max(k[rank] for k in self.least):
                    self.least[seat][rank] = max(self.least[seat][rank] - 4, 0)
                    self.room[seat][rank] = 0
                    if not self.one_deck:
                        break
        for seat, size in enumerate(sizes):
            known = self.least[seat]
            # More pinned cards than the hand holds: drop the stalest guesses, ranks we hold last.
            for rank in sorted(range(14), key=lambda r: (r in held, -known[r])):
                excess = sum(known) - size
                if excess <= 0:
                    break
                known[rank] -= min(known[rank], excess)
                if known[rank] == 0:
                    self.room[seat][rank] = 0

    def forget(self) -> None:
        """Drop what is known of the other seats and their books: the events contradict it."""
        self.booked = [0] * 14
        for seat in range(len(self.least)):
            if seat != self.me:
                self.least[seat] = [0] * 14
                self.room[seat] = [None] * 14

    def unpinned(self, seat: int) -> int:
        """Cards of `seat` whose rank no public event has told."""
        return max(self.sizes[seat] - sum(self.least[seat]), 0)

    def could_hold(self, seat: int, rank: int) -> int:
        room = self.room[seat][rank]
        free = self.unpinned(seat)
        return free if room is None else min(room, free)


class ExpertBot(Bot):
    """Weighs each ask by what it gains and by what it tells the table.

    The chance of a hit alone is a poor guide: cards won by a hit that does not finish a book
    are on show, and a seat that remembers asks takes them all when it draws one of the rank;
    a miss tells every seat a rank we hold. The weights were tuned in seeded 2-seat matches
    (bench/bot_strength.py): higher `tell` and `show` weights beat `hard` by more but lose
    ground against seats that remember nothing, these do well against every level.
    """

    hit_weight = 0.6  # a hit keeps the turn
    book_weight = 1.0  # a hit that finishes the book banks it
    tell_weight = 0.2  # per card of the rank held: a miss tells the table we hold it
    show_weight = 0.1  # per card on show after a hit that leaves the book unfinished
    held_weight = 0.05  # per card held: between equals, the rank nearest its book

    def reset(self) -> None:
        super().reset()
        self.count = CardCount(0, [], 0, self.refill_target, 1)

    def on_start(self) -> None:
        decks = self._rule("deck", "numberOfDecks", 1)
        self.count = CardCount(
            self.seat, self.hand_sizes, self.pond_size, self.refill_target, decks
        )

    def on_ask_seen(self, seen: AskSeen) -> None:
        if max(seen.asker, seen.asked, self.seat) >= len(self.count.sizes):
            return  # no `init` (a seed-style arena): the table is unknown until the first `ask`
        self.count.saw(seen)
        self.count.sizes[self.seat] = len(self.hand)

    def on_draw(self, card: Card, via: Draw) -> None:
        self.count.pond = self.pond_size
        if self.seat < len(self.count.sizes):
            self.count.sizes[self.seat] = len(self.hand)

    def on_lucky_draw(self, lucky: LuckyDraw) -> None:
        if lucky.seat != self.seat and lucky.seat < len(self.count.sizes):
            self.count.lucky(lucky.seat, lucky.card.rank)

    def choose_ask(self) -> Ask:
        held = self.ranks_in_hand()
        if len(self.count.sizes) != self.seats:
            self.on_start()  # no `init` came: count from what this first `ask` shows
        pack = pack_size(self._decks(), self._knights())
        on_table = sum(self.hand_sizes) + self.pond_size + 4 * len(self.books_laid)
        if self._decks() == 1:
            unbookable = set(held) | set(self.books_laid)
        else:
            unbookable = {r for r in range(14) if self._copies(r) - len(held.get(r, ())) < 4}
        self.count.refresh(
            self.hand_sizes, self.pond_size, (pack - on_table) // 4, unbookable, set(held)
        )
        best = self._best(held)
        if best[0] <= -5.0:
            # Every ask a sure miss with nothing to draw: impossible (the rest of each rank we
            # hold is in some hand), so what we know is wrong. Start again from nothing.
            self.count.forget()
            best = self._best(held)
        if best[0] <= -5.0:
            # Still no hope on paper: a random ask, so that asks cannot go round in a circle.
            return Ask(self.rng.choice(self.others_with_cards()), self.rng.choice(self.hand).id)
        return Ask(best[1], best[2])

    def _best(self, held: dict[int, list[Card]]) -> tuple[float, int, int]:
        best: tuple[float, int, int] | None = None
        for rank in sorted(held):
            for seat in self.others_with_cards():
                value = self._value(seat, rank, len(held[rank]))
                if best is None or value > best[0] + 1e-12:
                    best = (value, seat, held[rank][0].id)
        assert best is not None  # the SDK only asks while the hand holds a card
        return best

    def _copies(self, rank: int) -> int:
        """Cards of `rank` not yet in any book we know of."""
        return 4 * (self._decks() - self.books_laid.count(rank) - self.count.booked[rank])

    def _value(self, seat: int, rank: int, mine: int) -> float:
        count, others = self.count, self.others()
        pinned = [count.least[s][rank] for s in others]
        # Cards of the rank that no public event places: in the pond or unseen in some hand.
        loose = max(self._copies(rank) - mine - sum(pinned), 0)
        places = count.pond + sum(count.could_hold(s, rank) for s in others)
        slots = count.could_hold(seat, rank)
        there = count.least[seat][rank]
        miss = 0.0 if there else _none_among(loose, places, slots)
        elsewhere = sum(pinned) - there
        book = 0.0 if elsewhere else _all_among(loose, places, slots)
        expected = there + (loose * slots / places if places else 0.0)
        told = count.least[self.seat][rank] > 0
        value = (
            self.hit_weight * (1.0 - miss)
            + self.book_weight * book
            - self.tell_weight * miss * (0 if told else mine)
            # Without a book, at most three cards of the rank can be on show.
            - self.show_weight * (1.0 - miss - book) * min(mine + expected, 3.0)
            + self.held_weight * mine
        )
        if miss == 1.0 and count.pond == 0:
            # A sure miss that draws nothing only passes the turn: with an empty pond, such
            # asks between seats could go round for ever.
            value -= 10.0
        return value

    def _decks(self) -> int:
        return self._rule("deck", "numberOfDecks", 1)

    def _knights(self) -> bool:
        return bool(self.settings.get("deck", {}).get("knights", False))

    def _rule(self, section: str, key: str, default: int) -> int:
        return int(self.settings.get(section, {}).get(key, default))


def _none_among(cards: int, places: int, slots: int) -> float:
    """Chance that none of `cards` cards, spread at random over `places` places, is in `slots`."""
    if cards <= 0 or slots <= 0:
        return 1.0
    chance = 1.0
    for i in range(cards):
        if places - slots - i <= 0:
            return 0.0
        chance *= (places - slots - i) / (places - i)
    return chance


def _all_among(cards: int, places: int, slots: int) -> float:
    """Chance that all `cards` cards, spread at random over `places` places, are in `slots`."""
    if cards <= 0:
        return 1.0
    if slots < cards or places <= 0:
        return 0.0
    chance = 1.0
    for i in range(cards):
        chance *= (slots - i) / (places - i)
    return chance


from arena.bots.master import MasterBot


class Level(StrEnum):
    """The built-in bots (`bot = "…"` in a config, `--level` of `arena play`)."""

    RANDOM = "random"
    EASY = "easy"
    MEDIUM = "medium"
    HARD = "hard"
    EXPERT = "expert"
    MASTER = "master"

    @classmethod
    def named(cls, text: str, among: Iterable[Level] | None = None) -> Level:
        """The level spelled `text` (among `among`, by default every level): the one reading of
        a level's name (`--level`, `--bot`, `--vs`, the coach, `python -m arena.bots`; a
        config's `bot` through this enum). Raises ValueError: "'x' is not one of easy, …"."""
        allowed = tuple(cls) if among is None else tuple(among)
        for level in allowed:
            if level.value == text:
                return level
        raise ValueError(f"{text!r} is not one of {', '.join(allowed)}")


BOTS: dict[str, type[Bot]] = {
    Level.RANDOM: RandomBot,
    Level.EASY: EasyBot,
    Level.MEDIUM: MediumBot,
    Level.HARD: HardBot,
    Level.EXPERT: ExpertBot,
    Level.MASTER: MasterBot,
}


def main(argv: Sequence[str] | None = None) -> int:
    """`python -m arena.bots LEVEL`: play over stdin/stdout. Exit 2 for an unknown level."""
    from arena.sdk import run

    args = list(sys.argv[1:] if argv is None else argv)
    try:
        (level,) = (Level.named(arg) for arg in args)
    except ValueError:  # not one argument, or not a level
        print(f"usage: python -m arena.bots {{{','.join(BOTS)}}}", file=sys.stderr)
        return 2
    run(BOTS[level]())
    return 0
