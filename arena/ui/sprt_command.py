"""`arena sprt`: the config of a gauntlet with a sequential test, from command-line options.

    arena sprt --vs hard --vs old=./bots/v1 --seats 2 --share0 0.5 --share1 0.55 -- ./mybot

The result is the data of a `config.toml` (checked by `config.validate` like any other), so
`arena sprt` is exactly `arena run` on that config: same replays, results.jsonl, standings.json
and `--resume`.
"""

import shlex
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from arena.base import shutdown
from arena.base.errors import ConfigError
from arena.bots import Level
from arena.engine.settings import GAMES_LIMIT, NAME_LENGTH, SEED_LIMIT, SprtSettings
from arena.ui.options import (
    JOBS_LIMIT,
    LIMITS,
    LuckSwitch,
    NewRun,
    Quiet,
    ReplyTimeout,
    in_bounds,
    in_range,
)
from arena.ui.say import user_errors

# Start-up: imported by `arena --help`; the statistics and orjson only when a test runs.
if TYPE_CHECKING:
    from arena.tournaments.candidate import CandidateTest
    from arena.tournaments.tournament import Tournament

DEFAULT_CAP = 20000  # matches: the cap when --games is not given
DEFAULT_MARGIN = 0.05  # share1 - share0 when --share1 is not given
# Exit statuses of `arena sprt`, none of them the arena's own failure (1) or a usage error (2);
# a stopped run: 128 + the signal, as `arena run`.
BETTER = 0  # H1 accepted
UNDECIDED = 3  # the cap came first
NOT_BETTER = 4  # H0 accepted


def participant_name(command: Sequence[str]) -> str:
    """A name for a program: the stem of its file (`./bots/my_bot.py` is `my_bot`)."""
    for part in reversed(command):
        stem = Path(part).stem
        if "/" in part or "." in Path(part).name:
            return stem[:NAME_LENGTH] or "bot"
    return (Path(command[0]).name or "bot")[:NAME_LENGTH]


def opponent_name(given: str) -> tuple[str | None, str]:
    """`--vs NAME=LEVEL|COMMAND`: the name given (None without one) and the opponent. A name is
    the text before the first `=` when it is one word (no space, quote or `/`): `--vs
    old=./bot --depth=3` is named, `--vs './bot --depth=3'` is not."""
    name, equals, rest = given.partition("=")
    if equals and name and rest and not any(c in name for c in " \t'\"/"):
        return name, rest
    return None, given


def config_data(
    command: Sequence[str],
    opponents: Sequence[str],
    *,
    seats: int,
    share0: float | None,
    share1: float | None,
    alpha: float,
    beta: float,
    min_groups: int,
    games: int | None,
    seed: int | None,
    name: str | None,
    replays: str,
    timeout: float,
    raw: bool = False,
) -> dict[str, Any]:
    """The config of the gauntlet these options ask for. Raises ConfigError naming the option."""
    if not command:
        raise ConfigError("arena sprt: give the candidate's command after `--`")
    if not opponents:
        raise ConfigError("arena sprt: --vs: give at least one opponent (a level or a command)")
    if not 2 <= seats <= 1 + len(opponents):
        raise ConfigError(
            f"--seats {seats}: the candidate and {len(opponents)} "
            f"{'opponent' if len(opponents) == 1 else 'opponents'} fill 2 to {1 + len(opponents)} seats"
        )
    low = 1 / seats if share0 is None else share0
    high = low + DEFAULT_MARGIN if share1 is None else share1
    participants: list[dict[str, Any]] = []
    taken: set[str] = set()

    def unique(wanted: str) -> str:
        chosen, number = wanted, 1
        while chosen in taken:
            number += 1
            chosen = f"{wanted}-{number}"
        taken.add(chosen)
        return chosen

    candidate = unique(name or participant_name(command))
    participants.append({"name": candidate, "command": list(command)})
    for given in opponents:
        named, opponent = opponent_name(given)
        if named is not None:
            if named in taken:
                raise ConfigError(f"--vs {given!r}: the name {named!r} is taken already")
            taken.add(named)
        try:
            level: Level | None = Level.named(opponent)
        except ValueError:  # not a level: a command
            level = None
        if level is not None:
            participants.append({"name": named or unique(opponent), "bot": level.value})
            continue
        try:
            parts = shlex.split(opponent)
        except ValueError as error:
            raise ConfigError(f"--vs {given!r}: cannot split it: {error}") from None
        if not parts:
            raise ConfigError("--vs: an empty opponent")
        participants.append({"name": named or unique(participant_name(parts)), "command": parts})
    data: dict[str, Any] = {
        "games": DEFAULT_CAP if games is None else games,
        "replays": replays,
        "limits": {"replyTimeout": timeout},
        "tournament": {"seats": seats, "candidate": candidate},
        "sprt": {
            "share0": low,
            "share1": high,
            "alpha": alpha,
            "beta": beta,
            "minGroups": min_groups,
            "luckAdjusted": not raw,
        },
        "participants": participants,
    }
    if seed is not None:
        data["seed"] = seed
    return data


