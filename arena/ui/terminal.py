"""Untrusted text on the way to a terminal: shown as itself, never as markup or escapes."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from rich.text import Text

# C0 and C1 control characters (ESC among them), DEL, bidirectional marks and overrides, and
# the Unicode line and paragraph separators.
_CONTROL = re.compile(
    "[\x00-\x1f\x7f-\x9f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]"
)

_ESCAPES = {"\n": "\\n", "\r": "\\r", "\t": "\\t"}


def printable(text: str, limit: int = 80) -> str:
    """`text` with a newline, CR or tab written as `\\n`, `\\r`, `\\t` (they matter in a reply),
    every other control character as `?`, cut to `limit`."""
    cleaned = _CONTROL.sub(lambda found: _ESCAPES.get(found.group(), "?"), text)
    if len(cleaned) > limit:
        cleaned = cleaned[: limit - 1] + "…"
    return cleaned


def inert(text: str, limit: int = 80) -> Text:
    """A rich Text of `text` made `printable`."""
    from rich.text import Text

    return Text(printable(text, limit))
