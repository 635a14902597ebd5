#!/usr/bin/env python3
"""A built-in level of `arena.bots` as a standalone participant.

    python3 participants/level_bot.py expert     # random, easy, medium, hard, expert, master

`easy_bot.py`, `medium_bot.py`, `hard_bot.py`, `expert_bot.py` and `master_bot.py` beside it
are the same two lines for one level each (a config or `arena sprt` names the program by its
file; each stands alone, since a sandbox shows a participant only its own program's files).
Needs only Python 3.11 and this checkout: without `arena` installed, it imports it from the
repository root. An unknown level: a usage line, exit 2.
"""

import sys
from pathlib import Path

sys.path.append(str(Path(__file__).resolve().parent.parent))  # this checkout, if not installed
from arena.bots import main

if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
