"""The bot writer's SDK (arena/sdk/): hand sync, public events, replies, and `run` on streams."""

from __future__ import annotations

import io
import json
import subprocess
import sys
from functools import partial
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from arena.sdk import Ask, AskSeen, Bot, Card, Draw, run

ROOT = Path(__file__).resolve().parent.parent


def card(id: int, rank: int, suit: int = 0, deck: int = 0) -> dict[str, Any]:
    return {
        "id": id,
        "card": chr(0x1F0A1 + 16 * suit + rank),
        "deck": deck,
        "suit": suit,
        "rank": rank,
    }


def init(seat: int = 0, seats: int = 2, dealt: int = 7, min_hand: int = 1) -> dict[str, Any]:
    names = [f"p{s}" for s in range(seats)]
    return {
        "type": "init",
        "seat": seat,
        "players": [{"seat": s, "name": n} for s, n in enumerate(names)],
        "opponents": [None if s == seat else n for s, n in enumerate(names)],
        "settings": {
            "rules": {
                "startingPlayer": "Random",
                "startingHandSize": dealt,
                "minHandSize": min_hand,
                "nextPlayer": "Asked",
            },
            "deck": {"numberOfDecks": 1, "knights": False},
            "limits": {"replyTimeout": 2.0},
        },
    }


def hand_update(
    asker: int, asked: int, asked_with: dict[str, Any], moved: int, hand: list[dict[str, Any]]
) -> dict[str, Any]:
    return {
        "type": "hand-update",
        "askingPlayer": asker,
        "playerAsked": asked,
        "card": asked_with,
        "result": moved,
        "hand": hand,
    }


HAND = [card(0, 0), card(14, 1, 1), card(27, 1, 2), card(5, 5)]


class Recorder(Bot):
    """Records every hook call, and asks the next seat with its first card."""

    def reset(self) -> None:
        super().reset()
        self.calls: list[tuple[str, Any]] = []

    def choose_ask(self) -> Ask:
        return Ask((self.seat + 1) % self.seats, self.hand[0].id)

    def on_start(self) -> None:
        self.calls.append(("start", len(self.hand)))

    def on_ask_seen(self, seen: AskSeen) -> None:
        self.calls.append(("ask", seen))

    def on_draw(self, card: Card, via: Draw) -> None:
        self.calls.append((via, card.id))

    def on_match_end(self, scores: list[int], places: list[int]) -> None:
        self.calls.append(("end", (scores, places)))


def started(bot: Bot, seat: int = 0, seats: int = 2, hand: list[dict[str, Any]] = HAND) -> Bot:
    bot.handle(init(seat, seats, dealt=len(hand)))
    bot.handle({"type": "starting-hand", "hand": hand})
    return bot


# --- replies -----------------------------------------------------------------------------


def test_init_replies_null_unless_the_bot_opts_in_to_reuse() -> None:
    class Kept(Bot):
        reuse = True

    assert Bot().handle(init()) is None
    assert Kept().handle(init()) == {"reuse": True}


def test_ask_reply_is_seat_and_card_id() -> None:
    bot = started(Recorder(), seat=1, seats=3)
    reply = bot.handle(
        {"type": "ask", "hand": HAND, "opponentsHandSizes": [4, None, 6], "pond": [0] * 9}
    )
    assert reply == {"player": 2, "cardId": 0}
    assert json.loads(json.dumps(reply)) == reply  # plain JSON, no tuple or NamedTuple leaks


def test_a_plain_tuple_from_choose_ask_is_accepted() -> None:
    class Tupled(Bot):
        def choose_ask(self) -> Ask:
            return (1, 14)  # type: ignore[return-value]

    bot = started(Tupled())
    reply = bot.handle({"type": "ask", "hand": HAND, "opponentsHandSizes": [None, 3], "pond": []})
    assert reply == {"player": 1, "cardId": 14}


def test_pond_index_replies_are_in_range_for_go_fish_and_pick_up() -> None:
    bot = started(Bot())
    for _ in range(30):
        index = bot.handle({"type": "go-fish", "pond": [0, 0, 1, 1, 0]})
        assert type(index) is int and 0 <= index < 5
        index = bot.handle({"type": "pick-up", "pond": 3})
        assert type(index) is int and 0 <= index < 3


