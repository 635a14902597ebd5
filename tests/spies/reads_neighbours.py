"""A bot kept beside its config reads its neighbours: other configs, results, the organiser's log.

    python reads_neighbours.py [FILE...]

Lists its working directory and reads every file there and every FILE it is given (a link in
its command that points at the organiser's files), reporting what it could read.
"""

from __future__ import annotations

import os
import sys
from typing import Any

from _spy import play, report


def on_hand(message: dict[str, Any]) -> None:
    try:
        listed = sorted(os.listdir("."))
    except OSError:
        listed = []
    read = {}
    for name in [*listed, *sys.argv[1:]]:
        try:
            with open(name, "rb") as file:
                data = file.read(1 << 16)
        except OSError:
            continue
        if data:
            read[os.path.basename(name)] = data.decode("utf-8", "replace")[:200]
    report(listed=listed, read=read)


play({"starting-hand": on_hand})
