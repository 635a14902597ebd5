"""`report.html`: one self-contained page of a tournament's standings, plots and matches.

The page is `static/report.html` with its stylesheet, script and the summary
(`arena.tournaments.summary`) put in place the way the replay viewer does it
(`viewer.page`): the data is JSON in a `<script type="application/json">` block with no `<`,
`>` or `&` in it, the script inserts every string with `textContent`, and a
Content-Security-Policy allows only the page's own script and style. Plots are hand-written
SVG: no library, no network, the page works from `file://` years later.

    LiveReport(plan)       beside standings.json while a run goes: `played(line)` after each
                           results line (a `results.ResultLine`), rewritten at most every REFRESH_SECONDS; `finish()`
    build(folder, ...)     the page for any replays folder, finished or merged (`arena report`)

Every match links to its replay and to its viewer page (`viewer.render`), built beside the
replay as the run records the match (`LiveReport.played`), or by `build` for a match that has
none yet (a folder from before, a merged copy): one click from the list to the match.
"""

from __future__ import annotations

import os
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any
from urllib.parse import quote

import orjson

from arena.base import files
from arena.base.errors import ArenaError, ConfigError, ReplayError
from arena.replays import replay as replay_module
from arena.tournaments import summary as summary_module
from arena.tournaments.results import RESULTS, ResultLine
from arena.tournaments.summary import Summary
from arena.tournaments.tournament import REPORT, STANDINGS, Tournament
from arena.ui import standings_command, viewer

REFRESH_SECONDS = 5.0  # a running tournament's page is rewritten at most this often
PAGE_SHARE = 0.2  # at most this share of a run's time goes to viewer pages while it plays
MARKER = b'<meta name="generator" content="gofish-arena report">'  # a page this module wrote
STANDINGS_LIMIT = 64 << 20  # bytes of standings.json read at most


def render(data: Mapping[str, Any]) -> str:
    """The page for a summary's data, as HTML text."""
    label = data.get("title")
    title = (
        label
        if isinstance(label, str) and label
        else f"Go Fish tournament {data.get('tournament') or ''}".strip()
    )
    return viewer.page("report", data, title)


def _now() -> str:
    return datetime.now().astimezone().isoformat(timespec="seconds")


def _href_prefix(folder: Path, output: Path) -> str:
    """How the page at `output` links to a file of `folder`: a relative, percent-encoded path."""
    relative = os.path.relpath(folder.resolve(), output.resolve().parent)
    if relative == ".":
        return ""
    return "/".join(quote(part) for part in Path(relative).parts) + "/"


def _standings_document(path: Path) -> dict[str, Any] | None:
    """standings.json if it is there and readable JSON (it is only consulted, never believed)."""
    try:  # without blocking: a FIFO in its place is not waited on
        document = orjson.loads(files.read_capped(path, STANDINGS_LIMIT))
    except (OSError, files.UnreadableFile, orjson.JSONDecodeError):
        return None
    return document if isinstance(document, dict) else None


def _header(document: Mapping[str, Any] | None, tournament: str) -> dict[str, Any]:
    """What standings.json says of the run, when it is of this tournament and well typed."""
    if document is None or document.get("tournament") != tournament:
        return {}
    header: dict[str, Any] = {}
    for key, kind in (
        ("games", int),
        ("seed", int),
        ("seats", int),
        ("complete", bool),
        ("duplicate", bool),
        ("title", str),
    ):
        value = document.get(key)
        if type(value) is kind:
            header[key] = value
    return header


def _write(output: Path, page: str) -> Path:
    """Write the page atomically; replace only a page this module wrote. Raises ArenaError."""
    viewer.write_page(output, page, (MARKER,), "an arena report")
    return output


# -- a report of any replays folder ----------------------------------------------------------


@dataclass(frozen=True)
class Built:
    path: Path
    matches: int
    views: list[Path]  # viewer pages written for the picked matches
    dropped: int = 0  # matches left out by `without`
    pages: int = 0  # viewer pages built for matches that had none (beyond `views`)
    unviewable: list[str] = field(default_factory=list)  # why a match has no page, one a line


