"""`master`: expert's card counting, read closer, then a search over the hands the table could hold.

Two things make it stronger than `expert` (docs/bots.md has the figures):

- it reads passed sure hits: a seat that makes an ask the table cannot call a sure hit holds
  none of the ranks the table knows another seat holds (every level from `medium` up takes a
  sure hit first), so its count rules those ranks out of that hand until it draws;
- expert's one-ask score, with weights tuned again for a bot that reads so, per table size.

At a table of three or more, at each ask that is not a sure hit, it then draws `worlds`
determinisations: deals of the cards it cannot see that agree with everything public (the
count: the cards each seat must hold, the ranks it cannot hold beyond what it drew since, the
books laid, the exact hand and pond sizes). In each world it plays each of its `candidates`
best asks, then `horizon` more asks on a compact simulator (arena/bots/simulator.py), every
seat playing `hard`'s public-memory policy, and shares out the books still open. The same
world and the same rollout randomness serve every candidate, so they are compared on equal
luck; an ask replaces the score's choice only when it is better by `confidence` errors.

Deterministic: all its randomness comes from the SDK's `rng`, seeded from its seat and
starting hand; the budget counts worlds, never seconds. Under rules the simulator does not
model it plays exactly as `expert` (docs/bots.md).
"""

from __future__ import annotations

import random
from typing import Any

from arena.bots import CardCount, ExpertBot
from arena.bots.simulator import NEXT_PLAYERS, code, rollouts
from arena.sdk import Ask, AskSeen

__all__ = ["MasterBot"]

# The `[rules]` keys the simulator plays (`dealBySeats` only sizes the deal, before any
# decision); another key with a value other than "off" is a rule it does not know (lucky draw,
# refills, a draw when no one can be asked), and the bot then plays as `expert`.
MODELLED_RULES = frozenset(
    {"startingPlayer", "startingHandSize", "minHandSize", "nextPlayer", "dealBySeats"}
)
OFF_VALUES: tuple[Any, ...] = (None, False, 0, "", "Never", "never", "No", "no")


