"""Broken: reads its whole input before answering, so it waits for ever for the first message."""

import sys

for _line in sys.stdin.read().splitlines():
    print("null", flush=True)
