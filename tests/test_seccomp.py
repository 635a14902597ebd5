"""The seccomp filter (`arena.seats.seccomp`): what it denies, seen by real bots in real
sandboxes through the real CLI (each attempt succeeds unsandboxed and fails sandboxed), and
every runtime the docs show still running under it."""

from __future__ import annotations

import json
import os
import platform
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from test_isolation import PROTECTION
from test_spies import needs_bwrap, run, spy

from arena.seats import seccomp, uids
from arena.seats.ending import close_all
from arena.seats.transport import SubprocessParticipant

needs_filter = pytest.mark.skipif(seccomp.missing() is not None, reason=str(seccomp.missing()))


@needs_filter
@pytest.mark.parametrize("mode", PROTECTION)
def test_two_seats_cannot_talk_through_file_locks(tmp_path: Path, mode: str) -> None:
    played = run(tmp_path, [("a", spy("locks.py")), ("b", spy("locks.py"))], mode=mode)
    holder, looker = played.report("a"), played.report("b")
    if mode == "none":
        assert holder["locked"] == ["flock", "record", "ofd", "wide"], holder
        assert looker["seen"] == ["flock", "record", "ofd", "wide"], looker
    else:  # refused, with an error the bot sees (it played on)
        assert holder["locked"] == [] and set(holder["refused"].values()) == {"EPERM"}, holder
        assert looker["seen"] == [] and set(looker["refused"].values()) == {"EPERM"}, looker


@needs_filter
@pytest.mark.skipif(platform.machine() != "x86_64", reason="keyctl's number is x86-64's")
@pytest.mark.parametrize("mode", PROTECTION)
def test_namespaces_tracing_keyrings_and_personality_are_refused(tmp_path: Path, mode: str) -> None:
    if mode == "none" and os.geteuid() != 0:
        pytest.skip("unsandboxed, a user may be refused some of these anyway")
    played = run(tmp_path, [("spy", spy("forbidden.py")), ("random", None)], mode=mode)
    got = played.report()["got"]
    expected = "done" if mode == "none" else "EPERM"
    assert got == dict.fromkeys(("unshare", "ptrace", "keyctl", "personality"), expected), got


def _runtimes(tmp_path: Path) -> list[tuple[str, list[str]]]:
    """Each runtime the docs show, a program that reads a line, starts a thread (or a child),
    and answers it with one JSON line."""
    made: list[tuple[str, list[str]]] = []
    script = tmp_path / "echo.py"
    script.write_text(
        "import json, sys, threading, subprocess, time\n"
        "import multiprocessing as mp\n"
        "def child(event, queue):\n"
        "    event.wait(); queue.put('woken')\n"  # (asleep on a semaphore shared with its parent)
        "if __name__ == '__main__':\n"
        "    line = sys.stdin.readline()\n"
        "    t = threading.Thread(target=lambda: None); t.start(); t.join()\n"
        "    subprocess.run(['true'], check=True)\n"
        "    event, queue = mp.Event(), mp.Queue()\n"
        "    p = mp.Process(target=child, args=(event, queue)); p.start()\n"
        "    time.sleep(0.3); event.set(); assert queue.get(timeout=20) == 'woken'; p.join()\n"
        "    with mp.Pool(2) as pool: assert pool.map(abs, [-1, -2]) == [1, 2]\n"
        "    print(json.dumps({'ok': 'python'}), flush=True)\n"
    )
    made.append(("python", [sys.executable, str(script)]))
    if shutil.which("node"):
        (tmp_path / "echo.js").write_text(
            "const { Worker } = require('worker_threads');\n"
            "const rl = require('readline').createInterface({input: process.stdin});\n"
            "rl.once('line', () => { require('child_process').execFileSync('true');\n"
            "  const w = new Worker('require(\"worker_threads\").parentPort.postMessage(6 * 7)',"
            " {eval: true});\n"
            "  w.once('message', (n) => { if (n !== 42) process.exit(3);\n"
            "    console.log(JSON.stringify({ok: 'node'})); process.exit(0); }); });\n"
        )
        made.append(("node", ["node", str(tmp_path / "echo.js")]))
    compiler = shutil.which("cc") or shutil.which("gcc")
    if compiler:
        source = tmp_path / "echo.c"
        source.write_text(
            "#include <stdio.h>\n#include <pthread.h>\n#include <unistd.h>\n"
            # (the thread still runs when it is joined: the C library waits on a shared futex)
            "static void *f(void *a) { usleep(50000); return a; }\n"
            "int main(void) { char line[256]; pthread_t t;\n"
            "  if (!fgets(line, sizeof line, stdin)) return 1;\n"
            "  pthread_create(&t, 0, f, 0); pthread_join(t, 0);\n"
            '  printf("{\\"ok\\": \\"c\\"}\\n"); fflush(stdout); return 0; }\n'
        )
        binary = tmp_path / "c" / "echo"
        binary.parent.mkdir()
        subprocess.run(
            [compiler, "-O2", "-pthread", "-o", str(binary), str(source)],
            check=True,
            capture_output=True,
        )
        made.append(("c", [str(binary)]))
    if shutil.which("java"):
        java = tmp_path / "java" / "Echo.java"
        java.parent.mkdir()
        java.write_text(
            "public class Echo { public static void main(String[] a) throws Exception {\n"
            "  new java.io.BufferedReader(new java.io.InputStreamReader(System.in)).readLine();\n"
            "  Thread t = new Thread(() -> {}); t.start(); t.join();\n"
            '  System.out.println("{\\"ok\\": \\"java\\"}"); System.out.flush(); } }\n'
        )
        made.append(("java", ["java", "-Xshare:auto", str(java)]))
    if shutil.which("perl"):
        made.append(
            (
                "perl",
                [
                    "perl",
                    "-e",
                    '$| = 1; <STDIN>; fork or exit; wait; print "{\\"ok\\": \\"perl\\"}\\n"',
                ],
            )
        )
    return made


