"""`arena replay review`: the coach's findings (arena/replays/coach.py) as a table or JSON.

Builds rich renderables and plain data; the CLI prints them. Names from the replay go through
`arena.base.terminal.inert`. Every ask that differs is listed; those whose alternative gains win
chance beyond doubt (its 95% interval above zero: `significant`) are marked ✦, here and in the
viewer, and the review ends with a verdict: what those asks cost against what the draws gave
(the luck correction of arena/luck, docs/luck.md).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from rich.console import Group, RenderableType
from rich.table import Table as RichTable
from rich.text import Text

from arena.base.normal import Z95
from arena.base.terminal import inert
from arena.replays.coach import Decision, significant, verdict
from arena.replays.replay import Replay
from arena.replays.timeline import rank_name


def _ask(ask: tuple[int, int] | None, replay: Replay) -> str:
    if ask is None:
        return "an invalid ask"
    seat, rank = ask
    name = replay.players[seat].name if 0 <= seat < len(replay.players) else "?"
    return f"seat {seat} ({name}) for {rank_name(rank, plural=True)}"


def _signed(mean: float, error: float, scale: float = 1.0, unit: str = "") -> str:
    return f"{mean * scale:+.1f}{unit} ± {Z95 * error * scale:.1f}{unit}"


def render(
    replay: Replay, seat: int, level: str, decisions: Sequence[Decision], asks: int, top: int
) -> RenderableType:
    """The header, then the `top` costliest decisions (all with `top` 0)."""
    name = replay.players[seat].name
    worlds = decisions[0].worlds if decisions else 0
    header = Text.assemble(
        ("Review of seat ", ""),
        (str(seat), "bold"),
        " (",
        inert(name, 64),
        f") by {level}",
        f", {worlds} determinisations per decision" if worlds else "",
    )
    if not decisions:
        return Group(
            header,
            Text(f"All {asks} of its asks are the ones {level} would make."),
            Text(verdict(replay, seat, decisions)),
        )
    marked = sum(map(significant, decisions))
    summary = Text(
        f"{len(decisions)} of its {asks} asks differ from {level}'s, {marked} ✦ significantly "
        "(the gain's 95% interval above zero); the costliest first. "
        "Gain: what the coach's ask adds over the ask made, in win chance (a shared first "
        "place counts a half) and in books, ± a 95% interval."
    )
    table = RichTable(box=None, pad_edge=False)
    for column, justify in (
        ("", "left"),
        ("step", "right"),
        ("ask", "right"),
        ("asked", "left"),
        (f"{level} would ask", "left"),
        ("win chance", "right"),
        ("books", "right"),
    ):
        table.add_column(column, justify=justify)  # type: ignore[arg-type]
    shown = decisions if top <= 0 else decisions[:top]
    for decision in shown:
        made = _ask(decision.made, replay)
        if decision.made is None and decision.refusal:
            made = f"invalid: {decision.refusal}"
        table.add_row(
            "✦" if significant(decision) else "",
            str(decision.at),
            str(decision.turn),
            inert(made, 70),
            inert(_ask(decision.suggested, replay), 70),
            _signed(decision.win.mean, decision.win.error, 100, "%"),
            f"{decision.books.mean:+.2f} ± {Z95 * decision.books.error:.2f}",
        )
    more = len(decisions) - len(shown)
    footer = Text(
        (f"… and {more} more (--top 0 shows all). " if more else "")
        + "A step is a transcript index: `arena replay show FILE` prints it, "
        "`arena replay fork FILE --at STEP` plays on from there, and the page of "
        f"`arena replay html FILE -o PAGE.html --review {seat}` opens at PAGE.html#step=STEP."
    )
    return Group(
        header, summary, Text(), table, Text(), footer, Text(verdict(replay, seat, decisions))
    )


def as_json(
    replay: Replay, seat: int, level: str, decisions: Sequence[Decision], asks: int
) -> dict[str, Any]:
    """The review as data: every decision that differs, costliest first, and the verdict."""
    return {
        "seat": seat,
        "level": level,
        "asks": asks,
        "verdict": verdict(replay, seat, decisions),
        "decisions": [
            {
                "at": d.at,
                "turn": d.turn,
                "made": None if d.made is None else {"player": d.made[0], "rank": d.made[1]},
                "refusal": d.refusal,
                "suggested": {"player": d.suggested[0], "rank": d.suggested[1]},
                "winChance": {"gain": d.win.mean, "error": d.win.error},
                "books": {"gain": d.books.mean, "error": d.books.error},
                "worlds": d.worlds,
                "significant": significant(d),
                "step": f"#step={d.at}",
            }
            for d in decisions
        ],
    }
