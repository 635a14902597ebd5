#!/usr/bin/env python3
"""The built-in `master` bot (arena/bots/master.py) as a standalone participant.

    python3 participants/master_bot.py

Needs only Python 3.11 and this checkout: without `arena` installed, it imports it from the
repository root.
"""

import sys
from pathlib import Path

try:
    import arena.bots
except ModuleNotFoundError:
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
    import arena.bots

if __name__ == "__main__":
    sys.exit(arena.bots.main(["master"]))
