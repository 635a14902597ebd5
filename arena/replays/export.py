"""Decision exports (`arena export`): one row per decision a seat was asked for, from replays.

A row holds the message exactly as the seat was sent it (its view), what the rules allowed,
what the seat answered and whether the rules took it as valid, and how that seat's match
ended. Replays are read one at a time through `replay.read` (untrusted files: bounded, checked)
and rows are written as they come, so memory stays bounded by one replay and one batch.
JSON lines (`.jsonl`) keep the view, the legal actions and the action as JSON values; Parquet
(`.parquet`, the extra `[parquet]`: pyarrow) keeps them as JSON text columns.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any, Final

import orjson

from arena.base import jsontext
from arena.base.errors import ReplayError
from arena.base.files import streamed_new
from arena.engine.match import NO_REPLY
from arena.engine.rules import Ask, is_pond_number, verify_ask
from arena.replays.replay import NotAReplay, Replay, read

DECISIONS: Final = ("ask", "go-fish", "pick-up")
FORMATS: Final = (".jsonl", ".parquet")
BATCH: Final = 4096  # Parquet rows per row group written

__all__ = ["FORMATS", "Exported", "export", "replay_files", "rows"]


@dataclass(frozen=True)
class Exported:
    rows: int
    replays: int
    skipped: int  # files of a run that are not replays (standings.json…)


def replay_files(folder: Path) -> list[Path]:
    """The replay files of a folder (`*.json`, in name order), or the one file given."""
    if folder.is_dir():
        return sorted(p for p in folder.glob("*.json") if p.is_file())
    return [folder]


def rows(replay: Replay, name: str) -> Iterator[dict[str, Any]]:
    """One row per decision of the replay's transcript, in transcript order."""
    seats = len(replay.players)
    result = replay.result
    for at, exchange in enumerate(replay.transcript):
        message = exchange.message
        kind = message.get("type")
        if kind not in DECISIONS:
            continue
        seat = exchange.seat
        reply = exchange.reply
        player = replay.players[seat]
        if kind == "ask":
            hand = message["hand"]
            legal: dict[str, Any] = {
                "players": [other for other in range(seats) if other != seat],
                "cardIds": [card["id"] for card in hand],
            }
            valid = reply is not NO_REPLY and isinstance(verify_ask(reply, seat, seats, hand), Ask)
        else:
            pond = message["pond"]
            legal = {"pondSize": len(pond) if isinstance(pond, list) else int(pond)}
            valid = reply is not NO_REPLY and is_pond_number(reply)
        fault = exchange.answer.fault
        yield {
            "replay": name,
            "seed": replay.seed,
            "dealSeed": replay.deal_seed,
            "game": replay.match,
            "at": at,
            "seat": seat,
            "player": player.name,
            "fingerprint": player.fingerprint,
            "type": kind,
            "view": message,
            "legal": legal,
            "action": None if reply is NO_REPLY else reply,
            "delivered": exchange.answer.delivered,
            "noReply": None if fault is None else str(fault.kind),
            "valid": valid,
            "books": result.scores[seat] if seat < len(result.scores) else None,
            "place": result.places[seat] if seat < len(result.places) else None,
            "outcome": str(result.outcome),
        }


def _replays(files: list[Path]) -> Iterator[tuple[Replay, str] | None]:
    """Each replay read back (None for a file of a run that is not a replay). Raises
    ReplayError for a file that is not a replay the arena could have written."""
    for file in files:
        try:
            yield read(file), file.name
        except NotAReplay as error:
            if (error.format or "").startswith("gofish-arena-"):
                yield None  # standings.json and its like: another file of a run
                continue
            raise


def export(folder: Path, output: Path) -> Exported:
    """Write every decision of the replays in `folder` to `output` (.jsonl or .parquet).

    Raises ReplayError (a bad replay: nothing is written), WriteError, or ValueError for an
    output suffix that is neither. The output is written whole or not at all."""
    if output.suffix not in FORMATS:
        raise ValueError(f"{output}: the output is .jsonl or .parquet, not {output.suffix!r}")
    files = replay_files(folder)
    counts = [0, 0, 0]  # rows, replays, skipped

    def every_row() -> Iterator[dict[str, Any]]:
        for read_back in _replays(files):
            if read_back is None:
                counts[2] += 1
                continue
            replay, name = read_back
            counts[1] += 1
            for row in rows(replay, name):
                counts[0] += 1
                yield row

    with streamed_new(output) as file:
        if output.suffix == ".jsonl":
            _write_jsonl(every_row(), file)
        else:
            _write_parquet(every_row(), file)
        if not counts[1]:
            raise ReplayError(f"{folder}: no replay in it")  # and nothing is written
    return Exported(*counts)


def _write_jsonl(found: Iterator[dict[str, Any]], file: IO[bytes]) -> None:
    dumps, option = orjson.dumps, orjson.OPT_APPEND_NEWLINE
    for row in found:
        try:
            file.write(dumps(row, option=option))
        except (orjson.JSONEncodeError, TypeError):  # a reply orjson cannot write (see below)
            file.write(jsontext.dumps(row).encode() + b"\n")


JSON_COLUMNS: Final = ("view", "legal", "action")


def _write_parquet(found: Iterator[dict[str, Any]], file: IO[bytes]) -> None:
    import pyarrow as pa
    import pyarrow.parquet as pq

    schema = pa.schema(
        [
            ("replay", pa.string()),
            ("seed", pa.int64()),
            ("dealSeed", pa.int64()),
            ("game", pa.int64()),
            ("at", pa.int64()),
            ("seat", pa.int64()),
            ("player", pa.string()),
            ("fingerprint", pa.string()),
            ("type", pa.string()),
            ("view", pa.string()),
            ("legal", pa.string()),
            ("action", pa.string()),
            ("delivered", pa.bool_()),
            ("noReply", pa.string()),
            ("valid", pa.bool_()),
            ("books", pa.int64()),
            ("place", pa.int64()),
            ("outcome", pa.string()),
        ]
    )
    with pq.ParquetWriter(pa.PythonFile(file, mode="w"), schema) as writer:
        batch: list[dict[str, Any]] = []
        for row in found:
            for column in JSON_COLUMNS:
                row[column] = jsontext.dumps(row[column])
            batch.append(row)
            if len(batch) == BATCH:
                writer.write_table(pa.Table.from_pylist(batch, schema=schema))
                batch = []
        if batch:
            writer.write_table(pa.Table.from_pylist(batch, schema=schema))
