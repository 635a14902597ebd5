"""The league's database: owners, bots, immutable versions, matches and rating snapshots.

One SQLite file (`league.db`, WAL) in the league folder is the one source of truth; replays and
version folders are files beside it. The schema carries its version (`PRAGMA user_version`) and
is brought up to date by `MIGRATIONS`, in order, each in one transaction.

Tokens are 32 random bytes shown once; only their SHA-256 is stored, and a token is compared
with `hmac.compare_digest`. A seat's stderr is not in the database: it is the `.stderr.log` file
beside its match's replay (`Store.stderr`). A session (a browser signed in, or about to) is kept the same way:
the SHA-256 of its random id, with its CSRF token and its expiry, so a restart signs nobody
out. A match is written in one transaction after its replay file is on
disk, so a match is counted once or not at all (one played when the server died is played
again).
"""

from __future__ import annotations

import hashlib
import hmac
import os
import secrets
import sqlite3
import threading
import time
from collections import defaultdict
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import orjson

DATABASE = "league.db"
CONFIG = "league.toml"
REPLAYS = "replays"
VERSIONS = "versions"
ORGANISER = "organiser"  # the owner created by `init`, who may pause and disqualify

MIGRATIONS: tuple[str, ...] = (
    # 1: the first season's tables
    """
    CREATE TABLE owners (
        id INTEGER PRIMARY KEY, name TEXT UNIQUE NOT NULL, token_hash TEXT UNIQUE NOT NULL,
        organiser INTEGER NOT NULL DEFAULT 0, created REAL NOT NULL);
    CREATE TABLE bots (
        id INTEGER PRIMARY KEY, name TEXT UNIQUE NOT NULL, owner_id INTEGER REFERENCES owners(id),
        retired INTEGER NOT NULL DEFAULT 0, created REAL NOT NULL);
    CREATE TABLE versions (
        id INTEGER PRIMARY KEY, bot_id INTEGER NOT NULL REFERENCES bots(id),
        number INTEGER NOT NULL, command TEXT NOT NULL, level TEXT, folder TEXT,
        fingerprint TEXT NOT NULL, state TEXT NOT NULL DEFAULT 'active',
        note TEXT NOT NULL DEFAULT '', check_report TEXT NOT NULL DEFAULT '',
        build_log TEXT NOT NULL DEFAULT '', start_failures INTEGER NOT NULL DEFAULT 0,
        created REAL NOT NULL, UNIQUE (bot_id, number));
    CREATE TABLE matches (
        id INTEGER PRIMARY KEY, deal_seed INTEGER NOT NULL, rotation INTEGER NOT NULL,
        versions TEXT NOT NULL, places TEXT NOT NULL, scores TEXT NOT NULL,
        outcome TEXT NOT NULL, faults TEXT NOT NULL, replay TEXT NOT NULL,
        logs TEXT NOT NULL, played REAL NOT NULL, UNIQUE (deal_seed, rotation));
    CREATE TABLE ratings (
        id INTEGER PRIMARY KEY, version_id INTEGER NOT NULL REFERENCES versions(id),
        matches INTEGER NOT NULL, rating REAL NOT NULL, plus_minus REAL NOT NULL,
        at REAL NOT NULL);
    CREATE TABLE settings (key TEXT PRIMARY KEY, value TEXT NOT NULL);
    """,
    # 2: owners' sessions survive a restart (only the SHA-256 of a session id is kept)
    """
    CREATE TABLE sessions (
        id_hash TEXT PRIMARY KEY, owner_id INTEGER REFERENCES owners(id) ON DELETE CASCADE,
        csrf TEXT NOT NULL, expires REAL NOT NULL);
    CREATE INDEX sessions_by_expiry ON sessions (expires);
    """,
    # 3: a seat's stderr is kept once, in the `.stderr.log` file beside the match's replay
    """
    ALTER TABLE matches DROP COLUMN logs;
    """,
    # 4: the season's end (a final phase of fixed tables), who ruled on a version, owners removed
    """
    ALTER TABLE matches ADD COLUMN phase TEXT NOT NULL DEFAULT 'season';
    ALTER TABLE versions ADD COLUMN ruled_by TEXT NOT NULL DEFAULT '';
    ALTER TABLE owners ADD COLUMN removed INTEGER NOT NULL DEFAULT 0;
    CREATE TABLE final_tables (
        deal_seed INTEGER PRIMARY KEY, versions TEXT NOT NULL);
    """,
)

