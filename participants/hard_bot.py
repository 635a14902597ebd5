#!/usr/bin/env python3
"""The built-in `hard` level as a standalone participant: `participants/level_bot.py hard`."""

import runpy
import sys
from pathlib import Path

sys.argv[1:] = ["hard"]
runpy.run_path(str(Path(__file__).resolve().with_name("level_bot.py")), run_name="__main__")
