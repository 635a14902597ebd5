"""The searching `master` bot: the worlds it searches agree with what the table knows, its budget
counts worlds, and it plays as `expert` where its simulator does not know the rules."""

from __future__ import annotations

import copy
from collections import Counter
from typing import Any

from arena.bots import BOTS, ExpertBot, MasterBot
from arena.bots.simulator import code
from arena.engine.events import BookLaid
from arena.engine.match import Match, MatchSetup
from arena.engine.rules import Rules
from arena.sdk import Bot


def transcript_of(
    bots: list[Bot], seed: int, rules: Rules | None = None
) -> list[tuple[int, dict[str, Any]]]:
    """The messages of one match, in order, with the seat each went to."""
    match = Match(MatchSetup.from_seed(seed, [f"s{i}" for i in range(len(bots))], rules or Rules()))
    sent: list[tuple[int, dict[str, Any]]] = []
    match.play_out(
        bots, lambda delivery, _: sent.append((delivery.seat, copy.deepcopy(delivery.message)))
    )
    return sent


def replies(bot: Bot, seat: int, sent: list[tuple[int, dict[str, Any]]]) -> list[Any]:
    return [bot.handle(copy.deepcopy(m)) for s, m in sent if s == seat]


def test_the_worlds_it_searches_agree_with_every_public_fact_and_hold_the_unseen_cards() -> None:
    checked = 0
    for seed in range(6):
        seats = 2 + seed % 3
        master = MasterBot(worlds=4)
        bots: list[Bot] = [master] + [BOTS["expert"]() for _ in range(seats - 1)]
        match = Match(MatchSetup.from_seed(seed, [f"s{i}" for i in range(seats)], Rules()))
        game = match.play()
        try:
            delivery = next(game)
            while True:
                reply = bots[delivery.seat].handle(delivery.message)
                if delivery.seat == 0 and delivery.message["type"] == "ask":
                    count = master.count
                    # Expert's count guesses the rank of a book laid unseen (after a draw); when
                    # it guessed right, the unseen cards of every world are the true ones.
                    booked = Counter(
                        e.rank for e in match.events if isinstance(e, BookLaid) and e.seat != 0
                    )
                    right = booked == Counter({r: n for r, n in enumerate(count.booked) if n})
                    for _ in range(5):
                        hands, pond = master.sample_world(master.rng)
                        assert [len(h) for h in hands] == [len(h) for h in match.table.hands]
                        assert len(pond) == len(match.table.pond)
                        assert sorted(hands[0]) == sorted(code(c.rank, c.suit) for c in master.hand)
                        every = sorted(c for h in hands for c in h) + sorted(pond)
                        real = [code(c["rank"], c["suit"]) for h in match.table.hands for c in h]
                        real += [code(c["rank"], c["suit"]) for c in match.table.pond]
                        if right:
                            assert sorted(every) == sorted(real)  # the unseen cards, each once
                            checked += 1
                        for s in master.others():
                            ranks = Counter(c >> 2 for c in hands[s])
                            assert (
                                all(ranks[r] >= count.least[s][r] for r in range(14)) or not right
                            )
                delivery = game.send(reply)
        except StopIteration:
            pass
    assert checked > 100


def test_the_search_changes_asks_at_a_table_of_three_or_more_and_not_at_two() -> None:
    searched = 0
    for seed in range(4):
        sent = transcript_of([ExpertBot(), BOTS["hard"](), BOTS["expert"]()], seed)
        searched += replies(MasterBot(worlds=8), 0, sent) != replies(MasterBot(worlds=0), 0, sent)
        sent = transcript_of([ExpertBot(), BOTS["hard"]()], seed)
        assert replies(MasterBot(worlds=8), 0, sent) == replies(MasterBot(worlds=0), 0, sent)
        # Reading passed sure hits and its own weights: not expert, even with no search.
        assert replies(MasterBot(worlds=0), 0, sent) != replies(ExpertBot(), 0, sent)
    assert searched > 0


def test_a_passed_sure_hit_rules_out_ranks_that_a_remembering_seat_truly_lacks() -> None:
    """`hard` and `expert` take a sure hit first (expert nearly always): what master infers
    from an ask that is not one must be true of their hands."""
    right = wrong = 0
    for seed in range(30):
        seats = 2 + seed % 3
        opponent = ("hard", "expert")[seed % 2]
        master = MasterBot(worlds=0)
        bots: list[Bot] = [master] + [BOTS[opponent]() for _ in range(seats - 1)]
        match = Match(MatchSetup.from_seed(seed, [f"s{i}" for i in range(seats)], Rules()))
        game = match.play()
        try:
            delivery = next(game)
            while True:
                message = delivery.message
                before = [list(room) for room in master.count.room]
                held = [Counter(c["rank"] for c in hand) for hand in match.table.hands]
                reply = bots[delivery.seat].handle(message)
                if delivery.seat == 0 and message["type"] == "hand-update":
                    asker = int(message["askingPlayer"])
                    for rank, room in enumerate(master.count.room[asker]):
                        # Ruled out by this ask: the asker held none before it, bar the card
                        # it was just handed or drew (the engine's table is after the ask).
                        if room == 0 and before[asker][rank] != 0:
                            if held[asker][rank] and rank != message["card"]["rank"]:
                                wrong += 1
                            else:
                                right += 1
                delivery = game.send(reply)
        except StopIteration:
            pass
    assert right > 300
    assert wrong <= right // 25  # expert passes a sure hit for a likely book, now and then


def test_under_a_rule_it_does_not_model_it_plays_as_expert() -> None:
    """No search, no reading of passes, expert's weights: the family rules break their premises."""
    differs = 0
    for seed in range(4):
        sent = transcript_of([ExpertBot(), BOTS["hard"](), BOTS["hard"]()], seed)
        differs += replies(MasterBot(worlds=8), 0, sent) != replies(ExpertBot(), 0, sent)
        for _, message in sent:
            if message["type"] == "init":
                message["settings"]["rules"]["luckyDraw"] = True
        assert replies(MasterBot(worlds=8), 0, sent) == replies(ExpertBot(), 0, sent)
    assert differs > 0  # so the sameness above is the fallback, not chance


def test_the_same_match_gives_the_same_replies() -> None:
    sent = transcript_of([ExpertBot(), BOTS["hard"](), BOTS["expert"]()], 7)
    assert replies(MasterBot(worlds=8), 0, sent) == replies(MasterBot(worlds=8), 0, sent)
