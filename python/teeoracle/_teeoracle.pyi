"""Type stubs of the extension module (python/src/*.rs)."""

import os
from types import TracebackType
from typing import Any, Dict, Iterator, List, Optional, Sequence, Tuple, Type, Union, final

_Source = Union[str, os.PathLike[str], bytes]

__all__ = [
    "__version__",
    "SCHEMA_VERSION",
    "DecodeError",
    "MapMismatchWarning",
    "TruncatedWarning",
    "KINDS",
    "Teehistorian",
    "Batches",
    "RecordBatch",
    "Ticks",
    "Table",
    "Demo",
    "Lines",
    "Capture",
    "Map",
    "Archive",
    "Recordings",
    "format_of",
    "TABLES",
    "tables",
    "export",
    "replay",
    "records_via_serde",
    "decode_packet",
    "encode_packets",
    "check",
    "cli",
    "simulate",
]

__version__: str
SCHEMA_VERSION: int
TABLES: List[str]
"""The export's tables, in the order ``teeoracle export`` lists them."""
KINDS: Tuple[str, ...]
"""The teehistorian record kinds, by index (a RecordBatch's ``kind`` column)."""

class DecodeError(ValueError):
    """Bytes that do not decode as the format says."""

    offset: Optional[int]
    """The file byte where the fault was found."""
    code: str
    """The finding code ``check`` gives it (``"decode"``, ``"replay"``, ...)."""
    tick: Optional[int]
    """The game tick the fault was found in."""
    context: Optional[str]
    """What was being read, e.g. ``"teehistorian.player_new.x"``."""
    error: Optional[Dict[str, Any]]
    """The crate's error as the JSON reports print it."""

class TruncatedWarning(UserWarning):
    """A file that ends without its end mark (a teehistorian file without
    FINISH): every whole record was given; ``end`` says where it ends."""

class MapMismatchWarning(UserWarning):
    """The map given to ``simulate`` is not the one the teehistorian header
    names (its SHA-256, or CRC-32, differs)."""

@final
class RecordBatch:
    """Records of a teehistorian file in columns (memoryviews of native ints)."""

    def __len__(self) -> int: ...
    def __getitem__(self, i: int, /) -> Dict[str, Any]: ...
    def __iter__(self) -> Iterator[Dict[str, Any]]: ...
    def record(self, i: int) -> Dict[str, Any]:
        """The *i*-th record as the dict ``Teehistorian`` yields."""
    def records(self) -> List[Dict[str, Any]]:
        """Every record as a dict."""
    def counts(self) -> Dict[str, int]:
        """Records per kind."""
    @property
    def extra(self) -> Dict[int, Dict[str, Any]]:
        """Records of kinds without columns, whole: {index: dict}."""
    @property
    def offset(self) -> memoryview:
        """File offset of each record (int64)."""
    @property
    def tick(self) -> memoryview:
        """Tick of each record (int32)."""
    @property
    def kind(self) -> memoryview:
        """Kind of each record (uint8, an index into ``KINDS``)."""
    @property
    def cid(self) -> memoryview:
        """Client id (int32; 0 for records without one)."""
    @property
    def x(self) -> memoryview:
        """``player_new``'s x (int32; else 0)."""
    @property
    def y(self) -> memoryview:
        """``player_new``'s y (int32; else 0)."""
    @property
    def dx(self) -> memoryview:
        """``player_diff``'s dx (int32; else 0)."""
    @property
    def dy(self) -> memoryview:
        """``player_diff``'s dy (int32; else 0)."""
    @property
    def dt(self) -> memoryview:
        """``tick_skip``'s dt (int32; else 0)."""
    @property
    def input(self) -> memoryview:
        """10 int32 per record: ``input_new``'s input, ``input_diff``'s dinput."""

@final
class Teehistorian(Iterator[Dict[str, Any]]):
    """A teehistorian file as a stream of records (dicts), bounded memory."""

    def __new__(cls, source: _Source) -> "Teehistorian": ...
    @property
    def header(self) -> Dict[str, Any]:
        """The header line: kind, offset, json_len, info."""
    @property
    def name(self) -> str: ...
    @property
    def records(self) -> int:
        """Records given so far."""
    @property
    def end(self) -> Optional[Dict[str, Any]]:
        """The end line once the stream has ended."""
    def __iter__(self) -> "Teehistorian":
        """Itself; raises RuntimeError once the reader has reached its end."""
    def __next__(self) -> Dict[str, Any]: ...
    def next_batch(self, size: int = 65536) -> Optional[RecordBatch]:
        """The next records in columns, or None at the end (``size`` >= 1)."""
    def batches(self, size: int = 65536) -> "Batches":
        """RecordBatches of ``size`` (>= 1) records, from where the reader is;
        raises RuntimeError once the reader has reached its end."""
    def __arrow_c_stream__(self, requested_schema: Optional[object] = None) -> object:
        """The file's ``teehistorian_records`` rows as an Arrow C stream."""
    # pyarrow.Table, pandas.DataFrame, polars.DataFrame: Any, so that
    # the stubs do not need those packages.
    def to_arrow(self) -> Any: ...
    def to_pandas(self) -> Any: ...
    def to_polars(self) -> Any: ...
    def __enter__(self) -> "Teehistorian": ...
    def __exit__(
        self,
        exc_type: Optional[Type[BaseException]],
        exc: Optional[BaseException],
        tb: Optional[TracebackType],
    ) -> bool: ...

