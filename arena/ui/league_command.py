"""`arena league …`: a season in a folder (docs/league.md).

    arena league init DIR [--config league.toml]      # prints the organiser's token once
    arena league owner DIR OWNER                      # a writer's token, printed once
    arena league add DIR NAME (--bot LEVEL | -- COMMAND…)
    arena league status DIR
    arena league serve DIR [--host 127.0.0.1] [--port 8000] [--jobs N] [--scheduler tcp://…]
    arena league submit URL NAME PATH --token T

The league (`arena.league`) is below this layer; here it is handed `arena check`'s judgement
and the replay viewer as functions, and what is printed is printed.
"""

from __future__ import annotations

import io
import os
import sys
import threading
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Annotated, Any, NamedTuple, NoReturn

import typer

from arena.base.errors import ArenaError, ConfigError
from arena.bots import Level

league_app = typer.Typer(help="A season: submissions, matchmaking and a live leaderboard.")


def _fail(message: str) -> NoReturn:
    sys.stderr.write(message.replace("\n", " ") + "\n")
    raise typer.Exit(2)


def _store(folder: Path) -> Any:
    from arena.league.store import Store

    try:
        return Store.open(folder)
    except FileNotFoundError as error:
        _fail(str(error))


LEAGUE_KEYS = {
    "archiveBytes": ("unpack", "archive_bytes"),
    "unpackedBytes": ("unpack", "unpacked_bytes"),
    "files": ("unpack", "members"),
    "buildSeconds": ("build", "seconds"),
    "buildMemoryMiB": ("build", "memory_mib"),
    "requestsPerMinute": ("site", "requests"),
    "uploadsPerMinute": ("site", "uploads"),
}


class LeagueSettings(NamedTuple):
    """What `league.toml` says: the match config, the upload, build and site limits, and the
    table sizes matchmaking may choose from."""

    config: Any  # arena.base.config.Config
    unpack: Any  # arena.league.submission.UnpackLimits
    build: Any  # arena.league.build.BuildSettings
    site: Any  # arena.league.web.SiteLimits
    sizes: tuple[int, ...]


def _sizes(path: Path, value: Any) -> tuple[int, ...]:
    """`league.seats`: a table size or a list of them. Raises ConfigError."""
    from arena.base.config import MAX_SEATS

    given = [value] if isinstance(value, int) and not isinstance(value, bool) else value
    if (
        not isinstance(given, list)
        or not given
        or not all(isinstance(n, int) and not isinstance(n, bool) for n in given)
        or not all(2 <= n <= MAX_SEATS for n in given)
    ):
        raise ConfigError(
            f"{path}: league.seats: a table size or a list of them, each 2 to {MAX_SEATS} "
            "(e.g. seats = [2, 3, 4])"
        )
    return tuple(sorted(set(given)))


def load_config(folder: Path) -> LeagueSettings:
    """The league's config (`league.toml`: a `config.toml` whose participants are optional,
    with a `[league]` table of limits and table sizes). Raises ConfigError (one line)."""
    from arena.base import config as config_module
    from arena.league.build import BuildSettings
    from arena.league.store import CONFIG
    from arena.league.submission import UnpackLimits
    from arena.league.web import SiteLimits

    path = folder / CONFIG
    data = config_module._read_toml(path)
    league = data.pop("league", {})
    if not isinstance(league, dict):
        raise ConfigError(f"{path}: [league] must be a table")
    settings: dict[str, dict[str, Any]] = {"unpack": {}, "build": {}, "site": {}}
    sizes = None
    for key, value in league.items():
        if key == "seats":
            sizes = _sizes(path, value)
            continue
        if key not in LEAGUE_KEYS:
            known = ", ".join(["seats", *LEAGUE_KEYS])
            raise ConfigError(f"{path}: league.{key}: unknown (one of {known})")
        if isinstance(value, bool) or not isinstance(value, int | float) or value <= 0:
            raise ConfigError(f"{path}: league.{key}: must be a positive number")
        side, name = LEAGUE_KEYS[key]
        settings[side][name] = value if key == "buildSeconds" else int(value)
    tournament = data.setdefault("tournament", {})
    if not isinstance(tournament, dict):
        raise ConfigError(f"{path}: [tournament] must be a table")
    tournament.setdefault("seats", 2)
    if sizes is None:  # one size: the tournament's
        seats = tournament["seats"]
        sizes = _sizes(path, seats) if isinstance(seats, int) else (2,)
    # The participants come and go in a league: stand-ins, as many as the largest table.
    data.setdefault(
        "participants", [{"name": f"seat-{n}", "bot": "random"} for n in range(max(sizes))]
    )
    data["replays"] = "replays"
    config, _ = config_module.validate(path, data)
    rules = config.engine_rules
    for size in sizes:
        try:
            rules.check_deal(size)
        except ValueError as error:
            needs = str(error).removeprefix("the deal ")  # "needs 63 cards (9 seats × 7) but …"
            raise ConfigError(f"{path}: league.seats: a table of {size} {needs}") from None
    return LeagueSettings(
        config,
        UnpackLimits(**settings["unpack"]),
        BuildSettings(**settings["build"]),
        SiteLimits(**settings["site"]),
        sizes,
    )


