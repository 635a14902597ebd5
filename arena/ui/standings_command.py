"""`arena standings FOLDER`: the standings of any results folder, as a table, JSON or CSV.

    chosen = folder_matches(folder, tournament=None, without="alice")   # ConfigError: exit 2
    standings = Standings.of((), chosen.entries)
    print(as_csv(standings))

The folder's `results.jsonl` is read as `arena report` reads it: every run of one tournament
(the last written, or `--tournament`), each match once, merged folders too. `without` drops
every match that participant played, as if it had not been played, and says how many.
"""

from __future__ import annotations

import csv
import io
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from arena.base.errors import ConfigError
from arena.base.terminal import share_count
from arena.engine.text import listed
from arena.referee.loop import ReplyTimes
from arena.tournaments import results as results_file
from arena.tournaments import summary as summary_module
from arena.tournaments.results import RESULTS, ResultLine
from arena.tournaments.standings import Standings
from arena.tournaments.summary import Selection
from arena.ui.say import out


@dataclass(frozen=True)
class Chosen:
    """The matches of one tournament in a folder, and what was left out."""

    tournament: str
    entries: list[ResultLine]
    skipped: int  # lines not believed (`results.read`) or beyond the names a report holds
    repeated: int  # lines of a match already counted
    without: str | None = None
    dropped: int = 0  # matches left out because `without` played in them


def folder_matches(
    folder: Path, *, tournament: str | None = None, without: str | None = None
) -> Chosen:
    """The matches of `folder`'s tournament (the last written unless `tournament`), each once,
    without those `without` played. Raises ConfigError (one line) when there is nothing to read
    or the names given are not in it."""
    results = folder / RESULTS
    if not folder.is_dir():
        raise ConfigError(f"{folder}: no such folder")
    if not os.path.lexists(results):  # (one that is not a file: `read` says what it is)
        raise ConfigError(
            f"{folder}: no {RESULTS} in it (is it the replays folder of a tournament?)"
        )
    found = results_file.read(results)
    lines = found.lines
    known = summary_module.tournaments_in(lines)
    if not known:
        raise ConfigError(f"{results}: no results line in it")
    if tournament is None:
        tournament = known[-1]
    elif tournament not in known:
        raise ConfigError(
            f"--tournament {tournament}: not in {results} (it has {', '.join(known[-5:])})"
        )
    selection = summary_module.select(lines, tournament)
    return _without(tournament, selection, without, len(found.skipped))


def _without(tournament: str, selection: Selection, name: str | None, unread: int) -> Chosen:
    entries = selection.entries
    kept = entries
    if name is not None:
        names = {played for entry in entries for played in entry.seating}
        if name not in names:
            raise ConfigError(
                f"--without {name}: no such participant in tournament {tournament}"
                f" (it has {listed(sorted(names), 8)})"
            )
        kept = [entry for entry in entries if name not in entry.seating]
    return Chosen(
        tournament,
        kept,
        selection.skipped + unread,  # every line not believed
        selection.repeated,
        name,
        len(entries) - len(kept),
    )


def standings_of(chosen: Chosen, *, adjusted: bool = False) -> Standings:
    """Every figure of the chosen matches; the dropped participant is not among its rows.
    `adjusted`: the ratings fitted on luck-adjusted win shares (`Standings.adjusted`)."""
    return Standings.of((), chosen.entries, adjusted=adjusted)


def as_json(chosen: Chosen, standings: Standings) -> dict[str, Any]:
    """`standings.json`'s document for these matches, with what was read and left out."""
    return standings.as_json(
        tournament=chosen.tournament,
        runs=len({entry.run for entry in chosen.entries}),
        skipped=chosen.skipped,
        repeated=chosen.repeated,
        without=None
        if chosen.without is None
        else {"name": chosen.without, "droppedMatches": chosen.dropped},
    )


CSV_COLUMNS = (
    "place",  # empty when not placed: see `standing`
    "name",
    "standing",  # ranked, provisional (fewer than five deals) or unplayed (no match)
    "matches",
    "deals",
    "wins",
    "winShare",
    "winShareLow",
    "winShareHigh",
    "rating",
    "plusMinus",
    "losBelow",
    "meanBooks",
    "meanPlace",
    "timeouts",
    "invalidAsks",
    "crashes",
    "medianReply",  # seconds (`ReplyTimes`); empty when no line recorded one
    "slowestReply",
    "limitShare",
)


def as_csv(standings: Standings) -> str:
    """One header line, then one line per participant, best first (RFC 4180, `\\r\\n`)."""
    buffer = io.StringIO()
    writer = csv.writer(buffer)
    writer.writerow(CSV_COLUMNS)
    for row in standings.ranked():
        line = row.line
        low, high = row.interval
        writer.writerow(
            [
                line.place if line is not None else "",
                _cell(row.name),
                str(line.standing) if line is not None else "unplayed",
                row.matches,
                line.deals if line is not None else 0,
                share_count(row.wins),
                f"{row.win_share:.6f}",
                f"{low:.6f}",
                f"{high:.6f}",
                f"{line.rating:.3f}" if line is not None else "",
                f"{line.plus_minus:.3f}" if line is not None else "",
                "" if row.los_below is None else f"{row.los_below:.6f}",
                f"{row.mean_books:.6f}",
                f"{row.mean_place:.6f}",
                row.fault("timeout"),
                row.invalid_asks,
                row.crashes,
                *_reply_cells(row.reply_times),
            ]
        )
    return buffer.getvalue()


def _reply_cells(times: ReplyTimes | None) -> list[str]:
    if times is None:
        return ["", "", ""]
    return [f"{times.median:.6f}", f"{times.slowest:.6f}", f"{times.limit_share:.4f}"]


def _cell(text: str) -> str:
    """A name as a spreadsheet cell: one starting like a formula gets a leading quote."""
    return "'" + text if text[:1] in ("=", "+", "-", "@", "\t", "\r") else text


__all__ = ["Chosen", "as_csv", "as_json", "folder_matches", "standings_of"]


def print_standings(chosen: Any, table: Any) -> None:
    from rich.text import Text

    from arena.ui.tournament_view import (
        faults_table,
        pairwise_table,
        reply_times_table,
        standings_table,
    )

    runs = len({entry.run for entry in chosen.entries})
    title = f"standings of tournament {chosen.tournament}: {table.matches} matches" + (
        f", {runs} runs merged" if runs > 1 else ""
    )
    if table.adjusted:
        title += ", rated on luck-adjusted win shares"
    out.print(standings_table(table, title=title))
    for extra in (pairwise_table(table), faults_table(table), reply_times_table(table)):
        if extra is not None:
            out.print(extra)
    if chosen.without is not None:
        out.print(Text(dropped(chosen.without, chosen.dropped)))
    if chosen.skipped or chosen.repeated:
        out.print(
            Text(
                f"{chosen.skipped} malformed lines skipped, {chosen.repeated} repeated lines counted once",
                style="dim",
            )
        )


def dropped(name: str, count: int) -> str:
    from arena.base.terminal import inert

    return f"without {inert(name, 64)}: {count} {'match' if count == 1 else 'matches'} dropped"
