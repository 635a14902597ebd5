"""Text cut to fit a sentence or a line: the one rule of where a shown text stops and how it
says so.

    shorten('{"player":1,"cardId":…}', 80)  # at most 80 characters, the last "…" when cut
    shorten(line, 300, count=True)           # its first 300, then "… [1234 more]"
    listed(["12", "31", "40"], 2)            # "12, 31, …"

In the engine, the lowest layer, because the engine's own refusals show a reply with it; every
room above uses the same: a fault's offending output, the timeline, the terminal, the config's
one-line errors, the league's messages.
"""

from __future__ import annotations

from collections.abc import Sequence

ELLIPSIS = "…"


def shorten(text: str, limit: int, *, count: bool = False) -> str:
    """`text` whole when it has at most `limit` characters; else cut, marked with an ellipsis:
    its first `limit - 1` and "…" (the result has `limit`), or with `count` its first `limit`,
    then "… [N more]" saying how many were cut (a fault's raw output: what a reader of a
    replay needs to tell a long line from a short one)."""
    if len(text) <= limit:
        return text
    if count:
        return f"{text[:limit]}{ELLIPSIS} [{len(text) - limit} more]"
    return text[: limit - 1] + ELLIPSIS


def listed(items: Sequence[str], most: int) -> str:
    """The first `most` of `items`, comma-separated, and ", …" when there are more."""
    return ", ".join(items[:most]) + (f", {ELLIPSIS}" if len(items) > most else "")


__all__ = ["ELLIPSIS", "listed", "shorten"]