def build(
    folder: Path,
    output: Path | None = None,
    *,
    tournament: str | None = None,
    views: Sequence[int] = (),
    folder_arg: str | None = None,
    without: str | None = None,
) -> Built:
    """Write the report of `folder`'s results.jsonl (every run of one tournament, each match once).

    `tournament` picks one when the folder holds several (default: the one written last).
    `views` are game numbers (from 0, as `arena run` prints them and as the replay file names
    and `results.jsonl` number them) whose viewer pages are built
    beside their replays and linked. `without` leaves out every match that participant played.
    Raises ConfigError for a folder that has nothing to report
    (exit 2), WriteError when the page cannot be written.
    """
    chosen = standings_command.folder_matches(folder, tournament=tournament, without=without)
    tournament = chosen.tournament
    output = output if output is not None else folder / REPORT
    document = _standings_document(folder / STANDINGS)
    built_views = _views(folder, chosen.entries, views)
    fresh, unviewable = _missing_pages(folder, chosen.entries)
    summary = Summary.of(chosen.entries)
    data = summary.as_json(
        sprt=summary_module.sprt_of(document) if _header(document, tournament) else None,
        tournament=tournament,
        **_header(document, tournament),
        **_page_facts(folder, output, folder_arg or str(folder)),
        skipped=chosen.skipped,
        repeated=chosen.repeated,
        without=None
        if chosen.without is None
        else {"name": chosen.without, "droppedMatches": chosen.dropped},
        live=False,
    )
    data["pages"] = _pages(folder, summary)
    if len(data["runs"]) > 1:
        data.pop("complete", None)  # of the last run only: says nothing of the merge
    path = _write(output, render(data))
    return Built(path, summary.matches, built_views, chosen.dropped, fresh, unviewable)


def _page_facts(folder: Path, output: Path, folder_arg: str) -> dict[str, Any]:
    return {"folder": _href_prefix(folder, output), "folderArg": folder_arg, "written": _now()}


def _views(folder: Path, entries: Sequence[ResultLine], games: Sequence[int]) -> list[Path]:
    """Viewer pages for the matches of these game numbers, beside their replays."""
    wanted = set(games)
    written = []
    found = set()
    for item in entries:
        number = item.match
        if number not in wanted or not summary_module.linkable(item.replay):
            continue
        found.add(number)
        try:
            written.append(view_page(folder, item.replay))
        except ConfigError as error:
            raise ConfigError(f"--view {number}: {error}") from None
    missing = sorted(wanted - found)
    if missing:
        raise ConfigError(f"--view {missing[0]}: no such game in {folder / RESULTS}")
    return written


def view_page(folder: Path, replay: str, document: bytes | None = None) -> Path:
    """Build the viewer page of the replay `folder/replay` beside it (`….html`); its path.
    `document` is the replay's bytes when the run that wrote them has them (`LiveReport`):
    then the file is not read back, nor its messages checked again (`replay.own`).
    Raises ConfigError (the replay cannot be read as one, or a file not the arena's is in the
    page's place) or WriteError."""
    source = folder / replay
    try:
        typed = (
            replay_module.read(source)
            if document is None
            else replay_module.own(document, str(source))
        )
        page = viewer.render(typed, title=f"Go Fish replay: {replay}")
    except ReplayError as error:
        raise ConfigError(str(error)) from None
    target = source.with_suffix(".html")
    viewer.write_page(target, page)
    return target


def _missing_pages(folder: Path, entries: Sequence[ResultLine]) -> tuple[int, list[str]]:
    """Build the viewer page of every match whose replay is there and has no page, or an older
    one; how many were built, and why the others could not be (one line each)."""
    built, failed = 0, []
    for item in entries:
        if not summary_module.linkable(item.replay):
            continue
        source = folder / item.replay
        try:
            written = os.stat(source).st_mtime_ns
        except OSError:
            continue  # no replay (a copy of results.jsonl alone): nothing to view
        try:
            if os.stat(source.with_suffix(".html")).st_mtime_ns >= written:
                continue
        except OSError:
            pass  # no page yet
        try:
            view_page(folder, item.replay)
        except ArenaError as error:
            failed.append(f"game {item.match}: {error}")
            continue
        built += 1
    return built, failed


def _pages(folder: Path, summary: Summary) -> list[int]:
    """The matches (list positions) whose replay has a viewer page beside it."""
    try:
        pages = {entry.name for entry in os.scandir(folder) if entry.name.endswith(".html")}
    except OSError:
        return []
    if not pages:
        return []
    stamps = [stamp for _, stamp in summary.runs.values()]
    return [m for m in range(summary.matches) if _stem(summary, stamps, m) + ".html" in pages]


