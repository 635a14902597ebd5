"""The machine-isolation gallery (issue 23): each attempt a real bot in a real sandbox, played
through the real CLI (`test_spies.run`), that succeeds with the protection off and fails with
it on. "Off" is `sandbox = "none"` unless a test says otherwise.

The parts of the machine a participant must not own: root's uid, files beside its config,
/proc's machine-wide counters, a writable /dev."""

from __future__ import annotations

import fcntl
import os
import statistics
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from test_spies import SPIES, needs_bwrap, run, spy

from arena.seats import sandbox as sandbox_module

PROTECTION = [pytest.param("none", id="off"), pytest.param("bwrap", id="on", marks=needs_bwrap)]


@pytest.mark.parametrize("mode", PROTECTION)
def test_a_uid_checked_kernel_setting_cannot_be_written(tmp_path: Path, mode: str) -> None:
    if mode == "none" and os.geteuid() != 0:
        pytest.skip("unsandboxed, only root's uid passes the check")
    played = run(tmp_path, [("spy", spy("kernel_write.py")), ("random", None)], mode=mode)
    found = played.report()
    assert found["wrote"] is (mode == "none"), found


@pytest.mark.parametrize("mode", PROTECTION)
def test_proc_says_nothing_of_the_machine(tmp_path: Path, mode: str) -> None:
    played = run(tmp_path, [("spy", spy("reads_proc.py")), ("random", None)], mode=mode)
    spoke = played.report()["spoke"]
    if mode == "none":
        assert {"/proc/stat", "/proc/loadavg", "/proc/cmdline", "/proc/cgroups"} <= set(spoke)
    else:
        assert spoke == [], spoke
        # a minimal PATH: its program's folders, then only the system's
        path = played.report()["path"].split(os.pathsep)
        own = [d for d in path if not d.startswith(("/usr/", "/bin", "/sbin"))]
        assert own and all(os.path.basename(sys.executable) in os.listdir(d) for d in own), path


@pytest.mark.parametrize("mode", PROTECTION)
def test_nothing_a_sandbox_reads_in_proc_moves_with_its_neighbours(
    tmp_path: Path, mode: str
) -> None:
    """Every file of /proc a participant can read (`/proc/sys` included, its own processes'
    folders aside), read twice a second apart while another seat forks, starts threads, makes
    pipes, sockets and shared memory (`spies/watches_proc.py`): none changes in the sandbox;
    unsandboxed the machine's counters do."""
    played = run(
        tmp_path, [("worker", spy("watches_proc.py")), ("spy", spy("watches_proc.py"))], mode=mode
    )
    found = played.report()
    assert found["read"] > 100, found  # (it could read /proc at all)
    if mode == "none":
        assert {"/proc/stat", "/proc/meminfo", "/proc/sys/fs/file-nr"} <= set(found["moved"]), found
    else:
        assert found["moved"] == [], found["moved"]


def _host_mount_points() -> set[str]:
    """The host's mount points outside everything a sandbox is given (`/sys` and its
    control groups at least; here also the host's own mounts under `/mnt`, `/run`...)."""
    given = ("/proc", "/dev", "/tmp", "/usr", "/etc", *sandbox_module.SYSTEM)
    with open("/proc/self/mountinfo") as file:
        points = {line.split()[4] for line in file if len(line.split()) > 4}
    return {p for p in points if p != "/" and not any(_within(p, g) for g in given)}


def _within(path: str, folder: str) -> bool:
    return path == folder or path.startswith(folder.rstrip("/") + "/")


@pytest.mark.parametrize("mode", PROTECTION)
def test_the_mount_table_names_nothing_of_the_host(tmp_path: Path, mode: str) -> None:
    """`/proc/self/mountinfo`, `mounts` and `mountstats` (`spies/reads_mounts.py`) name only
    what the sandbox holds: none of the host's other mount points, nor the organiser's folder
    (the config's, with the replays)."""
    host = _host_mount_points()
    assert host, "no mount point of the host's to look for"
    played = run(tmp_path, [("spy", spy("reads_mounts.py")), ("random", None)], mode=mode)
    found = played.report()
    organiser = str(played.folder)
    for name in ("mountinfo", "mounts", "mountstats"):
        shown = set(found[name])
        if mode == "none":
            assert host <= shown, (name, host - shown)
        else:
            assert shown and not shown & host, (name, shown & host)
            assert not [p for p in shown if _within(p, organiser)], (name, shown)


@pytest.mark.parametrize("mode", PROTECTION)
def test_dev_holds_no_writable_memory(tmp_path: Path, mode: str) -> None:
    if mode == "none" and not os.access("/dev/shm", os.W_OK):
        pytest.skip("this machine's /dev/shm is not writable")
    played = run(tmp_path, [("spy", spy("fills_dev.py")), ("random", None)], mode=mode)
    wrote = played.report()["wrote"]
    assert bool(wrote) is (mode == "none"), wrote


