"""Untrusted text on the way to a terminal: shown as itself, never as markup or escapes."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from arena.engine.text import shorten

if TYPE_CHECKING:
    from rich.text import Text

# C0 and C1 control characters (ESC among them), DEL, invisible and bidirectional marks and
# overrides (U+200B-U+200F, U+202A-U+202E, U+2060-U+2069, the BOM U+FEFF), the Unicode line and
# paragraph separators, and lone surrogates (a bot's reply may hold one; no encoding takes it).
_CONTROL = re.compile(
    "[\x00-\x1f\x7f-\x9f\u061c\u200b-\u200f\u2028-\u202e\u2060-\u2069\ufeff\ud800-\udfff]"
)

_ESCAPES = {"\n": "\\n", "\r": "\\r", "\t": "\\t"}


def printable(text: str, limit: int = 80) -> str:
    """`text` with a newline, CR or tab written as `\\n`, `\\r`, `\\t` (they matter in a reply),
    every other C0/C1 control character as `?`, an invisible or direction-changing character or a
    lone surrogate as `\\uXXXX`, cut to `limit`."""
    return shorten(_CONTROL.sub(_visible, text), limit)


def _visible(found: re.Match[str]) -> str:
    character = found.group()
    if character in _ESCAPES:
        return _ESCAPES[character]
    # C0, C1 and DEL as `?` (what they are is noise); the invisible rest named by code point.
    return "?" if ord(character) < 0xA0 else f"\\u{ord(character):04x}"


def inert(text: str, limit: int = 80) -> Text:
    """A rich Text of `text` made `printable`."""
    from rich.text import Text

    return Text(printable(text, limit))


def share_count(value: float) -> str:
    """A count that shared places split (wins: a tie of three gives each a third), to two
    decimals at most: `52`, `51.5`, `51.67`, never `51.6667`."""
    return f"{value:.2f}".rstrip("0").rstrip(".")