def again(argv: Sequence[str]) -> str:
    """The command line that continues this run (a `--resume` is added by the caller)."""
    return shlex.join(["arena", *(part for part in argv if part != "--resume")])


_OPTIONS = {
    "sprt.share0": "--share0",
    "sprt.share1": "--share1",
    "sprt.alpha": "--alpha",
    "sprt.beta": "--beta",
    "limits.replyTimeout": "--timeout",
    "games": "--games",
    "seed": "--seed",
    "participants[0].name": "--name",
    "replays": "--replays",
    "sprt": "--share1",
    "participants[0].command": "the candidate's command",
}


def in_options(message: str) -> str:
    """A config error in the words of the command line: `arena sprt: --share1: …`."""
    for key, option in _OPTIONS.items():
        if message.startswith(f"arena sprt: {key}:"):
            return "arena sprt: " + option + message[len("arena sprt: ") + len(key) :]
    return message if message.startswith("arena sprt") else f"arena sprt: {message}"


def exit_status(test: "CandidateTest", *, stopped: bool) -> int:
    """What `arena sprt` exits with: the verdict, or why there is none."""
    from arena.tournaments.sprt import Decision

    if test.decision is Decision.H1:
        return BETTER
    if test.decision is Decision.H0:
        return NOT_BETTER
    return shutdown.exit_status() if stopped else UNDECIDED


def verdict_line(test: "CandidateTest", *, status: int, stopped: bool, played: int) -> str:
    """`--json`'s one line: the verdict, the exit status and the test's figures."""
    import orjson

    estimate = test.estimate()
    figures = test.as_json() or {}
    return orjson.dumps(
        {
            "candidate": test.name,
            "decision": figures.get("decision"),
            "exit": status,
            "stopped": stopped,
            "played": played,
            **{key: value for key, value in figures.items() if key != "decision"},
            "mean": round(estimate.mean, 6),
            "mean95": [round(estimate.low, 6), round(estimate.high, 6)],
            "los": round(estimate.los, 6),
        }
    ).decode()


