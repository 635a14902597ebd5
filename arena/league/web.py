"""The league's pages and API (docs/league.md), on Starlette.

    app = make_app(store, season, check=..., viewer=..., limits=...)

Every page is a jinja2 template in `templates/`, rendered with autoescape; scripts and styles
are the files of `static/`, from this server only (`/static/…`), under a Content-Security-Policy
that allows nothing else. The rating chart is `chart`'s, the rate limits `limits`'. Owners sign in with
their token (a session cookie, HttpOnly and SameSite=Strict, holding a random session id whose
SHA-256, CSRF token and expiry are in the league's database: a restart signs nobody out);
every form carries a CSRF token tied to the session. Requests are size-capped and rate-limited
per client address.
"""

from __future__ import annotations

import hmac
import re
import time
from collections import defaultdict
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from jinja2 import Environment, FileSystemLoader, select_autoescape
from markupsafe import Markup
from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.exceptions import HTTPException
from starlette.middleware import Middleware
from starlette.middleware.base import BaseHTTPMiddleware
from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, RedirectResponse, Response
from starlette.routing import Route

from arena.league import intake
from arena.league.build import BuildSettings
from arena.league.chart import rating_chart
from arena.league.intake import DEFAULT_BUILD
from arena.league.limits import REQUEST_BYTES, RateLimit, SiteLimits
from arena.league.season import PROVISIONAL, Season, results_csv, results_of, row_json
from arena.league.store import (
    BY_OWNER,
    DISQUALIFIED,
    FINAL,
    OVER,
    PAUSED,
    REPLAYS,
    RETIRED,
    SEASON,
    MatchRow,
    Owner,
    Store,
    hide_paths,
)
from arena.league.submission import Refused, UnpackLimits, folder_bytes

CSP = (
    "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; "
    "img-src 'self'; form-action 'self'; base-uri 'none'; frame-ancestors 'none'"
)
COOKIE = "league_session"
DEFAULT_LIMITS = UnpackLimits()
DEFAULT_SITE_LIMITS = SiteLimits()
HERE = Path(__file__).parent  # templates/ (the pages, jinja2) and static/ (served as is)
STATIC = {"league.css": "text/css", "league.js": "text/javascript", "upload.js": "text/javascript"}

# What `/me?message=KEY` says: the site's own words only, never text from the URL.
MESSAGES = {
    "accepted": "Your new version was accepted: it plays from its next table.",
    "retired": "Retired. You can undo it below while it is your bot's latest version.",
    "resumed": "Resumed: it plays again from its next table.",
}
STATUS_TITLES = {
    400: "Bad request",
    401: "Not signed in",
    403: "Not allowed",
    404: "Not found",
    405: "Not allowed here",
    410: "Gone",
    413: "Too large",
    422: "Not accepted",
    429: "Too many requests",
}


def _number(value: Any) -> int:
    """A form's id field as a number (0, no such row, when it is not one)."""
    text = str(value or "")
    return int(text) if text.isdigit() and len(text) < 19 else 0


def set_cookie(response: Response, session: str, seconds: float) -> None:
    """The session's cookie: HttpOnly, SameSite=Strict, kept as long as the session lasts."""
    response.set_cookie(
        COOKIE, session, max_age=int(seconds), httponly=True, samesite="strict", path="/"
    )


def _ordinal(place: int) -> str:
    return f"{place}{'th' if 10 <= place % 100 <= 20 else {1: 'st', 2: 'nd', 3: 'rd'}.get(place % 10, 'th')}"