@league_app.command()
def init(
    folder: Path,
    config: Annotated[
        Path | None,
        typer.Option("--config", help="A config.toml: rules, limits, sandbox, tournament.seats."),
    ] = None,
) -> None:
    """Make a league folder; print the organiser's token (shown once)."""
    from arena.league.store import CONFIG, DATABASE, ORGANISER, Store

    if (folder / DATABASE).exists():
        _fail(f"{folder}: already a league")
    text = b"[tournament]\nseats = 2\n"
    if config is not None:
        try:
            text = config.read_bytes()[: 1 << 20]
        except OSError as error:
            _fail(f"{config}: cannot read: {error.strerror or error}")
    folder.mkdir(parents=True, exist_ok=True)
    (folder / CONFIG).write_bytes(text)
    try:
        load_config(folder)
    except ConfigError as error:
        (folder / CONFIG).unlink()
        _fail(str(error))
    store = Store.create(folder)
    token = store.add_owner(ORGANISER, organiser=True)
    print(f"league ready in {folder}")
    print(f"organiser token (shown once): {token}")


@league_app.command()
def owner(folder: Path, name: str) -> None:
    """Add an owner (or give them a new token); print the token once."""
    store = _store(folder)
    if not 1 <= len(name) <= 64 or not name.isprintable():
        _fail(f"owner name {name[:64]!r}: 1 to 64 printable characters")
    print(store.add_owner(name))


@league_app.command(context_settings={"allow_extra_args": True, "ignore_unknown_options": True})
def add(
    ctx: typer.Context,
    folder: Path,
    name: str,
    bot: Annotated[str | None, typer.Option("--bot", help="A built-in level.")] = None,
) -> None:
    """Add a bot owned by the organiser: a built-in level, or -- COMMAND (run in DIR)."""
    from arena.league.intake import valid_name
    from arena.league.season import fingerprint_of, seat_for

    store = _store(folder)
    command = list(ctx.args)
    problem = valid_name(name)
    if problem is not None:
        _fail(problem)
    if (bot is None) == (not command):
        _fail("arena league add: give --bot LEVEL or -- COMMAND, one of them")
    if bot is not None:
        try:
            Level.named(bot)
        except ValueError as error:
            _fail(f"--bot: {error}")
    if store.bot_owner(name)[0]:
        _fail(f"bot {name!r} exists already")
    place = None if bot else "."
    seat = seat_for(name, command, bot, place, folder)
    store.add_version(
        name,
        None,
        command=command,
        level=bot,
        folder=place,
        fingerprint=fingerprint_of(seat),
    )
    print(f"added {name}")


@league_app.command()
def status(folder: Path) -> None:
    """The standings, in the terminal."""
    from arena.league.season import standings

    store = _store(folder)
    rows = standings(store)
    print(f"{store.match_count()} matches{' (paused)' if store.paused else ''}")
    print(f"{'place':>6}  {'bot':20} {'version':>7} {'rating':>7} {'±':>5} {'matches':>7}")
    for row in rows:
        print(
            f"{row.place:>6}  {row.name:20} {'v' + str(row.version):>7} {row.rating:7.0f} "
            f"{row.interval:5.0f} {row.matches:7d}"
        )


@league_app.command()
def pause(
    folder: Path,
    resume: Annotated[bool, typer.Option("--resume", help="Resume a paused league.")] = False,
) -> None:
    """Pause the league (no new table starts; the pages stay up), or --resume it."""
    store = _store(folder)
    store.pause(not resume)
    print("resumed" if resume else "paused")


