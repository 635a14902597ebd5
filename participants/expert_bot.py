#!/usr/bin/env python3
"""The built-in `expert` level as a standalone participant: `participants/level_bot.py expert`."""

import sys
from pathlib import Path

sys.path.append(str(Path(__file__).resolve().parent.parent))  # this checkout, if not installed
from arena.bots import main

if __name__ == "__main__":
    sys.exit(main(["expert"]))