@pytest.mark.parametrize(
    "message",
    [
        {"type": "starting-hand", "hand": HAND},
        {"type": "go-fish-result", "card": [card(40, 1, 3)], "hand": [*HAND, card(40, 1, 3)]},
        {"type": "pick-up-result", "card": [card(40, 1, 3)], "hand": [*HAND, card(40, 1, 3)]},
        hand_update(1, 0, card(13, 0, 1), 1, HAND[1:]),
        {"type": "match-end", "scores": [1, 2], "ranks": [2, 1]},
        {"type": "something-new", "x": 1},
        {"no": "type"},
    ],
)
def test_informational_and_unknown_messages_are_answered_null(message: dict[str, Any]) -> None:
    assert started(Bot()).handle(message) is None


# --- the hand and the public events ------------------------------------------------------


def test_the_hand_follows_every_hand_field() -> None:
    bot = started(Recorder())
    assert [c.id for c in bot.hand] == [0, 14, 27, 5]
    drawn = card(40, 1, 3)
    bot.handle({"type": "go-fish-result", "card": [drawn], "hand": [*HAND, drawn]})
    assert [c.id for c in bot.hand] == [0, 14, 27, 5, 40]
    bot.handle(hand_update(1, 0, card(13, 0, 1), 1, [card(14, 1, 1), card(5, 5)]))
    assert [c.id for c in bot.hand] == [14, 5]
    bot.handle({"type": "ask", "hand": [card(5, 5)], "opponentsHandSizes": [None, 9], "pond": [0]})
    assert [c.id for c in bot.hand] == [5]
    assert bot.hand[0] == Card(id=5, rank=5, suit=0, deck=0, glyph="\U0001f0a6")


def test_hooks_are_called_with_what_happened() -> None:
    bot = started(Recorder())
    drawn = card(40, 1, 3)
    bot.handle({"type": "pick-up-result", "card": [drawn], "hand": [*HAND, drawn]})
    bot.handle(hand_update(1, 0, card(13, 0, 1), 1, [*HAND[1:], drawn]))
    bot.handle({"type": "match-end", "scores": [3, 4], "ranks": [2, 1]})
    assert isinstance(bot, Recorder)
    kinds = [kind for kind, _ in bot.calls]
    assert kinds == ["start", "pick-up", "ask", "end"]
    seen = bot.calls[2][1]
    assert (seen.asker, seen.asked, seen.rank, seen.moved, seen.went_fishing) == (1, 0, 0, 1, False)
    assert bot.scores == [3, 4]


def test_hand_sizes_and_pond_are_followed_between_asks() -> None:
    bot = started(Bot(), seat=0, seats=3, hand=HAND)
    assert bot.hand_sizes == [4, 4, 4] and bot.pond_size == 52 - 12
    bot.handle({"type": "ask", "hand": HAND, "opponentsHandSizes": [None, 6, 1], "pond": [0] * 20})
    assert bot.hand_sizes == [4, 6, 1] and bot.pond_size == 20
    # Seat 1 takes seat 2's only card: seat 2 refills to minHandSize (1) from the pond.
    bot.handle(hand_update(1, 2, card(9, 9), 1, HAND))
    assert bot.hand_sizes == [4, 7, 1] and bot.pond_size == 19
    # Seat 1 misses on us: it goes fishing, one card from the pond.
    bot.handle(hand_update(1, 0, card(10, 10), 0, HAND))
    assert bot.hand_sizes == [4, 8, 1] and bot.pond_size == 18
    assert [seen.went_fishing for seen in bot.asks] == [False, True]
    assert [(seen.asker, seen.asked, seen.card.id, seen.moved) for seen in bot.asks] == [
        (1, 2, 9, 1),
        (1, 0, 10, 0),
    ]


