"""teeoracle: the byte-exact reference oracle for the Teeworlds/DDNet binary
formats, from Python.

Every value is the JSON the ``teeoracle`` command prints for the same thing,
as Python dicts and lists (the shapes are specified in the crate's
``src/schema.md``):

- ``Teehistorian(path)``: a teehistorian file as a stream of records (the
  lines of ``teehistorian dump --format jsonl``), its ``header`` and ``end``;
  ``Teehistorian(path).batches()`` gives the same records in columns, fast.
- ``ticks(path)``: the replayed world after each tick (every player's state);
  ``replay(path, at=None)``: the world at a tick (``teehistorian replay``).
- ``Demo(path)``: a demo's events as DDNet's player meets them (ticks,
  messages, snapshots with every item, faults), decoded as they are
  asked for; ``Map(path)``: a map's summary, items and layers;
  ``Capture(path)``: a capture's datagrams with DDNet's verdict;
  ``Archive(path)``: a recording archive of ``teeoracle archive pack``
  (its maps, each map's recording as a ``Teehistorian`` streamed from it,
  the log, the world at a tick from its checkpoints, verification);
  ``open(path)``: the reader of a file by its format.
- ``tables(paths)``: the tables of ``teeoracle export`` as Arrow streams
  (``__arrow_c_stream__``: pyarrow, polars, pandas, DuckDB read them
  without a file); ``export(paths, to)``: the Parquet files.
- ``decode_packet(data)``: a datagram decoded, with DDNet's verdict;
  ``encode_packet(doc)``: the inverse.
- ``check(path)``: the ``check --format json`` report.
- ``simulate(teehistorian, map)``: the ``teehistorian simulate --format
  json`` report (the inputs replayed through our model of DDNet's physics,
  every position compared).

Bytes that do not decode raise ``DecodeError`` (a ``ValueError``) with the
file byte (``offset``), the finding code (``code``) and the ``tick``; a
teehistorian file cut short (no FINISH) warns with ``TruncatedWarning`` at
its end. A path that does not exist raises ``FileNotFoundError``, a
source that is neither a path nor bytes ``TypeError``, a nonsense argument
(``batches(0)``, ``replay(at=-5)``) ``ValueError`` naming it. The readers
read once: iterating one again after its end raises ``RuntimeError``.
"""

from __future__ import annotations

import json
import os
from typing import Any, Callable, Dict, List, Optional, Sequence, Tuple, Union

from ._teeoracle import (
    KINDS,
    SCHEMA_VERSION,
    TABLES,
    Archive,
    Batches,
    DecodeError,
    Capture,
    Demo,
    Lines,
    Map,
    MapMismatchWarning,
    RecordBatch,
    Recordings,
    Table,
    Teehistorian,
    Ticks,
    TruncatedWarning,
    __version__,
)
from . import _teeoracle

__all__ = [
    "KINDS",
    "SCHEMA_VERSION",
    "TABLES",
    "Archive",
    "Batches",
    "DecodeError",
    "Capture",
    "Demo",
    "Lines",
    "Map",
    "MapMismatchWarning",
    "RecordBatch",
    "Recordings",
    "Table",
    "Teehistorian",
    "Ticks",
    "TruncatedWarning",
    "__version__",
    "check",
    "decode_packet",
    "encode_packet",
    "encode_packets",
    "export",
    "open",
    "records",
    "replay",
    "simulate",
    "tables",
    "ticks",
]

Source = Union[str, "os.PathLike[str]", bytes]


def records(source: Source) -> Teehistorian:
    """The records of a teehistorian file, one dict each (an iterator).

    The same as ``Teehistorian(source)``: see there.
    """
    return Teehistorian(source)


def ticks(source: Source) -> Ticks:
    """The replayed world after each tick of a teehistorian file.

    Yields ``{"tick": T, "players": [...]}`` once per tick that has records,
    in order, each player as ``teehistorian replay --format json`` shows it
    (``cid``, ``connected``, ``alive``, ``x``, ``y``, ``input``, ``team``,
    ``name``, ...): every client id the records named so far. The
    replay's inconsistencies (records that do not fit the world) are
    counted in ``.inconsistencies``, not raised. ``.end`` is the end line
    once the records have ended (as ``Teehistorian.end``); a file cut short
    warns with ``TruncatedWarning``.
    """
    return Ticks(source)


def replay(source: Source, at: Optional[int] = None, strict: bool = False) -> Dict[str, Any]:
    """The world of a teehistorian file at tick ``at`` (default: its end).

    The ``teehistorian_world`` document of ``teeoracle teehistorian replay
    --format json``. With ``strict``, an inconsistency raises
    ``DecodeError`` (code ``"replay"``); a negative tick or one after the
    end raises ``ValueError``.
    """
    return _teeoracle.replay(source, at, strict)


def decode_packet(data: bytes, version: str = "auto", token: str = "auto") -> Dict[str, Any]:
    """One datagram decoded, with what DDNet does with it.

    The entry of ``teeoracle packet decode --format json`` for it:
    ``version`` (``"0.6"`` or ``"0.7"``, detected as DDNet's server does for
    an unknown peer unless given), ``verdict`` (``ddnet``: DDNet 20.1's
    verdict, ``accept`` or a ``drop`` with its reason), ``packet`` (every
    field, chunks and messages) or ``error`` when it does not decode,
    ``reencode`` and ``failed``. ``token``: whether a 0.6 connection packet
    ends with DDNet's security token (``"yes"``, ``"no"``, ``"auto"``).
    """
    return _teeoracle.decode_packet(bytes(data), version, token)


def _as_json(doc: Union[str, Dict[str, Any], List[Any]]) -> str:
    return doc if isinstance(doc, str) else json.dumps(doc)


