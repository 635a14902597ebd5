"""What the sandbox costs: a participant's start, a real run, and a tournament with reuse.

Every figure is measured with and without bwrap in the same run, alternating, best of
`--rounds` (the machine is shared: the best is the least disturbed):

1. one participant start, through the arena's transport: a whole process start of
   `python3 -c pass` (spawn to exit), and of the random bot to its `init` reply;
2. a real run: N matches of two Python participants (`bench/arena_vs_floor.py`'s match), each
   against the same bare unsandboxed floor; goal: sandboxed within 1.1x of unsandboxed;
3. tournament throughput with reused participants (`--jobs 1`); goal: unchanged within 5%.

With `--isolation`, only what issue 23's isolation costs and leaves (the rest is skipped):

4. a start (`python3 -c pass`, spawn to exit; the random bot to its `init` reply) unsandboxed,
   in the walls alone (bwrap, its uid, /proc and /dev: no seccomp filter, no control group) and
   fully isolated (the filter and a control group too); goal: isolated within 10% of a Python
   start unsandboxed;
5. the timing channel left between two sandboxed participants: a sender that is busy (four
   processes) or idle in each period, a receiver that counts its own progress (two processes)
   in the same periods; the bits it decodes right, and the capacity that gives,
   (1 - H(error rate)) / period.

With `--channels`, only what issue 38's defences against channels between participants cost:

6. a real run of N matches of two Python participants, sandboxed, with the defences (a uid of
   its own per participant, the seccomp rules against socket families and the
   page cache's probes, its page cache dropped with its control group) and without them (as
   before: every participant `nobody`, nothing dropped, the earlier filter), alternating,
   best of `--rounds`; goal: within 10% of a match of two Python bots;
7. the page cache as a channel: a sender reads one page in each MiB of a large shared library
   for each 1 bit of a 64-bit message (no write, no probe), a receiver times a one-byte read of
   each; once with both alive at once (live: the bits right and the rate, send and receive),
   once so with the library warmed by the arena first (what the open defence would do), once
   with the receiver started after the sender's sandbox is gone (a deal's next rotation), with
   its page cache dropped and without.

With `--copies`, only what the one mechanism known to close the two open channels (the page
cache between live sandboxes, a futex keyed by a file page) would cost: each sandbox its own
private copy of every file it can read (a copy has its own page cache and its own futex keys):

8. in the same run, alternating, a real run of N matches of two Python bots in today's sandbox,
   and copies of a Python runtime's files into a fresh folder on a tmpfs (`/dev/shm`), as one
   seat's would be made: the system Python (`/usr/bin/python3.11`, `/usr/lib/python3.11`
   without `test/`, and the ELF libraries the loader resolves for the interpreter and the
   library's extension modules), and the interpreter prefix of the Python running this (a
   pyenv's or the system's: the same parts); files and MB copied, a copy's time (and its
   removal's), and two copies (a match's two seats) as a ratio of a match.

    python bench/sandbox.py [--starts 30] [--matches 10] [--games 120] [--rounds 3]
    python bench/sandbox.py --isolation [--starts 20] [--bits 64]
    python bench/sandbox.py --channels [--matches 10] [--rounds 5]
    python bench/sandbox.py --copies [--matches 10] [--rounds 5]
"""

from __future__ import annotations

import argparse
import contextlib
import math
import os
import random
import resource
import shutil
import statistics
import subprocess
import sys
import sysconfig
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

import orjson

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "bench"))

from arena_vs_floor import arena_round, floor_round

from arena.base import config as config_module
from arena.referee.seating import participant_env
from arena.seats import cgroups, process, sandbox, seccomp, uids
from arena.seats.ending import close_all
from arena.seats.transport import SubprocessParticipant
from arena.tournaments import tournament
from arena.tournaments.executors import make_executor

