"""A submission from archive to version: unpacked, manifest read, checked, stored — or refused.

    version = intake.submit(store, "ann-bot", owner, data, check, limits)

`check(command, folder, shown) -> (passed, report)` is `arena check`'s judgement (its report
headed by `shown`, the command as `bot.toml` gives it, not the league's paths): `arena_check`
makes it from `arena.referee.check`, run in the sandbox as a match would be: the
version's seat (`season.seat_for`), whose fingerprint (`arena.seats.fingerprint`, what `arena
run` records) the version carries. A
refused archive leaves nothing behind and the bot's current version keeps playing.
"""

from __future__ import annotations

import secrets
import shutil
from collections.abc import Callable, Sequence
from pathlib import Path

from arena.base.config import LimitsSection
from arena.base.errors import ConfigError
from arena.engine.text import listed
from arena.league.build import BuildFailed, BuildSettings, build
from arena.league.season import fingerprint_of, seat_for
from arena.league.store import VERSIONS, Owner, Store, Version
from arena.league.submission import MANIFEST, Refused, UnpackLimits, read_manifest, unpack

Check = Callable[[Sequence[str], Path, Sequence[str]], tuple[bool, str]]
DEFAULT_BUILD = BuildSettings()
# What an upload is going through, in words for its owner's page (`submit`'s `progress`).
STAGES = {
    "unpacking": "Unpacking the archive",
    "building": "Building it in the sandbox (its build step)",
    "checking": "Checking it in the sandbox (arena check's scenarios: a normal match, then "
    "hostile ones)",
}
NAME_CHARACTERS = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_.")


def arena_check(limits: LimitsSection) -> Check:
    """`arena check`'s judgement of a submission (`arena.referee.check`), in the sandbox the
    league's matches use (`limits.sandbox`), its report in plain text for the owner."""
    from arena.referee import check as check_module
    from arena.referee import check_report
    from arena.seats import sandbox

    confinement, _ = sandbox.decide(limits.sandbox)

    def check(command: Sequence[str], cwd: Path, shown: Sequence[str]) -> tuple[bool, str]:
        try:
            resolved = check_module.resolve_command(command, cwd)
        except ConfigError as error:
            return False, str(error)
        report = check_module.run_checks(resolved, cwd, limits, confinement)
        report.command = list(shown)  # its writer's words; the league's folder is the organiser's
        return report.passed, check_report.as_text(report)

    return check


class Forbidden(Exception):
    """The bot is someone else's."""


class Failed(Refused):
    """Refused by the check (or the build): the report, for its owner."""

    def __init__(self, reason: str, report: str) -> None:
        super().__init__(reason)
        self.report = report


def valid_name(name: str) -> str | None:
    """Why `name` cannot be a bot's name, or None."""
    if not 1 <= len(name) <= 40 or not set(name) <= NAME_CHARACTERS or name[0] in "-.":
        return (
            f"bot name {name[:40]!r}: 1 to 40 letters, digits, '-', '_' or '.' "
            "(not starting with '-' or '.'; no '/' or spaces)"
        )
    return None


def submit(
    store: Store,
    bot: str,
    owner: Owner,
    data: bytes,
    check: Check,
    limits: UnpackLimits,
    build_settings: BuildSettings = DEFAULT_BUILD,
    sandbox: str = "auto",
    progress: Callable[[str], None] = lambda stage: None,
) -> Version:
    """A new version of `bot` from an archive; `progress(stage)` is told each stage as it
    begins (STAGES). Raises Forbidden, Refused or Failed."""
    problem = valid_name(bot)
    if problem is not None:
        raise Refused(problem)
    exists, owner_id = store.bot_owner(bot)
    if exists and owner_id != owner.id:
        raise Forbidden(f"bot {bot!r} belongs to another owner")
    like = None if exists else store.bot_like(bot)
    if like is not None:
        whose = "your own" if store.bot_owner(like)[1] == owner.id else "another owner's"
        raise Refused(
            f"bot name {bot!r} reads the same as {like!r}, {whose} bot (names are told apart "
            "whatever their case and look-alike characters): choose another name"
            + (f", or submit to {like!r}" if whose == "your own" else "")
        )
    place = store.folder / VERSIONS / f"{bot}-{secrets.token_hex(6)}"
    place.mkdir()
    place.chmod(0o755)  # (the arena's umask is 077; the sandbox may run the bot as nobody)
    try:
        progress("unpacking")
        root = unpack(data, place / "source", limits)
        manifest = read_manifest(root)
        log = ""
        if manifest.build is not None:
            progress("building")
            try:
                root, log = build(
                    root, place / "built", manifest.build, build_settings, limits, sandbox
                )
            except BuildFailed as error:
                raise Failed(f"refused by its build: {error}", error.log) from None
            manifest = read_manifest(root)
        program = manifest.command[0]
        if "/" in program and not (root / program).is_file():
            made = " nor made by its build" if manifest.build is not None else ""
            files = sorted(str(p.relative_to(root)) for p in root.rglob("*") if p.is_file())
            shown = listed(files, 8)
            raise Refused(
                f"{MANIFEST}: command: {program!r} is not a file of the upload{made} "
                f"(its files: {shown})"
            )
        folder = str(root.relative_to(store.folder))
        seat = seat_for(bot, manifest.command, None, folder, store.folder)
        progress("checking")
        passed, report = check(seat.command, seat.cwd, manifest.command)  # as at a table
        if not passed:
            raise Failed("refused by arena check", report)
        return store.add_version(
            bot,
            owner.id,
            command=manifest.command,
            level=None,
            folder=folder,
            fingerprint=fingerprint_of(seat),
            check_report=report,
            build_log=log,
        )
    except BaseException:
        shutil.rmtree(place, ignore_errors=True)
        raise
