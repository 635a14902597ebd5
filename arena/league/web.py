"""The league's pages and API (docs/league.md), on Starlette.

    app = make_app(store, season, check=..., viewer=..., limits=...)

Every page is rendered by jinja2 with autoescape; scripts and styles come from this server only
(`/static/…`) under a Content-Security-Policy that allows nothing else. Owners sign in with
their token (a session cookie, HttpOnly and SameSite=Strict, holding a random session id whose
SHA-256, CSRF token and expiry are in the league's database: a restart signs nobody out);
every form carries a CSRF token tied to the session. Requests are size-capped and rate-limited
per client address.
"""

from __future__ import annotations

import hmac
import threading
import time
from collections import defaultdict, deque
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from jinja2 import DictLoader, Environment, select_autoescape
from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.middleware import Middleware
from starlette.middleware.base import BaseHTTPMiddleware
from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, RedirectResponse, Response
from starlette.routing import Route

from arena.league import intake
from arena.league.build import BuildSettings
from arena.league.intake import DEFAULT_BUILD
from arena.league.season import Season
from arena.league.store import REPLAYS, Owner, Store
from arena.league.submission import Refused, UnpackLimits

CSP = (
    "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; "
    "img-src 'self'; form-action 'self'; base-uri 'none'; frame-ancestors 'none'"
)
REQUEST_BYTES = 64 << 10  # any request but an upload
COOKIE = "league_session"
DEFAULT_LIMITS = UnpackLimits()

_STYLE = """
body{font:16px/1.4 system-ui,sans-serif;margin:0 auto;max-width:60rem;padding:1rem;color:#111}
table{border-collapse:collapse;width:100%}th,td{text-align:left;padding:.3rem .5rem;border-bottom:1px solid #ccc}
td.n{text-align:right;font-variant-numeric:tabular-nums}
a:focus,button:focus,input:focus{outline:3px solid #1a5fb4}
pre{white-space:pre-wrap;overflow-wrap:anywhere;background:#f4f4f4;padding:.5rem}
nav a{margin-right:1rem}
@media (max-width:40rem){body{font-size:15px;padding:.5rem}th,td{padding:.2rem}}
"""

_SCRIPT = """
"use strict";
const board = document.getElementById("board");
const count = document.getElementById("matches");
let last = -1;
function cell(row, text, numeric) {
  const td = document.createElement("td");
  td.textContent = text;
  if (numeric) td.className = "n";
  row.appendChild(td);
  return td;
}
async function poll() {
  try {
    const response = await fetch("/api/leaderboard", {cache: "no-store"});
    const data = await response.json();
    if (data.matches !== last) {
      last = data.matches;
      count.textContent = String(data.matches);
      const body = document.createElement("tbody");
      for (const bot of data.bots) {
        const row = document.createElement("tr");
        cell(row, bot.place);
        const link = document.createElement("a");
        link.href = "/bots/" + encodeURIComponent(bot.name);
        link.textContent = bot.name;
        cell(row, "").appendChild(link);
        cell(row, "v" + bot.version);
        cell(row, bot.rating.toFixed(0), true);
        cell(row, "±" + bot.interval.toFixed(0), true);
        cell(row, String(bot.matches), true);
        body.appendChild(row);
      }
      board.replaceChild(body, board.tBodies[0]);
    }
  } catch (error) { /* the server restarts: try again */ }
  setTimeout(poll, 1000);
}
poll();
"""

_BASE = """<!doctype html><html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width,initial-scale=1">
<title>{{ title }} · {{ league }}</title><link rel="stylesheet" href="/static/league.css"></head>
<body><nav><a href="/">Leaderboard</a><a href="/me">My bots</a><a href="/organiser">Organiser</a></nav>
<main>{% block main %}<h1>{{ title }}</h1>{% endblock %}</main></body></html>"""