@pytest.mark.parametrize("mode", PROTECTION)
def test_a_bot_beside_its_config_sees_only_its_own_files(tmp_path: Path, mode: str) -> None:
    """Its neighbours (another config with its seed, old results, the organiser's log) are
    not there; links in its command to the config and the log are not followed."""
    organiser = tmp_path / "organiser"
    organiser.mkdir()
    for name in ("reads_neighbours.py", "_spy.py"):
        (organiser / name).write_text((SPIES / name).read_text())
    (organiser / "other.toml").write_text("seed = 7\n")
    (organiser / "results.jsonl").write_text('{"game": 0}\n')
    (organiser / "run.log").write_text("seed 42\n")
    (organiser / "notes.txt").symlink_to("run.log")
    (organiser / "deal.txt").symlink_to(organiser / "config.toml")
    command = spy("reads_neighbours.py", "_spy.py", "notes.txt", "deal.txt")
    command[1] = "reads_neighbours.py"
    played = run(tmp_path, [("spy", command), ("random", None)], mode=mode)
    found = played.report()
    own = {"reads_neighbours.py", "_spy.py"}
    if mode == "none":
        assert {"other.toml", "run.log", "notes.txt", "deal.txt"} <= set(found["read"]), found
        assert "seed = 42" in found["read"]["deal.txt"]
    else:
        # (as a user, the folders above what it is given lie in its private /tmp when the
        # config's does, so its own Python may write `__pycache__` there: its, and gone after)
        listed = set(found["listed"]) - {"__pycache__"}
        assert set(found["read"]) <= own and listed <= own, found


def test_visible_paths_are_its_own_folder_or_only_its_own_files(tmp_path: Path) -> None:
    """`sandbox.visible_paths` (what `standings` fingerprints) is exactly what is bound: a bot
    in a folder of its own gets the folder; a bot beside its config, its named files only."""
    from arena.seats import sandbox

    (tmp_path / "bots" / "alice").mkdir(parents=True)
    (tmp_path / "bots" / "alice" / "main.py").write_text("")
    (tmp_path / "beside.py").write_text("")
    (tmp_path / "book.bin").write_text("")
    env = {"PATH": os.environ.get("PATH", os.defpath)}
    python = os.path.realpath(sys.executable)
    apart = sandbox.visible_paths([python, "bots/alice/main.py"], tmp_path, env)
    beside = sandbox.visible_paths([python, "beside.py", "book.bin"], tmp_path, env)
    assert str(tmp_path / "bots" / "alice") in apart
    assert str(tmp_path / "beside.py") in beside and str(tmp_path / "book.bin") in beside
    assert not [path for path in (*apart, *beside) if path in (str(tmp_path), "/")]
    jail = sandbox.Jail.of([python, "beside.py"], tmp_path, env)
    assert jail is not None and jail.readable == sandbox.visible_paths(
        [python, "beside.py"], tmp_path, env
    )
    bound = jail.argv("bwrap")
    assert all(
        bound[i + 1] in jail.readable
        for i, a in enumerate(bound)
        if a == "--ro-bind" and bound[i + 1].startswith(str(tmp_path))
    )


# -- control groups (`arena.seats.cgroups`) ----------------------------------------------

needs_cgroups = pytest.mark.skipif(
    sandbox_module.cgroups_on() is False, reason="no control groups here"
)
GROUPED = [
    pytest.param("none", id="off"),
    pytest.param("bwrap", id="on", marks=[needs_bwrap, needs_cgroups]),
]


def _groups_left() -> list[Path]:
    from arena.seats import cgroups

    place = cgroups.hierarchy()
    if isinstance(place, str):
        return []
    return [path for parent in place.parents for path in parent.glob("gofish-arena-*")]


@pytest.mark.parametrize("mode", GROUPED)
def test_a_fork_flood_stops_at_the_process_ceiling(tmp_path: Path, mode: str) -> None:
    from arena.seats import cgroups

    played = run(tmp_path, [("spy", spy("forks.py", "400")), ("random", None)], mode=mode)
    started = played.report()["started"]
    if mode == "none":
        assert started == 400
    else:
        assert started < cgroups.PIDS_MAX, started
        # Every group removed after its participant: none left by this run's arena, which
        # has ended (other tests' arenas, running or killed, are not this test's to count).
        left = [path for path in _groups_left() if path.name.split("-")[2] == str(played.pid)]
        assert not left, left
        isolation = played.replays[0]["players"][0]["isolation"]  # recorded in the replay
        assert "seccomp" in isolation and cgroups.describe() in isolation, isolation


