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
    game = match.play()
    sent: list[tuple[int, dict[str, Any]]] = []
    try:
        delivery = next(game)
        while True:
            sent.append((delivery.seat, copy.deepcopy(delivery.message)))
            delivery = game.send(bots[delivery.seat].handle(delivery.message))
    except StopIteration:
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


def test_with_no_worlds_it_plays_exactly_as_expert_and_with_them_it_does_not() -> None:
    differs = 0
    for seed in range(4):
        sent = transcript_of([ExpertBot(), BOTS["hard"]()], seed)
        assert replies(MasterBot(worlds=0), 0, sent) == replies(ExpertBot(), 0, sent)
        differs += replies(MasterBot(worlds=8), 0, sent) != replies(ExpertBot(), 0, sent)
    assert differs > 0


def test_under_a_rule_it_does_not_model_it_plays_as_expert() -> None:
    differs = 0
    for seed in range(4):
        sent = transcript_of([ExpertBot(), BOTS["hard"]()], seed)
        differs += replies(MasterBot(worlds=8), 0, sent) != replies(ExpertBot(), 0, sent)
        for _, message in sent:
            if message["type"] == "init":
                message["settings"]["rules"]["luckyDraw"] = True
        assert replies(MasterBot(worlds=8), 0, sent) == replies(ExpertBot(), 0, sent)
    assert differs > 0  # so the sameness above is the fallback, not chance


def test_the_same_match_gives_the_same_replies() -> None:
    sent = transcript_of([ExpertBot(), BOTS["hard"](), BOTS["expert"]()], 7)
    assert replies(MasterBot(worlds=8), 0, sent) == replies(MasterBot(worlds=8), 0, sent)
