"""The one quantile of the normal distribution the arena uses: every 95 % interval's half-width
in standard errors, and the z beyond which one look calls a difference.

    from arena.base.normal import Z95   # 1.959963984540054
"""

from __future__ import annotations

from statistics import NormalDist

Z95 = NormalDist().inv_cdf(0.975)
