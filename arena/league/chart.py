"""A bot's rating over its matches, drawn as an inline SVG for its page (docs/league.md).

    svg = rating_chart(store.history(name))  # "" when there is no rating yet

No script and no style attribute: the site's Content-Security-Policy allows neither.
"""

from __future__ import annotations

from collections.abc import Sequence


def rating_chart(history: Sequence[tuple[int, int, float, float, float]]) -> str:
    """The rating over matches as an inline SVG (no script, no style attribute: the CSP's):
    a line per version, its 95 % band shaded, the matches along the bottom."""
    if not history:
        return ""
    width, height, left, bottom = 600.0, 220.0, 44.0, 24.0
    lows = [h[2] - h[3] for h in history]
    highs = [h[2] + h[3] for h in history]
    low, high = min(lows), max(highs)
    if high - low < 1:
        low, high = low - 1, high + 1
    most = max(max(h[1] for h in history), 1)

    def x(matches: int) -> float:
        return left + (width - left - 8) * matches / most

    def y(value: float) -> float:
        return 8 + (height - bottom - 8) * (high - value) / (high - low)

    parts = [
        (
            f'<svg class="chart" viewBox="0 0 {width:.0f} {height:.0f}" role="img" '
            f'aria-label="Rating over matches, from {history[0][2]:.0f} to {history[-1][2]:.0f}">'
        ),
        (
            f'<line x1="{left}" y1="{height - bottom}" x2="{width - 8}" y2="{height - bottom}" '
            'stroke="currentColor" stroke-opacity=".4"/>'
        ),
    ]
    for value in (high, (high + low) / 2, low):
        parts.append(
            f'<text x="{left - 4}" y="{y(value) + 4:.1f}" text-anchor="end">{value:.0f}</text>'
        )
    parts.append(f'<text x="{width - 8}" y="{height - 6}" text-anchor="end">{most} matches</text>')
    for number in sorted({h[0] for h in history}):
        points = [h for h in history if h[0] == number]
        band = [(x(h[1]), y(h[2] + h[3])) for h in points] + [
            (x(h[1]), y(h[2] - h[3])) for h in reversed(points)
        ]
        line = " ".join(f"{x(h[1]):.1f},{y(h[2]):.1f}" for h in points)
        shape = " ".join(f"{a:.1f},{b:.1f}" for a, b in band)
        parts.append(f'<polygon points="{shape}" fill="currentColor" fill-opacity=".12"/>')
        parts.append(
            f'<polyline points="{line}" fill="none" stroke="currentColor" stroke-width="2"/>'
        )
        last = points[-1]
        parts.append(
            f'<text x="{x(last[1]) - 4:.1f}" y="{y(last[2]) - 6:.1f}" text-anchor="end">v{number}</text>'
        )
    parts.append("</svg>")
    return "".join(parts)
