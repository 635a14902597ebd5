"""A deterministic participant for the golden replays: plays a fixed policy, misbehaves on cue.

    python3 scripted.py [--reuse] [--at N --do WHAT]

N counts the messages of this match (`init` is 1). WHAT is one of:
exit (exit 3), hang (never answer again), not-json, long-line (a line of 5,000 bytes), twice
(answer, then an unsolicited line), flood (answer every message from N on with 300 bytes of
spaces before the value), bad-asks (every ask from N on names itself), bad-pond (every pond
index from N on is a string, a float, a huge or negative number in turn), die-by-signal.
Nothing depends on timing: a hang is a hang, whatever the limit.
"""

import json
import os
import signal
import sys
import time

args = sys.argv[1:]
reuse = "--reuse" in args
at = int(args[args.index("--at") + 1]) if "--at" in args else -1
do = args[args.index("--do") + 1] if "--do" in args else ""
print(f"scripted fake starting: {do or 'plays'} at {at}", file=sys.stderr, flush=True)

POND_REPLIES = [
    '"3"',
    "2.5",
    "-1",
    "1e999",
    "null",
    "[1]",
    "1" + "0" * 30,
    "-0.5",
    "true",
]  # written as is
count = 0
for line in sys.stdin:
    message = json.loads(line)
    kind = message["type"]
    count = 1 if kind == "init" else count + 1  # per match, so reuse does not change the play
    reply: object = None
    raw = None
    if kind == "init":
        seat = message["seat"]
        reply = {"reuse": True} if reuse else None
    elif kind == "ask":
        hand = message["hand"]
        sizes = message["opponentsHandSizes"]
        others = [s for s, size in enumerate(sizes) if size is not None]
        target = max(others, key=lambda s: (sizes[s], -s))
        reply = {"player": target, "cardId": hand[count % len(hand)]["id"]}
        if do == "bad-asks" and count >= at:
            reply = {"player": seat, "cardId": hand[0]["id"]}
    elif kind in ("go-fish", "pick-up"):
        reply = count * 7
        if do == "bad-pond" and count >= at:
            raw = POND_REPLIES[count % len(POND_REPLIES)]
    if count == at:
        if do == "exit":
            sys.exit(3)
        if do == "die-by-signal":
            os.kill(os.getpid(), signal.SIGKILL)
        if do == "hang":
            while True:
                time.sleep(60)
        if do == "not-json":
            print("this is not json", flush=True)
            continue
        if do == "long-line":
            print("7" * 5000, flush=True)
            continue
    text = json.dumps(reply) if raw is None else raw
    if do == "flood" and count >= at:
        text = " " * 300 + text
    if do == "twice" and count == at:
        text += "\n" + text  # one write: the second line is already waiting when the arena writes
    sys.stdout.write(text + "\n")
    sys.stdout.flush()
