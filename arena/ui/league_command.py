"""`arena league …`: a season in a folder (docs/league.md).

    arena league init DIR [--config league.toml]      # prints the organiser's token once
    arena league owner DIR OWNER                      # a writer's token, printed once
    arena league add DIR NAME (--level LEVEL | -- COMMAND…)
    arena league status DIR
    arena league serve DIR [--host 127.0.0.1] [--port 8000] [--jobs N] [--scheduler tcp://…]
    arena league submit URL NAME PATH --token T

The league (`arena.league`) is below this layer; here it is handed the replay viewer as a
function, and what is printed is printed. A failure is one line through the commands' one error
path (`arena.ui.say.fail`): exit 2 for bad input (an option, a name, a folder that is not a
league, its league.toml), 1 for the arena's own failure (a server that answered with its own
error), 3 when `submit`'s league refused the version (docs/league.md).
"""

from __future__ import annotations

import io
import os
import sys
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Annotated, Any, NoReturn

import typer

from arena.base import extras
from arena.base.errors import ArenaError, ConfigError
from arena.engine.text import listed
from arena.ui.say import ARENA_FAILURE, BAD_INPUT, fail, renamed

league_app = typer.Typer(
    no_args_is_help=True,
    rich_markup_mode=None,
    help="A season: submissions, matchmaking and a live leaderboard.",
)
REFUSED = 3  # `arena league submit`: the league refused the version (its check, build, archive…)

# What several commands take, said once.
LeagueFolder = Annotated[Path, typer.Argument(metavar="DIR", help="The league's folder.")]
OwnerName = Annotated[str, typer.Argument(metavar="NAME", help="The owner's name.")]


def _fail(message: str, status: int = BAD_INPUT) -> NoReturn:
    """One line and an exit status, as every command fails (`arena.ui.say.fail`)."""
    fail(message.replace("\n", " "), status)


def _store(folder: Path) -> Any:
    from arena.league.store import Store

    try:
        return Store.open(folder)
    except FileNotFoundError as error:
        _fail(str(error))


@league_app.command()
def init(
    folder: Annotated[
        Path, typer.Argument(metavar="DIR", help="The new league's folder (made if missing).")
    ],
    config: Annotated[
        Path | None,
        typer.Option(
            "--config",
            metavar="FILE",
            help="A league.toml: rules, limits, sandbox, tournament.seats, [league] (docs/league.md).",
        ),
    ] = None,
) -> None:
    """Make a league folder; print the organiser's token (shown once)."""
    # needs the league extra, as when the league's settings imported its pages (tests/test_extras)
    extras.require("league", "arena league init")
    from arena.league.settings import load as load_settings
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
        load_settings(folder)
    except ConfigError as error:
        (folder / CONFIG).unlink()
        _fail(str(error))
    store = Store.create(folder)
    token = store.add_owner(ORGANISER, organiser=True)
    print(f"league ready in {folder}")
    print(f"organiser token (shown once): {token}")


def _owner_name(name: str) -> str:
    """An owner's name as typed, trimmed. Exits 2 (one line) when it cannot be one."""
    name = name.strip()
    if not 1 <= len(name) <= 64 or not name.isprintable():
        _fail(f"owner name {name[:64]!r}: 1 to 64 printable characters")
    return name


@league_app.command()
def owner(
    folder: LeagueFolder,
    name: OwnerName,
    new: Annotated[
        bool, typer.Option("--new", help="Add this owner even though a name like it exists.")
    ] = False,
) -> None:
    """Add an owner, or give an existing one a new token (their sessions end); print the token
    once. A name that reads as an existing owner's (another case, a space) is refused unless
    --new: a typo does not create a second owner."""
    from arena.league.store import skeleton

    store = _store(folder)
    name = _owner_name(name)
    exists = store.owner_named(name) is not None
    like = [
        found.name
        for found, _, removed in store.owners()
        if not removed and found.name != name and skeleton(found.name) == skeleton(name)
    ]
    if not exists and like and not new:
        _fail(
            f"owner {name!r} reads as the existing {like[0]!r}: for a new token of theirs, "
            f"`arena league owner {folder} {like[0]}`; to add {name!r} all the same, --new"
        )
    token = store.add_owner(name)
    print(
        f"a new token for {name} (their old one and sessions end)"
        if exists
        else f"owner {name} added",
        file=sys.stderr,
    )
    print(token)


