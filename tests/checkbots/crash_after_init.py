"""Broken: answers `init`, then dies with a traceback on the next message."""

import json
import sys

first = json.loads(sys.stdin.readline())
print("null", flush=True)
message = json.loads(sys.stdin.readline())
hand = message["cards"]  # KeyError: the message calls it "hand"