MODES = ("none", "bwrap")
BOT = ROOT / "participants" / "random_bot.py"
INIT = (
    orjson.dumps({"type": "init", "seat": 0, "players": [], "opponents": [], "settings": {}})
    + b"\n"
)
KEPT_BOT = f"""\
import sys
sys.path.insert(0, {str(ROOT)!r})
from arena.bots import RandomBot
from arena.sdk import run

class Kept(RandomBot):
    reuse = True

run(Kept())
"""


def cpu(who: int) -> float:
    usage = resource.getrusage(who)
    return usage.ru_utime + usage.ru_stime


def one_start(mode: str, command: list[str], reply: bool) -> float:
    """Seconds from spawn to the process's exit (`reply` False) or to its `init` reply."""
    participant = SubprocessParticipant(
        command, ROOT, participant_env(0, "bench", {}), sandbox=mode
    )  # type: ignore[arg-type]
    began = time.perf_counter()
    participant.start()
    try:
        if reply:
            answer = participant.exchange(INIT, 30.0)
            assert answer.fault is None, answer.fault
        else:
            assert participant.proc is not None
            participant.proc.wait(30)
        seconds = time.perf_counter() - began
    finally:
        close_all([participant], 0)
    return seconds


def starts(count: int) -> dict[tuple[str, str], list[float]]:
    found: dict[tuple[str, str], list[float]] = {}
    for _ in range(count):
        for mode in MODES:
            found.setdefault((mode, "pass"), []).append(
                one_start(mode, [sys.executable, "-c", "pass"], False)
            )
            found.setdefault((mode, "init"), []).append(
                one_start(mode, [sys.executable, str(BOT)], True)
            )
    return found


@contextlib.contextmanager
def walls_only() -> Iterator[None]:
    """The sandbox without its seccomp filter and control groups (what issue 23 added)."""
    saved = seccomp.filter_fd, process.cgroups_on
    seccomp.filter_fd, process.cgroups_on = (lambda: None), (lambda: False)  # type: ignore[assignment]
    try:
        yield
    finally:
        seccomp.filter_fd, process.cgroups_on = saved  # type: ignore[assignment]


def isolation_starts(count: int) -> dict[tuple[str, str], list[float]]:
    """Per (unsandboxed | walls | isolated, pass | init): start times, alternating."""
    found: dict[tuple[str, str], list[float]] = {}
    labels = ["unsandboxed", "walls", "isolated"]
    for number in range(count):
        # Rotated each round: a sandbox's teardown goes on in the kernel after it is reaped,
        # and would slow whichever start always came next.
        for label in labels[number % 3 :] + labels[: number % 3]:
            mode = "none" if label == "unsandboxed" else "bwrap"
            with walls_only() if label == "walls" else contextlib.nullcontext():
                found.setdefault((label, "pass"), []).append(
                    one_start(mode, [sys.executable, "-c", "pass"], False)
                )
                found.setdefault((label, "init"), []).append(
                    one_start(mode, [sys.executable, str(BOT)], True)
                )
    return found


SENDER = """\
import json, os, sys, time
job = json.loads(sys.stdin.readline())
for _ in range(3):  # four busy processes when a bit is 1
    if os.fork() == 0:
        break
start, period = job["start"], job["period"]
for index, bit in enumerate(job["bits"]):
    end = start + (index + 1) * period
    if bit:
        while time.monotonic() < end:
            pass
    else:
        time.sleep(max(0.0, end - time.monotonic()))
print("[]", flush=True)
"""
RECEIVER = """\
import json, os, sys, time
job = json.loads(sys.stdin.readline())
read_end, write_end = os.pipe()
child = os.fork() == 0  # two counting processes
start, period, count = job["start"], job["period"], len(job["bits"])
while time.monotonic() < start:
    pass
counts = []
for index in range(count):
    end, done = start + (index + 1) * period, 0
    while time.monotonic() < end:
        done += 1
    counts.append(done)
if child:
    os.write(write_end, json.dumps(counts).encode() + b"\\n")
    os._exit(0)
other = json.loads(os.fdopen(read_end).readline())
print(json.dumps([a + b for a, b in zip(counts, other)]), flush=True)
"""


