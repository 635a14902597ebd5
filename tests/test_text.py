"""The one rule of a text cut to fit (`arena.engine.text`): where it stops and how it says so."""

from __future__ import annotations

from arena.base.terminal import printable
from arena.engine.rules import shown
from arena.engine.text import listed, shorten
from arena.seats.replies import cut


def test_a_text_that_fits_is_whole_and_a_longer_one_ends_in_an_ellipsis_within_the_limit() -> None:
    assert shorten("abcde", 5) == "abcde"
    assert shorten("abcdef", 5) == "abcd…"
    assert len(shorten("x" * 1000, 80)) == 80


def test_a_counted_cut_keeps_the_limit_and_says_how_many_more() -> None:
    assert shorten("abcde", 5, count=True) == "abcde"
    assert shorten("abcdefgh", 5, count=True) == "abcde… [3 more]"
    assert cut(b"\xff" + b"a" * 400) == "\ufffd" + "a" * 299 + "… [101 more]"


def test_a_list_shows_its_first_items_and_an_ellipsis_for_the_rest() -> None:
    assert listed(["12", "31", "40"], 3) == "12, 31, 40"
    assert listed(["12", "31", "40"], 2) == "12, 31, …"
    assert listed([], 2) == ""


def test_the_engine_the_faults_and_the_terminal_cut_alike() -> None:
    assert shown("x" * 100, 10) == '"xxxxxxxx…'
    assert printable("a\nb" * 50, 10) == "a\\nba\\nba…"