def _stem(summary: Summary, stamps: Sequence[str], m: int) -> str:
    """Match `m`'s replay name without `.json`, as the page rebuilds it (`summary.files`); ""
    for a replay the page does not link to."""
    part = summary.files[m]
    if not part:
        return ""
    return part[1:] if part.startswith("/") else stamps[summary.run_of[m]] + part


# -- the report of a running tournament --------------------------------------------------------


class LiveReport:
    """report.html beside standings.json, rewritten while a run goes and at its end.

    `played` is cheap (one match added to the summary); the page is rewritten at most every
    `every` seconds. A page that cannot be written during the run is skipped (the run goes on;
    the next write tries again); `finish` raises WriteError.

    Each match's viewer page is built as it is recorded while that takes at most PAGE_SHARE of
    the run's time so far (a match of programs costs far more than its page; one of in-process
    bots about as much, and the run's process builds it while the workers wait for it); the
    others are built by `finish` when the run is complete, or by `arena report` later.
    """

    def __init__(self, plan: Tournament, *, every: float = REFRESH_SECONDS) -> None:
        self.plan = plan
        self.every = every
        self.path = plan.folder / REPORT
        self.summary = self._fresh(plan.done)
        self.written = 0.0
        self.pause = every
        self.started = time.monotonic()
        self.paging = 0.0  # seconds spent building viewer pages
        self.unpaged: list[str] = []  # replays whose page waits for `finish`

    def _fresh(self, done: Mapping[int, ResultLine]) -> Summary:
        """The summary of these lines in match order; matches beyond `games` do not count (as in
        standings.json, after a resume with fewer matches)."""
        summary = Summary(
            [seat.name for seat in self.plan.seats],
            expected=self.plan.matches,
            plan=self.plan.live_plan(),
        )
        for match in sorted(done):
            if match < self.plan.matches:
                summary.add(done[match])
        return summary

    def played(self, line: ResultLine, document: bytes | None = None) -> None:
        """Count the match of `line`, and build its viewer page from the replay's `document`
        (its bytes, as written) or, without it, from the file."""
        self.summary.add(line)
        if summary_module.linkable(line.replay):
            began = time.monotonic()
            if self.paging > PAGE_SHARE * (began - self.started):
                self.unpaged.append(line.replay)  # (read back at the end: not kept in memory)
            else:
                self._view(line.replay, document)
                self.paging += time.monotonic() - began
        if time.monotonic() - self.written >= self.pause:
            began = time.monotonic()
            try:
                self._write(live=True)
            except ArenaError:
                pass  # the run matters more than its page: try again at the next write
            # A page that takes long to build (a huge run) is written less often: at most a
            # tenth of the run's main loop goes to it.
            self.pause = max(self.every, 10 * (time.monotonic() - began))

    def finish(self) -> Path:
        """The page of every match of the run, in match order (as standings.json). Raises WriteError."""
        if next(self.plan.missing(), None) is None:  # (a stopped run stops: `arena report`)
            for replay in self.unpaged:
                self._view(replay)
        self.unpaged = []
        counted = sum(1 for match in self.plan.done if match < self.plan.matches)
        if not self.summary.in_match_order or self.summary.matches != counted:
            self.summary = self._fresh(self.plan.done)
        return self._write(live=False)

    def _view(self, replay: str, document: bytes | None = None) -> None:
        try:  # one click from the list to the match
            view_page(self.plan.folder, replay, document)
        except ArenaError:
            pass  # the run matters more: `arena report` builds a page that is missing

    def _write(self, *, live: bool) -> Path:
        plan = self.plan
        document = _standings_document(plan.standings_path) if not live else None
        data = self.summary.as_json(
            sprt=summary_module.sprt_of(document)
            if document and document.get("run") == plan.run
            else None,
            tournament=plan.id,
            games=plan.matches,
            seed=plan.seed,
            seats=plan.schedule.seats,
            duplicate=plan.schedule.duplicate,
            complete=next(plan.missing(), None) is None if not live else False,
            **({"title": plan.config.tournament.title} if plan.config.tournament.title else {}),
            **_page_facts(plan.folder, self.path, str(plan.folder)),
            live=live,
        )
        data["pages"] = _pages(plan.folder, self.summary)
        files.replace(self.path, render(data).encode("utf-8"))
        self.written = time.monotonic()
        return self.path