@needs_bwrap
@needs_filter
def test_every_runtime_the_docs_show_runs_under_the_filter(tmp_path: Path) -> None:
    env = {"PATH": os.environ.get("PATH", os.defpath), "LANG": "C.UTF-8"}
    ran = {}
    for name, command in _runtimes(tmp_path):
        participant = SubprocessParticipant(command, tmp_path, env, sandbox="bwrap")
        participant.start()
        try:
            answer = participant.exchange(b"{}\n", 60.0)
        finally:
            close_all([participant], 0)
        assert answer.fault is None, (name, answer.fault, participant.stderr_text())
        ran[name] = answer.value
    assert ran["python"] == {"ok": "python"}
    assert all(value == {"ok": name} for name, value in ran.items()), ran


@needs_bwrap
@needs_filter
def test_the_filter_is_on_inside(tmp_path: Path) -> None:
    script = tmp_path / "status.py"
    script.write_text(
        "import json, sys\nsys.stdin.readline()\n"
        "status = dict(l.split(':\\t', 1) for l in open('/proc/self/status').read().splitlines() if ':\\t' in l)\n"
        "print(json.dumps({k: status.get(k, '').strip() for k in ('Seccomp', 'Uid', 'NoNewPrivs', 'CapEff')}), flush=True)\n"
    )
    participant = SubprocessParticipant(
        [sys.executable, str(script)], tmp_path, {"PATH": os.defpath}, sandbox="bwrap"
    )
    participant.start()
    try:
        found = participant.exchange(b"{}\n", 20.0).value
    finally:
        close_all([participant], 0)
    assert found["Seccomp"] == "2" and found["NoNewPrivs"] == "1", found
    assert int(found["CapEff"], 16) == 0, found
    if os.geteuid() == 0:  # a uid of its own, from the arena's range (`arena.seats.uids`)
        [uid] = set(found["Uid"].split())
        assert uids.FIRST_UID <= int(uid) < uids.FIRST_UID + uids.COUNT, json.dumps(found)


@needs_bwrap
def test_without_libseccomp_the_run_is_sandboxed_and_says_so_once(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from arena.seats import sandbox

    monkeypatch.setattr(seccomp, "_library", lambda: None)
    monkeypatch.setattr(seccomp, "program", lambda: None)
    for wanted in ("auto", "bwrap"):  # "bwrap" requires what it required: bwrap
        mode, warning = sandbox.decide(wanted)
        assert mode == "bwrap" and warning is not None
        assert "no seccomp filter (libseccomp is not installed" in warning and "\n" not in warning