def sprt(
    ctx: typer.Context,
    command: Annotated[
        list[str],
        typer.Argument(
            metavar="COMMAND", help="The candidate's program and its arguments, after `--`."
        ),
    ],
    vs: Annotated[
        list[str],
        typer.Option(
            "--vs",
            metavar="[NAME=]LEVEL|COMMAND",
            help="An opponent: a built-in level (random, easy, medium, hard, expert, master) or a command line, NAME= before it names it in the tables; repeat for more.",
        ),
    ],
    seats: Annotated[
        int, typer.Option(metavar="K", help="Players per match: the candidate and K-1 opponents.")
    ] = 2,
    share0: Annotated[
        float | None,
        typer.Option(
            metavar="S0", help="The candidate's expected match point under H0 [default: 1/K]."
        ),
    ] = None,
    share1: Annotated[
        float | None, typer.Option(metavar="S1", help="… under H1 [default: S0 + 0.05].")
    ] = None,
    alpha: Annotated[
        float, typer.Option(metavar="P", help="The chance of accepting H1 when H0 is true.")
    ] = SprtSettings.alpha,
    beta: Annotated[
        float, typer.Option(metavar="P", help="The chance of accepting H0 when H1 is true.")
    ] = SprtSettings.beta,
    min_groups: Annotated[
        int, typer.Option(metavar="N", help="Duplicate groups before any decision.")
    ] = SprtSettings.min_groups,
    luck_adjusted: Annotated[bool, LuckSwitch] = True,
    games: Annotated[
        int | None,
        typer.Option(metavar="N", help="The cap: at most this many matches [default: 20000]."),
    ] = None,
    seed: Annotated[
        int | None, typer.Option(metavar="N", help="Seed of the first match (default: drawn).")
    ] = None,
    name: Annotated[
        str | None,
        typer.Option(metavar="NAME", help="The candidate's name [default: its program's name]."),
    ] = None,
    replays: Annotated[
        str,
        typer.Option(metavar="DIR", help="Folder for replays, results.jsonl and standings.json."),
    ] = "replays",
    timeout: ReplyTimeout = LIMITS.reply_timeout,
    jobs: Annotated[
        int | None,
        typer.Option(
            "--jobs",
            "-j",
            metavar="N",
            help="Matches played at once [default: the number of cores].",
        ),
    ] = None,
    resume: Annotated[
        bool, typer.Option("--resume", help="Continue the last run of this same test.")
    ] = False,
    new_run: NewRun = False,
    quiet: Quiet = False,
    json_line: Annotated[
        bool,
        typer.Option(
            "--json",
            help="At the end, one JSON line on stdout with the verdict and its figures (also with -q).",
        ),
    ] = False,
) -> None:
    """Is my bot better? A sequential test against opponents, on duplicate deals, stopping at the answer.

    Exit status: 0 the candidate is better (H1 accepted), 4 it is not (H0 accepted), 3 no
    decision by the cap, 128 + the signal when stopped (130 for Ctrl-C), 2 for bad options.
    """
    from arena.base import config as config_module
    from arena.ui.run_command import run_loaded

    in_range("--jobs", jobs, 1, JOBS_LIMIT)
    in_bounds("--timeout", timeout, "reply_timeout")
    in_range("--seats", seats, 2, config_module.MAX_SEATS)
    in_range("--games", games, 1, GAMES_LIMIT)
    in_range("--min-groups", min_groups, 1, GAMES_LIMIT)
    in_range("--seed", seed, 0, SEED_LIMIT - 1)

    with user_errors(told=in_options):
        data = config_data(
            command,
            vs,
            seats=seats,
            share0=share0,
            share1=share1,
            alpha=alpha,
            beta=beta,
            min_groups=min_groups,
            games=games,
            seed=seed,
            name=name,
            replays=replays,
            timeout=timeout,
            raw=not luck_adjusted,
        )
        # As if from a config file in the current folder: the base of relative paths.
        settings, participants = config_module.validate(Path("arena sprt"), data)
    options = (
        sys.argv[1 : sys.argv.index("--")]
        if "--" in sys.argv
        else ["sprt", *(f"--vs={v}" for v in vs)]
    )
    rest = " -- " + " ".join(shlex.quote(part) for part in command)

    def again_with(extra: str) -> str:
        return again(options) + extra + rest

    decided: list[int] = []

    def finished(plan: "Tournament", stopped: bool) -> None:
        assert plan.candidate is not None  # arena sprt's config is a gauntlet with a test
        status = exit_status(plan.candidate, stopped=stopped)
        decided.append(status)
        if json_line:
            line = verdict_line(
                plan.candidate, status=status, stopped=stopped, played=len(plan.done)
            )
            sys.stdout.write(line + "\n")
            sys.stdout.flush()

    run_loaded(
        ctx,
        Path("arena sprt"),
        settings,
        participants,
        jobs=jobs,
        resume=resume,
        new_run=new_run,
        # Each `arena sprt` is a new test unless resumed: it takes the folder's standings over.
        replace_standings=not resume,
        quiet=quiet,
        scheduler=None,
        again=again_with,
        finished=finished,
    )
    raise typer.Exit(decided[0] if decided else 0)