def entropy(p: float) -> float:
    return 0.0 if p <= 0 or p >= 1 else -(p * math.log2(p) + (1 - p) * math.log2(1 - p))


def timing_channel(period: float, count: int, seed: int) -> tuple[float, float]:
    """The share of bits a receiver decodes right from a sender's CPU use, and the capacity
    in bits/s, both sandboxed (with the filter and their control groups)."""
    bits = [random.Random(seed + index).randrange(2) for index in range(count)]
    env = participant_env(0, "bench", {})
    sender, receiver = (
        SubprocessParticipant([sys.executable, "-c", code], ROOT, env, sandbox="bwrap")
        for code in (SENDER, RECEIVER)
    )
    try:
        for one in (sender, receiver):
            one.start()
        job = {"start": time.monotonic() + 0.5, "period": period, "bits": bits}
        line = orjson.dumps(job) + b"\n"
        for one in (sender, receiver):
            assert one.process.proc is not None and one.process.write(line) == len(line)
        answer = receiver.exchange(b"", 30.0 + period * count)
        assert answer.fault is None, (answer.fault, receiver.stderr_text())
    finally:
        close_all([sender, receiver], 0)
    counts: list[int] = answer.value
    threshold = statistics.median(counts)
    decoded = [1 if done < threshold else 0 for done in counts]
    right = sum(a == b for a, b in zip(decoded, bits, strict=True)) / count
    error = 1 - right
    return right, max(0.0, 1 - entropy(error)) / period


def isolation_report(options: argparse.Namespace) -> None:
    print(
        f"command: python bench/sandbox.py --isolation --starts {options.starts} --bits {options.bits}"
    )
    found = isolation_starts(options.starts)
    for kind, what in (
        ("pass", "python3 -c pass, spawn to exit"),
        ("init", "random bot, spawn to init reply"),
    ):
        free = found["unsandboxed", kind]
        line = (
            f"start, {what}: unsandboxed best {ms(min(free))} median {ms(statistics.median(free))}"
        )
        for label in ("walls", "isolated"):
            times = found[label, kind]
            line += (
                f"; {label} best {ms(min(times))} ({min(times) / min(free):.2f}x) "
                f"median {ms(statistics.median(times))} ({statistics.median(times) / statistics.median(free):.2f}x)"
            )
        print(line)
        added = statistics.median(found["isolated", kind]) - statistics.median(found["walls", kind])
        print(
            f"  seccomp + control group: {added * 1000:+.1f} ms per start (median), "
            f"{added / statistics.median(free) * 100:+.1f}% of an unsandboxed start (goal <= 10%)"
        )
    for period in (0.05, 0.02, 0.01):
        right, capacity = timing_channel(period, options.bits, seed=int(period * 1000))
        print(
            f"timing channel, period {period * 1000:.0f} ms, {options.bits} bits: "
            f"{right * 100:.0f}% decoded right, capacity {capacity:.1f} bit/s"
        )


@contextlib.contextmanager
def without_channel_defences() -> Iterator[None]:
    """The sandbox as it was before issue 38: every participant `nobody`, nothing dropped from
    the page cache, the filter without its channel rules."""
    saved = uids.take, cgroups.Group._drop_cache, seccomp._channel_rules
    uids.take = lambda: None  # type: ignore[assignment]
    cgroups.Group._drop_cache = lambda self, folder: None  # type: ignore[method-assign]
    seccomp._channel_rules = lambda rule, *, i386: True  # type: ignore[assignment]
    seccomp.program.cache_clear()
    try:
        yield
    finally:
        uids.take, cgroups.Group._drop_cache, seccomp._channel_rules = saved  # type: ignore[method-assign]
        seccomp.program.cache_clear()


