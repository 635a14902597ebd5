"""`arena league serve --scheduler`: the season played on a real Dask `LocalCluster` (two
worker processes on 127.0.0.1, no dashboard), as tests/test_cluster.py starts one."""

from __future__ import annotations

import contextlib
import importlib.util
import sqlite3
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("httpx")
pytest.importorskip("starlette")
pytest.importorskip("uvicorn")

from test_league import Server, good_bot, make_league, upload, wait_for

pytestmark = pytest.mark.skipif(
    importlib.util.find_spec("distributed") is None,
    reason="Dask is an optional extra: pip install '.[dask]' to run this test",
)


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


def test_the_season_plays_on_a_dask_cluster(cluster: Any, tmp_path: Path) -> None:
    folder, tokens = make_league(tmp_path)
    server = Server(folder, "--scheduler", str(cluster.scheduler_address))
    try:
        wait_for(lambda: server.matches() >= 4, "matches played on the cluster")
        # A version submitted while it plays there starts playing there too.
        assert upload(server, "clusterbot", good_bot(), tokens["ann"]).status_code == 201
        wait_for(
            lambda: any(
                b["name"] == "clusterbot" and b["matches"]
                for b in server.get("/api/leaderboard").json()["bots"]
            ),
            "the new version plays on the cluster",
        )
    finally:
        server.kill()
    with contextlib.closing(sqlite3.connect(folder / "league.db")) as db:
        rows = db.execute("SELECT deal_seed, rotation, replay FROM matches").fetchall()
    assert len(rows) == len({(deal, rotation) for deal, rotation, _ in rows})
    assert all((folder / "replays" / replay).is_file() for _, _, replay in rows)
    # The cluster's workers played them (the arena's checked task, on the scheduler's books).
    assert "run_checked" in cluster.scheduler.task_prefixes