def encode_packets(doc: Union[str, Dict[str, Any], List[Any]]) -> List[bytes]:
    """The datagrams a ``packet_decode`` document describes (the document,
    one of its ``packets`` entries, or a list of entries; as a dict or JSON
    text). Messages may be given by their fields or their body. Raises
    ``ValueError`` for a description that does not encode."""
    return _teeoracle.encode_packets(_as_json(doc))


def encode_packet(doc: Union[str, Dict[str, Any], List[Any]]) -> bytes:
    """The one datagram ``doc`` describes (see ``encode_packets``); a
    description of several raises ``ValueError``."""
    out = encode_packets(doc)
    if len(out) != 1:
        raise ValueError(f"{len(out)} packets described: use encode_packets")
    return out[0]


PathArg = Union[str, "os.PathLike[str]"]


def check(
    paths: Union[PathArg, Sequence[PathArg]],
    maps: Sequence[PathArg] = (),
    deny_warnings: bool = False,
    simulate: bool = True,
    jobs: Optional[int] = None,
) -> Dict[str, Any]:
    """The report of ``teeoracle check --format json`` for files or folders.

    ``files`` (one verdict per file: ``status``, ``format``, ``findings``
    with their ``code`` and ``offset``, ``counts``, ...) and ``totals``.
    A file that fails is reported, not raised: the report is the answer.
    ``maps``: folders of maps (and demos) to simulate teehistorian files
    on; ``simulate=False`` is ``--no-simulate``; ``jobs`` the files
    checked at once (``-j``; default: one per core; the report is the
    same, in the same order).
    """
    if isinstance(paths, (str, os.PathLike)):
        paths = [paths]
    return _teeoracle.check(
        [os.fspath(p) for p in paths],
        [os.fspath(m) for m in maps],
        deny_warnings,
        simulate,
        jobs,
    )


def simulate(
    teehistorian: Source,
    map: Source,
    demo: Optional[Source] = None,
    at: Optional[int] = None,
    physics: Optional[str] = None,
) -> Dict[str, Any]:
    """The ``simulation`` document of ``teeoracle teehistorian simulate
    --format json``: the file's inputs replayed through our model of DDNet's physics on
    ``map`` (a map file, or a demo that embeds it) and every recorded
    position compared (``matched``, ``player_ticks``, ``divergences``,
    ``players``, ...). With ``demo`` (a server demo of the same session),
    every Character item is compared too; with ``at``, the simulation stops
    after that tick and ``world`` holds the world there. A record that does
    not decode ends the simulation: ``stopped`` says where (the command
    exits 1 then). A file that cannot be simulated at all (its header, a
    server version the simulator does not model, a map without a game
    layer) raises ``DecodeError`` or ``ValueError``. ``physics`` (``"16.4"``
    or ``"20.1"``) steps with that DDNet version's physics instead of the
    recording server's (``--physics``). A map whose checksum differs from
    the one the teehistorian header names warns with ``MapMismatchWarning``
    before the simulation runs."""
    return _teeoracle.simulate(teehistorian, map, demo, at, physics)


def tables(
    paths: Union[PathArg, Sequence[PathArg]],
    maps: Sequence[PathArg] = (),
    simulate: bool = True,
) -> Dict[str, Table]:
    """The tables of ``teeoracle export`` for files or folders, as Arrow
    streams, by name (``TABLES``): no file is written.

    Each ``Table`` has ``__arrow_c_stream__`` (the Arrow PyCapsule
    interface): ``pyarrow.table(t)``, ``polars.DataFrame(t)`` or DuckDB's
    ``FROM t`` read its record batches without copying them, with the
    schema of its Parquet file (``t.to_arrow()``, ``t.to_pandas()``,
    ``t.to_polars()`` are the same, shorter). The files are read as the
    consumer pulls, every time a stream is asked for. ``maps`` and
    ``simulate`` are ``check``'s (the ``check_reports`` table).
    """
    if isinstance(paths, (str, os.PathLike)):
        paths = [paths]
    return _teeoracle.tables(
        [os.fspath(p) for p in paths], [os.fspath(m) for m in maps], simulate
    )


def export(
    paths: Union[PathArg, Sequence[PathArg]],
    to: PathArg,
    maps: Sequence[PathArg] = (),
    simulate: bool = True,
) -> Dict[str, Tuple[str, int]]:
    """``teeoracle export PATHS --to TO``: every table written to
    ``TO/NAME.parquet`` (the folder is made if missing, the files replaced);
    gives ``{table: (path, rows)}``."""
    if isinstance(paths, (str, os.PathLike)):
        paths = [paths]
    return _teeoracle.export(
        [os.fspath(p) for p in paths], os.fspath(to), [os.fspath(m) for m in maps], simulate
    )


Reader = Union[Teehistorian, Demo, Map, Capture, Archive]


def open(path: PathArg) -> Reader:
    """The reader of the file at ``path``, by its format as ``check``
    recognises it (its bytes, through any compression): ``Teehistorian``,
    ``Demo``, ``Map``, ``Capture`` or ``Archive`` (a recording archive,
    plain or compressed). A file of another format (a raw snapshot) or of
    none raises ``ValueError`` naming it. Every reader is a context
    manager: ``with teeoracle.open(p) as r: ...``."""
    path = os.fspath(path)
    format = _teeoracle.format_of(path)
    readers: Dict[str, Callable[[str], Reader]] = {
        "teehistorian": Teehistorian,
        "demo": Demo,
        "map": Map,
        "capture": Capture,
        "archive": Archive,
    }
    if format not in readers:
        what = f"a {format} file" if format else "no format teeoracle reads"
        raise ValueError(f"{path}: {what}: open() reads {', '.join(readers)} files")
    return readers[format](path)