class Site:
    """The pages and the API of one league; `app` is the Starlette application."""

    def __init__(
        self,
        store: Store,
        season: Season,
        *,
        check: intake.Check,
        viewer: Callable[[Path, frozenset[int]], str],
        limits: UnpackLimits = DEFAULT_LIMITS,
        build_settings: BuildSettings = DEFAULT_BUILD,
        site_limits: SiteLimits = DEFAULT_SITE_LIMITS,
        sandbox: str = "auto",
        name: str = "league",
    ) -> None:
        self.build_settings, self.sandbox, self.site_limits = build_settings, sandbox, site_limits
        self.name = name  # the league's, in every page's title
        self.store, self.season, self.check, self.viewer, self.limits = (
            store,
            season,
            check,
            viewer,
            limits,
        )
        self.env = Environment(
            loader=FileSystemLoader(HERE / "templates"), autoescape=select_autoescape(default=True)
        )
        self.rates = RateLimit()
        self.files = {name: (HERE / "static" / name).read_bytes() for name in STATIC}
        self.stages: dict[int, tuple[str, float]] = {}  # an owner's upload: its stage, since

    def page(self, template: str, status: int = 200, **values: Any) -> HTMLResponse:
        page = self.env.get_template(template).render(league=self.name, **values)
        return HTMLResponse(page, status_code=status)

    def refuse(
        self, request: Request, status: int, reason: str, report: str = "", back: str = ""
    ) -> Response:
        """A refusal: JSON for the API (`{"error", "report"?}`), else a page in the site's
        layout with the reason in words (and the report, in a block that scrolls)."""
        if request.url.path.startswith("/api/"):
            body = {"error": reason} | ({"report": report} if report else {})
            return JSONResponse(body, status_code=status)
        title = STATUS_TITLES.get(status, "Not done")
        return self.page("base.html", status, title=title, reason=reason, report=report, back=back)

    def private(self, text: str) -> str:
        """What an owner reads, without the server's paths."""
        return hide_paths(text, self.store.folder)

    def bearer(self, request: Request) -> Owner | None:
        header = request.headers.get("authorization", "")
        scheme, _, token = header.strip().partition(" ")
        if scheme.lower() != "bearer" or not token.strip():
            return None
        return self.store.owner_by_token(token.strip())

    def session_of(self, request: Request) -> tuple[Owner | None, str]:
        """The signed-in owner and the session's CSRF token (a session is made if none)."""
        found = self.store.session(request.cookies.get(COOKIE))
        if found is None:
            return None, ""
        owner = self.store.owner(found[0]) if found[0] is not None else None
        return owner, found[1]

    async def form_of(self, request: Request, cap: int) -> dict[str, Any] | Response:
        """The form, after its size and CSRF token are checked."""
        if int(request.headers.get("content-length") or cap + 1) > cap:
            return self.refuse(
                request,
                413,
                f"That is more than this form takes ({cap // 1024} KiB at most).",
                back=request.headers.get("referer", "") and "/me",
            )
        form = await request.form(max_files=1, max_fields=10, max_part_size=cap)
        found = self.store.session(request.cookies.get(COOKIE))
        sent = str(form.get("csrf", ""))
        if found is None or not hmac.compare_digest(found[1], sent):
            return self.refuse(
                request,
                403,
                "This form is out of date (or your session ended): reload the page and try "
                "again (missing or wrong CSRF token).",
            )
        values: dict[str, Any] = dict(form)
        return values

    def with_session(self, response: Response, request: Request) -> tuple[Response, str]:
        found = self.store.session(request.cookies.get(COOKIE))
        if found is not None:
            return response, found[1]
        session, csrf, seconds = self.store.new_session(None)
        set_cookie(response, session, seconds)
        return response, csrf

    def phase_text(self) -> str:
        """Where the season stands, in a sentence."""
        phase = self.store.phase
        ending = self.season.ending
        if phase == SEASON:
            parts = []
            if ending.deadline is not None:
                when = datetime.fromtimestamp(ending.deadline, UTC).strftime("%Y-%m-%d %H:%M UTC")
                parts.append(f"until {when}")
            if ending.max_matches is not None:
                parts.append(f"until {ending.max_matches} matches")
            return ("The season runs " + " or ".join(parts) + ".") if parts else ""
        why = self.store.setting("ended")
        tables = self.store.final_tables()
        played = sum(len(done) for _, _, done in tables)
        total = sum(len(ids) for _, ids, _ in tables)
        if phase == FINAL:
            return (
                f"The season is over ({why}); the final phase is being played: {played} of "
                f"{total} matches. The board below is frozen at the season's end."
            )
        if tables:
            return f"The season is over ({why}); the final phase played {played} matches."
        return f"The season is over ({why})."

    def leaderboard_json(self) -> dict[str, Any]:
        rows = self.season.leaderboard()
        return {
            "league": self.name,
            "bots": [row_json(row) for row in rows],
            "matches": self.store.match_count(),
            "paused": self.store.paused,
            "phase": self.store.phase,
            "phaseText": self.phase_text(),
        }

    async def index(self, request: Request) -> Response:
        data = self.leaderboard_json()
        rows = self.season.leaderboard()
        return self.page(
            "leaderboard.html",
            title="Leaderboard",
            rows=rows,
            provisional=[row for row in rows if row.provisional],
            needs=PROVISIONAL,
            matches=data["matches"],
            paused=data["paused"],
            phase_text=data["phaseText"],
            frozen=data["phase"] != SEASON,
            projector=request.query_params.get("projector") == "1",
        )

    async def api_leaderboard(self, request: Request) -> Response:
        return JSONResponse(self.leaderboard_json())

    def results_json(self) -> dict[str, Any]:
        return results_of(self.store, self.name) | {"phaseText": self.phase_text()}

    async def results(self, request: Request) -> Response:
        rows = self.season.leaderboard()
        final = self.season.final()
        final_matches = len(self.store.matches(phase=FINAL)) if final else 0
        return self.page(
            "results.html",
            title="Results",
            over=self.store.phase == OVER,
            phase_text=self.phase_text(),
            rows=rows,
            final=final,
            final_matches=final_matches,
            deals=self.season.ending.final_deals,
            season_places={row.version_id: row.place for row in rows},
            projector=request.query_params.get("projector") == "1",
        )

    async def api_results(self, request: Request) -> Response:
        return JSONResponse(self.results_json())

    async def results_csv(self, request: Request) -> Response:
        return Response(
            results_csv(self.results_json()),
            media_type="text/csv; charset=utf-8",
            headers={"content-disposition": 'attachment; filename="results.csv"'},
        )

    async def static(self, request: Request) -> Response:
        name = request.path_params["name"]
        if name in STATIC:
            return Response(self.files[name], media_type=STATIC[name])
        return self.refuse(request, 404, f"There is no file {name!r} here.")

    async def bot_page(self, request: Request) -> Response:
        name = request.path_params["name"]
        versions = self.store.versions(bot=name)
        if not versions:
            return self.refuse(request, 404, f"There is no bot named {name!r} in this league.")
        mine = {v.id for v in versions}
        names = {v.id: v.name for v in self.store.versions()}
        opponents: dict[str, list[float]] = defaultdict(list)
        recent = []
        for match in self.store.matches():
            seats = [i for i, v in enumerate(match.versions) if v in mine]
            if not seats:
                continue
            k = len(match.places)
            for seat in seats:
                for other, v in enumerate(match.versions):
                    if other != seat:
                        a, b = match.places[seat], match.places[other]
                        opponents[names.get(v, "?")].append(
                            1.0 if a < b else 0.5 if a == b else 0.0
                        )
            finish = ", ".join(
                f"{_ordinal(match.places[s])} of {k}"
                + (" (shared)" if match.places.count(match.places[s]) > 1 else "")
                for s in seats
            )
            recent.append(
                {
                    "id": match.id,
                    "seats": ", ".join(names.get(v, "?") for v in match.versions),
                    "finish": finish,
                    "faults": sum(sum(match.faults[s].values()) for s in seats if s < k),
                }
            )
        table = sorted((o, len(s), sum(s) / len(s)) for o, s in opponents.items())
        history = self.store.history(name)
        owner = versions[-1].owner_id
        return self.page(
            "bot.html",
            title=name,
            name=name,
            owner=self.store.owner_names().get(owner, "") if owner is not None else "",
            versions=versions,
            history=history,
            chart=Markup(rating_chart(history)),
            opponents=table,
            recent=recent[-20:][::-1],
        )

    def _replay(self, request: Request, match: MatchRow) -> Path | Response:
        path = self.store.folder / REPLAYS / match.replay
        if not path.is_file():
            return self.refuse(
                request,
                410,
                f"Match {match.id} is counted, but its replay was pruned to keep the league's "
                "disk within its budget.",
            )
        return path

    async def match_page(self, request: Request) -> Response:
        match = self.store.match(_number(request.path_params["ident"]))
        if match is None:
            return self.refuse(request, 404, "There is no such match.")
        path = self._replay(request, match)
        if isinstance(path, Response):
            return path
        html = await run_in_threadpool(self.viewer, path, frozenset())  # no bot's notes here
        return viewer_page(html)

    async def my_match_page(self, request: Request) -> Response:
        """A match one of the owner's versions played, with that seat's notes beside its
        decisions (only theirs: a rival's notes are the rival's)."""
        owner, _ = self.session_of(request)
        if owner is None:
            return RedirectResponse("/login", status_code=303)
        match = self.store.match(_number(request.path_params["ident"]))
        mine = {v.id for v in self.store.versions() if v.owner_id == owner.id}
        seats = frozenset(s for s, v in enumerate(match.versions) if v in mine) if match else None
        if match is None or not seats:
            return self.refuse(request, 404, "None of your bots played a match of that number.")
        path = self._replay(request, match)
        if isinstance(path, Response):
            return path
        return viewer_page(await run_in_threadpool(self.viewer, path, seats))

    async def upload_api(self, request: Request) -> Response:
        owner = self.bearer(request)
        if owner is None:
            return JSONResponse({"error": "missing or invalid token"}, status_code=401)
        return await self._upload(request, owner, request.path_params["name"], None)

    async def _upload(
        self, request: Request, owner: Owner, bot: str, form: dict[str, Any] | None
    ) -> Response:
        """A new version from an upload: 201 with it, or a refusal (JSON for the API, the
        owner's page with the reason and report for the form). Only an accepted upload counts
        against the owner's `uploadsPerMinute`."""
        key = f"owner:{owner.id}"
        if self.rates.full(key, "upload", self.site_limits.uploads):
            return self._refused(request, owner, 429, "too many uploads: wait a minute", "")
        if self.store.phase != SEASON:
            return self._refused(
                request, owner, 422, "the season is over: no new versions are taken", ""
            )
        cap = self.limits.archive_bytes + (64 << 10)
        too_big = f"archive over {self.limits.archive_bytes} bytes"
        if form is None:
            if int(request.headers.get("content-length") or cap + 1) > cap:
                return self._refused(request, owner, 413, too_big, "")
            form = dict(await request.form(max_files=1, max_fields=4, max_part_size=cap))
        archive = form.get("archive")
        if archive is None or isinstance(archive, str):
            return self._refused(request, owner, 422, "no multipart field 'archive'", "")
        data = await archive.read(self.limits.archive_bytes + 1)
        if len(data) > self.limits.archive_bytes:
            return self._refused(request, owner, 413, too_big, "")

        def progress(stage: str) -> None:
            self.stages[owner.id] = (stage, time.monotonic())

        try:
            version = await run_in_threadpool(
                intake.submit,
                self.store,
                bot,
                owner,
                data,
                self.check,
                self.limits,
                self.build_settings,
                self.sandbox,
                progress,
            )
        except intake.Forbidden as error:
            return self._refused(request, owner, 403, str(error), "")
        except intake.Failed as error:
            return self._refused(request, owner, 422, str(error), error.report)
        except Refused as error:
            return self._refused(request, owner, 422, str(error), "")
        finally:
            self.stages.pop(owner.id, None)
        self.rates.count(key, "upload")
        await run_in_threadpool(self.season.refresh)  # on the leaderboard at once
        if not request.url.path.startswith("/api/"):
            return RedirectResponse("/me?message=accepted", status_code=303)
        body = {"name": version.bot, "version": version.number, "fingerprint": version.fingerprint}
        return JSONResponse(body, status_code=201)

    def _refused(
        self, request: Request, owner: Owner, status: int, reason: str, report: str
    ) -> Response:
        report = self.private(report)
        if request.url.path.startswith("/api/"):
            return self.refuse(request, status, reason, report)
        _, csrf = self.session_of(request)
        return self._me_page(owner, csrf, "", status, refused=(f"{reason}.", report))

    async def login(self, request: Request) -> Response:
        if request.method == "GET":
            response, csrf = self.with_session(HTMLResponse(""), request)
            result = self.page("login.html", title="Sign in", csrf=csrf, error="")
            result.raw_headers += [h for h in response.raw_headers if h[0] == b"set-cookie"]
            return result
        form = await self.form_of(request, REQUEST_BYTES)
        if isinstance(form, Response):
            return form
        owner = self.store.owner_by_token(str(form.get("token", "")).strip())
        if owner is None:
            _, csrf = self.session_of(request)
            return self.page(
                "login.html", 401, title="Sign in", csrf=csrf, error="That token is not valid."
            )
        old = request.cookies.get(COOKIE)
        if old:
            self.store.end_session(old)  # a new session id on signing in (no fixation)
        session, _, seconds = self.store.new_session(owner.id)
        response = RedirectResponse("/organiser" if owner.organiser else "/me", status_code=303)
        set_cookie(response, session, seconds)
        return response

    async def logout(self, request: Request) -> Response:
        form = await self.form_of(request, REQUEST_BYTES)
        if isinstance(form, Response):
            return form
        self.store.end_session(request.cookies.get(COOKIE, ""))
        response = RedirectResponse("/login", status_code=303)
        response.delete_cookie(COOKIE, path="/")
        return response

    async def me_progress(self, request: Request) -> Response:
        """Where the signed-in owner's upload is: `{"stage", "text", "seconds"}` (stage null:
        none running). The upload form's script polls it while the upload's answer is awaited."""
        owner, _ = self.session_of(request)
        if owner is None:
            return JSONResponse({"error": "not signed in"}, status_code=401)
        stage, since = self.stages.get(owner.id, ("", time.monotonic()))
        return JSONResponse(
            {
                "stage": stage or None,
                "text": intake.STAGES.get(stage, ""),
                "seconds": round(time.monotonic() - since),
            }
        )

    async def me(self, request: Request) -> Response:
        owner, csrf = self.session_of(request)
        if owner is None:
            return RedirectResponse("/login", status_code=303)
        message = MESSAGES.get(request.query_params.get("message", ""), "")
        return self._me_page(owner, csrf, message)

    def _me_page(
        self,
        owner: Owner,
        csrf: str,
        message: str,
        status: int = 200,
        refused: tuple[str, str] | None = None,
    ) -> Response:
        versions = [v for v in self.store.versions() if v.owner_id == owner.id]
        ids = {v.id for v in versions}
        logs: dict[int, list[tuple[int, int, str]]] = {v.id: [] for v in versions}
        recent = self.store.latest_matches(200)
        for match in recent:
            for seat, version in enumerate(match.versions):
                if version in ids and (log := self.store.stderr(match, seat)):
                    logs[version].append((match.id, seat, self.private(log)))
        played = [m for m in recent if ids & set(m.versions)][-10:][::-1]
        reports = {
            v.id: tuple(self.private(text) for text in self.store.reports(v.id)) for v in versions
        }
        newest = {v.bot: v for v in versions}  # (in order: each bot's latest last)
        resumable = {
            v.id
            for v in newest.values()
            if v.state == PAUSED or (v.state == RETIRED and self.store.ruled_by(v.id) == BY_OWNER)
        }
        return self.page(
            "me.html",
            status,
            title="My bots",
            owner=owner,
            versions=versions,
            csrf=csrf,
            signed_out=csrf,
            reports=reports,
            logs={k: v[-5:][::-1] for k, v in logs.items()},
            played=played,
            message=message,
            refused=refused,
            resumable=resumable,
            open=self.store.phase == SEASON,
        )

    async def me_upload(self, request: Request) -> Response:
        owner, _csrf = self.session_of(request)
        if owner is None:
            return RedirectResponse("/login", status_code=303)
        form = await self.form_of(request, self.limits.archive_bytes + (64 << 10))
        if isinstance(form, Response):
            if form.status_code == 413:
                return self._refused(
                    request, owner, 413, f"archive over {self.limits.archive_bytes} bytes", ""
                )
            return form
        return await self._upload(request, owner, str(form.get("bot", "")).strip(), form)

    async def _owners_form(self, request: Request) -> tuple[Owner, dict[str, Any]] | Response:
        """The signed-in owner and their small form (CSRF checked), or the answer instead."""
        owner, _ = self.session_of(request)
        if owner is None:
            return RedirectResponse("/login", status_code=303)
        form = await self.form_of(request, REQUEST_BYTES)
        return form if isinstance(form, Response) else (owner, form)

    async def me_retire(self, request: Request) -> Response:
        signed = await self._owners_form(request)
        if isinstance(signed, Response):
            return signed
        owner, form = signed
        bot = str(form.get("bot", ""))
        exists, owner_id = self.store.bot_owner(bot)
        if not exists or owner_id != owner.id:
            return self.refuse(request, 403, f"{bot!r} is not one of your bots.", back="/me")
        self.store.retire_bot(bot, by=BY_OWNER, note="retired by its owner")
        self.season.refresh()
        return RedirectResponse("/me?message=retired", status_code=303)

    async def me_resume(self, request: Request) -> Response:
        """The owner's own paused version back to active, or their own retirement undone (a
        retirement by the organiser, or a disqualification, is the organiser's)."""
        signed = await self._owners_form(request)
        if isinstance(signed, Response):
            return signed
        owner, form = signed
        version = self.store.version(_number(form.get("version")))
        if version is None or version.owner_id != owner.id:
            return self.refuse(request, 403, "That version is not one of your bots'.", back="/me")
        problem = self.store.resume(version.id, states=(PAUSED, RETIRED), owner=True)
        if problem is not None:
            return self.refuse(request, 422, f"Not resumed: {problem}.", back="/me")
        self.season.refresh()
        return RedirectResponse("/me?message=resumed", status_code=303)

    async def organiser(self, request: Request) -> Response:
        owner, csrf = self.session_of(request)
        if owner is None or not owner.organiser:
            return RedirectResponse("/login", status_code=303)
        versions = self.store.versions()
        disk = sum(folder_bytes(self.store.folder / v.folder) for v in versions if v.folder)
        owners = {ident: name for ident, name in self.store.owner_names().items()}
        return self.page(
            "organiser.html",
            title="Organiser",
            csrf=csrf,
            signed_out=csrf,
            paused=self.store.paused,
            versions=versions,
            owners=owners,
            disk=disk,
            phase_text=self.phase_text(),
        )

    async def organiser_post(self, request: Request) -> Response:
        owner, csrf = self.session_of(request)
        if owner is None or not owner.organiser:
            return self.refuse(request, 403, "Only the organiser does that: sign in as them.")
        form = await self.form_of(request, REQUEST_BYTES)
        if isinstance(form, Response):
            return form
        action = request.path_params["action"]
        if action == "pause":
            self.store.pause(str(form.get("paused")) == "1")
            return RedirectResponse("/organiser", status_code=303)
        if action != "state":
            return self.refuse(request, 404, "There is no such action.")
        state = str(form.get("state"))
        version = self.store.version(_number(form.get("version")))
        if version is None:
            return self.refuse(request, 404, "There is no such version.", back="/organiser")
        if state == "active":  # a paused or retired version back (never a disqualified one)
            problem = self.store.resume(version.id)
            if problem is not None:
                return self.refuse(request, 422, f"Not resumed: {problem}.", back="/organiser")
        elif state in (RETIRED, DISQUALIFIED):
            reason = " ".join(str(form.get("reason", "")).split())[:300]
            if not reason:
                return self.refuse(
                    request,
                    422,
                    f"Give a reason to {state[:-1]} {version.name}: its owner reads it.",
                    back="/organiser",
                )
            if str(form.get("confirm")) != "1":
                verb = "Disqualify" if state == DISQUALIFIED else "Retire"
                undo = (
                    "A disqualified version stays disqualified (its owner may submit a new one)."
                    if state == DISQUALIFIED
                    else "You can resume it later."
                )
                return self.page(
                    "confirm.html",
                    title=f"{verb} {version.bot} v{version.number}",
                    question=f"{verb} {version.bot} v{version.number}? {undo}",
                    reason=reason,
                    csrf=csrf,
                    version=version.id,
                    state=state,
                )
            self.store.set_state(version.id, state, f"{state} by the organiser: {reason}")
        else:
            return self.refuse(request, 422, "state: active, retired or disqualified")
        self.season.refresh()
        return RedirectResponse("/organiser", status_code=303)

    async def not_found(self, request: Request, error: Exception) -> Response:
        status = getattr(error, "status_code", 500)
        detail = {404: "There is no page at this address.", 405: "That is not done here."}
        return self.refuse(request, status, detail.get(status, str(getattr(error, "detail", ""))))

    async def guard(self, request: Request, call_next: Any) -> Response:
        client = request.client.host if request.client else "?"
        if not self.rates.allow(client, "any", self.site_limits.requests):
            return self.refuse(request, 429, "too many requests: wait a minute")
        response: Response = await call_next(request)
        # A match's page carries the viewer's own policy (`viewer_page`): one policy only.
        if "content-security-policy" not in response.headers:
            response.headers["content-security-policy"] = CSP
        response.headers["x-content-type-options"] = "nosniff"
        response.headers["referrer-policy"] = "no-referrer"
        return response

    def app(self) -> Starlette:
        routes = [
            Route("/", self.index),
            Route("/results", self.results),
            Route("/results.csv", self.results_csv),
            Route("/api/leaderboard", self.api_leaderboard),
            Route("/api/results", self.api_results),
            Route("/api/bots/{name:path}/versions", self.upload_api, methods=["POST"]),
            Route("/static/{name}", self.static),
            Route("/bots/{name:path}", self.bot_page),
            Route("/matches/{ident}", self.match_page),
            Route("/login", self.login, methods=["GET", "POST"]),
            Route("/logout", self.logout, methods=["POST"]),
            Route("/me", self.me),
            Route("/me/upload", self.me_upload, methods=["POST"]),
            Route("/me/progress", self.me_progress),
            Route("/me/retire", self.me_retire, methods=["POST"]),
            Route("/me/resume", self.me_resume, methods=["POST"]),
            Route("/me/matches/{ident}", self.my_match_page),
            Route("/organiser", self.organiser),
            Route("/organiser/{action}", self.organiser_post, methods=["POST"]),
        ]
        return Starlette(
            routes=routes,
            middleware=[Middleware(BaseHTTPMiddleware, dispatch=self.guard)],
            exception_handlers={HTTPException: self.not_found},
        )


