"""The tournament report over a large run: build time, page size, and opening it in Chromium.

A results.jsonl of N synthetic lines (a real schedule, seeds and replay names; drawn scores;
8 participants, 2 seats by default) is written to a temporary folder. Then, best of --repeat:

- floor: a whole `python` process that imports the arena and reads results.jsonl alone
  (`tournament.read_results`: every line parsed);
- `arena report FOLDER`: a whole process, as the user waits for it;
- the page opened in headless Chromium (over CDP, as tests/test_viewer.py drives it): from
  navigation to the page's script having drawn everything (`body[data-ready]`).

    python bench/report.py [--matches 100000] [--participants 8] [--seats 2] [--repeat 3]
"""

from __future__ import annotations

import argparse
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))

from resultsmaker import results_lines, write_results


def timed(command: list[str]) -> tuple[float, float]:
    """Wall and CPU seconds of a whole process (CPU: the machine is shared, wall time is noisy)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    began = time.perf_counter()
    subprocess.run(command, check=True, stdout=subprocess.DEVNULL)
    wall = time.perf_counter() - began
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def open_seconds(page: Path, profile: Path) -> float:
    from test_viewer import CHROMIUM, Browser

    if CHROMIUM is None:
        return float("nan")
    browser = Browser(profile)
    try:
        browser.open("about:blank")
        began = time.perf_counter()
        browser.send("Page.navigate", url=page.as_uri())
        while browser.js("document.body && document.body.dataset.ready") != "1":
            time.sleep(0.01)
        return time.perf_counter() - began
    finally:
        browser.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--matches", type=int, default=100_000)
    parser.add_argument("--participants", type=int, default=8)
    parser.add_argument("--seats", type=int, default=2)
    parser.add_argument("--repeat", type=int, default=3)
    options = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="bench-report-") as temporary:
        folder = Path(temporary) / "replays"
        names = [f"bot-{i}" for i in range(options.participants)]
        write_results(
            folder, results_lines(names, options.matches, seats=options.seats, faulty=names[-1])
        )
        results = folder / "results.jsonl"
        floor_code = (
            "import sys; from pathlib import Path; from arena.tournaments.tournament import read_results; "
            "read_results(Path(sys.argv[1]))"
        )
        floors, builds, opens = [], [], []
        for round_ in range(options.repeat):
            floors.append(timed([sys.executable, "-c", floor_code, str(results)]))
            builds.append(timed([sys.executable, "-m", "arena", "report", str(folder)]))
            profile = Path(temporary) / f"profile-{round_}"
            opens.append(open_seconds(folder / "report.html", profile))
            shutil.rmtree(profile, ignore_errors=True)
        page = folder / "report.html"
        (floor, floor_cpu), (build, build_cpu), opened = min(floors), min(builds), min(opens)
        print(
            f"{options.matches} matches, {options.participants} participants, {options.seats} seats; "
            f"results.jsonl {results.stat().st_size / 1e6:.1f} MB"
        )
        print(f"floor (a process reading results.jsonl)  {floor:6.2f} s   CPU {floor_cpu:5.2f} s")
        print(
            f"arena report                             {build:6.2f} s   CPU {build_cpu:5.2f} s   "
            f"{build / floor:.1f}x the floor (CPU {build_cpu / floor_cpu:.1f}x)"
        )
        print(f"page                                     {page.stat().st_size / 1e6:6.2f} MB")
        print(f"opened and drawn in chromium             {opened:6.2f} s")


if __name__ == "__main__":
    main()
