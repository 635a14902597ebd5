"""A submission's build step (`build = [...]` in `bot.toml`), run in the participants' sandbox.

    folder, log = build(source, target, command, settings)   # raises Refused with the log

The build runs as a participant process does (`arena.seats.process`: bubblewrap, no network,
its own pid namespace, its control group's process and memory ceilings, the seccomp filter),
never outside it: without bwrap a build is refused. The sandbox lets it read its folder and
write only its private `/tmp`, so it works on a copy there and hands the result back as a tar
stream on its stdout, which is unpacked by the same safe unpacker as an upload (no links, no
`..`, bounded bytes and files). Its stderr (and the build's own stdout) is the build log its
owner reads. A build that runs past its time is killed with every process it started.
"""

from __future__ import annotations

import shutil
import tempfile
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from arena.league.submission import Refused, UnpackLimits, unpack
from arena.seats.process import ParticipantProcess, ResourceLimits
from arena.seats.sandbox import resolved

LOG_BYTES = 64 << 10  # of the build's output kept for its owner
# Copy the folder into the private /tmp, build there (its output to stderr), send it back as tar.
_SCRIPT = 'set -e; cp -R "$0"/. /tmp/build; cd /tmp/build; "$@" 1>&2; tar -cf - .'
PATH = (
    "/usr/local/bin:/usr/bin:/bin"  # a build's: the system's programs, all it can see of the host
)


@dataclass(frozen=True)
class BuildSettings:
    seconds: float = 120.0
    memory_mib: int = 1024


class BuildFailed(Refused):
    def __init__(self, reason: str, log: str) -> None:
        super().__init__(reason)
        self.log = log


def build(
    source: Path,
    target: Path,
    command: Sequence[str],
    settings: BuildSettings,
    limits: UnpackLimits,
    sandbox: str = "auto",
) -> tuple[Path, str]:
    """Run `command` on a copy of `source` in the sandbox; the built folder (in `target`, new)
    and the log. Raises BuildFailed (with the log) or Refused."""
    if resolved(sandbox) != "bwrap":
        raise Refused("build steps run only in the sandbox, and bwrap is not available here")
    program = command[0]
    if "/" not in program and shutil.which(program, path=PATH) is None:
        raise BuildFailed(
            f"the build's program `{program}` is not on its PATH ({PATH}): a build runs "
            "the system's programs only, not one installed in a home folder (as rustup's "
            "cargo); submit the built program without a build step, or ask the organiser",
            "",
        )
    # From an empty folder, there until the build has ended: the command's arguments are paths
    # in its copy (/tmp/build), not in the read-only upload, which a path resolved from the
    # upload's folder would name (`cc -o bot bot.c` beside a `bot` already there wrote the
    # upload: read-only).
    with tempfile.TemporaryDirectory(prefix="arena-build-") as nowhere:
        process = ParticipantProcess(
            ["/bin/sh", "-c", _SCRIPT, str(source.resolve()), *command],
            Path(nowhere),
            {"PATH": PATH, "LANG": "C.UTF-8"},
            limits=ResourceLimits(memory_bytes=settings.memory_mib << 20),
            sandbox="bwrap",
            read_only=(str(source.resolve()),),
        )
        fault = process.start()
        if fault is not None:
            raise BuildFailed(f"the build could not start: {fault.detail}", "")
        output, log = bytearray(), bytearray()
        deadline = time.monotonic() + settings.seconds
        cap = limits.unpacked_bytes + (1 << 20)
        reason = None
        try:
            open_streams = {"stdout", "stderr"}
            while open_streams:
                left = deadline - time.monotonic()
                if left <= 0:
                    reason = f"the build ran past {settings.seconds:g} s"
                    break
                for stream in process.wait(min(left, 0.5), ("stdout", "stderr")):
                    try:
                        chunk = process.read(stream)
                    except BlockingIOError:
                        continue
                    if not chunk:
                        open_streams.discard(stream)
                    elif stream == "stdout":
                        output += chunk
                        if len(output) > cap:
                            reason = f"the build's folder is over {limits.unpacked_bytes} bytes"
                            open_streams.clear()
                            break
                    elif len(log) < LOG_BYTES:
                        log += chunk[: LOG_BYTES - len(log)]
        finally:
            ended = process.stop(grace=1.0 if reason is None else 0.0)
            process.close_output()
    text = log.decode("utf-8", "replace")
    if (
        reason is None
        and ended.code not in (0, None)
        or reason is None
        and not ended.ended_by_itself
    ):
        reason = f"the build failed (exit status {ended.code})"
    if reason is not None:
        raise BuildFailed(reason, text)
    try:
        return unpack(bytes(output), target, limits), text
    except Refused as error:
        raise BuildFailed(f"the build's result: {error}", text) from None
