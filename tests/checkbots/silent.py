"""Broken: reads every message and never answers."""

import sys

for line in sys.stdin:
    pass
