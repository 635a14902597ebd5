"""Opens sockets of the families no bot needs: VSOCK (to the host's hypervisor and other
machines: a network namespace does not cover it), packet, netlink's uevents.

    python families.py

Unsandboxed (as root) each opens; in the sandbox each must fail (EAFNOSUPPORT or
EPROTONOSUPPORT) while Unix, IPv4 and IPv6 sockets and netlink's routing still open.
"""

from __future__ import annotations

import errno
import socket
from typing import Any

from _spy import play, report

AF_VSOCK, AF_PACKET, AF_NETLINK = 40, 17, 16
NETLINK_ROUTE, NETLINK_KOBJECT_UEVENT = 0, 15
TRIED = {
    "vsock": (AF_VSOCK, socket.SOCK_STREAM, 0),
    "packet": (AF_PACKET, socket.SOCK_RAW, 0),
    "uevent": (AF_NETLINK, socket.SOCK_RAW, NETLINK_KOBJECT_UEVENT),
    "unix": (socket.AF_UNIX, socket.SOCK_STREAM, 0),
    "inet": (socket.AF_INET, socket.SOCK_STREAM, 0),
    "inet6": (socket.AF_INET6, socket.SOCK_STREAM, 0),
    "route": (AF_NETLINK, socket.SOCK_RAW, NETLINK_ROUTE),
}


def on_init(message: dict[str, Any]) -> None:
    got = {}
    for name, (family, kind, protocol) in TRIED.items():
        try:
            socket.socket(family, kind, protocol).close()
            got[name] = "done"
        except OSError as error:
            got[name] = errno.errorcode.get(error.errno or 0, "?")
    report(got=got)


play({"init": on_init})