owners_app = typer.Typer(
    no_args_is_help=True,
    rich_markup_mode=None,
    help="The league's owners: list, rename, remove, a new token.",
)
league_app.add_typer(owners_app, name="owners")


@owners_app.command("list")
def owners_list(folder: LeagueFolder) -> None:
    """Every owner, with how many bots each owns (tokens are never shown again)."""
    store = _store(folder)
    for found, bots, removed in store.owners():
        role = "organiser" if found.organiser else "removed" if removed else "owner"
        print(f"{found.name:30} {role:10} {bots:3d} bot{'s' if bots != 1 else ''}")


@owners_app.command("rename")
def owners_rename(
    folder: LeagueFolder,
    old: Annotated[str, typer.Argument(metavar="OLD", help="The owner's name now.")],
    new: Annotated[str, typer.Argument(metavar="NEW", help="Their new name.")],
) -> None:
    """Rename an owner (their bots, token and sessions stay theirs)."""
    store = _store(folder)
    try:
        store.rename_owner(_owner_name(old), _owner_name(new))
    except ValueError as error:
        _fail(str(error))
    print(f"renamed {old.strip()} to {new.strip()}")


@owners_app.command("remove")
def owners_remove(folder: LeagueFolder, name: OwnerName) -> None:
    """Remove an owner: their token stops working, their sessions end and their bots retire
    (their matches and ratings stay)."""
    store = _store(folder)
    try:
        retired = store.remove_owner(_owner_name(name))
    except ValueError as error:
        _fail(str(error))
    print(f"removed {name.strip()}; {retired} version(s) retired")


@owners_app.command("token")
def owners_token(folder: LeagueFolder, name: OwnerName) -> None:
    """A new token for an existing owner (the old one and their sessions end), printed once."""
    store = _store(folder)
    name = _owner_name(name)
    if store.owner_named(name) is None:
        _fail(f"no owner {name!r} (`arena league owners list {folder}`)")
    print(store.add_owner(name))


@league_app.command(context_settings={"allow_extra_args": True, "ignore_unknown_options": True})
def add(
    ctx: typer.Context,
    folder: LeagueFolder,
    name: Annotated[str, typer.Argument(metavar="NAME", help="The bot's name in the league.")],
    level: Annotated[
        str | None,
        typer.Option(
            "--level",
            metavar="LEVEL",
            help="A built-in level: random, easy, medium, hard, expert or master.",
        ),
    ] = None,
    old_bot: Annotated[str | None, typer.Option("--bot", hidden=True)] = None,
) -> None:
    """Add a bot owned by the organiser: a built-in level, or -- COMMAND (run in DIR)."""
    bot = renamed("--bot", "--level", old_bot, level)
    from arena.league.intake import valid_name
    from arena.league.season import fingerprint_of, seat_for

    store = _store(folder)
    command = list(ctx.args)
    problem = valid_name(name)
    if problem is not None:
        _fail(problem)
    if (bot is None) == (not command):
        _fail("arena league add: give --level LEVEL or -- COMMAND, one of them")
    if bot is not None:
        from arena.bots import Level  # (here: the bots' code is not part of every start-up)

        try:
            Level.named(bot)
        except ValueError as error:
            _fail(f"--level: {error}")
    if store.bot_owner(name)[0]:
        _fail(f"bot {name!r} exists already")
    if (like := store.bot_like(name)) is not None:
        _fail(f"bot name {name!r} reads the same as the existing {like!r}: choose another")
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
def status(folder: LeagueFolder) -> None:
    """The standings, in the terminal."""
    from arena.league.season import standings

    store = _store(folder)
    rows = standings(store)
    print(f"{store.match_count()} matches{' (paused)' if store.paused else ''}")
    print(f"{'place':>6}  {'bot':20} {'version':>7} {'rating':>7} {'±':>5} {'matches':>7}")
    for row in rows:
        print(
            f"{row.place or 'prov.':>6}  {row.name:20} {'v' + str(row.version):>7} "
            f"{row.rating:7.0f} {row.interval:5.0f} {row.matches:7d}"
        )