CACHE_FILES = (
    "/usr/lib/x86_64-linux-gnu/libLLVM-15.so.1",
    "/usr/lib/x86_64-linux-gnu/libLLVM-14.so.1",
    "/usr/lib/x86_64-linux-gnu/libicudata.so.72.1",
)
CACHE_BITS = 64
CACHE_SCRIPT = """
import os, sys, time
path, role, message = sys.argv[1], sys.argv[2], int(sys.argv[3])
fd = os.open(path, os.O_RDONLY)
os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_RANDOM)  # (one page a read: no readahead)
if role == "receive":
    time.sleep(float(sys.argv[4]))
    got, began = 0, time.perf_counter()
    for bit in range(64):
        start = time.perf_counter()
        os.pread(fd, 1, bit << 20)
        if time.perf_counter() - start < 20e-6:  # cached: about 1-2 us; read from disk: 60+
            got |= 1 << bit
    print([got, time.perf_counter() - began])
else:
    began = time.perf_counter()
    for bit in range(64):
        if message >> bit & 1:
            os.pread(fd, 1, bit << 20)
    took = time.perf_counter() - began
    time.sleep(float(sys.argv[4]))  # (alive meanwhile: live)
    print([0, took])
"""


def page_cache_channel(folder: Path, rounds: int) -> None:
    """Bits right through the page cache: live, and across a rotation with and without the
    group's page cache dropped. Needs root (to evict the file between trials)."""
    shared = next(
        (f for f in CACHE_FILES if Path(f).is_file() and Path(f).stat().st_size > 70 << 20), None
    )
    if shared is None:
        print("page cache: no large shared library here to send through")
        return
    script = folder / "cache_channel.py"
    script.write_text(CACHE_SCRIPT)
    rng = random.Random(38)

    def play(role: str, message: int, pause: float) -> SubprocessParticipant:
        command = [sys.executable, str(script), shared, role, str(message), str(pause)]
        seat = SubprocessParticipant(command, folder, {"PATH": "/usr/bin:/bin"}, sandbox="bwrap")
        seat.start()
        return seat

    def received(seat: SubprocessParticipant, role: str) -> int:
        answer = seat.exchange(b"", 30.0)
        close_all([seat], 0)
        cgroups.wait_for_removals()
        value = answer.value
        if not (isinstance(value, list) and len(value) == 2):
            return -1
        seconds.setdefault((label, role), []).append(float(value[1]))
        return int(value[0])

    def evict() -> None:
        fd = os.open(shared, os.O_RDONLY)
        os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
        os.close(fd)

    def warm() -> None:  # what the defence would do: the arena caches every page first
        with open(shared, "rb") as file:
            while file.read(1 << 20):
                pass

    labels = ("live", "live, warmed by the arena", "rotation, dropped", "rotation, kept")
    results: dict[str, list[int]] = {label: [] for label in labels}
    seconds: dict[tuple[str, str], list[float]] = {}
    for _ in range(rounds):
        for label, right in results.items():
            message = rng.getrandbits(CACHE_BITS)
            evict()
            if label.endswith("warmed by the arena"):
                warm()
            context = (
                without_channel_defences()
                if label == "rotation, kept"
                else contextlib.nullcontext()
            )
            with context:
                if label.startswith("live"):  # the sender still alive while the receiver reads
                    receiver = play("receive", 0, 0.5)
                    sender = play("send", message, 1.5)
                    got = received(receiver, "receive")
                    received(sender, "send")
                else:
                    received(play("send", message, 0), "send")
                    got = received(play("receive", 0, 0), "receive")
            right.append(CACHE_BITS - ((got ^ message) & ((1 << CACHE_BITS) - 1)).bit_count())
    for label, found in results.items():
        print(
            f"page cache, {label}: {statistics.mean(found):.1f} of {CACHE_BITS} bits right "
            f"(chance: 32; {', '.join(map(str, found))})"
        )
    # The live channel's rate: a sender's reads and a receiver's timed reads of one message
    # (the sender's and the receiver's seconds, summed per round: both are the message's).
    sent, read = seconds.get(("live", "send"), []), seconds.get(("live", "receive"), [])
    if sent and read:
        per_message = statistics.median(sent) + statistics.median(read)
        wrong = 1 - statistics.mean(results["live"]) / CACHE_BITS
        print(
            f"page cache, live: {ms(per_message)} per {CACHE_BITS}-bit message (send + receive), "
            f"{wrong * 100:.1f}% of bits wrong: {CACHE_BITS / per_message / 1000:.1f} kbit/s "
            f"before clearing (a sender clears its bits by pressing its own memory limit)"
        )


