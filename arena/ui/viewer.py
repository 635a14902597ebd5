"""`arena replay html`: one self-contained page that steps through a replay.

The page is `static/viewer.html` with its stylesheet, script and the match data put in
place. The data is JSON in a `<script type="application/json">` block with every `<`, `>`
and `&` written as a `\\u` escape, so no string in it (a seat named `</script>…`) can end
the block. The script inserts every string with `textContent`, and a Content-Security-Policy
allows only the page's own script and style (by hash): even markup that got in could not
run, load or send anything. No network: the page works from `file://`.
"""

from __future__ import annotations

import base64
import functools
import hashlib
import json
import os
import stat
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from arena.base import files
from arena.base.errors import ConfigError
from arena.base.normal import Z95
from arena.engine.cards import RANK_NAMES, SUIT_SIGNS, ranks
from arena.replays.coach import Decision, significant, verdict
from arena.replays.replay import Replay
from arena.replays.timeline import Line, Step, Who, build, rank_name, rules_summary

_PLACEHOLDERS = ("__CSP__", "__STYLE__", "__SCRIPT__", "__DATA__", "__TITLE__")


@functools.cache
def _asset(name: str) -> str:
    """A file of the page, read once per process (`arena run` rewrites report.html while it
    runs), from beside this module: importlib.resources would cost more than the page."""
    return (Path(__file__).parent / "static" / name).read_text(encoding="utf-8")


def _segments(line: Line | None) -> list[Any] | None:
    if line is None:
        return None
    return [{"seat": segment.seat} if isinstance(segment, Who) else segment for segment in line]


def _step(step: Step) -> dict[str, Any]:
    return {
        "kind": str(step.kind),
        "at": step.at,
        "seat": step.seat,
        "line": _segments(step.line),
        "seen": [_segments(line) for line in step.seen],
        "moves": [[list(m.cards), m.source, m.target, m.seat_from, m.seat_to] for m in step.moves],
        "pond": step.pond,
        "fault": step.fault,
    }


def page_data(
    replay: Replay, review: dict[str, Any] | None = None, *, notes: bool | frozenset[int] = True
) -> dict[str, Any]:
    """What the page shows, as plain JSON: with `notes`, what the participants wrote to stderr
    (False for a page for people who must not read a bot's logs, the league's public one; a
    set of seats for only theirs, an owner's); with `review`, the coach's marks for one seat
    (`review_marks`). Raises ReplayError."""
    setup, steps = build(replay)
    rules = setup.rules
    cards: list[list[int]] = [[0, 0, 0] for _ in setup.deck]
    for card in setup.deck:
        cards[card["id"]] = [card["rank"], card["suit"], card["deck"]]
    counts = replay.fault_counts
    fork = replay.fork
    # A fork's replaced seat is shown as who played it there, not as whom it replaced.
    names = replay.shown_names([str(name) for name in setup.names])
    replaced = [
        {"seat": seat, "was": str(setup.names[seat]), "by": replay.players[seat].played_by}
        for seat in (fork.replaced if fork is not None else ())
        if 0 <= seat < len(names)
    ]
    return {
        # As text: a drawn seed has 63 bits, more than a JavaScript number holds exactly.
        "seed": None if replay.seed is None else str(replay.seed),
        "players": [{"seat": seat, "name": name} for seat, name in enumerate(names)],
        "rules": rules_summary(rules, len(setup.names)),
        "ranks": list(ranks(rules.knights)),
        "rankNames": list(RANK_NAMES),
        "rankPlurals": [rank_name(rank, plural=True) for rank in range(len(RANK_NAMES))],
        "suits": SUIT_SIGNS,
        "cards": cards,
        "steps": [_step(step) for step in steps],
        "result": replay.result.as_json(),
        "faultCounts": None if counts is None else [dict(seat) for seat in counts],
        # Where a forked replay leaves its source (shown as a mark in the log).
        "fork": None
        if fork is None
        else {"at": fork.at, "source": fork.source, "replaced": replaced},
        # What each participant wrote to stderr while answering (docs/protocol.md, notes).
        "notes": [
            {"at": index, "seat": exchange.seat, "text": exchange.notes}
            for index, exchange in enumerate(replay.transcript)
            if exchange.notes and (notes is True or (notes and exchange.seat in notes))
        ],
        "review": review,
    }


