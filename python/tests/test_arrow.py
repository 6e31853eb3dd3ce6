"""The export's tables as Arrow streams (the Arrow PyCapsule interface):
pyarrow, polars and DuckDB read them without a file, with the schema of
the Parquet files `teeoracle export` writes for the same input and the
same rows; the readers' own streams; the conveniences."""

import subprocess

import duckdb
import polars
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

import teeoracle
from conftest import CORPUS

A_TH = CORPUS / "teehistorian/ddnet-20.1/A_join_move_leave.teehistorian"
A_DEMO = CORPUS / "demo/ddnet-20.1/A_join_move_leave.demo"
# Every table has rows: teehistorian files (records, players), a demo
# (events, characters), a capture (datagrams), a file that fails (a
# finding in check_reports).
INPUTS = [
    CORPUS / "teehistorian/ddnet-20.1",
    A_DEMO,
    CORPUS / "packet/ddnet-20.1/A_join_move_leave.pcap",
    CORPUS / "teehistorian/malformed/unknown_message_id.teehistorian",
]


@pytest.fixture(scope="module")
def exported(tmp_path_factory):
    """The Parquet files of `teeoracle export` over INPUTS."""
    from conftest import teeoracle_bin

    cli = teeoracle_bin()
    if cli is None:
        pytest.skip("no teeoracle command built (cargo build --release)")
    out = tmp_path_factory.mktemp("export")
    # Exit 1: the malformed file fails, as it should.
    done = subprocess.run([cli, "export", *map(str, INPUTS), "--to", str(out)], capture_output=True)
    assert done.returncode in (0, 1), done.stderr
    return out


@pytest.fixture(scope="module")
def tables():
    return teeoracle.tables(INPUTS)


def test_the_tables_are_the_exports(tables):
    assert list(tables) == list(teeoracle.TABLES)
    assert list(teeoracle.TABLES) == [
        "teehistorian_records",
        "player_states",
        "demo_events",
        "characters",
        "datagrams",
        "check_reports",
        "sessions",
        "players",
        "chat",
        "votes",
    ]


@pytest.mark.parametrize("name", teeoracle.TABLES)
def test_pyarrow_reads_the_parquet_schema_and_rows(tables, exported, name):
    stream = tables[name]
    reader = pa.RecordBatchReader.from_stream(stream)
    parquet = pq.ParquetFile(exported / f"{name}.parquet")
    # The columns, and the file's key-value metadata (teeoracle.table,
    # teeoracle.schema_version) as the schema's.
    assert reader.schema == parquet.schema_arrow
    footer = {k: v for k, v in parquet.metadata.metadata.items() if k != b"ARROW:schema"}
    assert reader.schema.metadata == footer
    assert reader.schema.metadata[b"teeoracle.table"] == name.encode()
    got = reader.read_all()
    assert got.num_rows == parquet.metadata.num_rows
    # Every table has rows of these inputs but votes: no corpus file
    # records one (src/export/tests.rs has them on hand-made records).
    assert got.num_rows > 0 or name == "votes"
    # The same rows, in the same order.
    assert got.equals(parquet.read())


@pytest.mark.parametrize("name", teeoracle.TABLES)
def test_polars_and_duckdb_read_the_rows(tables, exported, name):
    stream = tables[name]
    rows = pq.ParquetFile(exported / f"{name}.parquet").metadata.num_rows
    df = polars.DataFrame(stream)
    assert df.height == rows
    assert df.columns == [f.name for f in pa.schema(stream)]
    assert stream.to_polars().height == rows
    con = duckdb.connect()
    assert con.sql("SELECT count(*) FROM stream").fetchall() == [(rows,)]


def test_duckdb_answers_a_question(tables):
    records = tables["teehistorian_records"]
    con = duckdb.connect()
    moves = con.sql(
        "SELECT cid, count(*) FROM records WHERE kind = 'player_diff' "
        "AND file LIKE '%A_join_move_leave%' GROUP BY cid ORDER BY cid"
    ).fetchall()
    assert moves and all(n > 0 for _, n in moves)


def test_pandas(tables, exported):
    df = tables["check_reports"].to_pandas()
    assert len(df) == pq.ParquetFile(exported / "check_reports.parquet").metadata.num_rows
    assert "unknown_message_id.teehistorian" in " ".join(df["file"])


def test_the_readers_stream_their_file(exported):
    th = teeoracle.Teehistorian(A_TH)
    table = th.to_arrow()
    assert table.schema == pa.schema(teeoracle.tables(A_TH)["teehistorian_records"])
    assert table.num_rows == sum(1 for _ in teeoracle.Teehistorian(A_TH))
    # From the file's start, whatever the reader has given.
    next(th)
    assert pa.table(th).num_rows == table.num_rows
    demo = teeoracle.Demo(A_DEMO)
    events = demo.to_arrow()
    assert events.num_rows == sum(1 for _ in teeoracle.Demo(A_DEMO))
    assert events.equals(
        pq.read_table(exported / "demo_events.parquet").filter(
            pa.compute.field("file") == str(A_DEMO)
        )
    )
    assert demo.to_polars().height == events.num_rows
    assert len(demo.to_pandas()) == events.num_rows


def test_a_stream_is_read_anew_each_time(tables):
    t = tables["demo_events"]
    assert pa.table(t).num_rows == pa.table(t).num_rows > 0


def test_a_consumer_may_stop_early(tables):
    reader = pa.RecordBatchReader.from_stream(tables["teehistorian_records"])
    first = reader.read_next_batch()
    assert first.num_rows > 0
    del reader  # the worker stops at its next batch


def test_bytes_have_no_stream():
    th = teeoracle.Teehistorian(A_TH.read_bytes())
    with pytest.raises(ValueError, match="by its path"):
        th.to_arrow()


def test_missing_library_is_named(monkeypatch):
    import builtins

    real = builtins.__import__

    def no_polars(name, *args, **kwargs):
        if name == "polars":
            raise ImportError("No module named 'polars'")
        return real(name, *args, **kwargs)

    monkeypatch.setattr(builtins, "__import__", no_polars)
    monkeypatch.delitem(__import__("sys").modules, "polars")
    with pytest.raises(ImportError, match="needs the polars package"):
        teeoracle.Teehistorian(A_TH).to_polars()


def test_export_writes_the_parquet_files(tmp_path, exported):
    written = teeoracle.export(INPUTS, tmp_path / "out")
    assert list(written) == list(teeoracle.TABLES)
    for name, (path, rows) in written.items():
        assert path == str(tmp_path / "out" / f"{name}.parquet")
        want = pq.read_table(exported / f"{name}.parquet")
        got = pq.read_table(path)
        assert got.num_rows == rows == want.num_rows
        assert got.equals(want)