def channels_report(options: argparse.Namespace) -> None:
    print(
        f"command: python bench/sandbox.py --channels --matches {options.matches} "
        f"--rounds {options.rounds}"
    )
    found: dict[str, list[float]] = {"before": [], "defended": []}
    with tempfile.TemporaryDirectory() as temporary:
        folder = Path(temporary)
        path = run_config(folder, options.matches, "bwrap")
        for number in range(options.rounds):
            order = ["before", "defended"] if number % 2 == 0 else ["defended", "before"]
            for label in order:
                context = (
                    without_channel_defences() if label == "before" else contextlib.nullcontext()
                )
                with context:
                    seconds, _ = arena_round(path, folder / f"{label}{number}", f"{label}{number}")
                cgroups.wait_for_removals()
                found[label].append(seconds)
    for label, times in found.items():
        print(
            f"real run, {options.matches} matches of two Python bots, sandboxed, {label}: "
            f"best {ms(min(times))}, median {ms(statistics.median(times))}"
        )
    if sandbox.as_root():
        with tempfile.TemporaryDirectory() as temporary:
            page_cache_channel(Path(temporary), options.rounds)
    best = min(found["defended"]) / min(found["before"])
    median = statistics.median(found["defended"]) / statistics.median(found["before"])
    print(
        f"the channel defences: {best:.3f}x best, {median:.3f}x median of a run without them "
        f"(goal <= 1.10); per match {ms((min(found['defended']) - min(found['before'])) / options.matches)} best"
    )


def runtime_files(interpreter: str, library: str) -> list[str]:
    """The files of a Python runtime a sandbox would need its own copy of: the interpreter, its
    standard library without its tests (`test/`, `idlelib/idle_test`) and site-packages, and the
    ELF libraries the loader resolves for the interpreter and every extension module (`ldd`)."""
    files = [os.path.realpath(interpreter)]
    for folder, folders, names in os.walk(library):
        folders[:] = [
            name
            for name in folders
            if name not in ("test", "idle_test", "site-packages", "dist-packages")
        ]
        files += [os.path.join(folder, name) for name in names]
    elves = [files[0], *(file for file in files if file.endswith(".so"))]
    for elf in elves:
        found = subprocess.run(["ldd", elf], capture_output=True, text=True, check=False).stdout
        for line in found.splitlines():
            words = line.split()
            path = words[2] if "=>" in words and len(words) > 2 else words[0] if words else ""
            if path.startswith("/"):
                files.append(os.path.realpath(path))
    return [file for file in dict.fromkeys(files) if os.path.isfile(file)]


def copy_once(files: list[str]) -> tuple[float, float]:
    """One seat's private copy of `files` in a fresh folder on a tmpfs: the seconds to copy them
    (each at its own path under the folder), and to remove them."""
    began = time.perf_counter()
    root = tempfile.mkdtemp(prefix="arena-copy-", dir="/dev/shm")
    made: set[str] = set()
    for file in files:
        target = root + file
        folder = os.path.dirname(target)
        if folder not in made:
            os.makedirs(folder, exist_ok=True)
            made.add(folder)
        shutil.copyfile(file, target)
    copied = time.perf_counter() - began
    began = time.perf_counter()
    shutil.rmtree(root)
    return copied, time.perf_counter() - began