@pytest.mark.slow
@pytest.mark.parametrize("mode", GROUPED)
def test_children_share_one_memory_ceiling(tmp_path: Path, mode: str) -> None:
    """Six children of 40 MiB under `memoryMiB = 128`: a per-process limit lets each have
    its 40; one ceiling for the participant does not let them all."""
    played = run(
        tmp_path,
        [("spy", spy("hogs_memory.py", "6", "40")), ("random", None)],
        mode=mode,
        limits_text="memoryMiB = 128\n",
    )
    held = played.report()["held"]
    assert (held == 6) if mode == "none" else (held <= 3), held


@pytest.fixture
def no_other_spinners(tmp_path_factory: pytest.TempPathFactory) -> Iterator[None]:
    """Hold a lock shared by this run's pytest-xdist workers (a file in the folder above each
    worker's temporary folder), so that the two busy-sessions tests never run at once: the
    unconfined one's 24 spinning sessions, outside any control group, would take the CPU of
    the confined one's honest bot, which its own group cannot shield from the rest of the
    machine (seen: a ratio of 0.29 when they overlapped)."""
    with open(tmp_path_factory.getbasetemp().parent / "busy-sessions.lock", "a") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(lock, fcntl.LOCK_UN)


@pytest.mark.slow
@pytest.mark.parametrize("mode", GROUPED)
@pytest.mark.usefixtures("no_other_spinners")
def test_busy_sessions_do_not_take_an_honest_bots_cpu(tmp_path: Path, mode: str) -> None:
    """An honest bot's share of a CPU while it thinks, beside a neighbour with 24 busy
    `setsid` children, against the same bot beside a neighbour with one, in the same test: a
    ratio, not a time, and against a busy neighbour in both, so that whatever else the machine
    runs (the tests beside it) takes from both alike."""
    honest = ("honest", spy("honest.py", "0.25"))
    # The match ends at its 30th ask, when the honest bot has measured its three (the spinners
    # end with their spy): the rest of a match, starved by 24 spinners, would measure nothing.
    short = "maxTurns = 30\n"
    one = run(
        tmp_path / "one", [honest, ("busy", spy("spins.py", "1"))], mode=mode, limits_text=short
    )
    many = run(
        tmp_path / "many", [honest, ("busy", spy("spins.py", "24"))], mode=mode, limits_text=short
    )
    shares = [played.report("honest")["shares"] for played in (one, many)]
    assert [len(measured) for measured in shares] == [3, 3], shares
    beside_one, beside_many = (statistics.mean(measured) for measured in shares)
    # Unsandboxed the 24 sessions take 24 shares where one took one; in their group, the 24
    # take one share, as the one did. (Against an idle neighbour instead, the confined ratio
    # fell to 0.29-0.39 in CI while other tests ran beside it.)
    ratio = beside_many / beside_one
    assert (ratio < 0.5) if mode == "none" else (ratio > 0.5), (beside_one, beside_many)


@needs_bwrap
def test_without_control_groups_the_run_says_so_once(monkeypatch: pytest.MonkeyPatch) -> None:
    from arena.seats import cgroups

    monkeypatch.setattr(cgroups, "missing", lambda: "no cgroup hierarchy offers the cpu")
    for wanted in ("auto", "bwrap"):  # "bwrap" requires what it required: bwrap
        mode, warning = sandbox_module.decide(wanted)
        assert mode == "bwrap" and warning is not None and "\n" not in warning
        assert "no control groups (no cgroup hierarchy" in warning
        assert "page cache" in warning


@needs_bwrap
def test_as_root_a_file_closed_to_others_is_a_start_failure_that_says_why(tmp_path: Path) -> None:
    """As root the participant is `nobody`: a script kept from others would fail inside with
    a bare "Permission denied"; it is a start failure naming the file and the fix. A closed
    folder above its files (a `mktemp -d` checkout) is no matter."""
    from arena.seats.ending import close_all
    from arena.seats.replies import FaultKind
    from arena.seats.transport import SubprocessParticipant

    if os.geteuid() != 0:
        pytest.skip("as a user the participant is that user")
    closed = tmp_path / "closed"
    (closed / "bot").mkdir(parents=True)
    closed.chmod(0o700)
    script = closed / "bot" / "bot.py"
    script.write_text("import sys\nsys.stdin.readline()\nprint('{}', flush=True)\n")
    env = {"PATH": os.environ.get("PATH", os.defpath)}
    for mode, fine in ((0o644, True), (0o600, False)):
        script.chmod(mode)
        participant = SubprocessParticipant(
            [sys.executable, str(script)], tmp_path, env, sandbox="bwrap"
        )
        participant.start()
        try:
            if fine:
                assert participant.exchange(b"{}\n", 20.0).value == {}
            else:
                fault = participant.start_fault
                assert fault is not None and fault.kind is FaultKind.START_FAILED
                assert "closed to others" in fault.detail and "chmod o+r" in fault.detail, fault
        finally:
            close_all([participant], 0)