class MasterBot(ExpertBot):
    """Expert's count reading passed sure hits, expert's score retuned, and determinised
    search (perfect-information Monte Carlo) over the best asks at tables of three or more."""

    worlds = 40  # determinisations per searched ask: the budget
    candidates = 3  # expert's best asks that the search weighs
    horizon = 10  # asks a rollout plays before the books still open are shared out
    book_margin = 0.05  # per book of margin, beside the match point (1, 0.5 or 0)
    confidence = 1.0  # standard errors by which an ask must beat the score's to replace it
    # The search judges asks by rollouts of `hard`'s policy; at two seats, where every seat
    # reads the others closely, that judge is worse than the one-ask score (docs/bots.md).
    search_from_seats = 3

    def __init__(self, worlds: int | None = None, candidates: int | None = None) -> None:
        if worlds is not None:
            self.worlds = worlds
        if candidates is not None:
            self.candidates = candidates
        super().__init__()

    # expert's weights for its one-ask score (arena/bots/__init__.py), tuned again for a bot
    # that reads passed sure hits, per table size: (hit, book, tell, show) at two seats, at
    # three (expert's own did best), at four or more.
    weights_two = (0.6, 2.0, 0.2, 0.1)
    weights_three = (0.6, 1.0, 0.2, 0.1)
    weights_more = (1.0, 1.0, 0.2, 0.05)

    def reset(self) -> None:
        super().reset()
        self.reads_passes = False  # whether this match's rules are the simulator's

    def on_start(self) -> None:
        super().on_start()
        self.reads_passes = self.modelled()
        weights: tuple[float, float, float, float] = (
            ExpertBot.hit_weight,
            ExpertBot.book_weight,
            ExpertBot.tell_weight,
            ExpertBot.show_weight,
        )
        if self.reads_passes:
            by_seats = {2: self.weights_two, 3: self.weights_three}
            weights = by_seats.get(self.seats, self.weights_more)
        self.hit_weight, self.book_weight, self.tell_weight, self.show_weight = weights

    def on_ask_seen(self, seen: AskSeen) -> None:
        if self.reads_passes and max(seen.asker, seen.asked, self.seat) < len(self.count.sizes):
            passed_sure_hits(self.count, seen, self.seat)
        super().on_ask_seen(seen)

    def modelled(self) -> bool:
        """Whether the simulator plays this match's rules."""
        rules = self.settings.get("rules", {})
        if rules.get("nextPlayer", "Asked") not in NEXT_PLAYERS:
            return False
        return all(k in MODELLED_RULES or v in OFF_VALUES for k, v in rules.items())

    def choose_ask(self) -> Ask:
        choice = super().choose_ask()  # brings the card count up to date
        if self.worlds <= 0 or not self.reads_passes or self.seats < self.search_from_seats:
            return choice
        held = self.ranks_in_hand()
        rank = next(card.rank for card in self.hand if card.id == choice.card_id)
        if self.count.least[choice.seat][rank] > 0:
            return choice  # a sure hit: nothing to weigh
        scored = sorted(
            (-self._value(seat, r, len(held[r])), r, seat)
            for r in sorted(held)
            for seat in self.others_with_cards()
        )
        if scored[0][0] >= 5.0:
            return choice  # expert's fallbacks: its count is wrong or every ask is hopeless
        asks = [(choice.seat, rank)]
        # Never a sure miss with nothing to draw (expert scores it -10): between seats that make
        # such asks the turn could go round for ever.
        hopeful = [(seat, r) for cost, r, seat in scored if cost < 5.0]
        asks += [ask for ask in hopeful if ask != asks[0]][: self.candidates - 1]
        if len(asks) < 2:
            return choice
        best = self._search(asks)
        return Ask(best[0], held[best[1]][0].id)

    # --- the search ------------------------------------------------------------------------

    def _search(self, asks: list[tuple[int, int]]) -> tuple[int, int]:
        """The ask that beats expert's (`asks[0]`) by the most, if by `confidence` errors."""
        scores: list[list[float]] = [[] for _ in asks]
        rules = self.settings.get("rules", {})
        min_hand = int(rules.get("minHandSize", 1))
        next_player = str(rules.get("nextPlayer", "Asked"))
        holds, lacks = self.public_memory()
        books = self.books_by_seat()
        follows = NEXT_PLAYERS.index(next_player)
        for _ in range(self.worlds):
            hands, pond = self.sample_world(self.rng)
            luck = self.rng.getrandbits(32)
            played = rollouts(
                hands,
                pond,
                books,
                min_hand,
                follows,
                holds,
                lacks,
                luck,
                self.seat,
                asks,
                self.horizon,
            )
            for i, final in enumerate(played):
                scores[i].append(self._score(final))
        best, margin = 0, 0.0
        for i in range(1, len(asks)):
            # Paired by world: both asks met the same deal and the same rollout luck.
            gains = [a - b for a, b in zip(scores[i], scores[0], strict=True)]
            mean = sum(gains) / len(gains)
            spread = sum((g - mean) ** 2 for g in gains) / max(len(gains) - 1, 1)
            error = (spread / len(gains)) ** 0.5
            if mean > margin and mean > self.confidence * error:
                best, margin = i, mean
        return asks[best]

    def _score(self, books: list[float]) -> float:
        mine = books[self.seat]
        theirs = max(b for s, b in enumerate(books) if s != self.seat)
        point = 1.0 if mine > theirs else 0.5 if mine == theirs else 0.0
        return point + self.book_margin * (mine - theirs)

    def books_by_seat(self) -> list[int]:
        """Books per seat: ours exactly; the others' from the cards missing from the table."""
        books = [0] * self.seats
        books[self.seat] = len(self.books_laid)
        missing = sum(self.count.booked)
        others = [s for s in self.others()]
        # Which seat laid an unseen book is not known: spread them, lowest seats first.
        for i in range(missing):
            books[others[i % len(others)]] += 1
        return books

    def public_memory(self) -> tuple[list[int], list[int]]:
        """Per seat, the ranks the table knows it holds, and those it has just denied."""
        holds, lacks = [0] * self.seats, [0] * self.seats
        for seat in range(self.seats):
            for rank in range(14):
                if self.count.least[seat][rank] > 0:
                    holds[seat] |= 1 << rank
                if self.count.room[seat][rank] == 0:
                    lacks[seat] |= 1 << rank
        return holds, lacks

    def _unseen(self) -> list[int]:
        """Per card code: the copies we cannot see (not in our hand, not in a known book)."""
        unseen = [0] * 56
        for rank in range(14):
            if rank != 11 or self._knights():
                for suit in range(4):
                    unseen[code(rank, suit)] = self._decks()
        gone = [code(card.rank, card.suit) for card in self.hand]
        booked = [r for r in range(14) for _ in range(self.count.booked[r])]
        for rank in list(self.books_laid) + booked:
            gone.extend(code(rank, suit) for suit in range(4))
        for card in gone:
            unseen[card] = max(unseen[card] - 1, 0)
        return unseen

    def sample_world(self, rng: random.Random) -> tuple[list[list[int]], list[int]]:
        """Every seat's hand and the pond (last card drawn first), agreeing with the count."""
        count, me = self.count, self.seat
        unseen = self._unseen()
        hands: list[list[int]] = [[] for _ in range(self.seats)]
        hands[me] = [code(card.rank, card.suit) for card in self.hand]
        others = self.others()
        # The cards each seat is known to hold, suits at random.
        for seat in others:
            for rank in range(14):
                want = min(count.least[seat][rank], count.sizes[seat] - len(hands[seat]))
                if want > 0:
                    copies = [c for c in range(rank * 4, rank * 4 + 4) for _ in range(unseen[c])]
                    for card in rng.sample(copies, min(want, len(copies))):
                        unseen[card] -= 1
                        hands[seat].append(card)
        pool = [card for card in range(56) for _ in range(unseen[card])]
        rng.shuffle(pool)
        free = {s: max(count.sizes[s] - len(hands[s]), 0) for s in others}
        pond_free = count.pond
        # Cards of a rank some seat cannot hold (or hold only so many of) go one at a time to a
        # place that may take them, at random; so they are placed first, while places are free.
        capped = {r for s in others for r in range(14) if count.room[s][r] is not None}
        pond: list[int] = []
        rest: list[int] = []
        taken_of = {s: [0] * 14 for s in others}
        for card in pool:
            rank = card >> 2
            if rank not in capped:
                rest.append(card)
                continue
            open_seats = [
                s for s in others if free[s] and _room(count.room[s][rank], taken_of[s][rank])
            ]
            if not pond_free and not open_seats:
                open_seats = [s for s in others if free[s]]  # the count is off: ignore the caps
            place = _place(rng, open_seats, free, pond_free)
            if place is None:
                pond.append(card)
                pond_free -= 1
            elif place >= 0:
                hands[place].append(card)
                free[place] -= 1
                taken_of[place][rank] += 1
        # The rest are in random order already: deal them into the free places in turn.
        for s in others:
            hands[s].extend(rest[: free[s]])
            del rest[: free[s]]
        pond.extend(rest[:pond_free])
        rng.shuffle(pond)
        return hands, pond


