"""`arena league serve --scheduler`: the season played on a real Dask `LocalCluster` (two
worker processes on 127.0.0.1, no dashboard), as tests/test_cluster.py starts one."""

from __future__ import annotations

import contextlib
import importlib.util
import json
import os
import sqlite3
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("httpx")
pytest.importorskip("starlette")
pytest.importorskip("uvicorn")

from test_league import (
    GOOD,
    Server,
    good_bot,
    make_league,
    signed_in,
    tar_of,
    upload,
    wait_for,
)

pytestmark = pytest.mark.skipif(
    importlib.util.find_spec("distributed") is None,
    reason="Dask is an optional extra: pip install '.[dask]' to run this test",
)


def paused_note(folder: Path, bot: str) -> str | None:
    """The note of `bot`'s latest version if it is paused, else None."""
    with contextlib.closing(sqlite3.connect(folder / "league.db")) as db:
        row = db.execute(
            "SELECT v.state, v.note FROM versions v JOIN bots b ON b.id = v.bot_id "
            "WHERE b.name = ? ORDER BY v.number DESC",
            (bot,),
        ).fetchone()
    return str(row[1]) if row and row[0] == "paused" else None


@pytest.fixture(scope="module")
def cluster() -> Iterator[Any]:
    import distributed

    with distributed.LocalCluster(
        n_workers=2,
        processes=True,
        threads_per_worker=1,
        host="127.0.0.1",
        scheduler_port=0,
        dashboard_address="127.0.0.1:0",  # (None is not "off": it takes Dask's 8787)
        worker_dashboard_address="127.0.0.1:0",
    ) as local:
        yield local


@pytest.mark.slow
def test_the_season_plays_on_a_dask_cluster(cluster: Any, tmp_path: Path) -> None:
    folder, tokens = make_league(tmp_path)
    # A program on the server's PATH and not on the workers' (started from this process).
    extra = tmp_path / "bin"
    extra.mkdir()
    (extra / "pathbot-run").write_bytes(b"#!/usr/bin/env python3\n" + GOOD)
    (extra / "pathbot-run").chmod(0o755)
    env = {**os.environ, "PATH": f"{extra}{os.pathsep}{os.environ['PATH']}"}
    server = Server(folder, "--scheduler", str(cluster.scheduler_address), env=env)
    try:
        wait_for(lambda: server.matches() >= 4, "matches played on the cluster")
        # A version submitted while it plays there starts playing there too. And one whose
        # program the workers lack passes the check here, is checked on the workers before it
        # is seated, and is paused with the worker and what it lacks. (Both submitted before
        # either is waited for: the cluster plays flat out the whole test.)
        assert upload(server, "clusterbot", good_bot(), tokens["ann"]).status_code == 201
        pathbot = tar_of({"bot.toml": b'command = ["pathbot-run"]\n'})
        assert upload(server, "pathbot", pathbot, tokens["ann"]).status_code == 201
        wait_for(
            lambda: any(
                b["name"] == "clusterbot" and b["matches"]
                for b in server.get("/api/leaderboard").json()["bots"]
            ),
            "the new version plays on the cluster",
        )
        note = wait_for(lambda: paused_note(folder, "pathbot"), "the version paused")
        assert "program pathbot-run: missing there, present on the client" in note, note
        assert any(f"worker {worker}:" in note for worker in cluster.scheduler.workers), note
        client, _ = signed_in(server, tokens["ann"])
        with contextlib.closing(client):
            page = client.get("/me").text
        assert "pathbot v1 — paused" in page and "pathbot-run: missing there" in page, page
    finally:
        server.kill()
    with contextlib.closing(sqlite3.connect(folder / "league.db")) as db:
        rows = db.execute("SELECT deal_seed, rotation, replay FROM matches").fetchall()
    assert len(rows) == len({(deal, rotation) for deal, rotation, _ in rows})
    assert all((folder / "replays" / replay).is_file() for _, _, replay in rows)
    # It never sat at a table.
    with contextlib.closing(sqlite3.connect(folder / "league.db")) as db:
        (pathbot_id,) = db.execute(
            "SELECT v.id FROM versions v JOIN bots b ON b.id = v.bot_id WHERE b.name = 'pathbot'"
        ).fetchone()
        seated = [
            json.loads(versions) for (versions,) in db.execute("SELECT versions FROM matches")
        ]
    assert seated and not any(pathbot_id in versions for versions in seated)
    # The cluster's workers played them (the arena's checked task, on the scheduler's books).
    assert "run_checked" in cluster.scheduler.task_prefixes