@league_app.command()
def disk(
    folder: Path,
    prune: Annotated[
        bool,
        typer.Option("--prune", help="Delete the folders of retired and disqualified versions."),
    ] = False,
) -> None:
    """Disk used by versions and replays; --prune frees retired and disqualified versions' folders
    (their matches, replays and ratings stay)."""
    from arena.league.store import REPLAYS
    from arena.league.submission import folder_bytes

    store = _store(folder)
    freed = 0
    for version in store.versions():
        if version.folder is None or version.folder == ".":
            continue
        place = folder / version.folder
        size = folder_bytes(place) if place.is_dir() else 0
        gone = version.state in ("retired", "disqualified")
        print(
            f"{version.name:30} {version.state:13} {size:12d} bytes{' (prunable)' if gone and size else ''}"
        )
        if prune and gone and size:
            store.forget_folder(version.id)
            freed += size
    print(f"replays: {folder_bytes(folder / REPLAYS)} bytes")
    if prune:
        print(f"pruned: {freed} bytes")


def make_check(config: Any) -> Any:
    """`arena check`'s judgement of a submission, in the sandbox the matches use."""
    from rich.console import Console

    from arena.seats import sandbox
    from arena.ui import check as check_module

    confinement, _ = sandbox.decide(config.limits.sandbox)

    def check(command: Sequence[str], cwd: Path, shown: Sequence[str]) -> tuple[bool, str]:
        try:
            resolved = check_module.resolve_command(command, cwd)
        except ConfigError as error:
            return False, str(error)
        report = check_module.run_checks(resolved, cwd, config.limits, confinement)
        report.command = list(shown)  # its writer's words; the league's folder is the organiser's
        console = Console(file=io.StringIO(), width=120, color_system=None, record=True)
        for part in check_module.render(report):
            console.print(part)
        return report.passed, console.export_text()

    return check


def view(path: Path, seats: frozenset[int] = frozenset()) -> str:
    """A match's page, with the notes (what the bots wrote to stderr) of `seats` only: none on
    the public page, the owner's own on theirs."""
    from arena.replays import replay
    from arena.ui import viewer

    return viewer.render(replay.read(path), notes=seats)


def worker_check(opened: Any, folder: Path) -> Callable[[Any], str | None]:
    """The season's `admit` on a Dask cluster (`opened`: its `tournaments.cluster.Cluster`):
    every worker now connected is checked for what a version's seat needs, as `serve` checks
    them for the versions active when it starts. The worker that lacks something, and what,
    in one line; None when every worker has it all. Raises NotYet when no worker is there to
    check (the version waits for one)."""
    from arena.league.season import NotYet, seat_of
    from arena.tournaments import cluster

    def admit(version: Any) -> str | None:
        needs = cluster.needs_of([seat_of(version, folder)], in_process_bots=True)
        expected = cluster.observe_all(needs)
        try:
            cluster.check_workers(opened.client, opened.address, needs, expected, WORKER_WAIT)
        except cluster.NoWorker as error:
            raise NotYet(str(error)) from None
        except cluster.ClusterError as error:
            return str(error)
        return None

    return admit


WORKER_WAIT = 5.0  # seconds a new version's check waits for a worker (then it waits a table)


@league_app.command()
def serve(
    folder: Path,
    host: Annotated[str, typer.Option(help="The address to listen on.")] = "127.0.0.1",
    port: Annotated[int, typer.Option(help="The port (0: any free one, printed).")] = 8000,
    jobs: Annotated[int, typer.Option(help="Matches at once on this machine.")] = 0,
    scheduler: Annotated[
        str | None, typer.Option(help="A Dask scheduler: tcp://HOST:PORT.")
    ] = None,
) -> None:
    """Play the season and serve its pages, until stopped (Ctrl-C)."""
    import socket

    import uvicorn

    from arena.league.season import Season, seat_of
    from arena.league.web import make_app
    from arena.tournaments.executors import MatchExecutor, default_jobs, make_executor

    store = _store(folder)
    try:
        settings = load_config(folder)
    except ConfigError as error:
        _fail(str(error))
    config = settings.config
    if jobs and scheduler:
        _fail("--jobs and --scheduler: give one")
    executor: MatchExecutor
    admit = None
    if scheduler is not None:
        from arena.tournaments import cluster

        seats = [seat_of(v, folder) for v in store.active()]
        # (`context` stays referenced until the process ends: collected, it closes the client.)
        context = cluster.open_cluster(scheduler, seats, in_process_bots=True)
        try:
            opened = context.__enter__()
        except ArenaError as error:
            _fail(str(error))
        executor = opened.executor()
        admit = worker_check(opened, folder)
        jobs = max(1, len(seats))
    else:
        jobs = jobs or default_jobs()
        executor = make_executor(jobs)
    listener = socket.socket(socket.AF_INET6 if ":" in host else socket.AF_INET)
    listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        listener.bind((host, port))
    except OSError as error:
        _fail(f"--host/--port: cannot listen on {host}:{port}: {error.strerror or error}")
    listener.listen(128)
    season = Season(
        store,
        config,
        executor,
        jobs=jobs,
        sizes=settings.sizes,
        admit=admit,
        on_problem=lambda line: print(f"league: {line}", file=sys.stderr, flush=True),
    )
    app = make_app(
        store,
        season,
        check=make_check(config),
        viewer=view,
        limits=settings.unpack,
        build_settings=settings.build,
        site_limits=settings.site,
        sandbox=config.limits.sandbox,
        name=config.tournament.title or folder.resolve().name,
    )
    stop = threading.Event()
    player = threading.Thread(target=season.run, args=(stop,), name="season", daemon=True)
    player.start()
    print(f"serving http://{host}:{listener.getsockname()[1]}/", flush=True)
    server = uvicorn.Server(uvicorn.Config(app, log_level="warning", lifespan="off"))
    try:
        server.run(sockets=[listener])
    finally:
        stop.set()
        player.join(10)
        executor.kill()
        print(
            f"league: stopped with {store.match_count()} matches recorded; "
            f"`arena league serve {folder}` goes on from there",
            file=sys.stderr,
            flush=True,
        )
        os._exit(0)  # uvicorn's and the pool's threads: nothing left to wait for


