"""JSON text read exactly as Python's standard module reads it, at orjson's speed; and written.

    jsontext.loads(raw)   # a reply line, a replay file: raises ValueError (RecursionError
                          # when it nests deeper than the standard module can follow)
    jsontext.dumps(value) # a reply as compact JSON text, whatever it holds

orjson reads the same value as the standard module from every text it accepts but one holding
an integer beyond 64 bits, which it makes a float. So a text with a run of 19 digits (maybe such
an integer), and every text orjson refuses (NaN or Infinity, 1e400, a lone surrogate, not UTF-8,
nested too deeply), is read by the standard module, whose value or error counts: the result is
the standard module's either way. NaN and Infinity literals are not JSON and are refused.
"""

from __future__ import annotations

import json
from typing import Any

import orjson

# Every digit as "0", every other byte as a space: 19 zeros in a row are a run of 19 digits.
# (A translation and a substring search: twelve times faster than a regular expression over
# a 160 KB replay, and as fast over a reply line.)
_AS_DIGITS = bytes(ord("0") if chr(byte).isdigit() else ord(" ") for byte in range(128)) + (
    b" " * 128
)
_LONG_RUN = b"0" * 19


def _not_json(literal: str) -> Any:
    raise ValueError(f"{literal} is not a JSON number")


# Built once: `json.loads` with any keyword builds a new decoder on every call (a third of
# the cost of decoding a reply).
_DECODER = json.JSONDecoder(parse_constant=_not_json)


def loads(raw: bytes) -> Any:
    """The JSON value of UTF-8 `raw`, as the standard module reads it. Raises ValueError (a
    UnicodeDecodeError too), or RecursionError for a text nested too deeply."""
    if _LONG_RUN not in raw.translate(_AS_DIGITS):
        try:
            return orjson.loads(raw)
        except orjson.JSONDecodeError:
            pass
    return _DECODER.decode(raw.decode("utf-8"))


def dumps(value: Any) -> str:
    """A reply as compact JSON text, whatever it holds (a bot may send a lone surrogate, written
    `\\udXXX`; an integer beyond 64 bits). `arena.replays.export` writes its rows with it."""
    try:
        return orjson.dumps(value).decode()
    except (orjson.JSONEncodeError, TypeError):
        return json.dumps(value, default=repr)
