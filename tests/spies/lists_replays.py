"""Lists and reads the replays folder (and results.jsonl) at the path it guesses.

python lists_replays.py REPLAYS_FOLDER
"""

from __future__ import annotations

import os
import sys
from typing import Any

from _spy import play, report

FOLDER = sys.argv[1]


def on_init(message: dict[str, Any]) -> None:
    try:
        names = sorted(os.listdir(FOLDER))
    except OSError as error:
        report(listed=False, error=str(error), names=[], read=False)
        return
    read = False
    for name in names:
        try:
            with open(os.path.join(FOLDER, name), "rb") as file:
                read = read or bool(file.read(1))
        except OSError:
            pass
    report(listed=bool(names), names=names, read=read)


play({"init": on_init})