def review_marks(
    replay: Replay, seat: int, level: str, decisions: Sequence[Decision]
) -> dict[str, Any]:
    """The coach's findings (`arena replay review`) as marks on the seat's ask steps."""

    def ask(made: tuple[int, int] | None) -> str:
        if made is None:
            return "an invalid ask"
        asked, rank = made
        name = replay.players[asked].name if 0 <= asked < len(replay.players) else "?"
        return f"{name} for {rank_name(rank, plural=True)}"

    return {
        "seat": seat,
        "level": level,
        "marks": [
            {
                "at": d.at,
                "made": ask(d.made),
                "suggested": ask(d.suggested),
                "win": [d.win.mean, Z95 * d.win.error],
                "books": [d.books.mean, Z95 * d.books.error],
            }
            for d in decisions
            if significant(d)  # only an ask whose alternative gains beyond doubt
        ],
        "verdict": verdict(replay, seat, decisions),
    }


def script_json(data: Any) -> str:
    """JSON that is safe inside a `<script>` element: no `<`, `>` or `&` in it at all."""
    text = json.dumps(data, ensure_ascii=False, separators=(",", ":"), allow_nan=False)
    return (
        text.replace("&", "\\u0026")
        .replace("<", "\\u003c")
        .replace(">", "\\u003e")
        .replace("\u2028", "\\u2028")
        .replace("\u2029", "\\u2029")
    )


def _hash(source: str) -> str:
    return (
        "'sha256-"
        + base64.b64encode(hashlib.sha256(source.encode("utf-8")).digest()).decode()
        + "'"
    )


# What a page the arena wrote holds near its start: its generator (pages from before it was
# there: the viewer's title). Only such a page is replaced by a new one.
_OURS = (b'<meta name="generator" content="gofish-arena ', b"<title>Go Fish replay")


def write_page(
    output: Path, page: str, ours: tuple[bytes, ...] = _OURS, what: str = "a page the arena wrote"
) -> None:
    """Write `page` atomically as `output`, replacing only a page holding one of `ours` near
    its start (`what` it is), or a link (never written through): a replay, a config, a FIFO or
    a device given as the output by mistake is refused, never read from or replaced.
    Raises ConfigError (exit 2) or WriteError."""
    try:
        mode = os.lstat(output).st_mode
    except OSError:
        mode = stat.S_IFLNK  # missing, or not reachable: `replace` says why if it cannot write
    if not stat.S_ISLNK(mode):
        if not stat.S_ISREG(mode):
            raise ConfigError(
                f"{output}: not a regular file (a {files.kind(mode)}): give another -o"
            )
        if not any(mark in _head(output) for mark in ours):
            raise ConfigError(f"{output} exists and is not {what}: give another -o")
    files.replace(output, page.encode("utf-8", "backslashreplace"))


def _head(path: Path) -> bytes:
    """The first bytes of a regular file (nothing if it cannot be read)."""
    try:
        handle = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_NOFOLLOW | os.O_CLOEXEC)
    except OSError:
        return b""
    try:
        return os.read(handle, 4096)
    except OSError:
        return b""
    finally:
        os.close(handle)


def render(
    replay: Replay,
    title: str = "Go Fish replay",
    review: dict[str, Any] | None = None,
    *,
    notes: bool | frozenset[int] = True,
) -> str:
    """The page for a replay, as HTML text (`page_data` says what is in it). Raises ReplayError."""
    return page("viewer", page_data(replay, review, notes=notes), title)


def page(name: str, data: Any, title: str) -> str:
    """`static/NAME.html` with NAME.css, NAME.js and `data` put in place, under a strict CSP."""
    style, script = _asset(f"{name}.css"), _asset(f"{name}.js")
    csp = f"default-src 'none'; script-src {_hash(script)}; style-src {_hash(style)}; base-uri 'none'; form-action 'none'"
    values = {
        "__CSP__": csp,
        "__STYLE__": style,
        "__SCRIPT__": script,
        "__DATA__": script_json(data),
        "__TITLE__": _escape_html(title),
    }
    template = _asset(f"{name}.html")
    # One pass over the template, so a placeholder inside inserted text is never expanded.
    pieces = [template]
    for key in _PLACEHOLDERS:
        pieces = [part for piece in pieces for part in _split_keep(piece, key)]
    return "".join(values.get(piece, piece) for piece in pieces)


def _split_keep(text: str, key: str) -> list[str]:
    if text in _PLACEHOLDERS:
        return [text]
    parts = text.split(key)
    out: list[str] = []
    for index, part in enumerate(parts):
        if index:
            out.append(key)
        out.append(part)
    return out


def _escape_html(text: str) -> str:
    return (
        text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace('"', "&quot;")
    )