ACTIVE, PAUSED, RETIRED, DISQUALIFIED = "active", "paused", "retired", "disqualified"
# The season's phases: matchmaking's tables, then the final phase's fixed ones, then over.
SEASON, FINAL, OVER = "season", "final", "over"
BY_OWNER, BY_ORGANISER = "owner", "organiser"  # who retired or disqualified a version
SIGNED_IN_SECONDS = 12 * 3600.0  # a signed-in session lasts this long (`[league] sessionHours`)
ANONYMOUS_SECONDS = 86400.0  # a session that has not signed in (the sign-in form's CSRF token)
STATES = (ACTIVE, PAUSED, RETIRED, DISQUALIFIED)


_LOOK_ALIKE = str.maketrans({"0": "o", "1": "l", "i": "l", "|": "l", "_": "-", ".": "-"})


def skeleton(name: str) -> str:
    """What a name looks like, read by a person: case and look-alike characters folded (after
    Unicode's NFKC, so full-width and other compatibility forms fold too)."""
    import unicodedata

    return unicodedata.normalize("NFKC", name).casefold().translate(_LOOK_ALIKE)


def hide_paths(text: str, folder: Path) -> str:
    """`text` (a log, a report, a bot's notes) with the server's paths taken out: a version's
    own files named from its folder (`bot.py`), the rest of the league's folder as `<league>`.
    Owners read their bot's files, not where the server keeps them."""
    import re

    for base in {str(folder.resolve()), os.path.abspath(folder)}:
        text = re.sub(re.escape(base) + r"/versions/[^/\s'\"]+/(?:source|built)/", "", text)
        text = text.replace(base, "<league>")
    return text


def new_token() -> str:
    return secrets.token_urlsafe(32)


def token_hash(token: str) -> str:
    return hashlib.sha256(token.encode("utf-8", "surrogatepass")).hexdigest()


@dataclass(frozen=True)
class Owner:
    id: int
    name: str
    organiser: bool


@dataclass(frozen=True)
class Version:
    """One immutable version of a bot: what runs (a command in its folder, or a built-in level)."""

    id: int
    bot: str
    bot_id: int
    owner_id: int | None
    number: int
    command: tuple[str, ...]
    level: str | None
    folder: str | None
    fingerprint: str
    state: str
    note: str
    created: float
    start_failures: int

    @property
    def name(self) -> str:
        """Its name at the table and in the ratings: `bot#n`."""
        return f"{self.bot}#{self.number}"


@dataclass(frozen=True)
class MatchRow:
    id: int
    deal_seed: int
    rotation: int
    versions: tuple[int, ...]  # in seat order
    places: tuple[int, ...]
    scores: tuple[int, ...]
    outcome: str
    faults: tuple[dict[str, int], ...]
    replay: str
    played: float
    phase: str = SEASON  # SEASON or FINAL