@final
class Batches(Iterator[RecordBatch]):
    def __iter__(self) -> "Batches": ...
    def __next__(self) -> RecordBatch: ...

@final
class Ticks(Iterator[Dict[str, Any]]):
    """The replayed world after each tick: {"tick": T, "players": [...]}."""

    def __new__(cls, source: _Source) -> "Ticks": ...
    @property
    def inconsistencies(self) -> int: ...
    @property
    def end(self) -> Optional[Dict[str, Any]]:
        """The end line once the records have ended (as ``Teehistorian.end``)."""
    def __iter__(self) -> "Ticks":
        """Itself; raises RuntimeError once it has reached its end."""
    def __next__(self) -> Dict[str, Any]: ...
    def __enter__(self) -> "Ticks": ...
    def __exit__(
        self,
        exc_type: Optional[Type[BaseException]],
        exc: Optional[BaseException],
        tb: Optional[TracebackType],
    ) -> bool: ...

def replay(source: _Source, at: Optional[int] = None, strict: bool = False) -> Dict[str, Any]: ...
def records_via_serde(source: _Source) -> List[Dict[str, Any]]: ...
@final
class Table:
    """One table of the export of some files, as an Arrow stream."""

    @property
    def name(self) -> str: ...
    def __arrow_c_stream__(self, requested_schema: Optional[object] = None) -> object:
        """The table's record batches as an Arrow C stream (a PyCapsule)."""
    def __arrow_c_schema__(self) -> object:
        """The table's schema as an Arrow C schema (a PyCapsule)."""
    # pyarrow.Table, pandas.DataFrame, polars.DataFrame: Any, so that
    # the stubs do not need those packages.
    def to_arrow(self) -> Any: ...
    def to_pandas(self) -> Any: ...
    def to_polars(self) -> Any: ...

@final
class Demo(Iterator[Dict[str, Any]]):
    """A demo's events, decoded as they are asked for."""

    def __new__(cls, source: _Source) -> "Demo": ...
    @property
    def header(self) -> Dict[str, Any]: ...
    @property
    def name(self) -> str: ...
    @property
    def end(self) -> Optional[Dict[str, Any]]:
        """The end line once a pass has reached the end."""
    def __iter__(self) -> "Demo":
        """Itself; raises RuntimeError once it has reached its end."""
    def __next__(self) -> Dict[str, Any]: ...
    def snapshots(self) -> "Lines":
        """The snapshot events, a pass of their own."""
    def messages(self) -> "Lines":
        """The message events, a pass of their own."""
    def __arrow_c_stream__(self, requested_schema: Optional[object] = None) -> object:
        """The demo's ``demo_events`` rows as an Arrow C stream."""
    # pyarrow.Table, pandas.DataFrame, polars.DataFrame: Any, so that
    # the stubs do not need those packages.
    def to_arrow(self) -> Any: ...
    def to_pandas(self) -> Any: ...
    def to_polars(self) -> Any: ...
    def __enter__(self) -> "Demo": ...
    def __exit__(
        self,
        exc_type: Optional[Type[BaseException]],
        exc: Optional[BaseException],
        tb: Optional[TracebackType],
    ) -> bool: ...

@final
class Lines(Iterator[Dict[str, Any]]):
    """One kind of a file's lines, a pass of its own over the file."""

    def __iter__(self) -> "Lines": ...
    def __next__(self) -> Dict[str, Any]: ...

