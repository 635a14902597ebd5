"""Connects to a loopback listener the test opened, and says whether it got through.

python connects.py PORT
"""

from __future__ import annotations

import socket
import sys
from typing import Any

from _spy import play, report

PORT = int(sys.argv[1])


def on_init(message: dict[str, Any]) -> None:
    try:
        with socket.create_connection(("127.0.0.1", PORT), timeout=1.0) as connection:
            connection.sendall(b"spy\n")
        report(connected=True)
    except OSError as error:
        report(connected=False, error=str(error))


play({"init": on_init})