TEMPLATES = {
    "base.html": _BASE,
    "leaderboard.html": """{% extends "base.html" %}{% block main %}
<h1>Leaderboard</h1>{% if paused %}<p><strong>The league is paused.</strong></p>{% endif %}
<p><span id="matches">{{ matches }}</span> matches played.</p>
<table id="board"><thead><tr><th>Place</th><th>Bot</th><th>Version</th><th>Rating</th>
<th>±</th><th>Matches</th></tr></thead><tbody>
{% for row in rows %}<tr><td>{{ row.place }}</td><td><a href="/bots/{{ row.name }}">{{ row.name }}</a></td>
<td>v{{ row.version }}</td><td class="n">{{ "%.0f"|format(row.rating) }}</td>
<td class="n">±{{ "%.0f"|format(row.interval) }}</td><td class="n">{{ row.matches }}</td></tr>{% endfor %}
</tbody></table><script src="/static/league.js"></script>{% endblock %}""",
    "bot.html": """{% extends "base.html" %}{% block main %}<h1>{{ name }}</h1>
<h2>Versions</h2><table><tr><th>Version</th><th>State</th><th>Fingerprint</th><th>Note</th></tr>
{% for v in versions %}<tr><td>v{{ v.number }}</td><td>{{ v.state }}</td><td><code>{{ v.fingerprint[:12] }}</code></td><td>{{ v.note }}</td></tr>{% endfor %}</table>
<h2>Rating over time</h2><table><tr><th>Version</th><th>Matches</th><th>Rating</th><th>±</th></tr>
{% for h in history %}<tr><td>v{{ h[0] }}</td><td class="n">{{ h[1] }}</td><td class="n">{{ "%.0f"|format(h[2]) }}</td><td class="n">±{{ "%.0f"|format(h[3]) }}</td></tr>{% endfor %}</table>
<h2>Against each opponent</h2><table><tr><th>Opponent</th><th>Matches</th><th>Share</th></tr>
{% for o in opponents %}<tr><td>{{ o[0] }}</td><td class="n">{{ o[1] }}</td><td class="n">{{ "%.2f"|format(o[2]) }}</td></tr>{% endfor %}</table>
<h2>Recent matches</h2><table><tr><th>Match</th><th>Seats</th><th>Places</th><th>Faults</th></tr>
{% for m in recent %}<tr><td><a href="/matches/{{ m.id }}">#{{ m.id }}</a></td><td>{{ m.seats }}</td><td>{{ m.places }}</td><td>{{ m.faults }}</td></tr>{% endfor %}</table>
{% endblock %}""",
    "login.html": """{% extends "base.html" %}{% block main %}<h1>Sign in</h1>
{% if error %}<p role="alert">{{ error }}</p>{% endif %}
<form method="post" action="/login"><input type="hidden" name="csrf" value="{{ csrf }}">
<label>Token <input name="token" type="password" autocomplete="off" required></label>
<button>Sign in</button></form>{% endblock %}""",
    "me.html": """{% extends "base.html" %}{% block main %}<h1>{{ owner.name }}'s bots</h1>
{% if message %}<p role="status">{{ message }}</p>{% endif %}
<form method="post" action="/me/upload" enctype="multipart/form-data">
<input type="hidden" name="csrf" value="{{ csrf }}"><label>Bot <input name="bot" required></label>
<label>Archive (.tar.gz or .zip) <input type="file" name="archive" required></label><button>Submit</button></form>
{% for v in versions %}<section><h2>{{ v.bot }} v{{ v.number }} — {{ v.state }}</h2>
{% if v.note %}<p>{{ v.note }}</p>{% endif %}
{% if v.state == "active" %}<form method="post" action="/me/retire"><input type="hidden" name="csrf" value="{{ csrf }}">
<input type="hidden" name="bot" value="{{ v.bot }}"><button>Retire {{ v.bot }}</button></form>{% endif %}
{% if v.state == "paused" %}<form method="post" action="/me/resume"><input type="hidden" name="csrf" value="{{ csrf }}">
<input type="hidden" name="version" value="{{ v.id }}"><button>Resume {{ v.bot }} v{{ v.number }}</button></form>{% endif %}
<h3>Check report</h3><pre>{{ reports[v.id][0] }}</pre>
{% if reports[v.id][1] %}<h3>Build log</h3><pre>{{ reports[v.id][1] }}</pre>{% endif %}
<h3>Stderr of recent matches</h3>{% for log in logs[v.id] %}<pre>{{ log }}</pre>{% endfor %}</section>{% endfor %}
{% if played %}<h2>Recent matches, with your bots' notes beside each decision</h2><ul>
{% for m in played %}<li><a href="/me/matches/{{ m.id }}">match {{ m.id }}</a> ({{ m.outcome }})</li>{% endfor %}</ul>{% endif %}
{% endblock %}""",
    "organiser.html": """{% extends "base.html" %}{% block main %}<h1>Organiser</h1>
<form method="post" action="/organiser/pause"><input type="hidden" name="csrf" value="{{ csrf }}">
<input type="hidden" name="paused" value="{{ 0 if paused else 1 }}"><button>{{ "Resume" if paused else "Pause" }} the league</button></form>
<p>Disk: {{ disk }} bytes in version folders.</p>
<table><tr><th>Version</th><th>State</th><th></th></tr>{% for v in versions %}<tr><td>{{ v.name }}</td><td>{{ v.state }}</td>
<td>{% if v.state in ("active", "paused") %}<form method="post" action="/organiser/state"><input type="hidden" name="csrf" value="{{ csrf }}">
<input type="hidden" name="version" value="{{ v.id }}"><button name="state" value="retired">Retire</button>
<button name="state" value="disqualified">Disqualify</button></form>{% endif %}
{% if v.state in ("paused", "retired") %}<form method="post" action="/organiser/state"><input type="hidden" name="csrf" value="{{ csrf }}">
<input type="hidden" name="version" value="{{ v.id }}"><button name="state" value="active">Resume</button></form>{% endif %}</td></tr>{% endfor %}</table>
{% endblock %}""",
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


@dataclass(frozen=True)
class SiteLimits:
    """Requests per client address a minute (`[league] requestsPerMinute`, `uploadsPerMinute`).
    The leaderboard polls once a second; a class behind one address shares both."""

    requests: int = 600
    uploads: int = 10


class _RateLimit:
    def __init__(self) -> None:
        self.seen: dict[tuple[str, str], deque[float]] = defaultdict(deque)
        self.lock = threading.Lock()

    def allow(self, client: str, kind: str, limit: int) -> bool:
        now = time.monotonic()
        with self.lock:
            times = self.seen[client, kind]
            while times and times[0] < now - 60:
                times.popleft()
            if len(times) >= limit:
                return False
            times.append(now)
            return True


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
        site_limits: SiteLimits = SiteLimits(),
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
            loader=DictLoader(TEMPLATES), autoescape=select_autoescape(default=True)
        )
        self.rates = _RateLimit()

    def page(self, template: str, status: int = 200, **values: Any) -> HTMLResponse:
        page = self.env.get_template(template).render(league=self.name, **values)
        return HTMLResponse(page, status_code=status)

    def bearer(self, request: Request) -> Owner | None:
        header = request.headers.get("authorization", "")
        scheme, _, token = header.partition(" ")
        if scheme.lower() != "bearer" or not token:
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
            return JSONResponse({"error": f"request over {cap} bytes"}, status_code=413)
        form = await request.form(max_files=1, max_fields=10, max_part_size=cap)
        found = self.store.session(request.cookies.get(COOKIE))
        sent = str(form.get("csrf", ""))
        if found is None or not hmac.compare_digest(found[1], sent):
            return JSONResponse({"error": "missing or wrong CSRF token"}, status_code=403)
        values: dict[str, Any] = dict(form)
        return values

    def with_session(self, response: Response, request: Request) -> tuple[Response, str]:
        found = self.store.session(request.cookies.get(COOKIE))
        if found is not None:
            return response, found[1]
        session, csrf, seconds = self.store.new_session(None)
        set_cookie(response, session, seconds)
        return response, csrf

    def leaderboard_json(self) -> dict[str, Any]:
        rows = self.season.leaderboard()
        return {
            "bots": [
                {
                    "name": row.name,
                    "version": row.version,
                    "rating": row.rating,
                    "interval": row.interval,
                    "matches": row.matches,
                    "place": row.place,
                }
                for row in rows
            ],
            "matches": self.store.match_count(),
            "paused": self.store.paused,
        }

    async def index(self, request: Request) -> Response:
        data = self.leaderboard_json()
        return self.page(
            "leaderboard.html",
            title="Leaderboard",
            rows=data["bots"],
            matches=data["matches"],
            paused=data["paused"],
        )

    async def api_leaderboard(self, request: Request) -> Response:
        return JSONResponse(self.leaderboard_json())

    async def static(self, request: Request) -> Response:
        name = request.path_params["name"]
        if name == "league.js":
            return Response(_SCRIPT, media_type="text/javascript")
        if name == "league.css":
            return Response(_STYLE, media_type="text/css")
        return Response("not found", status_code=404)

    async def bot_page(self, request: Request) -> Response:
        name = request.path_params["name"]
        versions = self.store.versions(bot=name)
        if not versions:
            return self.page("base.html", 404, title="no such bot")
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
            recent.append(
                {
                    "id": match.id,
                    "seats": ", ".join(names.get(v, "?") for v in match.versions),
                    "places": " ".join(map(str, match.places)),
                    "faults": sum(sum(match.faults[s].values()) for s in seats if s < k),
                }
            )
        table = sorted((o, len(s), sum(s) / len(s)) for o, s in opponents.items())
        return self.page(
            "bot.html",
            title=name,
            name=name,
            versions=versions,
            history=self.store.history(name),
            opponents=table,
            recent=recent[-20:][::-1],
        )

    async def match_page(self, request: Request) -> Response:
        try:
            match = self.store.match(int(request.path_params["ident"]))
        except ValueError:
            match = None
        if match is None:
            return self.page("base.html", 404, title="no such match")
        path = self.store.folder / REPLAYS / match.replay
        html = await run_in_threadpool(self.viewer, path, frozenset())  # no bot's notes here
        # The viewer's page carries its own strict CSP (hashes of its inline script and style).
        return HTMLResponse(html)

    async def my_match_page(self, request: Request) -> Response:
        """A match one of the owner's versions played, with that seat's notes beside its
        decisions (only theirs: a rival's notes are the rival's)."""
        owner, _ = self.session_of(request)
        if owner is None:
            return RedirectResponse("/login", status_code=303)
        try:
            match = self.store.match(int(request.path_params["ident"]))
        except ValueError:
            match = None
        mine = {v.id for v in self.store.versions() if v.owner_id == owner.id}
        seats = frozenset(s for s, v in enumerate(match.versions) if v in mine) if match else None
        if match is None or not seats:
            return self.page("base.html", 404, title="no such match of yours")
        path = self.store.folder / REPLAYS / match.replay
        return HTMLResponse(await run_in_threadpool(self.viewer, path, seats))

    async def upload_api(self, request: Request) -> Response:
        client = request.client.host if request.client else "?"
        if not self.rates.allow(client, "upload", self.site_limits.uploads):
            return JSONResponse({"error": "too many uploads: wait a minute"}, status_code=429)
        owner = self.bearer(request)
        if owner is None:
            return JSONResponse({"error": "missing or invalid token"}, status_code=401)
        return await self._upload(request, owner, request.path_params["name"], None)

    async def _upload(
        self, request: Request, owner: Owner, bot: str, form: dict[str, Any] | None
    ) -> Response:
        cap = self.limits.archive_bytes + (64 << 10)
        if form is None:
            if int(request.headers.get("content-length") or cap + 1) > cap:
                return JSONResponse(
                    {"error": f"archive over {self.limits.archive_bytes} bytes"}, status_code=413
                )
            form = dict(await request.form(max_files=1, max_fields=4, max_part_size=cap))
        archive = form.get("archive")
        if archive is None or isinstance(archive, str):
            return JSONResponse({"error": "no multipart field 'archive'"}, status_code=422)
        data = await archive.read(self.limits.archive_bytes + 1)
        if len(data) > self.limits.archive_bytes:
            return JSONResponse(
                {"error": f"archive over {self.limits.archive_bytes} bytes"}, status_code=413
            )
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
            )
        except intake.Forbidden as error:
            return JSONResponse({"error": str(error)}, status_code=403)
        except intake.Failed as error:
            return JSONResponse({"error": str(error), "report": error.report}, status_code=422)
        except Refused as error:
            return JSONResponse({"error": str(error)}, status_code=422)
        await run_in_threadpool(self.season.refresh)  # on the leaderboard at once
        body = {"name": version.bot, "version": version.number, "fingerprint": version.fingerprint}
        return JSONResponse(body, status_code=201)

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

    async def me(self, request: Request) -> Response:
        owner, csrf = self.session_of(request)
        if owner is None:
            return RedirectResponse("/login", status_code=303)
        return self._me_page(owner, csrf, request.query_params.get("message", ""))

    def _me_page(self, owner: Owner, csrf: str, message: str, status: int = 200) -> Response:
        versions = [v for v in self.store.versions() if v.owner_id == owner.id]
        ids = {v.id for v in versions}
        logs: dict[int, list[str]] = {v.id: [] for v in versions}
        recent = self.store.latest_matches(200)
        for match in recent:
            for seat, version in enumerate(match.versions):
                if version in ids and (log := self.store.stderr(match, seat)):
                    logs[version].append(log)
        played = [m for m in recent if ids & set(m.versions)][-10:][::-1]
        reports = {v.id: self.store.reports(v.id) for v in versions}
        return self.page(
            "me.html",
            status,
            title="My bots",
            owner=owner,
            versions=versions,
            csrf=csrf,
            reports=reports,
            logs={k: v[-5:] for k, v in logs.items()},
            played=played,
            message=message,
        )

    async def me_upload(self, request: Request) -> Response:
        owner, csrf = self.session_of(request)
        if owner is None:
            return RedirectResponse("/login", status_code=303)
        client = request.client.host if request.client else "?"
        if not self.rates.allow(client, "upload", self.site_limits.uploads):
            return JSONResponse({"error": "too many uploads: wait a minute"}, status_code=429)
        form = await self.form_of(request, self.limits.archive_bytes + (64 << 10))
        if isinstance(form, Response):
            return form
        response = await self._upload(request, owner, str(form.get("bot", "")), form)
        if response.status_code == 201:
            return RedirectResponse("/me?message=accepted", status_code=303)
        return self._me_page(owner, csrf, bytes(response.body).decode(), response.status_code)

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
            return JSONResponse({"error": "not your bot"}, status_code=403)
        self.store.retire_bot(bot)
        self.season.refresh()
        return RedirectResponse("/me?message=retired", status_code=303)

    async def me_resume(self, request: Request) -> Response:
        """The owner's own paused version back to active (a retired or disqualified one is the
        organiser's to rule on)."""
        signed = await self._owners_form(request)
        if isinstance(signed, Response):
            return signed
        owner, form = signed
        version = self.store.version(_number(form.get("version")))
        if version is None or version.owner_id != owner.id:
            return JSONResponse({"error": "not your bot"}, status_code=403)
        problem = self.store.resume(version.id, states=("paused",))
        if problem is not None:
            return JSONResponse({"error": problem}, status_code=422)
        self.season.refresh()
        return RedirectResponse("/me?message=resumed", status_code=303)

    async def organiser(self, request: Request) -> Response:
        owner, csrf = self.session_of(request)
        if owner is None or not owner.organiser:
            return RedirectResponse("/login", status_code=303)
        versions = self.store.versions()
        from arena.league.submission import folder_bytes

        disk = sum(folder_bytes(self.store.folder / v.folder) for v in versions if v.folder)
        return self.page(
            "organiser.html",
            title="Organiser",
            csrf=csrf,
            paused=self.store.paused,
            versions=versions,
            disk=disk,
        )

    async def organiser_post(self, request: Request) -> Response:
        owner, _ = self.session_of(request)
        if owner is None or not owner.organiser:
            return JSONResponse({"error": "organiser only"}, status_code=403)
        form = await self.form_of(request, REQUEST_BYTES)
        if isinstance(form, Response):
            return form
        if request.path_params["action"] == "pause":
            self.store.pause(str(form.get("paused")) == "1")
        else:
            state = str(form.get("state"))
            version = _number(form.get("version"))
            if state == "active":  # a paused or retired version back (never a disqualified one)
                problem = self.store.resume(version)
                if problem is not None:
                    return JSONResponse({"error": problem}, status_code=422)
            elif state in ("retired", "disqualified"):
                self.store.set_state(version, state, f"{state} by the organiser")
            else:
                return JSONResponse(
                    {"error": "state: active, retired or disqualified"}, status_code=422
                )
            self.season.refresh()
        return RedirectResponse("/organiser", status_code=303)

    async def guard(self, request: Request, call_next: Any) -> Response:
        client = request.client.host if request.client else "?"
        if not self.rates.allow(client, "any", self.site_limits.requests):
            return JSONResponse({"error": "too many requests: wait a minute"}, status_code=429)
        response: Response = await call_next(request)
        if not request.url.path.startswith("/matches/"):
            response.headers["content-security-policy"] = CSP
        response.headers["x-content-type-options"] = "nosniff"
        response.headers["referrer-policy"] = "no-referrer"
        return response

    def app(self) -> Starlette:
        routes = [
            Route("/", self.index),
            Route("/api/leaderboard", self.api_leaderboard),
            Route("/api/bots/{name}/versions", self.upload_api, methods=["POST"]),
            Route("/static/{name}", self.static),
            Route("/bots/{name}", self.bot_page),
            Route("/matches/{ident}", self.match_page),
            Route("/login", self.login, methods=["GET", "POST"]),
            Route("/me", self.me),
            Route("/me/upload", self.me_upload, methods=["POST"]),
            Route("/me/retire", self.me_retire, methods=["POST"]),
            Route("/me/resume", self.me_resume, methods=["POST"]),
            Route("/me/matches/{ident}", self.my_match_page),
            Route("/organiser", self.organiser),
            Route("/organiser/{action}", self.organiser_post, methods=["POST"]),
        ]
        return Starlette(
            routes=routes, middleware=[Middleware(BaseHTTPMiddleware, dispatch=self.guard)]
        )


def make_app(
    store: Store,
    season: Season,
    *,
    check: intake.Check,
    viewer: Callable[[Path, frozenset[int]], str],
    limits: UnpackLimits = DEFAULT_LIMITS,
    build_settings: BuildSettings = DEFAULT_BUILD,
    site_limits: SiteLimits = SiteLimits(),
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
