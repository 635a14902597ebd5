"""A quick, sensible participant for the stopping tests: notes its pid, then plays.

Usage: bot.py SECONDS [reuse]. It waits SECONDS before each reply, and with `reuse` asks to be
kept between matches. Its pid and start time go to the file named by STOP_PIDS, one JSON line.
Standard library only.
"""

import json
import os
import sys
import time
from pathlib import Path


def note_pid() -> None:
    path = os.environ.get("STOP_PIDS")
    if path:
        start = Path("/proc/self/stat").read_text().rsplit(")", 1)[1].split()[19]
        try:
            with open(path, "a", encoding="utf-8") as file:
                file.write(json.dumps({"pid": os.getpid(), "start": start}) + "\n")
        except OSError:
            pass  # in a sandbox the folder is not there: the test follows the sandboxes instead


def reply_to(message: dict, reuse: bool) -> object:
    kind = message["type"]
    if kind == "init":
        return {"reuse": True} if reuse else None
    if kind == "ask":
        sizes = message["opponentsHandSizes"]
        seat = next(index for index, size in enumerate(sizes) if size is not None)
        return {"player": seat, "cardId": message["hand"][0]["id"]}
    if kind in ("go-fish", "pick-up"):
        return 0
    return None


def main() -> None:
    note_pid()
    seconds = float(sys.argv[1])
    reuse = "reuse" in sys.argv[2:]
    for line in sys.stdin.buffer:
        message = json.loads(line)
        if message["type"] == "ask":
            time.sleep(seconds)
        sys.stdout.write(json.dumps(reply_to(message, reuse)) + "\n")
        sys.stdout.flush()


main()