@league_app.command()
def results(
    folder: LeagueFolder,
    as_csv: Annotated[bool, typer.Option("--csv", help="As CSV, one line per bot.")] = False,
    as_json: Annotated[bool, typer.Option("--json", help="As JSON.")] = False,
) -> None:
    """The results with owners: the final phase's table (once played) and the season's board."""
    # needs the league extra, as when the league's settings imported its pages (tests/test_extras)
    extras.require("league", "arena league results")
    import orjson

    from arena.league.season import results_csv, results_of
    from arena.league.settings import load as load_settings

    if as_csv and as_json:
        _fail("--csv and --json: give one")
    store = _store(folder)
    try:
        settings = load_settings(folder)
    except ConfigError as error:
        _fail(str(error))
    found = results_of(store, settings.config.tournament.title or folder.resolve().name)
    if as_json:
        sys.stdout.write(orjson.dumps(found, option=orjson.OPT_INDENT_2).decode() + "\n")
        return
    if as_csv:
        sys.stdout.write(results_csv(found))
        return
    print(f"{found['league']}: {'final results' if found['final'] else 'results so far'}")
    for title, key in (("final phase", "finalPhase"), ("season", "season")):
        if not found[key]:
            continue
        print(f"{title}:")
        for row in found[key]:
            print(
                f"{row['place'] or 'prov.':>6}  {row['name']:20} {row['owner'] or 'house':16} "
                f"{'v' + str(row['version']):>5} {row['rating']:7.0f} ±{row['interval']:<5.0f} "
                f"{row['matches']:6d}"
            )


@league_app.command()
def pause(
    folder: LeagueFolder,
    resume: Annotated[bool, typer.Option("--resume", help="Resume a paused league.")] = False,
) -> None:
    """Pause the league (no new table starts; the pages stay up), or --resume it."""
    store = _store(folder)
    store.pause(not resume)
    print("resumed" if resume else "paused")


@league_app.command()
def disk(
    folder: LeagueFolder,
    prune: Annotated[
        bool,
        typer.Option("--prune", help="Delete the folders of retired and disqualified versions."),
    ] = False,
) -> None:
    """Disk used by versions and replays; --prune frees retired and disqualified versions' folders
    (their matches, replays and ratings stay)."""
    # needs the league extra, as when the league's settings imported its pages (tests/test_extras)
    extras.require("league", "arena league disk")
    from arena.league.settings import load as load_settings
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
    replays = folder_bytes(folder / REPLAYS)
    matches = store.match_count()
    per_match = f" ({replays // matches} bytes a match)" if matches else ""
    print(f"replays: {replays} bytes for {matches} matches{per_match}")
    if prune:
        try:
            budget = load_settings(folder).league.replay_bytes
        except ConfigError as error:
            _fail(str(error))
        if budget is not None:
            count, bytes_freed = store.prune_replays(budget)
            freed += bytes_freed
            print(f"replays over their budget of {budget} bytes: the {count} oldest pruned")
        print(f"pruned: {freed} bytes")


