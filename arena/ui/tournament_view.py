"""How a tournament looks in a terminal: rich renderables only; the CLI prints them.

Every participant name goes through `arena.base.terminal.inert`: names are untrusted text.
"""

from __future__ import annotations

from rich import box
from rich.console import Group
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    ProgressColumn,
    Task,
    TextColumn,
    TimeElapsedColumn,
    TimeRemainingColumn,
)
from rich.table import Table
from rich.text import Text

from arena.base.terminal import inert, share_count
from arena.base.words import seconds_text
from arena.engine.rules import Rules
from arena.referee.hints import stalled_note
from arena.tournaments.board import PRIOR, PROVISIONAL_DEALS, Standing
from arena.tournaments.standings import Standings

PAIRWISE_MAX = 12  # participants beyond which the pairwise table is left to standings.json


class _RateColumn(ProgressColumn):
    """Matches per second played by this run (resumed matches not counted)."""

    def render(self, task: Task) -> Text:
        elapsed = task.elapsed or 0.0
        fresh = task.completed - task.fields.get("start_count", 0)
        rate = fresh / elapsed if elapsed > 0 else 0.0
        return Text(f"{rate:.1f} matches/s", style="progress.data.speed")


def progress_bar(console_width: int | None = None) -> Progress:
    return Progress(
        TextColumn("[progress.description]{task.description}"),
        BarColumn(bar_width=None if console_width is None else max(10, console_width // 3)),
        MofNCompleteColumn(),
        _RateColumn(),
        TimeElapsedColumn(),
        TextColumn("ETA"),
        TimeRemainingColumn(),
        expand=False,
    )


def standings_table(
    standings: Standings, *, title: str, limit: int | None = None, live: bool = False
) -> Table:
    """One row per participant in the board's order (`arena.tournaments.board`): the ranked
    best first, with their rating (Elo ± its interval), the likelihood that each is stronger
    than the next (LOS), and in the first column the places it could hold ("2–3": cannot be
    told apart, for the whole table at once); then, apart, the provisional (fewer than five
    deals: no place) and those with no match. `live`: the claims of a live look, valid at
    every look (confidence sequences planned to the run's matches), for a table redrawn
    while the run plays."""
    table = Table(
        title=title,
        title_justify="left",
        box=box.SIMPLE_HEAD,
        pad_edge=False,
        collapse_padding=True,
        show_edge=False,
    )
    rows = standings.ranked(live=live)
    shown = [row.line.place for row in rows if row.line is not None]
    table.add_column(
        "#", justify="right", no_wrap=True, min_width=max(map(len, [*shown, "prov."]), default=1)
    )
    table.add_column("participant", min_width=8, overflow="ellipsis", no_wrap=True)
    adjusted = any(row.adjusted_matches for row in rows)
    level = "95% CS" if live else "95% CI"
    columns = ["matches", "wins", "win share", level]
    if adjusted:
        columns += ["luck-adjusted", "95% CI "]  # docs/luck.md
    rated = ["rating", "±"] if live else ["rating", "±", "LOS"]
    for column in (*columns, *rated, "books", "place"):
        wide = column in rated  # the figures the order rests on: never cut
        table.add_column(
            column, justify="right", no_wrap=True, min_width=max(len(column), 4) if wide else None
        )
    kinds = [None if row.line is None else row.line.standing for row in rows]
    for position, row in enumerate(rows[:limit] if limit else rows):
        line = row.line
        if position and kinds[position] != kinds[position - 1]:
            table.add_section()  # the provisional, and those with no match, listed apart
        low, high = row.interval if line is None else line.win_interval
        luck: list[str] = []
        if adjusted:
            share, interval = row.adjusted_share, row.adjusted_interval
            luck = [
                "–" if share is None else f"{share:.3f}",
                "–" if interval is None else f"{interval[0]:.2f}–{interval[1]:.2f}",
            ]
        if line is None:
            figures = ["no match", ""] + ([] if live else [""])
        else:
            figures = [f"{line.rating:+.0f}", f"{line.plus_minus:.0f}"]
            if not live:
                figures.append("" if row.los_below is None else f"{100 * row.los_below:.0f}%")
        table.add_row(
            "–" if line is None else line.place or "prov.",
            inert(row.name, 32),
            str(row.matches),
            share_count(row.wins),
            f"{row.win_share:.3f}",
            f"{low:.2f}–{high:.2f}",
            *luck,
            *figures,
            f"{row.mean_books:.2f}",
            f"{row.mean_place:.2f}",
        )
    notes = [f"… and {len(rows) - limit} more"] if limit and len(rows) > limit else []
    plan = standings.plan
    if live:
        notes.append(
            "live: # and ± hold at every look (confidence sequences planned to "
            f"{plan.planned:g} matches a participant); the final table's hold together"
        )
    else:
        notes.append(
            "rating: Elo-like, against the field's mean, ± its 95% interval over deals (for "
            "this one look); LOS: likelihood of being stronger than the next; # 2–3: cannot be "
            "told apart (95% for the whole table at once)"
        )
    if any(kind is Standing.PROVISIONAL for kind in kinds):
        notes.append(
            f"prov.: provisional, fewer than {PROVISIONAL_DEALS} deals: no place; its rating "
            f"is the posterior, with a prior of {PRIOR}"
        )
    table.caption = "\n".join(notes)
    return table


def faults_table(standings: Standings) -> Table | None:
    """Faults per participant, or None when nobody had one."""
    rows = [row for row in standings.ranked() if row.faults or row.invalid_asks]
    if not rows:
        return None
    table = Table(
        title="faults",
        title_justify="left",
        box=box.SIMPLE_HEAD,
        pad_edge=False,
        collapse_padding=True,
        show_edge=False,
    )
    table.add_column("participant")
    for column in ("timeouts", "invalid asks", "crashes", "all faults by kind"):
        table.add_column(column, justify="right" if column != "all faults by kind" else "left")
    for row in rows:
        kinds = ", ".join(f"{kind} {count}" for kind, count in sorted(row.faults.items()))
        table.add_row(
            inert(row.name, 32),
            str(row.fault("timeout")),
            str(row.invalid_asks),
            str(row.crashes),
            kinds,
        )
    return table


def pairwise_table(standings: Standings) -> Group | None:
    """Row beats column: the share of their common matches the row placed ahead (ties half)."""
    rows = standings.ranked()
    if not 2 < len(rows) <= PAIRWISE_MAX:
        return None
    table = Table(box=box.SIMPLE_HEAD, pad_edge=False, collapse_padding=True, show_edge=False)
    table.add_column("")
    for row in rows:
        table.add_column(inert(row.name, 32), justify="right")  # a long name wraps, uncut
    for first in rows:
        cells: list[Text | str] = [inert(first.name, 24)]
        for second in rows:
            pair = standings.pair(first.name, second.name)
            cells.append("" if first is second or not pair.matches else f"{pair.share:.2f}")
        table.add_row(*cells)
    # The title above, not in, the table: a narrow table would wrap it.
    return Group(
        Text(
            "pairwise: how often the row placed ahead of the column (ties count half)",
            style="italic",
        ),
        table,
    )


def adjudicated_note(
    standings: Standings, rules: Rules | None = None, seats: int = 2, idle: int = 100
) -> Text | None:
    """Which participants played matches a limit ended (stalled, turn-limit), adjudicated on the
    books so far, and (given `rules`) why a match stalls under them at `seats`, after `idle` asks
    that moved no card; None when every match was played out."""
    rows = [row for row in standings.ranked() if row.adjudicated]
    if not rows:
        return None
    each = ", ".join(f"{row.name} {row.adjudicated}" for row in rows)
    why = "" if rules is None else f"\n{stalled_note(rules, seats, idle)}"
    return Text(
        f"adjudicated (a limit ended the match, scored on the books so far): {each}{why}",
        style="yellow",
    )


def reply_times_table(standings: Standings) -> Table | None:
    """Each participant's median and slowest reply, and the share of the reply limit the
    slowest used (`ReplyTimes`); None when no match recorded a reply time."""
    rows = [(row, times) for row in standings.ranked() if (times := row.reply_times) is not None]
    if not rows:
        return None
    table = Table(
        title="reply times",
        title_justify="left",
        box=box.SIMPLE_HEAD,
        pad_edge=False,
        collapse_padding=True,
        show_edge=False,
        caption="from message to reply line; limit: limits.replyTimeout (over 100%: time bank)",
    )
    table.add_column("participant")
    for column in ("replies", "median", "slowest", "of the limit"):
        table.add_column(column, justify="right", no_wrap=True)
    for row, times in rows:
        share = times.limit_share
        table.add_row(
            inert(row.name, 32),
            str(times.replies),
            seconds_text(times.median),
            seconds_text(times.slowest),
            Text(f"{100 * share:.0f}%", style="bold red" if share >= 0.8 else ""),
        )
    return table
