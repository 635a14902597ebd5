"""A newcomer's first day (issue 25): what surprised, each through the real `arena` CLI."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest
from command import arena_process

TWO_RANDOM = 'seed = 7\ngames = {games}\n[[participants]]\nname = "ann"\nbot = "random"\n[[participants]]\nname = "bo"\nbot = "random"\n'


def arena(
    *args: str, cwd: Path, umask: int = -1, timeout: float = 120, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    return arena_process(*args, cwd=cwd, timeout=timeout, umask=umask, env=env)


def played(tmp_path: Path, games: int = 2, text: str = TWO_RANDOM) -> Path:
    """The replays folder of a run of `text` in tmp_path."""
    (tmp_path / "config.toml").write_text(text.format(games=games))
    run = arena("run", "config.toml", "--quiet", cwd=tmp_path)
    assert run.returncode == 0, run.stderr
    return tmp_path / "replays"


@pytest.mark.parametrize("umask", [0o022, 0o027])
def test_every_file_the_arena_writes_has_the_mode_of_any_new_file(
    tmp_path: Path, umask: int
) -> None:
    (tmp_path / "config.toml").write_text(TWO_RANDOM.format(games=2))
    assert arena("run", "config.toml", "--quiet", cwd=tmp_path, umask=umask).returncode == 0
    replays = tmp_path / "replays"
    [first, *_] = sorted(replays.glob("*g0*.json"))
    page = tmp_path / "one.html"
    assert arena("report", "replays", cwd=tmp_path, umask=umask).returncode == 0
    assert (
        arena("replay", "html", str(first), "-o", str(page), cwd=tmp_path, umask=umask).returncode
        == 0
    )
    written = [*replays.glob("*.json"), replays / "report.html", page]
    assert sorted(path.name.split("-g")[-1] for path in written) == [
        "0000-ann-vs-bo.json",
        "0001-bo-vs-ann.json",
        "one.html",
        "report.html",
        "standings.json",
    ], written
    modes = {path.name: oct(path.stat().st_mode & 0o777) for path in written}
    assert set(modes.values()) == {oct(0o666 & ~umask)}, modes


def play_piped(
    tmp_path: Path, seed: int, lines: str, *more: str
) -> tuple[str, list[tuple[int, int]]]:
    """`arena play` with its commands from a pipe: what it printed, and the human's asks
    (seat 0's replies to `ask`) in its replay."""
    done = arena_process(
        "play", "--seed", str(seed), "--delay", "0", *more, input=lines, cwd=tmp_path, timeout=60
    )
    assert done.returncode == 0, done.stdout + done.stderr
    (path,) = (tmp_path / "replays").glob("*.json")
    transcript = json.loads(path.read_text())["transcript"]
    asks = []  # (seat asked, rank asked for)
    for entry in transcript:
        if entry["seat"] == 0 and entry["message"]["type"] == "ask":
            ranks = {card["id"]: card["rank"] for card in entry["message"]["hand"]}
            asks.append((entry["reply"]["player"], ranks[entry["reply"]["cardId"]]))
    return done.stdout, asks


def test_play_takes_ranks_in_words_any_case_and_asks_the_only_opponent_at_once(
    tmp_path: Path,
) -> None:
    # Seed 2 deals the human a five (and no one else is at the table to ask).
    shown, asks = play_piped(tmp_path, 2, "ASK FOR FIVES\nquit\n")
    assert "not a rank" not in shown and "from whom" not in shown, shown
    assert asks == [(1, 4)]  # seat 1 for fives (rank 4: A is 0)
    assert "←" not in shown  # from a pipe there are no arrow keys to advertise


def test_play_asks_from_whom_only_when_there_is_a_choice(tmp_path: Path) -> None:
    shown, asks = play_piped(tmp_path, 2, "fives\nquit\n", "--opponents", "2")
    assert "from whom?" in shown and asks == [], shown


def test_arena_version(tmp_path: Path) -> None:
    from arena import __version__

    shown = arena("--version", cwd=tmp_path)
    assert (shown.returncode, shown.stdout, shown.stderr) == (
        0,
        f"gofish-arena {__version__}\n",
        "",
    )


@pytest.mark.parametrize("address", ["", "  "])
def test_an_empty_scheduler_is_refused_not_played_here(tmp_path: Path, address: str) -> None:
    (tmp_path / "config.toml").write_text(TWO_RANDOM.format(games=1))
    refused = arena("run", "config.toml", "--scheduler", address, cwd=tmp_path)
    assert refused.returncode == 2 and refused.stdout == "", refused.stdout
    assert refused.stderr.count("\n") == 1 and "--scheduler: an empty address" in refused.stderr
    assert not (tmp_path / "replays").exists()


def test_an_empty_scheduler_in_the_config_is_refused(tmp_path: Path) -> None:
    text = TWO_RANDOM.format(games=1) + '[tournament]\nscheduler = ""\n'
    (tmp_path / "config.toml").write_text(text)
    refused = arena("run", "config.toml", cwd=tmp_path)
    assert refused.returncode == 2 and "scheduler" in refused.stderr, refused.stderr
    assert not (tmp_path / "replays").exists()


# -- replay fork ---------------------------------------------------------------------------

BOT = Path(__file__).resolve().parent.parent / "participants" / "random_bot.py"


def organised(tmp_path: Path) -> Path:
    """A replay of `mine` (python3 bot.py, relative to its config's folder) against `rnd`."""
    folder = tmp_path / "organiser"
    folder.mkdir()
    (folder / "bot.py").write_text(BOT.read_text())
    (folder / "config.toml").write_text(
        'seed = 3\ngames = 1\n[[participants]]\nname = "mine"\ncommand = ["python3", "bot.py"]\n'
        '[[participants]]\nname = "rnd"\nbot = "random"\n'
    )
    assert arena("run", "config.toml", "--quiet", cwd=folder).returncode == 0
    [source] = (folder / "replays").glob("*g0000*.json")
    return source


def test_a_fork_outside_the_config_folder_records_the_missing_program_as_a_fault(
    tmp_path: Path,
) -> None:
    source = organised(tmp_path)
    done = arena("replay", "fork", str(source), "--at", "20", "-o", "out.json", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    forked = json.loads((tmp_path / "out.json").read_text())
    [fault] = [f for f in forked["faults"] if f["seat"] == 0]
    assert fault["kind"] == "exited" and fault["at"] >= 20, fault
    assert "bot.py" in fault["stderrTail"]
    assert forked["faultCounts"][0] == {"exited": 1}
    assert "faults of seat 0 (mine): exited 1" in done.stdout
    assert arena("replay", "verify", "out.json", cwd=tmp_path).returncode == 0


def test_a_replaced_seat_is_shown_as_its_replacement(tmp_path: Path) -> None:
    source = organised(tmp_path)
    done = arena(
        "replay",
        "fork",
        str(source),
        "--at",
        "20",
        "--seat",
        "1=hard",
        "-o",
        "f.json",
        cwd=source.parent.parent,
    )
    assert done.returncode == 0, done.stderr
    assert "seat 1: hard for rnd: " in done.stdout and "-m arena.bots hard" in done.stdout
    shown = arena("replay", "show", "f.json", cwd=source.parent.parent).stdout
    assert "seats: 0 mine  1 hard" in shown and "(rnd replaced)" not in shown


@pytest.mark.parametrize("output", ["full", "replays/results.jsonl", "out"])
def test_a_fork_output_that_is_no_replay_name_is_refused(tmp_path: Path, output: str) -> None:
    source = organised(tmp_path)
    folder = source.parent.parent
    (folder / "full").symlink_to("/dev/full")  # as `-o /dev/full`, but a failure writes here
    before = sorted(p.name for p in (folder / "replays").iterdir())
    done = arena("replay", "fork", str(source), "--at", "20", "-o", output, cwd=folder)
    assert done.returncode == 2, done.stdout + done.stderr
    assert done.stderr.count("\n") == 1 and f"-o {output}" in done.stderr, done.stderr
    assert sorted(p.name for p in (folder / "replays").iterdir()) == before
    assert not list(folder.glob("out*")) and not list(folder.glob("full?*"))


# -- docs ----------------------------------------------------------------------------------

DOCS = Path(__file__).resolve().parent.parent / "docs"


def test_the_vs_levels_in_the_docs_are_every_built_in_level() -> None:
    from arena.bots import BOTS

    text = " ".join((DOCS / "testing-a-bot.md").read_text().split())
    said = text.split("a built-in level (", 1)[1].split(")", 1)[0]
    assert sorted(word.strip("` ") for word in said.split(",")) == sorted(BOTS)


@pytest.mark.parametrize(
    ("language", "advice"), [("Perl", "$| = 1;"), ("Ruby", "$stdout.sync = true")]
)
def test_the_buffering_advice_covers_perl_and_ruby(language: str, advice: str) -> None:
    for page in ("protocol.md", "check.md"):
        text = " ".join((DOCS / page).read_text().split())
        assert f"`{advice}` in {language}" in text or f"{language} (`{advice}`)" in text, page


def test_wins_that_shared_places_split_print_to_two_decimals_at_most() -> None:
    from arena.base.terminal import share_count

    assert [share_count(w) for w in (52.0, 51.5, 155 / 3, 0.0, 1 / 3)] == [
        "52",
        "51.5",
        "51.67",
        "0",
        "0.33",
    ]


# -- a run's output in a log ---------------------------------------------------------------

LONG_NAMES = "seed = 1\ngames = 3\n[tournament]\nseats = 2\n" + "".join(
    f'[[participants]]\nname = "team-alpha-version-{n}"\nbot = "{bot}"\n'
    for n, bot in ((1, "random"), (2, "easy"), (3, "medium"))
)


def test_a_run_into_a_pipe_shows_progress_and_whole_names(tmp_path: Path) -> None:
    (tmp_path / "config.toml").write_text(LONG_NAMES)
    # stdout is a pipe here; COLUMNS (which something in pytest sets to 80) is not set, as in a
    # shell's pipe or a nohup log
    env = {key: value for key, value in os.environ.items() if key != "COLUMNS"}
    done = arena("run", "config.toml", cwd=tmp_path, env=env)
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert "played 3 of 3 matches" in done.stdout, done.stdout
    progress = next(i for i, line in enumerate(lines) if line.startswith("played 3 of 3"))
    standings = next(i for i, line in enumerate(lines) if line.startswith("standings after"))
    assert progress < standings
    rows = [line for line in lines[standings:] if "team-alpha" in line]
    for n in (1, 2, 3):  # in the standings, and as the pairwise table's heading and row
        assert sum(f"team-alpha-version-{n}" in line for line in rows) >= 2, done.stdout
    assert "…" not in "".join(rows)


def test_seats_whose_names_read_the_same_in_a_file_name_are_told_apart(tmp_path: Path) -> None:
    text = TWO_RANDOM.replace('"ann"', '"a/b"').replace('"bo"', '"a_b"')
    replays = played(tmp_path, games=1, text=text)
    [path] = replays.glob("*-g0000-*.json")
    assert path.name.endswith("-a_b.0-vs-a_b.1.json"), path.name


def test_game_numbers_are_the_same_everywhere(tmp_path: Path) -> None:
    (tmp_path / "config.toml").write_text(TWO_RANDOM.format(games=3))
    env = {key: value for key, value in os.environ.items() if key != "COLUMNS"}
    run = arena("run", "config.toml", cwd=tmp_path, env=env)
    assert run.returncode == 0, run.stderr
    replays = tmp_path / "replays"
    lines = [json.loads(line) for line in (replays / "results.jsonl").read_text().splitlines()]
    game = lines[2]["game"]
    assert f"g{game:04d}" in lines[2]["replay"]
    built = arena("report", "replays", "--view", str(game), cwd=tmp_path)
    assert built.returncode == 0, built.stderr
    assert (replays / lines[2]["replay"]).with_suffix(".html").exists()
    # (the run built every match's page already: --view builds that one again, and only it)
    assert [
        line.split("/")[-1]
        for line in built.stdout.splitlines()
        if line.startswith("wrote ") and "report.html" not in line
    ] == [Path(lines[2]["replay"]).with_suffix(".html").name]