def copies_report(options: argparse.Namespace) -> None:
    print(
        f"command: python bench/sandbox.py --copies --matches {options.matches} --rounds {options.rounds}"
    )
    runtimes = {"system Python": runtime_files("/usr/bin/python3.11", "/usr/lib/python3.11")}
    prefix = sys.base_prefix
    if os.path.realpath(prefix) != "/usr":
        version = sysconfig.get_python_version()
        interpreter = os.path.join(prefix, "bin", f"python{version}")
        runtimes[f"this Python's prefix ({prefix})"] = runtime_files(
            interpreter, os.path.join(prefix, "lib", f"python{version}")
        )
    matches: list[float] = []
    copied: dict[str, list[tuple[float, float]]] = {name: [] for name in runtimes}
    with tempfile.TemporaryDirectory() as temporary:
        folder = Path(temporary)
        path = run_config(folder, options.matches, "bwrap")
        for number in range(options.rounds):
            seconds, _ = arena_round(path, folder / f"run{number}", f"run{number}")
            cgroups.wait_for_removals()
            matches.append(seconds / options.matches)
            for name, files in runtimes.items():
                copied[name] += [copy_once(files) for _ in range(2)]  # a match's two seats
    match = min(matches)
    print(
        f"a match of two Python bots, sandboxed today: best {ms(match)}, "
        f"median {ms(statistics.median(matches))} ({options.matches} matches a round)"
    )
    for name, files in runtimes.items():
        size = sum(os.path.getsize(file) for file in files)
        copy = [seconds for seconds, _ in copied[name]]
        removal = [seconds for _, seconds in copied[name]]
        seat = min(copy) + min(removal)
        print(
            f"private copy, {name}: {len(files):,} files, {size / 1e6:.0f} MB; a copy best "
            f"{ms(min(copy))}, median {ms(statistics.median(copy))}; its removal best "
            f"{ms(min(removal))}; a match's two seats: {2 * seat / match:.2f}x of a match (best), "
            f"{2 * (statistics.median(copy) + statistics.median(removal)) / statistics.median(matches):.2f}x (median)"
        )


def run_config(folder: Path, matches: int, mode: str) -> Path:
    command = f'["{sys.executable}", "{BOT}"]'
    path = folder / f"run-{mode}.toml"
    path.write_text(
        f'seed = 1\ngames = {matches}\nreplays = "replays"\n[limits]\nsandbox = "{mode}"\n'
        f'[[participants]]\nname = "one"\ncommand = {command}\n'
        f'[[participants]]\nname = "two"\ncommand = {command}\n'
    )
    return path


def real_runs(
    folder: Path, matches: int, rounds: int
) -> dict[str, tuple[list[float], list[float], list[float]]]:
    """Per mode: the arena's times, the floor's (the same messages, bare and unsandboxed), and
    the arena's own CPU seconds (a sandbox's processes are not counted: its pid namespace's
    init reaps them, out of this process's sight)."""
    found: dict[str, tuple[list[float], list[float], list[float]]] = {
        mode: ([], [], []) for mode in MODES
    }
    for number in range(rounds):
        for mode in MODES:
            path = run_config(folder, matches, mode)
            used = cpu(resource.RUSAGE_SELF)
            seconds, replays = arena_round(path, folder / f"{mode}{number}", f"{mode}{number}")
            found[mode][2].append(cpu(resource.RUSAGE_SELF) - used)
            found[mode][0].append(seconds)
            found[mode][1].append(floor_round(path, replays))
    return found


def tournament_rate(folder: Path, games: int, mode: str) -> tuple[float, float]:
    """Matches per second, and the arena's own CPU seconds per match."""
    folder.mkdir(parents=True)
    (folder / "kept_bot.py").write_text(KEPT_BOT)
    players = "".join(
        f'[[participants]]\nname = "{name}"\ncommand = ["{sys.executable}", "kept_bot.py"]\n'
        for name in ("ann", "bob")
    )
    path = folder / "config.toml"
    path.write_text(
        f'seed = 1\ngames = {games}\n[limits]\nsandbox = "{mode}"\n[tournament]\nreuse = true\n{players}'
    )
    settings, seats = config_module.load(path)
    plan = tournament.prepare(path, settings, seats)
    used = cpu(resource.RUSAGE_SELF)
    began = time.perf_counter()
    report = tournament.run(plan, lambda: make_executor(1), window=1)
    seconds = time.perf_counter() - began
    assert report.played == games and not report.interrupted
    return games / seconds, (cpu(resource.RUSAGE_SELF) - used) / games


