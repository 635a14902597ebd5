"""Words the arena's outputs share: a place said as people say it (`ordinal`), a reply's time in
the unit that reads best (`seconds_text`)."""

from __future__ import annotations


def ordinal(place: int) -> str:
    """1st, 2nd, 3rd, 4th … 11th, 12th, 13th … 21st, 22nd, 23rd … 111th."""
    if place % 100 in (11, 12, 13):
        return f"{place}th"
    return f"{place}{ {1: 'st', 2: 'nd', 3: 'rd'}.get(place % 10, 'th') }"


def seconds_text(seconds: float) -> str:
    """A reply's time, in the unit that reads best (µs, ms, s)."""
    if seconds < 0.001:
        return f"{seconds * 1e6:.0f} µs"
    return f"{seconds * 1000:.1f} ms" if seconds < 10 else f"{seconds:.1f} s"
