"""Broken: answers every message with text that is not JSON."""

import sys

for line in sys.stdin:
    print("ok, got it", flush=True)