def test_a_miss_with_an_empty_pond_is_not_a_go_fish() -> None:
    bot = started(Bot())
    bot.handle({"type": "ask", "hand": HAND, "opponentsHandSizes": [None, 3], "pond": []})
    bot.handle(hand_update(1, 0, card(10, 10), 0, HAND))
    assert bot.asks[-1].went_fishing is False
    assert bot.hand_sizes == [4, 3] and bot.pond_size == 0


def test_our_own_go_fish_is_counted_once() -> None:
    bot = started(Bot())
    bot.handle({"type": "ask", "hand": HAND, "opponentsHandSizes": [None, 3], "pond": [0, 0, 0]})
    bot.handle(hand_update(0, 1, card(5, 5), 0, HAND))
    bot.handle({"type": "go-fish", "pond": [0, 0, 0]})
    drawn = card(40, 1, 3)
    bot.handle({"type": "go-fish-result", "card": [drawn], "hand": [*HAND, drawn]})
    assert bot.pond_size == 2 and bot.hand_sizes == [5, 3]


def test_books_laid_are_cards_that_left_without_a_hand_over() -> None:
    fours = [card(3 + 13 * suit, 3, suit) for suit in range(4)]
    bot = started(Bot(), hand=[card(0, 0), *fours[:3]])
    drawn = fours[3]
    bot.handle({"type": "go-fish-result", "card": [drawn], "hand": [card(0, 0), *fours]})
    # The book check after the draw removes the four threes; the next hand shows it.
    bot.handle(hand_update(1, 0, card(13, 0, 1), 1, []))
    assert bot.books_laid == [3]


def test_cards_handed_over_are_not_books() -> None:
    hand = [card(7 + 13 * suit, 7, suit) for suit in range(3)] + [card(2, 2)]
    bot = started(Bot(), hand=hand)
    bot.handle(hand_update(1, 0, card(46, 7, 3), 3, [card(2, 2)]))
    assert bot.books_laid == []
    assert bot.hand_sizes == [1, 7]


def test_the_seat_is_read_from_ask_even_without_init() -> None:
    bot = Recorder()
    bot.handle({"type": "starting-hand", "hand": HAND})
    reply = bot.handle(
        {"type": "ask", "hand": HAND, "opponentsHandSizes": [5, 5, None], "pond": [0]}
    )
    assert bot.seat == 2 and reply == {"player": 0, "cardId": 0}


def test_init_starts_a_new_match_clean() -> None:
    bot = started(Recorder())
    bot.handle(hand_update(1, 0, card(13, 0, 1), 1, HAND[1:]))
    bot.handle({"type": "match-end", "scores": [0, 1], "ranks": [2, 1]})
    bot.handle(init(seat=1, seats=3))
    assert bot.hand == [] and bot.asks == [] and bot.books_laid == [] and bot.scores is None
    assert bot.seat == 1 and bot.hand_sizes == [7, 7, 7]