def ms(seconds: float) -> str:
    return f"{seconds * 1000:.1f} ms"


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--starts", type=int, default=30, help="starts per mode and kind")
    parser.add_argument("--matches", type=int, default=10, help="matches of the real run")
    parser.add_argument("--games", type=int, default=120, help="matches of the tournament")
    parser.add_argument(
        "--rounds", type=int, default=3, help="rounds of the run and the tournament"
    )
    parser.add_argument(
        "--isolation", action="store_true", help="only the isolation's cost and timing channel"
    )
    parser.add_argument("--bits", type=int, default=64, help="bits sent through the channel")
    parser.add_argument(
        "--channels", action="store_true", help="only what the channel defences cost"
    )
    parser.add_argument(
        "--copies",
        action="store_true",
        help="only what a private copy of a runtime per sandbox would cost, against a match",
    )
    options = parser.parse_args()
    problem = sandbox.probe()
    if problem is not None:
        sys.exit(f"no sandbox here: {problem}")
    if options.isolation:
        isolation_report(options)
        return
    if options.channels:
        channels_report(options)
        return
    if options.copies:
        copies_report(options)
        return
    print(
        f"command: python bench/sandbox.py --starts {options.starts} --matches {options.matches} "
        f"--games {options.games} --rounds {options.rounds}"
    )
    found = starts(options.starts)
    for kind, what in (
        ("pass", "python3 -c pass, spawn to exit"),
        ("init", "random bot, spawn to init reply"),
    ):
        free, boxed = found["none", kind], found["bwrap", kind]
        print(
            f"start, {what}: unsandboxed median {ms(statistics.median(free))} (best {ms(min(free))}), "
            f"sandboxed median {ms(statistics.median(boxed))} (best {ms(min(boxed))}): "
            f"+{ms(statistics.median(boxed) - statistics.median(free))} per start (median), "
            f"+{ms(min(boxed) - min(free))} (best)"
        )
    with tempfile.TemporaryDirectory() as temporary:
        folder = Path(temporary)
        runs = real_runs(folder, options.matches, options.rounds)
        for mode in MODES:
            arena, floor, used = runs[mode]
            print(
                f"real run, {options.matches} matches, {mode}: best {ms(min(arena))}, "
                f"arena / floor = {min(arena) / min(floor):.2f}, the arena's CPU best {ms(min(used))}"
            )
        ratio = min(runs["bwrap"][0]) / min(runs["none"][0])
        cpu_ratio = min(runs["bwrap"][2]) / min(runs["none"][2])
        print(
            f"real run: sandboxed / unsandboxed = {ratio:.3f} (goal <= 1.1); the arena's own CPU {cpu_ratio:.3f}"
        )
        rates: dict[str, list[float]] = {mode: [] for mode in MODES}
        costs: dict[str, list[float]] = {mode: [] for mode in MODES}
        for number in range(options.rounds):
            for mode in MODES:
                rate, cost = tournament_rate(folder / f"t-{mode}-{number}", options.games, mode)
                rates[mode].append(rate)
                costs[mode].append(cost)
        for mode in MODES:
            print(
                f"tournament, reused participants, --jobs 1, {mode}: best {max(rates[mode]):.1f} matches/s "
                f"(median {statistics.median(rates[mode]):.1f}), the arena's CPU {ms(min(costs[mode]))} per match"
            )
        change = max(rates["bwrap"]) / max(rates["none"])
        cpu_change = min(costs["bwrap"]) / min(costs["none"])
        median = statistics.median(rates["bwrap"]) / statistics.median(rates["none"])
        print(
            f"tournament with reuse: sandboxed / unsandboxed throughput = {change:.3f} best, {median:.3f} median "
            f"(goal within 5%); the arena's CPU per match {cpu_change:.3f}"
        )


if __name__ == "__main__":
    main()