class Store:
    """The database of one league folder; safe to share between threads (one lock)."""

    def __init__(self, folder: Path, connection: sqlite3.Connection) -> None:
        self.folder = folder
        self._db = connection
        self._lock = threading.RLock()
        self.session_seconds = SIGNED_IN_SECONDS  # the organiser's (`[league] sessionHours`)

    @classmethod
    def open(cls, folder: Path) -> Store:
        """Open (and migrate) the league in `folder`. Raises FileNotFoundError if it is none."""
        path = folder / DATABASE
        if not path.is_file():
            raise FileNotFoundError(
                f"{folder}: not a league folder (no {DATABASE}; arena league init)"
            )
        return cls._connect(folder)

    @classmethod
    def create(cls, folder: Path) -> Store:
        folder.mkdir(parents=True, exist_ok=True)
        (folder / REPLAYS).mkdir(exist_ok=True)
        (folder / VERSIONS).mkdir(exist_ok=True)
        return cls._connect(folder)

    @classmethod
    def _connect(cls, folder: Path) -> Store:
        db = sqlite3.connect(folder / DATABASE, check_same_thread=False, isolation_level=None)
        db.execute("PRAGMA journal_mode=WAL")
        db.execute("PRAGMA synchronous=FULL")  # a match acknowledged is on disk
        db.execute("PRAGMA foreign_keys=ON")
        db.execute("PRAGMA busy_timeout=10000")
        store = cls(folder, db)
        store.migrate()
        return store

    def close(self) -> None:
        with self._lock:
            self._db.close()

    @contextmanager
    def _transaction(self) -> Iterator[sqlite3.Connection]:
        with self._lock:
            self._db.execute("BEGIN IMMEDIATE")
            try:
                yield self._db
            except BaseException:
                self._db.execute("ROLLBACK")
                raise
            self._db.execute("COMMIT")

    def _all(self, sql: str, args: Sequence[Any] = ()) -> list[tuple[Any, ...]]:
        with self._lock:
            return list(self._db.execute(sql, args).fetchall())

    # -- schema -------------------------------------------------------------------------

    @property
    def schema_version(self) -> int:
        return int(self._all("PRAGMA user_version")[0][0])

    def migrate(self) -> None:
        """Apply every migration the file lacks, each with its version in one transaction."""
        current = self.schema_version
        if current > len(MIGRATIONS):
            raise RuntimeError(f"league.db has schema {current}, newer than this arena's")
        for number, script in enumerate(MIGRATIONS[current:], start=current + 1):
            with self._transaction() as db:
                for statement in script.split(";"):
                    if statement.strip():
                        db.execute(statement)
                db.execute(f"PRAGMA user_version = {number}")

    # -- settings -----------------------------------------------------------------------

    def setting(self, key: str, default: str = "") -> str:
        rows = self._all("SELECT value FROM settings WHERE key = ?", (key,))
        return str(rows[0][0]) if rows else default

    def set_setting(self, key: str, value: str) -> None:
        with self._transaction() as db:
            db.execute("INSERT OR REPLACE INTO settings VALUES (?, ?)", (key, value))

    @property
    def paused(self) -> bool:
        return self.setting("paused") == "1"

    def pause(self, paused: bool) -> None:
        self.set_setting("paused", "1" if paused else "0")

    # -- owners -------------------------------------------------------------------------

    def add_owner(self, name: str, *, organiser: bool = False) -> str:
        """A new owner (or a new token for an existing one, which signs out their sessions);
        the token, shown once."""
        token = new_token()
        with self._transaction() as db:
            db.execute(
                "INSERT INTO owners (name, token_hash, organiser, created) VALUES (?, ?, ?, ?) "
                "ON CONFLICT(name) DO UPDATE SET token_hash = excluded.token_hash",
                (name, token_hash(token), int(organiser), time.time()),
            )
            # A new token signs out the sessions the old one opened.
            db.execute(
                "DELETE FROM sessions WHERE owner_id = (SELECT id FROM owners WHERE name = ?)",
                (name,),
            )
        return token

    def owners(self) -> list[tuple[Owner, int, bool]]:
        """Every owner (the organiser first), with how many bots each owns and whether they
        were removed."""
        return [
            (Owner(ident, name, bool(organiser)), bots, bool(removed))
            for ident, name, organiser, removed, bots in self._all(
                "SELECT o.id, o.name, o.organiser, o.removed, "
                "(SELECT COUNT(*) FROM bots b WHERE b.owner_id = o.id) FROM owners o "
                "ORDER BY o.organiser DESC, o.name"
            )
        ]

    def owner_named(self, name: str) -> Owner | None:
        rows = self._all(
            "SELECT id, name, organiser FROM owners WHERE name = ? AND removed = 0", (name,)
        )
        return Owner(rows[0][0], rows[0][1], bool(rows[0][2])) if rows else None

    def rename_owner(self, old: str, new: str) -> None:
        """Raises ValueError: no owner `old`, or `new` is taken."""
        with self._transaction() as db:
            if db.execute("SELECT 1 FROM owners WHERE name = ?", (new,)).fetchone():
                raise ValueError(f"owner {new!r} exists already")
            if db.execute("UPDATE owners SET name = ? WHERE name = ?", (new, old)).rowcount != 1:
                raise ValueError(f"no owner {old!r}")

    def remove_owner(self, name: str) -> int:
        """An owner signed out for good (their token no longer valid) and their bots retired;
        their matches and versions stay. How many versions retired. Raises ValueError."""
        with self._transaction() as db:
            row = db.execute(
                "SELECT id, organiser FROM owners WHERE name = ? AND removed = 0", (name,)
            ).fetchone()
            if row is None:
                raise ValueError(f"no owner {name!r}")
            if row[1]:
                raise ValueError("the organiser is not removed")
            db.execute(
                "UPDATE owners SET removed = 1, token_hash = ? WHERE id = ?",
                ("removed:" + new_token(), row[0]),
            )
            db.execute("DELETE FROM sessions WHERE owner_id = ?", (row[0],))
            return int(
                db.execute(
                    "UPDATE versions SET state = ?, ruled_by = ?, note = ? WHERE state IN (?, ?) "
                    "AND bot_id IN (SELECT id FROM bots WHERE owner_id = ?)",
                    (
                        RETIRED,
                        BY_ORGANISER,
                        "retired: its owner was removed",
                        ACTIVE,
                        PAUSED,
                        row[0],
                    ),
                ).rowcount
            )

    def owner_names(self) -> dict[int, str]:
        return {ident: name for ident, name in self._all("SELECT id, name FROM owners")}

    def owner_by_token(self, token: str) -> Owner | None:
        """The owner whose token this is (constant-time comparison of the hashes), or None."""
        wanted = token_hash(token)
        found = None
        for ident, name, stored, organiser in self._all(
            "SELECT id, name, token_hash, organiser FROM owners"
        ):
            if hmac.compare_digest(wanted, stored):
                found = Owner(ident, name, bool(organiser))
        return found

    def owner(self, ident: int) -> Owner | None:
        rows = self._all("SELECT id, name, organiser FROM owners WHERE id = ?", (ident,))
        return Owner(rows[0][0], rows[0][1], bool(rows[0][2])) if rows else None

    # -- sessions -----------------------------------------------------------------------

    def new_session(self, owner_id: int | None) -> tuple[str, str, float]:
        """A new session for `owner_id` (None: not signed in): its id (for the cookie), its
        CSRF token and how many seconds it lasts. Expired sessions are dropped on the way."""
        session, csrf = new_token(), new_token()
        seconds = ANONYMOUS_SECONDS if owner_id is None else self.session_seconds
        now = time.time()
        with self._transaction() as db:
            db.execute("DELETE FROM sessions WHERE expires <= ?", (now,))
            db.execute(
                "INSERT INTO sessions (id_hash, owner_id, csrf, expires) VALUES (?, ?, ?, ?)",
                (token_hash(session), owner_id, csrf, now + seconds),
            )
        return session, csrf, seconds

    def session(self, session: str | None) -> tuple[int | None, str] | None:
        """(owner id or None, CSRF token) of a live session, or None: unknown or expired."""
        if not session:
            return None
        rows = self._all(
            "SELECT owner_id, csrf FROM sessions WHERE id_hash = ? AND expires > ?",
            (token_hash(session), time.time()),
        )
        return (rows[0][0], rows[0][1]) if rows else None

    def end_session(self, session: str) -> None:
        with self._transaction() as db:
            db.execute("DELETE FROM sessions WHERE id_hash = ?", (token_hash(session),))

    # -- bots and versions --------------------------------------------------------------

    def bot_like(self, name: str) -> str | None:
        """Another bot's name that reads as `name` (the same letters whatever their case, or
        characters that look alike: `0`/`O`, `1`/`l`/`I`, `-`/`_`/`.`), or None."""
        wanted = skeleton(name)
        for (other,) in self._all("SELECT name FROM bots"):
            if other != name and skeleton(other) == wanted:
                return str(other)
        return None

    def bot_owner(self, name: str) -> tuple[bool, int | None]:
        """Whether bot `name` exists, and its owner's id (None: the organiser's)."""
        rows = self._all("SELECT owner_id FROM bots WHERE name = ?", (name,))
        return (True, rows[0][0]) if rows else (False, None)

    def add_version(
        self,
        bot: str,
        owner_id: int | None,
        *,
        command: Sequence[str],
        level: str | None,
        folder: str | None,
        fingerprint: str,
        check_report: str = "",
        build_log: str = "",
    ) -> Version:
        """A new version of `bot` (the bot created, owned by `owner_id`, if it is new); the
        versions before it retire: one version of a bot plays at a time."""
        now = time.time()
        with self._transaction() as db:
            row = db.execute("SELECT id FROM bots WHERE name = ?", (bot,)).fetchone()
            if row is None:
                bot_id = db.execute(
                    "INSERT INTO bots (name, owner_id, created) VALUES (?, ?, ?)",
                    (bot, owner_id, now),
                ).lastrowid
            else:
                bot_id = row[0]
                db.execute("UPDATE bots SET retired = 0 WHERE id = ?", (bot_id,))
            number = db.execute(
                "SELECT COALESCE(MAX(number), 0) + 1 FROM versions WHERE bot_id = ?", (bot_id,)
            ).fetchone()[0]
            db.execute(
                "UPDATE versions SET state = ? WHERE bot_id = ? AND state IN (?, ?)",
                (RETIRED, bot_id, ACTIVE, PAUSED),
            )
            ident = db.execute(
                "INSERT INTO versions (bot_id, number, command, level, folder, fingerprint, "
                "check_report, build_log, created) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (
                    bot_id,
                    number,
                    orjson.dumps(list(command)).decode(),
                    level,
                    folder,
                    fingerprint,
                    check_report,
                    build_log,
                    now,
                ),
            ).lastrowid
        assert ident is not None
        version = self.version(ident)
        assert version is not None
        return version

    _VERSION_SQL = (
        "SELECT v.id, b.name, b.id, b.owner_id, v.number, v.command, v.level, v.folder, "
        "v.fingerprint, v.state, v.note, v.created, v.start_failures "
        "FROM versions v JOIN bots b ON b.id = v.bot_id"
    )

    @staticmethod
    def _version(row: tuple[Any, ...]) -> Version:
        return Version(
            row[0],
            row[1],
            row[2],
            row[3],
            row[4],
            tuple(orjson.loads(row[5])),
            row[6],
            row[7],
            row[8],
            row[9],
            row[10],
            row[11],
            row[12],
        )

    def version(self, ident: int) -> Version | None:
        rows = self._all(self._VERSION_SQL + " WHERE v.id = ?", (ident,))
        return self._version(rows[0]) if rows else None

    def versions(self, *, state: str | None = None, bot: str | None = None) -> list[Version]:
        sql, args = self._VERSION_SQL + " WHERE 1", []
        if state is not None:
            sql += " AND v.state = ?"
            args.append(state)
        if bot is not None:
            sql += " AND b.name = ?"
            args.append(bot)
        return [self._version(row) for row in self._all(sql + " ORDER BY v.id", args)]

    def active(self) -> list[Version]:
        return self.versions(state=ACTIVE)

    def set_state(
        self, version_id: int, state: str, note: str = "", *, by: str = BY_ORGANISER
    ) -> None:
        """Rule on a version (a disqualified one stays disqualified: nothing changes it);
        `by` whom (an owner may undo their own retirement, not the organiser's)."""
        if state not in STATES:
            raise ValueError(f"no state {state!r}")
        with self._transaction() as db:
            db.execute(
                "UPDATE versions SET state = ?, note = ?, ruled_by = ? WHERE id = ? AND state != ?",
                (state, note, by, version_id, DISQUALIFIED),
            )

    def ruled_by(self, version_id: int) -> str:
        rows = self._all("SELECT ruled_by FROM versions WHERE id = ?", (version_id,))
        return str(rows[0][0]) if rows else ""

    def resume(
        self, version_id: int, *, states: Sequence[str] = (PAUSED, RETIRED), owner: bool = False
    ) -> str | None:
        """Set a version in one of `states` back to active, its start failures counted from
        zero again; why it cannot be (in words, for a page), or None. Only a bot's latest
        version comes back (one version of a bot plays at a time), and a disqualified one
        never does; an `owner` undoes only a retirement of their own."""
        with self._transaction() as db:
            row = db.execute(
                "SELECT v.state, v.bot_id, v.number, "
                "(SELECT MAX(number) FROM versions WHERE bot_id = v.bot_id), v.ruled_by, b.name "
                "FROM versions v JOIN bots b ON b.id = v.bot_id WHERE v.id = ?",
                (version_id,),
            ).fetchone()
            if row is None:
                return f"there is no version {version_id}"
            state, bot_id, number, latest, ruled_by, bot = row
            shown = f"{bot} v{number}"
            if state == DISQUALIFIED:
                return f"{shown} is disqualified, and a disqualified version stays disqualified"
            if state not in states:
                return f"{shown} is {state}: only a {' or '.join(states)} version resumes"
            if number != latest:
                return (
                    f"{shown} is not {bot}'s latest version (v{latest} is): only the latest "
                    "resumes; to play an older one again, submit it as a new version"
                )
            if owner and state == RETIRED and ruled_by != BY_OWNER:
                return f"{shown} was retired by the organiser: only the organiser resumes it"
            db.execute(
                "UPDATE versions SET state = ?, note = '', ruled_by = '', start_failures = 0 "
                "WHERE id = ?",
                (ACTIVE, version_id),
            )
            db.execute("UPDATE bots SET retired = 0 WHERE id = ?", (bot_id,))
        return None

    def retire_bot(self, name: str, *, by: str = BY_OWNER, note: str = "") -> None:
        with self._transaction() as db:
            db.execute("UPDATE bots SET retired = 1 WHERE name = ?", (name,))
            db.execute(
                "UPDATE versions SET state = ?, ruled_by = ?, note = ? WHERE state IN (?, ?) "
                "AND bot_id = (SELECT id FROM bots WHERE name = ?)",
                (RETIRED, by, note, ACTIVE, PAUSED, name),
            )

    def forget_folder(self, version_id: int) -> None:
        """Delete a retired or disqualified version's folder (it will never play again)."""
        import shutil

        version = self.version(version_id)
        if (
            version is None
            or version.folder is None
            or version.state not in (RETIRED, DISQUALIFIED)
        ):
            raise ValueError(f"version {version_id} is not retired")
        target = (self.folder / version.folder).resolve()
        if (self.folder / VERSIONS).resolve() not in target.parents:
            raise ValueError(f"version {version_id}: its folder is not under {VERSIONS}/")
        # The version's top folder under versions/ (its bot.toml may lie one level down).
        top = (self.folder / VERSIONS).resolve() / target.relative_to(
            (self.folder / VERSIONS).resolve()
        ).parts[0]
        shutil.rmtree(top, ignore_errors=True)
        with self._transaction() as db:
            db.execute("UPDATE versions SET note = ? WHERE id = ?", ("folder pruned", version_id))

    def reports(self, version_id: int) -> tuple[str, str]:
        """A version's check report and build log (its owner's to read)."""
        rows = self._all("SELECT check_report, build_log FROM versions WHERE id = ?", (version_id,))
        return (rows[0][0], rows[0][1]) if rows else ("", "")

    def bots(self) -> list[tuple[str, int | None, bool]]:
        return [
            (name, owner, bool(retired))
            for name, owner, retired in self._all(
                "SELECT name, owner_id, retired FROM bots ORDER BY name"
            )
        ]

    # -- matches ------------------------------------------------------------------------

    def record_match(
        self,
        *,
        deal_seed: int,
        rotation: int,
        versions: Sequence[int],
        places: Sequence[int],
        scores: Sequence[int],
        outcome: str,
        faults: Sequence[dict[str, int]],
        replay: str,
        start_failed: Sequence[int] = (),
        failures_to_pause: int = 3,
        phase: str = SEASON,
    ) -> int | None:
        """Count one match, once: None if (deal, rotation) is already counted. A version that
        could not start `failures_to_pause` times in a row is paused, with a note."""
        with self._transaction() as db:
            try:
                ident = db.execute(
                    "INSERT INTO matches (deal_seed, rotation, versions, places, scores, "
                    "outcome, faults, replay, played, phase) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                    (
                        deal_seed,
                        rotation,
                        orjson.dumps(list(versions)).decode(),
                        orjson.dumps(list(places)).decode(),
                        orjson.dumps(list(scores)).decode(),
                        outcome,
                        orjson.dumps(list(faults)).decode(),
                        replay,
                        time.time(),
                        phase,
                    ),
                ).lastrowid
            except sqlite3.IntegrityError:
                return None
            for version in versions:
                if version in start_failed:
                    db.execute(
                        "UPDATE versions SET start_failures = start_failures + 1 WHERE id = ?",
                        (version,),
                    )
                else:
                    db.execute("UPDATE versions SET start_failures = 0 WHERE id = ?", (version,))
            db.execute(
                "UPDATE versions SET state = ?, note = ? WHERE start_failures >= ? AND state = ?",
                (
                    PAUSED,
                    (
                        f"paused: it failed to start {failures_to_pause} times in a row; "
                        "submit a new version, or resume this one once it can start"
                    ),
                    failures_to_pause,
                    ACTIVE,
                ),
            )
        return ident

    _MATCH_SQL = (
        "SELECT id, deal_seed, rotation, versions, places, scores, outcome, faults, replay, "
        "played, phase FROM matches"
    )

    @staticmethod
    def _match(row: tuple[Any, ...]) -> MatchRow:
        return MatchRow(
            row[0],
            row[1],
            row[2],
            tuple(orjson.loads(row[3])),
            tuple(orjson.loads(row[4])),
            tuple(orjson.loads(row[5])),
            row[6],
            tuple(orjson.loads(row[7])),
            row[8],
            row[9],
            row[10],
        )

    def matches(self, *, after: int = 0, phase: str | None = None) -> list[MatchRow]:
        sql, args = self._MATCH_SQL + " WHERE id > ?", [str(after)]
        if phase is not None:
            sql += " AND phase = ?"
            args.append(phase)
        return [self._match(row) for row in self._all(sql + " ORDER BY id", args)]

    # -- the season's end ---------------------------------------------------------------

    @property
    def phase(self) -> str:
        """SEASON (matchmaking's tables), FINAL (the final phase's) or OVER (the board frozen)."""
        return self.setting("phase", SEASON)

    def end_season(self, reason: str, tables: Sequence[tuple[int, Sequence[int]]]) -> None:
        """The season over (`reason`, for the pages): the final phase's `tables` (deal seed,
        versions in seat order of its first rotation) scheduled, in one transaction, or the
        board frozen at once when there are none."""
        with self._transaction() as db:
            db.executemany(
                "INSERT OR IGNORE INTO final_tables (deal_seed, versions) VALUES (?, ?)",
                [(deal, orjson.dumps(list(ids)).decode()) for deal, ids in tables],
            )
            for key, value in (
                ("phase", FINAL if tables else OVER),
                ("ended", reason),
                ("ended_at", repr(time.time())),
            ):
                db.execute("INSERT OR REPLACE INTO settings VALUES (?, ?)", (key, value))

    def final_tables(self) -> list[tuple[int, tuple[int, ...], frozenset[int]]]:
        """The final phase's tables: (deal seed, versions, the rotations of it counted)."""
        done: dict[int, set[int]] = defaultdict(set)
        for deal, rotation in self._all(
            "SELECT deal_seed, rotation FROM matches WHERE phase = ?", (FINAL,)
        ):
            done[deal].add(rotation)
        return [
            (deal, tuple(orjson.loads(ids)), frozenset(done.get(deal, ())))
            for deal, ids in self._all(
                "SELECT deal_seed, versions FROM final_tables ORDER BY rowid"
            )
        ]

    def freeze(self) -> None:
        """The final phase played: the board is final."""
        self.set_setting("phase", OVER)

    def latest_matches(self, count: int) -> list[MatchRow]:
        """The last `count` matches played, oldest first (not the whole season)."""
        rows = self._all(self._MATCH_SQL + " ORDER BY id DESC LIMIT ?", (count,))
        return [self._match(row) for row in reversed(rows)]

    def match(self, ident: int) -> MatchRow | None:
        rows = self._all(self._MATCH_SQL + " WHERE id = ?", (ident,))
        return self._match(rows[0]) if rows else None

    def stderr(self, match: MatchRow, seat: int, tail: int = 4000) -> str:
        """The end of what `seat` wrote to stderr in `match` ("" for nothing): the log file
        `write_replay` keeps beside the replay, the one copy (not in the database)."""
        stem = match.replay.removesuffix(".json")
        path = self.folder / REPLAYS / f"{stem}.seat{seat}.stderr.log"
        try:
            with path.open("rb") as stream:
                size = stream.seek(0, 2)
                stream.seek(max(0, size - 4 * tail))
                text = stream.read().decode("utf-8", "replace")
        except OSError:
            return ""
        # Whole lines only, each with the server's paths taken out: a tail cut inside a line
        # would keep a path's end where `hide_paths` cannot know it for one.
        if size > 4 * tail:
            text = text.partition("\n")[2]
        text = hide_paths(text, self.folder)
        if len(text) > tail:
            text = text[-tail:].partition("\n")[2]
        return text

    def replay_files(self, match: MatchRow) -> list[Path]:
        """A match's replay and its seats' stderr logs, those still on disk."""
        stem = match.replay.removesuffix(".json")
        folder = self.folder / REPLAYS
        return [
            path
            for path in (folder / match.replay, *folder.glob(f"{stem}.seat*.stderr.log"))
            if path.is_file()
        ]

    def prune_replays(self, budget: int) -> tuple[int, int]:
        """The oldest replays of the season (and their stderr logs) deleted until all the
        replays take at most `budget` bytes; the final phase's stay. Their matches stay
        counted (their rows are the ratings'); their pages say the replay was pruned. How
        many matches lost their replay, and the bytes freed."""
        folder = self.folder / REPLAYS
        total = sum(entry.stat().st_size for entry in os.scandir(folder) if entry.is_file())
        pruned = freed = 0
        if total <= budget:
            return 0, 0
        for match in self.matches(phase=SEASON):
            files = self.replay_files(match)
            if not files:
                continue
            size = sum(path.stat().st_size for path in files)
            for path in files:
                path.unlink(missing_ok=True)
            pruned, freed, total = pruned + 1, freed + size, total - size
            if total <= budget:
                break
        return pruned, freed

    def match_count(self) -> int:
        return int(self._all("SELECT COUNT(*) FROM matches")[0][0])

    # -- ratings over time --------------------------------------------------------------

    def snapshot(self, rows: Sequence[tuple[int, int, float, float]]) -> None:
        """(version id, matches, rating, ±) of each version, now."""
        now = time.time()
        with self._transaction() as db:
            db.executemany(
                "INSERT INTO ratings (version_id, matches, rating, plus_minus, at) "
                "VALUES (?, ?, ?, ?, ?)",
                [(*row, now) for row in rows],
            )

    def history(self, bot: str) -> list[tuple[int, int, float, float, float]]:
        """(version number, matches, rating, ±, time) of every snapshot of `bot`'s versions."""
        return [
            tuple(row)
            for row in self._all(
                "SELECT v.number, r.matches, r.rating, r.plus_minus, r.at FROM ratings r "
                "JOIN versions v ON v.id = r.version_id JOIN bots b ON b.id = v.bot_id "
                "WHERE b.name = ? ORDER BY r.id",
                (bot,),
            )
        ]
