"""Teehistorian files from Python: records, batches, header and end, errors,
the replayed world, and the same JSON as the command line."""

import json
import subprocess

import pytest

import teeoracle
from conftest import CORPUS, ids, teehistorian_files

FILES = teehistorian_files()
A = CORPUS / "teehistorian/ddnet-20.1/A_join_move_leave.teehistorian"
F = CORPUS / "teehistorian/ddnet-20.1/F_crash_truncated.teehistorian"
UNKNOWN_ID = CORPUS / "teehistorian/malformed/unknown_message_id.teehistorian"


def read_all(source):
    """(header, records, end, error) of a file, the error as (offset, tick)."""
    try:
        th = teeoracle.Teehistorian(source)
    except teeoracle.DecodeError as e:
        return None, [], None, (e.offset, e.tick)
    records, error = [], None
    try:
        for rec in th:
            records.append(rec)
    except teeoracle.DecodeError as e:
        error = (e.offset, e.tick)
    return th.header, records, th.end, error


def via_batches(source, size):
    th = teeoracle.Teehistorian(source)
    records, error = [], None
    try:
        for batch in th.batches(size):
            assert 0 < len(batch) <= size
            records.extend(batch)
    except teeoracle.DecodeError as e:
        error = (e.offset, e.tick)
    return records, th.end, error


def test_a_join_move_leave():
    th = teeoracle.Teehistorian(A)
    assert th.header["kind"] == "header"
    assert th.header["offset"] == 0
    assert th.header["info"]["map_name"] == "dm1"
    assert th.header["info"]["version"] == 2
    assert th.end is None
    records = list(th)
    assert len(records) == 970 == th.records
    assert records[-1] == {"offset": 9196, "tick": 932, "kind": "finish"}
    assert sum(r["kind"] == "join" for r in records) == 1
    assert th.end == {
        "kind": "end",
        "records": 970,
        "end": {"end": "finished", "offset": 9196},
        "error": None,
    }
    # An iterator that has ended stays ended.
    assert next(th, None) is None


def test_record_fields_and_order():
    kinds = {}
    for rec in teeoracle.Teehistorian(A):
        kinds.setdefault(rec["kind"], list(rec))
    assert kinds["player_new"] == ["offset", "tick", "kind", "cid", "x", "y"]
    assert kinds["player_diff"] == ["offset", "tick", "kind", "cid", "dx", "dy"]
    assert kinds["input_new"] == ["offset", "tick", "kind", "cid", "input"]
    assert kinds["input_diff"] == ["offset", "tick", "kind", "cid", "dinput"]
    # A message record carries its client's protocol and the message read.
    assert kinds["message"][:5] == ["offset", "tick", "kind", "cid", "data"]
    assert "protocol" in kinds["message"]


def test_truncated_file_ends_with_a_warning_not_an_error():
    with pytest.warns(teeoracle.TruncatedWarning, match="no FINISH"):
        header, records, end, error = read_all(F)
    assert error is None
    assert end["end"] == {"end": "truncated", "offset": 27206, "partial": 0}
    assert end["records"] == len(records) == 3501


def test_decode_error_names_byte_tick_and_code():
    th = teeoracle.Teehistorian(UNKNOWN_ID)
    first = next(th)
    assert first["tick"] == 1
    with pytest.raises(teeoracle.DecodeError) as info:
        next(th)
    e = info.value
    assert isinstance(e, ValueError)
    assert (e.offset, e.tick, e.code) == (3194, 1, "decode")
    assert e.context == "teehistorian.message_id"
    assert e.error["offset"] == 3194
    assert "unknown message id -12" in str(e)
    assert next(th, None) is None
    assert th.end["error"]["offset"] == 3194
    assert th.end["end"] is None


def test_not_a_teehistorian_file():
    with pytest.raises(teeoracle.DecodeError) as info:
        teeoracle.Teehistorian(CORPUS / "teehistorian/malformed/bad_magic.teehistorian")
    assert info.value.offset == 0
    with pytest.raises(FileNotFoundError):
        teeoracle.Teehistorian(CORPUS / "no such file")


def test_bytes_and_paths_read_alike():
    assert read_all(A.read_bytes())[1:] == read_all(str(A))[1:]


