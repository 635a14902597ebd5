"""Asks to be reused and notes, at each starting hand, its pid, its hand and which processes of
the run are alive at that moment (from /proc, unsandboxed): what a process that has seen a deal
could do to the next rotation of it needs it alive then. Notes go to the file in DEAL_NOTES."""

import json
import os
import sys
import time

from _common import sensible

notes = os.environ["DEAL_NOTES"]


def alive() -> list[int]:
    try:
        with open(notes, encoding="utf-8") as file:
            pids = {json.loads(line)["pid"] for line in file}
    except FileNotFoundError:
        return []
    living = []
    for pid in pids - {os.getpid()}:
        try:
            with open(f"/proc/{pid}/stat", encoding="utf-8") as stat:
                state = stat.read().rsplit(")", 1)[1].split()[0]
        except OSError:
            continue
        if state not in ("Z", "X"):
            living.append(pid)
    return living


seat, name = -1, ""
for line in sys.stdin:
    message = json.loads(line)
    if message["type"] == "init":
        seat = message["seat"]
        name = message["players"][seat]["name"]
        reply = {"reuse": True}
    else:
        reply = sensible(message)
    if message["type"] == "starting-hand":
        hand = sorted(card["id"] for card in message["hand"])
        note = {"pid": os.getpid(), "seat": seat, "name": name, "hand": hand}
        note.update(alive=alive(), at=time.monotonic())
        with open(notes, "a", encoding="utf-8") as file:
            file.write(json.dumps(note) + "\n")
    print(json.dumps(reply), flush=True)
