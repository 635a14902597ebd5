"""How a gauntlet's candidate and its SPRT read in a terminal: renderables and lines.

Names are untrusted text: every one goes through `inert`.
"""

from __future__ import annotations

from fractions import Fraction

from rich import box
from rich.table import Table
from rich.text import Text

from arena.base.terminal import inert
from arena.tournaments.candidate import CandidateTest, against_each
from arena.tournaments.sprt import Decision, SequentialTest
from arena.tournaments.standings import Standings


def progress_note(test: CandidateTest) -> str:
    """For the progress line: LLR between its bounds, or the verdict once taken."""
    if test.sprt is None or test.hypotheses is None:
        return "playing"
    h, sprt = test.hypotheses, test.sprt
    if sprt.decision is not None:
        return f"{sprt.decision} accepted, finishing"
    note = f"LLR {sprt.llr:+.2f} [{h.lower:.2f}, {h.upper:.2f}] {sprt.groups} groups"
    more = groups_to_decision(sprt.llr, sprt.groups, h.lower, h.upper)
    return note + (f", ~{more} more to a decision" if more is not None else "")


def groups_to_decision(llr: float, groups: int, lower: float, upper: float) -> int | None:
    """About how many more groups the test needs at the LLR's drift so far (its mean step),
    to the bound it is heading for; None before there is a drift to go by. An estimate for the
    progress line (the cap is only a ceiling): the LLR wanders, so it is no promise."""
    if groups < 10 or llr == 0.0:
        return None
    drift = llr / groups
    distance = (upper - llr) if drift > 0 else (lower - llr)
    return max(1, round(distance / drift))


def candidate_table(standings: Standings, test: CandidateTest) -> Table:
    """The candidate against each opponent: how often it placed ahead, with a 95 % interval."""
    table = Table(
        title=f"{inert(test.name, 32)} against each opponent",
        title_justify="left",
        box=box.SIMPLE_HEAD,
        pad_edge=False,
        collapse_padding=True,
        show_edge=False,
    )
    table.add_column("opponent")
    for column in ("matches", "ahead", "score", "95% CI"):
        table.add_column(column, justify="right", no_wrap=True)
    for row in against_each(standings, test.name):
        low, high = row["score95"]
        table.add_row(
            inert(row["opponent"], 32),
            str(row["matches"]),
            f"{row['ahead']:g}",
            f"{row['score']:.3f}",
            f"{low:.2f}–{high:.2f}",
        )
    table.caption = "score: matches placed ahead of that opponent, an equal place counting half"
    return table


def verdict(
    test: CandidateTest, opponents: list[str], *, cap: int, interrupted: bool
) -> list[Text]:
    """The answer with its figures: H1, H0, or no decision (by the cap, or yet)."""
    lines: list[Text] = []
    estimate = test.estimate()
    k = test.seats
    if estimate.outcomes:
        lines.append(
            Text(
                f"{test.name}'s mean point per duplicate group: {estimate.mean:.3f} "
                f"(95% {estimate.low:.3f}–{estimate.high:.3f}; an equal share is {1 / k:.3f}; "
                f"LOS {100 * estimate.los:.1f}%) over {estimate.outcomes} groups of {k}"
            )
        )
    sprt, h = test.sprt, test.hypotheses
    if sprt is None or h is None:
        return lines
    field = inert(
        _listed(opponents) if len(opponents) <= 3 else f"the field of {len(opponents)}", 200
    )
    name = inert(test.name, 64)
    figures = (
        f"LLR {sprt.llr:+.2f}, bounds [{h.lower:.2f}, {h.upper:.2f}], {sprt.groups} groups "
        f"({sprt.groups * k} matches); share0 {h.share0:g}, share1 {h.share1:g}, "
        f"alpha {h.alpha:g}, beta {h.beta:g}"
    )
    if sprt.decision is Decision.H1:
        head = f"H1 accepted: {name} is better than {field} (share ≥ {h.share1:g} rather than {h.share0:g})"
    elif sprt.decision is Decision.H0:
        head = f"H0 accepted: {name} is not better than {field} by share {h.share1:g} (share ≤ {h.share0:g})"
    elif interrupted:
        head = "no decision yet: the run was interrupted; --resume continues the test"
    else:
        head = f"no decision by the cap of {cap} matches"
    lines.append(Text(head, style="bold"))
    lines.append(Text("  " + figures, style="dim"))
    if test.adjusted:
        lines.append(
            Text("  on luck-adjusted shares (docs/luck.md; --raw for raw points)", style="dim")
        )
    if isinstance(sprt, SequentialTest) and sprt.degenerate and sprt.decision is not None:
        (only,) = sprt.counts
        lines.append(
            Text(
                f"  every group scored exactly {_fraction(only)}: the data have no variance, so the verdict "
                "rests on the regularised extremes and the minimum of groups; with deterministic bots it "
                "says the candidate played these deals no differently, not that it is equal elsewhere",
                style="dim",
            )
        )
    if test.later:
        lines.append(
            Text(
                f"  {test.later} {'match' if test.later == 1 else 'matches'} in flight at the "
                "decision finished after it: in the standings, not in the verdict",
                style="dim",
            )
        )
    return lines


def _listed(names: list[str]) -> str:
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]


def _fraction(value: Fraction) -> str:
    return str(value) if value.denominator > 1 else f"{value:.0f}"
