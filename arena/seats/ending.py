"""The end of a match for every seat: stdin closed, a grace to exit, every group killed, reaped.

    close_all(participants, grace)  # after the last message of a match, whatever plays the seats

`close_all` speaks only the `Participant` protocol (`arena.seats.replies`); what it waits for
while the seats end by themselves is each one's `Ending` (a pid and its stderr), which only a
process has, watched by `wait_for_exits` through a pidfd. Stopping a process is the process's
own `kill` (`arena.seats.process`), which this module never imports.
"""

from __future__ import annotations

import os
import select
import time
from collections.abc import Iterable

from arena.base import shutdown
from arena.seats.replies import Ending, Participant


def close_all(participants: Iterable[Participant], grace: float) -> None:
    """End a match: close every stdin, give `grace` seconds to exit, kill every group, reap.

    Never waits on a pipe: a forked child that keeps stdout open dies with its group. A second
    Ctrl-C cuts the grace short but never the kills; it is raised again once all are done.
    """
    everyone = list(participants)
    interrupted = False
    try:
        for participant in everyone:
            participant.end_input()
        endings = [e for p in everyone if (e := p.ending()) is not None]
        if endings:  # processes: an in-process or replayed match has none
            wait_for_exits(endings, grace)
    except KeyboardInterrupt:
        interrupted = True
    for participant in everyone:
        while True:
            try:
                participant.kill()  # also when it exited by itself: its children may live on
                break
            except KeyboardInterrupt:
                interrupted = True
    if interrupted:
        raise KeyboardInterrupt


def wait_for_exits(endings: list[Ending], grace: float) -> None:
    """Wait up to `grace` seconds for every process to end, draining stderr meanwhile.

    Each process is watched through a pidfd, which becomes readable when it ends (without
    reaping it), so the wait ends the moment the last one does.
    """
    poller = select.poll()
    ending: dict[int, Ending] = {}
    logs: dict[int, Ending] = {}
    try:
        for one in endings:
            try:
                pidfd = os.pidfd_open(one.pid)
            except OSError:  # the process is already gone
                continue
            ending[pidfd] = one
            poller.register(pidfd, select.POLLIN)
            if one.stderr_fd is not None:
                logs[one.stderr_fd] = one
                poller.register(one.stderr_fd, select.POLLIN)
        deadline = time.monotonic() + grace
        while ending:
            remaining = deadline - time.monotonic()
            if remaining <= 0 or shutdown.should_stop():  # stopping: no grace
                return
            for fd, event in poller.poll(min(remaining, shutdown.CHECK_EVERY) * 1000):
                if fd in ending:
                    poller.unregister(fd)
                    os.close(fd)
                    del ending[fd]
                elif fd in logs:
                    logs[fd].drain()
                    if event & (select.POLLHUP | select.POLLERR):
                        poller.unregister(fd)
                        del logs[fd]
    finally:
        for pidfd in ending:
            os.close(pidfd)