def _packed(folder: Path) -> tuple[bytes, list[str]]:
    """A folder as a .tar.gz upload, and the links it left out. The league takes no links
    (it refuses an archive holding one): a hard link (cargo's target/release/BOT is one) and
    a link to a file are packed as that file; a link to a folder, or to nothing, is left out."""
    import tarfile

    left_out: list[str] = []

    def as_file(member: tarfile.TarInfo) -> tarfile.TarInfo | None:
        if member.islnk() or member.issym():
            target = folder / member.name
            if not target.is_file():
                left_out.append(member.name.removeprefix("./"))
                return None
            member.type, member.linkname = tarfile.REGTYPE, ""
            member.size = target.stat().st_size
            member.mode = target.stat().st_mode & 0o7777
        return member

    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz") as archive:
        archive.add(folder, arcname=".", filter=as_file)
    return buffer.getvalue(), left_out


@league_app.command()
def submit(
    url: str,
    name: str,
    path: Path,
    token: Annotated[str, typer.Option("--token", help="Your owner token.")],
) -> None:
    """Upload a bot's folder (or a .tar.gz / .zip of it) as its new version."""

    import httpx

    if path.is_dir():
        data, left_out = _packed(path)
        filename = "bot.tar.gz"
        if left_out:
            shown = ", ".join(left_out[:5]) + (", …" if len(left_out) > 5 else "")
            print(
                f"left out {len(left_out)} link(s) to a folder or to nothing "
                f"(an upload holds files): {shown}",
                file=sys.stderr,
            )
    else:
        try:
            data, filename = path.read_bytes(), path.name
        except OSError as error:
            _fail(f"{path}: cannot read: {error.strerror or error}")
    try:
        response = httpx.post(
            url.rstrip("/") + f"/api/bots/{name}/versions",
            headers={"Authorization": f"Bearer {token}"},
            files={"archive": (filename, data)},
            timeout=600,
        )
    except httpx.HTTPError as error:
        _fail(f"{url}: {error}")
    body = (
        response.json()
        if response.headers.get("content-type", "").startswith("application/json")
        else {}
    )
    if response.status_code == 201:
        print(f"{body.get('name')} v{body.get('version')} accepted")
        return
    print(body.get("report", ""), file=sys.stderr)
    why = body.get("error", response.text[:200])
    if response.status_code == 413 and path.is_dir():
        why += f"; the largest parts of {path.name}: {_largest(path)} (pack what the bot needs)"
    _fail(f"refused ({response.status_code}): {why}")


def _largest(folder: Path, shown: int = 3) -> str:
    """The biggest entries of a folder, with their sizes: where a too-large upload's bytes are
    (a build tree such as target/ or node_modules/, usually)."""
    sizes = []
    for entry in folder.iterdir():
        if entry.is_symlink():
            continue  # (not packed as a folder: `_packed`)
        files = [entry] if not entry.is_dir() else [p for p in entry.rglob("*") if p.is_file()]
        total = sum(p.lstat().st_size for p in files if not p.is_symlink())
        sizes.append((total, entry.name + ("/" if entry.is_dir() else "")))
    sizes.sort(reverse=True)
    return ", ".join(f"{name} {total / 1e6:.1f} MB" for total, name in sizes[:shown])