@pytest.mark.parametrize("path", FILES, ids=ids(FILES))
@pytest.mark.filterwarnings("ignore::teeoracle.TruncatedWarning")
def test_records_are_the_serde_lines(path):
    """The dicts built by hand equal the crate's serde output, and the
    batches give the same records, for every file of the corpus."""
    header, records, end, error = read_all(path)
    if header is None:
        return
    try:
        serde = teeoracle._teeoracle.records_via_serde(path)
        serde_error = None
    except teeoracle.DecodeError as e:
        serde, serde_error = None, (e.offset, e.tick)
    assert serde_error == error
    if serde is not None:
        assert records == serde
    for size in (1, 7, 65536):
        assert via_batches(path, size) == (records, end, error)


def test_batch_columns():
    th = teeoracle.Teehistorian(A)
    (batch,) = list(th.batches(1000))
    records = list(teeoracle.Teehistorian(A))
    assert len(batch) == 970
    kinds = [teeoracle.KINDS[k] for k in batch.kind]
    assert kinds == [r["kind"] for r in records]
    assert list(batch.tick) == [r["tick"] for r in records]
    assert list(batch.offset) == [r["offset"] for r in records]
    for i, r in enumerate(records):
        if r["kind"] == "player_new":
            assert (batch.cid[i], batch.x[i], batch.y[i]) == (r["cid"], r["x"], r["y"])
        if r["kind"] == "player_diff":
            assert (batch.dx[i], batch.dy[i]) == (r["dx"], r["dy"])
        if r["kind"] == "input_new":
            assert list(batch.input[i * 10:i * 10 + 10]) == r["input"]
    assert set(batch.extra) == {
        i for i, r in enumerate(records)
        if r["kind"] not in {"player_diff", "player_new", "player_old", "join",
                             "tick_skip", "finish", "input_diff", "input_new"}
    }
    assert batch.counts()["finish"] == 1
    assert batch[-1] == records[-1]
    with pytest.raises(IndexError):
        batch.record(970)


@pytest.mark.parametrize("name", ["A_join_move_leave", "C_rcon_auth", "F_crash_truncated"])
@pytest.mark.filterwarnings("ignore::teeoracle.TruncatedWarning")
def test_same_json_as_the_command(cli, name):
    path = CORPUS / f"teehistorian/ddnet-20.1/{name}.teehistorian"
    out = subprocess.run(
        [cli, "teehistorian", "dump", "--format", "jsonl", str(path)],
        capture_output=True, check=True, text=True,
    ).stdout
    lines = [json.loads(line) for line in out.splitlines()]
    header, records, end, error = read_all(path)
    assert lines[0]["kind"] == "start"
    assert lines[1] == header
    assert lines[2:-1] == records
    assert lines[-1] == end


def test_ticks_and_replay():
    ticks = list(teeoracle.ticks(A))
    numbers = [t["tick"] for t in ticks]
    assert numbers == sorted(set(numbers))
    assert numbers[-1] == 932
    world = teeoracle.replay(A)
    assert world["kind"] == "teehistorian_world"
    assert world["finished"] is True
    assert ticks[-1]["players"] == world["players"]
    # The world at a tick is the state after that tick's records.
    at = teeoracle.replay(A, at=500)
    (t500,) = [t for t in ticks if t["tick"] == 500] or [None]
    if t500 is not None:
        assert t500["players"] == at["players"]
    alive = [p for p in at["players"] if p["alive"]]
    assert alive and all(isinstance(p["x"], int) for p in alive)
    with pytest.raises(ValueError):
        teeoracle.replay(A, at=10**6)


def test_replay_strict_raises_the_inconsistency():
    path = CORPUS / "teehistorian/malformed/player_diff_absent.teehistorian"
    teeoracle.replay(path)  # lenient: goes on
    with pytest.raises(teeoracle.DecodeError) as info:
        teeoracle.replay(path, strict=True)
    assert info.value.code == "replay"
    assert info.value.offset is not None


def test_replay_same_json_as_the_command(cli):
    out = subprocess.run(
        [cli, "teehistorian", "replay", "--format", "json", "--at", "300", str(A)],
        capture_output=True, check=True, text=True,
    ).stdout
    assert json.loads(out) == teeoracle.replay(A, at=300)


def test_huge_batch_size_reserves_nothing_up_front():
    (batch,) = list(teeoracle.Teehistorian(A).batches(2**62))
    assert len(batch) == 970