_META_CSP = re.compile(
    r'<meta http-equiv="Content-Security-Policy" content="([^"]*)"', re.IGNORECASE
)


def viewer_page(html: str) -> HTMLResponse:
    """The replay viewer's page under its own policy (hashes of its inline script and style,
    from its meta tag) sent as the header too: a second, stricter header policy would be
    enforced beside it and refuse the viewer's script (the owner's page was blank)."""
    found = _META_CSP.search(html)
    response = HTMLResponse(html)
    response.headers["content-security-policy"] = (
        found.group(1).replace("&#39;", "'").replace("&quot;", '"') if found else CSP
    )
    return response


def make_app(
    store: Store,
    season: Season,
    *,
    check: intake.Check,
    viewer: Callable[[Path, frozenset[int]], str],
    limits: UnpackLimits = DEFAULT_LIMITS,
    build_settings: BuildSettings = DEFAULT_BUILD,
    site_limits: SiteLimits = DEFAULT_SITE_LIMITS,
    sandbox: str = "auto",
    name: str = "league",
) -> Starlette:
    site = Site(
        store,
        season,
        check=check,
        viewer=viewer,
        limits=limits,
        build_settings=build_settings,
        site_limits=site_limits,
        sandbox=sandbox,
        name=name,
    )
    return site.app()
