"""The `arena` command run in the test's own process, its result as a subprocess's would be:

    done = arena_here("run", "config.toml", cwd=tmp_path)
    assert done.returncode == 0, done.stderr

It runs the `cli.command` that `main` runs once the process is set up, for a test of arguments,
output, files and exit status: without an interpreter's start-up and imports, about 0.25 s of CPU
a run, which the suite's few hundred such runs would pay. An exception that would have reached
the user as a traceback fails the test where it was raised. What only a process shows (signals, a
closed or full stdout, the sandbox's children, start-up, what is imported, a newcomer's first
commands) is tested with `python -m arena` in a subprocess (`arena_process`, or `arena_started`
for one the test signals or kills while it runs).

A run started in a process is resumed in a process: where the arena is installed (CI's
`pip install .`), a process runs the installed copy and this one the checkout's, and `--resume`
rightly refuses a built-in bot whose code is another file than the one that began the run.
"""

from __future__ import annotations

import contextlib
import io
import multiprocessing.forkserver
import os
import signal
import subprocess
import sys
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

from arena.base import shutdown
from arena.ui import cli


def arena_here(
    *args: str,
    cwd: Path | None = None,
    input: str | None = None,
    env: Mapping[str, str] | None = None,
) -> subprocess.CompletedProcess[str]:
    """`arena ARGS` in this process: its folder, environment, arguments and standard streams
    are the command's while it runs, and this process's again after."""
    stdout, stderr = io.StringIO(), io.StringIO()
    with (
        _as_a_process(cwd, input, env, ["arena", *args]),
        contextlib.redirect_stdout(stdout),
        contextlib.redirect_stderr(stderr),
    ):
        try:
            status = cli.command(list(args))
        except SystemExit as exit:  # a command's `fail`, or typer's Exit
            status = _exit_status(exit, stderr)
    return subprocess.CompletedProcess(
        ["arena", *args], status, stdout.getvalue(), stderr.getvalue()
    )


ARENA = (sys.executable, "-m", "arena")  # the command a process test starts


def arena_process(
    *args: str,
    cwd: Path | None = None,
    env: Mapping[str, str] | None = None,
    input: str | None = None,
    timeout: float = 300,
    umask: int = -1,
) -> subprocess.CompletedProcess[str]:
    """`arena ARGS` as a process (`python -m arena`), its output captured, for a test of what
    only a process shows (start-up, imports, a pipe, a umask, a newcomer's first commands)."""
    return subprocess.run(
        [*ARENA, *args],
        cwd=cwd,
        env=env,
        input=input,
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
        umask=umask,
    )


def arena_started(
    *args: str, cwd: Path | None = None, env: Mapping[str, str] | None = None, **popen: Any
) -> subprocess.Popen[Any]:
    """`arena ARGS` started as a process and left running, for a test of the process itself (a
    signal, a kill, a page rewritten while it runs): stdout and stderr are text pipes unless
    `popen` (`subprocess.Popen`'s options) says otherwise. The test waits for it and reaps it."""
    options: dict[str, Any] = {"stdout": subprocess.PIPE, "stderr": subprocess.PIPE, "text": True}
    return subprocess.Popen([*ARENA, *args], cwd=cwd, env=env, **{**options, **popen})


def bare_env(**extra: str) -> dict[str, str]:
    """An environment with only this one's PATH and HOME, and `extra`: what a process test
    gives the arena so that nothing else of the test's environment reaches it."""
    return {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": str(Path.home()), **extra}


NO_SANDBOX = "warning: no sandbox ("  # how `auto` without a working bwrap begins its one line


def said(stderr: str) -> list[str]:
    """A command's stderr in lines, but for the no-sandbox warning a machine without bwrap
    prints once a run is sure to start: what a test of something else compares."""
    return [line for line in stderr.splitlines() if not line.startswith(NO_SANDBOX)]


def path_without(folder: Path, *programs: str) -> str:
    """A PATH like this process's, in which `programs` (say "bwrap", "chromium") are not
    found: `folder` gets a link to every other program on it, as a machine without them."""
    folder.mkdir(parents=True, exist_ok=True)
    for place in os.environ.get("PATH", os.defpath).split(os.pathsep):
        try:
            names = sorted(os.listdir(place or "."))
        except OSError:
            continue
        for name in names:
            link = folder / name
            if name not in programs and not os.path.lexists(link):
                link.symlink_to(Path(place, name).absolute())
    return str(folder)


def _exit_status(exit: SystemExit, stderr: io.StringIO) -> int:
    if exit.code is None or isinstance(exit.code, int):
        return exit.code or 0
    print(exit.code, file=stderr)  # as the interpreter does with `sys.exit("message")`
    return 1


@contextlib.contextmanager
def _as_a_process(
    cwd: Path | None, input: str | None, env: Mapping[str, str] | None, argv: list[str]
) -> Iterator[None]:
    kept_folder, kept_argv, kept_stdin = Path.cwd(), sys.argv, sys.stdin
    kept_environ = dict(os.environ)
    kept_handlers = {number: signal.getsignal(number) for number in shutdown.STOP_SIGNALS}
    if cwd is not None:
        os.chdir(cwd)
    if env is not None:
        os.environ.clear()
        os.environ.update(env)
    sys.argv, sys.stdin = argv, io.StringIO(input or "")
    shutdown.token.clear()
    shutdown.install_immediate()  # as `main` leaves the process for a command
    cli.out._made = cli.err._made = None  # consoles made for this command's streams
    try:
        yield
    finally:
        # A pool's forkserver ends with the command, as with its process: the next command's
        # workers fork from a server started in its own folder and environment.
        multiprocessing.forkserver._forkserver._stop()  # (the standard library's test hook)
        cli.out._made = cli.err._made = None
        shutdown.token.clear()
        for number, handler in kept_handlers.items():
            signal.signal(number, handler)
        sys.argv, sys.stdin = kept_argv, kept_stdin
        os.environ.clear()
        os.environ.update(kept_environ)
        os.chdir(kept_folder)