@final
class Capture(Iterator[Dict[str, Any]]):
    """A packet capture's datagrams, decoded as they are asked for."""

    def __new__(cls, source: _Source, port: Optional[int] = None) -> "Capture": ...
    @property
    def name(self) -> str: ...
    @property
    def port(self) -> int: ...
    @property
    def end(self) -> Optional[Dict[str, Any]]: ...
    def __iter__(self) -> "Capture": ...
    def __next__(self) -> Dict[str, Any]: ...
    def __arrow_c_stream__(self, requested_schema: Optional[object] = None) -> object:
        """The capture's ``datagrams`` rows as an Arrow C stream."""
    def to_arrow(self) -> Any: ...
    def to_pandas(self) -> Any: ...
    def to_polars(self) -> Any: ...
    def __enter__(self) -> "Capture": ...
    def __exit__(
        self,
        exc_type: Optional[Type[BaseException]],
        exc: Optional[BaseException],
        tb: Optional[TracebackType],
    ) -> bool: ...

@final
class Map:
    """A map file, or the map a demo embeds, read whole."""

    def __new__(cls, source: _Source) -> "Map": ...
    @property
    def name(self) -> str: ...
    @property
    def embedded_at(self) -> Optional[int]: ...
    @property
    def info(self) -> Dict[str, Any]: ...
    @property
    def datafile(self) -> Dict[str, Any]: ...
    @property
    def items(self) -> List[Dict[str, Any]]: ...
    @property
    def blocks(self) -> List[Dict[str, Any]]: ...
    @property
    def layers(self) -> List[Dict[str, Any]]: ...
    def __enter__(self) -> "Map": ...
    def __exit__(
        self,
        exc_type: Optional[Type[BaseException]],
        exc: Optional[BaseException],
        tb: Optional[TracebackType],
    ) -> bool: ...

@final
class Archive:
    """A recording archive of ``teeoracle archive pack``, read in place."""

    def __new__(cls, path: Union[str, os.PathLike[str]]) -> "Archive": ...
    @property
    def name(self) -> str: ...
    @property
    def compression(self) -> str:
        """``"none"``, ``"bzip2"``, ``"gzip"``, ``"xz"`` or ``"zstd"``."""
    @property
    def info(self) -> Dict[str, Any]:
        """The top-level info.txt: version, name, author, date, maps, every."""
    @property
    def maps(self) -> List[Dict[str, Any]]:
        """One dict per map folder, as ``archive info --format json``."""
    @property
    def members(self) -> List[Dict[str, Any]]: ...
    @property
    def notes(self) -> List[str]:
        """What had to be rebuilt, or is odd."""
    def __len__(self) -> int: ...
    def recording(self, map: int = 1) -> Teehistorian:
        """Map ``map``'s recording, streamed from the archive."""
    def recordings(self) -> "Recordings": ...
    def __iter__(self) -> "Recordings": ...
    def log(self, map: Optional[int] = None) -> List[Dict[str, Any]]:
        """The lines of ``archive log --format jsonl`` (events, notes)."""
    def seek(self, *, map: int = 1, at: int) -> Dict[str, Any]:
        """The world at tick ``at`` of map ``map``, from its checkpoints."""
    def verify(self) -> Dict[str, Any]:
        """``archive verify --format json``'s document."""
    def __arrow_c_stream__(self, requested_schema: Optional[object] = None) -> object:
        """The maps as an Arrow C stream."""
    # pyarrow.Table, pandas.DataFrame, polars.DataFrame: Any, so that
    # the stubs do not need those packages.
    def to_arrow(self) -> Any: ...
    def to_pandas(self) -> Any: ...
    def to_polars(self) -> Any: ...
    def __enter__(self) -> "Archive": ...
    def __exit__(
        self,
        exc_type: Optional[Type[BaseException]],
        exc: Optional[BaseException],
        tb: Optional[TracebackType],
    ) -> bool: ...

@final
class Recordings(Iterator[Teehistorian]):
    """Each map's recording in turn (``Archive.recordings()``)."""

    def __iter__(self) -> "Recordings": ...
    def __next__(self) -> Teehistorian: ...

def format_of(path: str) -> Optional[str]: ...
def cli(argv: Sequence[str], again: Sequence[str]) -> int: ...

def tables(
    paths: List[str], maps: List[str] = ..., simulate: bool = True
) -> Dict[str, Table]: ...
def export(
    paths: List[str], to: str, maps: List[str] = ..., simulate: bool = True
) -> Dict[str, Tuple[str, int]]: ...
def decode_packet(data: bytes, version: str = "auto", token: str = "auto") -> Dict[str, Any]: ...
def encode_packets(json: str) -> List[bytes]: ...
def check(
    paths: List[str],
    maps: List[str] = ...,
    deny_warnings: bool = False,
    simulate: bool = True,
    jobs: Optional[int] = None,
) -> Dict[str, Any]: ...
def simulate(
    teehistorian: _Source,
    map: _Source,
    demo: Optional[_Source] = None,
    at: Optional[int] = None,
    physics: Optional[str] = None,
) -> Dict[str, Any]: ...
