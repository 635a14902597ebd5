"""The site's limits per client address: how many requests and uploads a minute.

    rates = RateLimit()
    if not rates.allow(client, "any", SiteLimits().requests): ...  # answer 429

`SiteLimits` is `[league] requestsPerMinute` and `uploadsPerMinute` (docs/league.md);
`RateLimit` counts over the last minute, per client and kind, behind one lock; the size cap of
a request but an upload is `REQUEST_BYTES`.
"""

from __future__ import annotations

import threading
import time
from collections import defaultdict, deque
from dataclasses import dataclass

REQUEST_BYTES = 64 << 10  # any request but an upload


@dataclass(frozen=True)
class SiteLimits:
    """Requests per client address a minute (`[league] requestsPerMinute`, `uploadsPerMinute`).
    The leaderboard polls once a second; a class behind one address shares both."""

    requests: int = 600
    uploads: int = 10


class RateLimit:
    """What each client did in the last minute, per kind ("any", "upload")."""

    def __init__(self) -> None:
        self.seen: dict[tuple[str, str], deque[float]] = defaultdict(deque)
        self.lock = threading.Lock()

    def _recent(self, client: str, kind: str) -> deque[float]:
        times = self.seen[client, kind]
        while times and times[0] < time.monotonic() - 60:
            times.popleft()
        return times

    def allow(self, client: str, kind: str, limit: int) -> bool:
        """Whether one more is allowed (and, if so, it is counted)."""
        with self.lock:
            times = self._recent(client, kind)
            if len(times) >= limit:
                return False
            times.append(time.monotonic())
            return True

    def full(self, client: str, kind: str, limit: int) -> bool:
        """Whether `limit` were counted in the last minute (nothing counted here)."""
        with self.lock:
            return len(self._recent(client, kind)) >= limit

    def count(self, client: str, kind: str) -> None:
        with self.lock:
            self._recent(client, kind).append(time.monotonic())