def view(path: Path, seats: frozenset[int] = frozenset()) -> str:
    """A match's page, with the notes (what the bots wrote to stderr) of `seats` only: none on
    the public page, the owner's own on theirs, without the server's paths (`path` is in the
    league's `replays/`)."""
    from arena.league.store import hide_paths
    from arena.replays import replay
    from arena.ui import viewer

    data = viewer.page_data(replay.read(path), notes=seats)
    league = path.parent.parent
    for note in data.get("notes") or []:
        note["text"] = hide_paths(str(note["text"]), league)
    return viewer.page("viewer", data, "Go Fish replay")


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
    folder: LeagueFolder,
    host: Annotated[
        str, typer.Option(metavar="ADDRESS", help="The address to listen on.")
    ] = "127.0.0.1",
    port: Annotated[
        int, typer.Option(metavar="PORT", help="The port (0: any free one, printed).")
    ] = 8000,
    jobs: Annotated[
        int,
        typer.Option(
            metavar="N", help="Matches at once on this machine [default: the number of cores]."
        ),
    ] = 0,
    scheduler: Annotated[
        str | None, typer.Option(metavar="tcp://HOST:PORT", help="A Dask scheduler to play on.")
    ] = None,
) -> None:
    """Play the season and serve its pages, until stopped (Ctrl-C)."""
    import shlex
    import socket

    import uvicorn

    from arena.league import intake
    from arena.league.season import Ending, Season, seat_of
    from arena.league.settings import load as load_settings
    from arena.league.web import make_app
    from arena.tournaments.executors import MatchExecutor, default_jobs, make_executor

    store = _store(folder)
    try:
        settings = load_settings(folder)
    except ConfigError as error:
        _fail(str(error))
    config = settings.config
    league = settings.league
    store.session_seconds = league.session_seconds
    # The stop message's command: this one, every option given again.
    again = ["arena", "league", "serve", str(folder)]
    if host != "127.0.0.1":
        again += ["--host", host]
    again += ["--port", str(port)]
    again += ["--jobs", str(jobs)] if jobs else []
    again += ["--scheduler", scheduler] if scheduler else []
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
        except cluster.ClusterError as error:  # (as `arena run --scheduler` says it)
            _fail(str(error))
        except ArenaError as error:
            _fail(str(error), ARENA_FAILURE)
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
        ending=Ending(
            league.deadline.timestamp() if league.deadline is not None else None,
            league.max_matches,
            league.final_deals,
        ),
        replay_bytes=league.replay_bytes,
    )
    app = make_app(
        store,
        season,
        check=intake.arena_check(config.limits),
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
            f"`{shlex.join(again)}` goes on from there",
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
    url: Annotated[str, typer.Argument(metavar="URL", help="The league's address (http://…).")],
    name: Annotated[str, typer.Argument(metavar="NAME", help="Your bot's name in the league.")],
    path: Annotated[
        Path, typer.Argument(metavar="PATH", help="The bot's folder, or a .tar.gz / .zip of it.")
    ],
    token: Annotated[str, typer.Option("--token", metavar="TOKEN", help="Your owner token.")],
) -> None:
    """Upload a bot's folder (or a .tar.gz / .zip of it) as its new version."""

    from urllib.parse import quote

    import httpx

    token = token.strip()  # (pasted with a space or a newline)
    if not token or not token.isascii() or not token.isprintable():
        _fail("--token: not a token (paste it as `arena league owner` printed it)")
    if path.is_dir():
        data, left_out = _packed(path)
        filename = "bot.tar.gz"
        if left_out:
            shown = listed(left_out, 5)
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
            url.rstrip("/") + f"/api/bots/{quote(name, safe='')}/versions",
            headers={"Authorization": f"Bearer {token}"},
            files={"archive": (filename, data)},
            timeout=600,
        )
    except httpx.HTTPError as error:
        _fail(f"{url}: {str(error).replace(token, '<token>')}")
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
    if response.status_code >= 500:  # the league's own failure, not a verdict on the bot
        _fail(f"{url}: the league failed ({response.status_code}): {why}", ARENA_FAILURE)
    _fail(f"refused ({response.status_code}): {why}", REFUSED)


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