@settings(max_examples=60, deadline=None)
@given(
    st.lists(
        st.tuples(
            st.sampled_from(["ask", "go-fish-result", "pick-up-result", "hand-update"]),
            st.lists(st.integers(0, 51), unique=True, max_size=12),
        ),
        min_size=1,
        max_size=25,
    )
)
def test_the_hand_is_always_the_last_hand_sent(steps: list[tuple[str, list[int]]]) -> None:
    bot = started(Bot(), hand=[])
    for kind, ids in steps:
        hand = [card(i, i % 13, i // 13) for i in ids]
        message: dict[str, Any] = {"type": kind, "hand": hand}
        if kind == "ask":
            message.update(opponentsHandSizes=[None, 5], pond=[0, 0])
            if not hand:
                continue  # the arena never asks a seat with no cards
        elif kind == "hand-update":
            message.update(askingPlayer=1, playerAsked=0, card=card(51, 12, 3), result=0)
        else:
            message["card"] = [card(51, 12, 3)]
        reply = bot.handle(message)
        assert [c.id for c in bot.hand] == ids
        assert bot.hand_sizes[0] == len(ids)
        if kind == "ask":
            assert reply["cardId"] in ids and reply["player"] == 1


# --- determinism -------------------------------------------------------------------------


def test_the_generator_is_seeded_from_seat_and_starting_hand() -> None:
    def replies(seat: int, hand: list[dict[str, Any]]) -> list[Any]:
        bot = started(Bot(), seat=seat, seats=4, hand=hand)
        sizes: list[int | None] = [5, 5, 5, 5]
        sizes[seat] = None
        ask = {"type": "ask", "hand": hand, "opponentsHandSizes": sizes, "pond": [0] * 30}
        return [bot.handle(ask) for _ in range(10)] + [
            bot.handle({"type": "pick-up", "pond": 1000})
        ]

    assert replies(0, HAND) == replies(0, HAND)
    # The seed is the set of ids, not the order they were dealt in.
    assert (
        started(Bot(), hand=HAND).rng.getstate() == started(Bot(), hand=HAND[::-1]).rng.getstate()
    )
    assert replies(0, HAND) != replies(1, HAND)
    assert replies(0, HAND) != replies(0, [*HAND, card(50, 11, 3)])


# --- run: the stdio loop -----------------------------------------------------------------


def lines(*messages: Any) -> io.StringIO:
    return io.StringIO("".join(json.dumps(m) + "\n" for m in messages))


def test_run_answers_one_line_per_message_and_stops_at_match_end() -> None:
    source = lines(
        init(),
        {"type": "starting-hand", "hand": HAND},
        {"type": "ask", "hand": HAND, "opponentsHandSizes": [None, 7], "pond": [0]},
        {"type": "pick-up", "pond": 1},
        {"type": "match-end", "scores": [1, 0], "ranks": [1, 2]},
        init(),
    )
    out = io.StringIO()
    run(Recorder(), source, out)
    assert out.getvalue().splitlines() == [
        "null",
        "null",
        '{"player": 1, "cardId": 0}',
        "0",
        "null",
    ]
    assert source.readline()  # the message after match-end was never read


def test_run_with_reuse_plays_the_next_match_after_a_new_init() -> None:
    class Kept(Recorder):
        reuse = True

    bot = Kept()
    other_hand = [card(51, 12, 3)]
    source = lines(
        init(),
        {"type": "starting-hand", "hand": HAND},
        {"type": "match-end", "scores": [1, 0], "ranks": [1, 2]},
        init(seat=1),
        {"type": "starting-hand", "hand": other_hand},
        {"type": "ask", "hand": other_hand, "opponentsHandSizes": [7, None], "pond": [0]},
    )
    out = io.StringIO()
    run(bot, source, out)
    assert out.getvalue().splitlines() == [
        '{"reuse": true}',
        "null",
        "null",
        '{"reuse": true}',
        "null",
        '{"player": 0, "cardId": 51}',
    ]
    assert bot.seat == 1 and [c.id for c in bot.hand] == [51]
    assert bot.calls == [("start", 1)]  # the first match's calls went with its state


def test_run_ends_quietly_at_end_of_input() -> None:
    out = io.StringIO()
    run(Bot(), lines(init()), out)
    assert out.getvalue() == "null\n"


def test_run_skips_blank_lines_and_answers_null_to_lines_that_are_not_json() -> None:
    out = io.StringIO()
    run(Bot(), io.StringIO("\n  \r\nnot json\n[1, 2]\n"), out)
    assert out.getvalue() == "null\nnull\n"


def test_a_debug_print_goes_to_stderr_never_into_a_reply(
    capsys: pytest.CaptureFixture[str],
) -> None:
    class Chatty(Recorder):
        def choose_ask(self) -> Ask:
            print("thinking about", len(self.hand), "cards")
            return super().choose_ask()

    out = io.StringIO()
    run(
        Chatty(),
        lines(init(), {"type": "ask", "hand": HAND, "opponentsHandSizes": [None, 7], "pond": []}),
        out,
    )
    assert out.getvalue().splitlines() == ["null", '{"player": 1, "cardId": 0}']
    captured = capsys.readouterr()
    assert "thinking about 4 cards" in captured.err
    assert captured.out == ""


def test_a_bot_that_raises_answers_null_and_logs_the_traceback(
    capsys: pytest.CaptureFixture[str],
) -> None:
    class Broken(Bot):
        def choose_ask(self) -> Ask:
            raise ZeroDivisionError("oops")

    out = io.StringIO()
    ask = {"type": "ask", "hand": HAND, "opponentsHandSizes": [None, 7], "pond": []}
    run(Broken(), lines(init(), ask, {"type": "pick-up", "pond": 2}), out)
    init_reply, ask_reply, pick_up_reply = out.getvalue().splitlines()
    assert (init_reply, ask_reply) == ("null", "null")
    assert pick_up_reply in ("0", "1")  # the bot goes on after its bug
    assert "ZeroDivisionError: oops" in capsys.readouterr().err


def test_a_reply_that_is_not_json_becomes_null(capsys: pytest.CaptureFixture[str]) -> None:
    class NotANumber(Bot):
        def choose_pond_index(self, pond_size: int) -> int:
            return float("nan")  # type: ignore[return-value]

    out = io.StringIO()
    run(NotANumber(), lines({"type": "go-fish", "pond": [0, 0]}), out)
    # int(nan) raises inside handle: the reply is null, never the non-JSON `NaN`.
    assert out.getvalue() == "null\n"
    assert "ValueError" in capsys.readouterr().err


# --- packaging ---------------------------------------------------------------------------


BLOCKER = """
import sys
class Block:
    def find_spec(self, name, path=None, target=None):
        if name.split(".")[0] in {"pydantic", "orjson", "typer", "rich", "msgspec"}:
            raise ImportError("blocked: " + name)
sys.meta_path.insert(0, Block())
sys.path.insert(0, %r)
import arena.sdk, arena.bots
print(sorted(m for m in sys.modules if m.split(".")[0] == "arena"))
"""


def test_sdk_and_bots_import_with_the_standard_library_only() -> None:
    done = subprocess.run(
        [sys.executable, "-c", BLOCKER % str(ROOT)],
        capture_output=True,
        text=True,
        timeout=30,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    # The engine's cards, rules, settings and text are standard-library only too (tests/test_layers.py):
    # one pack formula, one deal by table size, one declaration of each setting.
    # And the core, for master's rollouts: compiled, or its pure twin (arena/core/).
    from arena.core import COMPILED

    core = "'arena.core', 'arena.core._core'" if COMPILED else "'arena.core', 'arena.core.pure'"
    assert done.stdout.strip() == (
        f"['arena', 'arena.bots', 'arena.bots.master', 'arena.bots.simulator', {core}, "
        "'arena.engine', 'arena.engine.cards', 'arena.engine.rules', 'arena.engine.settings', "
        "'arena.engine.text', 'arena.sdk']"
    )


# --- the family rules ----------------------------------------------------------------------


def family_init(seat: int = 0, seats: int = 2, **rules: Any) -> dict[str, Any]:
    message = init(seat, seats, dealt=4, min_hand=0)
    message["settings"]["rules"].update(rules)
    return message


def test_a_lucky_draw_is_recorded_and_answered_null() -> None:
    from arena.sdk import LuckyDraw

    seen: list[LuckyDraw] = []

    class Watcher(Bot):
        def on_lucky_draw(self, lucky: LuckyDraw) -> None:
            seen.append(lucky)

    bot = Watcher()
    bot.handle(family_init(luckyDraw=True))
    bot.handle({"type": "starting-hand", "hand": HAND})
    shown = card(40, 1, 3)
    assert bot.handle({"type": "lucky-draw", "player": 1, "card": shown}) is None
    assert bot.lucky_draws == seen == [LuckyDraw(1, Card.from_json(shown))]
    assert bot.hand_sizes == [4, 4]  # the draw itself was counted at the hand-update


def test_an_emptied_hand_is_counted_refilled_at_once_but_not_on_its_turn() -> None:
    at_once = Bot()
    at_once.handle(family_init(seats=3, refillEmptyHand=5, refillWhen="At once"))
    at_once.handle({"type": "starting-hand", "hand": HAND})
    at_once.handle(
        {"type": "ask", "hand": HAND, "opponentsHandSizes": [None, 4, 2], "pond": [0] * 20}
    )
    # Seat 1 takes both of seat 2's cards: seat 2 draws a fresh hand of 5 at once.
    at_once.handle(hand_update(1, 2, card(9, 9), 2, HAND))
    assert at_once.hand_sizes == [4, 6, 5] and at_once.pond_size == 15
    assert at_once.refill_target(0) == 5 and at_once.refill_target(3) == 0

    later = Bot()
    later.handle(family_init(seats=3, refillEmptyHand=5, refillWhen="On its turn"))
    later.handle({"type": "starting-hand", "hand": HAND})
    later.handle(
        {"type": "ask", "hand": HAND, "opponentsHandSizes": [None, 4, 2], "pond": [0] * 20}
    )
    later.handle(hand_update(1, 2, card(9, 9), 2, HAND))
    assert later.hand_sizes == [4, 6, 0] and later.pond_size == 20


def test_deal_by_seats_without_a_hand_size_counts_the_deal_by_table_size() -> None:
    bot = Bot()
    message = family_init(seats=3, dealBySeats=True)
    del message["settings"]["rules"]["startingHandSize"]
    bot.handle(message)
    assert bot.hand_sizes == [5, 5, 5] and bot.pond_size == 52 - 15


def test_the_expert_pins_a_card_shown_by_a_lucky_draw() -> None:
    from arena.bots import ExpertBot

    bot = ExpertBot()
    bot.handle(family_init(luckyDraw=True))
    bot.handle({"type": "starting-hand", "hand": HAND})
    bot.handle({"type": "ask", "hand": HAND, "opponentsHandSizes": [None, 4], "pond": [0] * 10})
    # We ask seat 1 for 9s: go fish, so seat 1 holds no 9 (we draw a card of our own).
    bot.handle(hand_update(0, 1, card(9, 9), 0, HAND))
    bot.handle({"type": "go-fish", "pond": [0] * 10})
    bot.handle(
        {"type": "go-fish-result", "card": [card(30, 4, 2)], "hand": [*HAND, card(30, 4, 2)]}
    )
    # Seat 1 asks us for Queens (a miss), fishes, and shows the Queen it drew.
    bot.handle(hand_update(1, 0, card(12, 12), 0, [*HAND, card(30, 4, 2)]))
    count = bot.count
    assert count.least[1][12] == 1 and count.room[1][9] == 1  # its draw might be a 9
    bot.handle({"type": "lucky-draw", "player": 1, "card": card(25, 12, 1)})
    assert count.least[1][12] == 2  # the Queen it asked with and the one it showed
    assert count.room[1][9] == 0  # its draw is seen: still no 9
    assert count.sizes[1] == 5 and count.pond == 8


@pytest.mark.parametrize("decks", [1, 2, 3])
def test_books_laid_match_the_engines_books_at_every_ask(decks: int) -> None:
    """A hit or a draw can make a book before any message shows its cards in the hand, and a
    pick-up can show a hand before the hand-over that emptied it is told: books_laid stays right."""
    from arena.bots import BOTS
    from arena.engine.match import Delivery, Match, MatchSetup
    from arena.engine.rules import Rules

    asks = 0

    def books_agree(match: Match, bots: list[Bot], seed: int, delivery: Delivery, _: Any) -> None:
        nonlocal asks
        if delivery.message["type"] == "ask":
            assert len(bots[delivery.seat].books_laid) == match.table.books[delivery.seat], seed
            asks += 1

    for seed in range(30):
        seats = 2 + seed % 3
        rules = Rules(
            number_of_decks=decks,
            min_hand_size=seed % 3,
            starting_hand_size=seed % 8,
            knights=seed % 4 == 0,
        )
        bots = [BOTS["hard" if s % 2 else "expert"]() for s in range(seats)]
        match = Match(MatchSetup.from_seed(seed, [f"s{s}" for s in range(seats)], rules))
        match.play_out(bots, partial(books_agree, match, bots, seed))
    assert asks > 1000