def passed_sure_hits(count: CardCount, seen: AskSeen, me: int) -> None:
    """What an ask that the table could not call a sure hit says of the asker's hand.

    A seat that holds a rank which the table knows another seat with cards holds can ask for
    it and cannot miss; every level from `medium` up does so first. So a seat that asks
    anything else holds none of those ranks (until it draws: `CardCount.drew_unseen` reopens
    them). Called before `count.saw(seen)`, on the count as it stood when the seat chose.
    """
    asker, rank = seen.asker, seen.rank
    if asker == me or count.least[seen.asked][rank] > 0:
        return  # our own ask, or a sure hit: it says nothing of the asker's other ranks
    mine = count.least[asker]
    room = count.room[asker]
    for seat, known in enumerate(count.least):
        if seat == asker or count.sizes[seat] <= 0:
            continue
        for other, held in enumerate(known):
            if held and other != rank and not mine[other]:
                room[other] = 0


def _place(
    rng: random.Random, seats: list[int], free: dict[int, int], pond_free: int
) -> int | None:
    """A free place at random: a seat of `seats`, None for the pond, -1 if there is none."""
    places = pond_free + sum(free[s] for s in seats)
    if places == 0:
        return -1
    pick = rng.randrange(places)
    for seat in seats:
        if pick < free[seat]:
            return seat
        pick -= free[seat]
    return None


def _room(cap: int | None, taken: int) -> bool:
    return cap is None or taken < cap
