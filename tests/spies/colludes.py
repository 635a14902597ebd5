"""Two seats try to pass a hand: through /tmp, /dev/shm and an abstract unix socket.

    python colludes.py TAG

Each writes its starting hand where the other would look, and serves it on an abstract
socket; at its first ask it looks for the other's, and reports what it found.
"""

from __future__ import annotations

import json
import socket
import sys
import threading
from typing import Any

from _spy import play, report

TAG = sys.argv[1]
me = {"seat": -1, "hand": ""}


def places(seat: int) -> list[str]:
    return [f"/tmp/gofish-{TAG}-{seat}", f"/dev/shm/gofish-{TAG}-{seat}"]


def serve(seat: int, payload: bytes) -> None:
    server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        server.bind(f"\0gofish-{TAG}-{seat}")
        server.listen(4)
    except OSError:
        return

    def loop() -> None:
        while True:
            connection, _ = server.accept()
            with connection:
                connection.sendall(payload)

    threading.Thread(target=loop, daemon=True).start()


def on_init(message: dict[str, Any]) -> None:
    me["seat"] = message["seat"]


def on_hand(message: dict[str, Any]) -> None:
    payload = json.dumps(sorted(card["id"] for card in message["hand"])).encode()
    for path in places(me["seat"]):
        try:
            with open(path, "wb") as file:
                file.write(payload)
        except OSError:
            pass
    serve(me["seat"], payload)


def on_ask(message: dict[str, Any]) -> None:
    if me.get("looked"):
        return
    me["looked"] = True
    other = 1 - me["seat"]
    found = []
    for path in places(other):
        try:
            with open(path, "rb") as file:
                if file.read():
                    found.append(path.split("/")[1] + "/" + path.split("/")[2].split("-")[0])
        except OSError:
            pass
    try:
        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as client:
            client.settimeout(1.0)
            client.connect(f"\0gofish-{TAG}-{other}")
            if client.recv(4096):
                found.append("abstract socket")
    except OSError:
        pass
    report(found=found)


play({"init": on_init, "starting-hand": on_hand, "ask": on_ask})
