"""Writes wherever it can: its own folder, the config's, results.jsonl, and a folder the test names.

python writes_outside.py RESULTS_FILE TARGET_FOLDER
"""

from __future__ import annotations

import json
import os
import sys
from typing import Any

from _spy import play, report

RESULTS, TARGET = sys.argv[1], sys.argv[2]
FORGED = {"tournament": "forged", "run": "forged", "game": 0, "seating": ["spy"], "scores": [13]}


def attempt(path: str, data: str, mode: str = "w") -> bool:
    try:
        with open(path, mode, encoding="utf-8") as file:
            file.write(data)
        return True
    except OSError:
        return False


def on_init(message: dict[str, Any]) -> None:
    here = os.path.dirname(os.path.abspath(__file__))
    wrote = {
        "own folder": attempt(os.path.join(here, "spy-was-here.txt"), "x"),
        "working directory": attempt("spy-was-here.txt", "x"),
        "results": attempt(RESULTS, json.dumps(FORGED) + "\n", "a"),
        "target": attempt(os.path.join(TARGET, "spy-was-here.txt"), "x"),
    }
    tmp = os.environ.get("TMPDIR", "/tmp")
    report(
        wrote=[where for where, done in wrote.items() if done],
        temp=attempt(os.path.join(tmp, "mine.txt"), "x"),
    )


play({"init": on_init})
