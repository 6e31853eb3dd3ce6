"""Recording archives (`teeoracle archive pack`) from Python: `Archive`
gives the maps as `archive info` does, each map's recording as a
`Teehistorian` streamed from the archive (the records of the file that
was packed), the log, the world at a tick equal to `teeoracle.replay`
on the file, verification, the maps as Arrow; the package's errors; the
GIL released and Ctrl-C honoured while it reads."""

import bz2
import gzip
import io
import json
import lzma
import signal
import subprocess
import sys
import tarfile
import time

import pytest

import teeoracle
from conftest import CORPUS, turns_beside

DDNET = CORPUS / "teehistorian/ddnet-20.1"
DM1 = DDNET / "E_map_change.1_dm1.teehistorian"
CTF1 = DDNET / "E_map_change.2_ctf1.teehistorian"
BIG = CORPUS / "hostile/console_12000.teehistorian"


def command(*args):
    """The `teeoracle` command of this package (`python -m teeoracle`)."""
    return subprocess.run(
        [sys.executable, "-m", "teeoracle", *map(str, args)],
        capture_output=True, text=True,
    )


def command_json(*args):
    done = command(*args)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


@pytest.fixture(scope="module")
def session(tmp_path_factory):
    """The two maps of corpus E packed as docs/archive.md does (the files
    given out of order: pack follows prev_game_uuid)."""
    out = tmp_path_factory.mktemp("archive") / "session.tar.bz2"
    done = command("archive", "pack", out, CTF1, DM1, "--every", "5")
    assert done.returncode == 0, done.stderr
    return out


def records_of(path):
    return list(teeoracle.Teehistorian(path))


def test_info_and_maps_are_what_the_recordings_say(session):
    with teeoracle.Archive(session) as a:
        assert a.compression == "bzip2"
        assert a.notes == []
        assert len(a) == 2
        assert a.info == {
            "version": 2,
            "name": "DDNet corpus E",
            "author": "0.6, 20.1 (28baa427bad88b7d)",
            "date": "2026-11-22T02:30:44+0000",
            "maps": 2,
            "every": 250,
        }
        first, second = a.maps
        assert [m["map"] for m in a.maps] == [1, 2]
        assert [m["map_name"] for m in a.maps] == ["dm1", "ctf1"]
        assert [m["ticks"] for m in a.maps] == [478, 1049]
        assert [m["seconds"] for m in a.maps] == [9.56, 20.98]
        assert [m["checkpoints"] for m in a.maps] == [1, 4]
        assert [m["recording_bytes"] for m in a.maps] == [11655, 21304]
        assert second["prev_game_uuid"] == first["game_uuid"]
        for m, path in zip(a.maps, [DM1, CTF1]):
            th = teeoracle.Teehistorian(path)
            header = th.header["info"]
            assert m["map_sha256"] == header["map_sha256"]
            assert m["game_uuid"] == header["game_uuid"]
            assert m["records"] == len(records_of(path))
            end = teeoracle.Teehistorian(path)
            for _ in end:
                pass
            offset = end.end["end"]["offset"]
            assert m["end"] == f"finished: FINISH at byte {offset} (0x{offset:x})"


def test_maps_and_log_are_the_command_s_json(session):
    a = teeoracle.Archive(session)
    info = command_json("archive", "info", session, "--format", "json")
    assert a.maps == info["maps"]
    assert a.members == info["members"]
    assert a.info == info["top"]
    out = command("archive", "log", session, "--format", "jsonl").stdout
    lines = [json.loads(line) for line in out.splitlines()]
    assert lines[0]["kind"] == "start" and lines[-1]["kind"] == "end"
    assert a.log() == lines[1:-1]
    assert lines[-1]["events"] == len(a.log()) == 39
    last = a.log(map=1)[-1]
    assert (last["tick"], last["event"], last["fields"]) == (478, "end", {"how": "finish"})
    assert {e["map"] for e in a.log(map=2)} == {2}


def test_each_recording_is_the_packed_file_s_records(session):
    a = teeoracle.Archive(session)
    readers = list(a)
    assert [type(r) for r in readers] == [teeoracle.Teehistorian] * 2
    for th, path in zip(readers, [DM1, CTF1]):
        original = teeoracle.Teehistorian(path)
        assert th.header == original.header
        assert list(th) == list(original)
        assert th.end == original.end
        assert th.records == a.maps[0 if path == DM1 else 1]["records"]
    assert th.name == f"{session}: 2/demodata.bin"
    with pytest.raises(RuntimeError, match="read to its end"):
        iter(th)
    # recordings() is iteration; recording(map) one map.
    assert [r.header for r in a.recordings()] == [r.header for r in readers]
    assert list(a.recording(2)) == records_of(CTF1)
    # Batches stream from the archive too.
    batches = list(a.recording(1).batches(500))
    assert [len(b) for b in batches] == [500, 500, 259]


def test_seek_is_the_replay_of_the_file(session):
    a = teeoracle.Archive(session)
    for at in [0, 249, 250, 700, 1049]:
        assert a.seek(map=2, at=at) == teeoracle.replay(CTF1, at=at), at
    assert a.seek(at=478) == teeoracle.replay(DM1)
    world = a.seek(map=2, at=700)
    assert world["kind"] == "teehistorian_world" and world["tick"] == 700
    command_world = command_json("archive", "seek", session, "--map", "2", "--at", "700",
                                 "--format", "json")
    assert world == command_world


def test_verify_is_the_command_s_report(session):
    v = teeoracle.Archive(session).verify()
    assert v["kind"] == "archive_verify"
    assert v["ok"] is True
    assert v["totals"] == {
        "maps": 2, "records": 3911, "checkpoints_agree": 5, "rebuilt": 0, "failed": 0,
    }
    assert v == command_json("archive", "verify", session, "--format", "json")


def test_maps_as_arrow(session):
    pa = pytest.importorskip("pyarrow")
    a = teeoracle.Archive(session)
    table = pa.table(a)
    assert table.num_rows == 2
    assert table.column_names == list(a.maps[0])
    assert table.to_pylist() == a.maps
    assert table.schema.field("records").type == pa.uint64()
    assert a.to_arrow().equals(table)
    pd = pytest.importorskip("pandas")
    assert list(a.to_pandas()["map_name"]) == ["dm1", "ctf1"]
    del pd
    pl = pytest.importorskip("polars")
    assert a.to_polars()["ticks"].to_list() == [478, 1049]
    del pl
    # A recording inside an archive has no file for its own stream.
    with pytest.raises(ValueError, match="inside an archive"):
        a.recording(1).to_arrow()


@pytest.mark.parametrize("how", ["tar", "tar.gz", "tar.xz", "no name"])
def test_open_reads_an_archive_however_compressed(session, tmp_path, how):
    plain = bz2.decompress(session.read_bytes())
    packed = {"tar": plain, "tar.gz": gzip.compress(plain), "tar.xz": lzma.compress(plain)}
    path = tmp_path / ("session" if how == "no name" else f"session.{how}")
    path.write_bytes(packed.get(how, plain))
    with teeoracle.open(path) as a:
        assert type(a) is teeoracle.Archive
        assert [m["records"] for m in a.maps] == [1259, 2652]
        assert [sum(1 for _ in r) for r in a] == [1259, 2652]
        assert a.seek(map=2, at=700) == teeoracle.replay(CTF1, at=700)
        # The index is bzip2's: other storage is read from the start.
        assert any("index.txt" in n for n in a.notes)


def test_errors_are_the_package_s(session, tmp_path):
    with pytest.raises(FileNotFoundError):
        teeoracle.Archive(tmp_path / "missing.tar")
    for bad in [None, 3, session.read_bytes()]:
        with pytest.raises(TypeError, match="expected a path"):
            teeoracle.Archive(bad)
    not_tar = tmp_path / "x.tar"
    not_tar.write_bytes(b"hello world")
    with pytest.raises(teeoracle.DecodeError, match="not an archive") as e:
        teeoracle.Archive(not_tar)
    assert (e.value.offset, e.value.code) == (0, "archive")
    a = teeoracle.Archive(session)
    with pytest.raises(ValueError, match="^map=3: .*no map 3"):
        a.seek(map=3, at=1)
    with pytest.raises(ValueError, match="^map=0"):
        a.recording(0)
    with pytest.raises(ValueError, match="^at=-5"):
        a.seek(map=1, at=-5)
    with pytest.raises(ValueError, match="^at=479: .*last tick 478"):
        a.seek(map=1, at=479)
    with pytest.raises(ValueError, match="^map=5"):
        a.log(map=5)
    with pytest.raises(TypeError):
        a.seek(map="1", at=1)


def test_a_bad_recording_raises_with_its_byte(session, tmp_path):
    """A plain archive whose dm1 recording is overwritten in its middle:
    the archive opens (its info.txt files are sound), the recording raises
    DecodeError at the recording's byte after its good records, and
    verify reports it (a bad file is reported, as check reports one)."""
    data = bytearray(bz2.decompress(session.read_bytes()))
    with tarfile.open(fileobj=io.BytesIO(bytes(data))) as t:
        member = t.getmember("1/demodata.bin")
    at = 6000
    data[member.offset_data + at:member.offset_data + at + 64] = b"\xff" * 64
    path = tmp_path / "bad.tar"
    path.write_bytes(bytes(data))
    a = teeoracle.Archive(path)
    th = a.recording(1)
    good = []
    with pytest.raises(teeoracle.DecodeError) as e:
        for r in th:
            good.append(r)
    assert e.value.code == "decode"
    assert f"{path}: 1/demodata.bin" in str(e.value)
    assert good == records_of(DM1)[: len(good)]
    assert good[-1]["offset"] < e.value.offset <= at
    v = a.verify()
    assert v["ok"] is False
    failed = [x for x in v["verdicts"] if x["status"] == "failed"]
    assert "1/demodata.bin" in [x["member"] for x in failed]
    assert v == json.loads(command("archive", "verify", path, "--format", "json").stdout)


@pytest.fixture(scope="module")
def slow(tmp_path_factory):
    """A plain archive of 40 map folders holding only a recording (the
    hostile corpus's 24001-record file): opening rebuilds each info.txt,
    verification reads and replays all of them (seconds)."""
    data = BIG.read_bytes()
    path = tmp_path_factory.mktemp("slow") / "slow.tar"
    with tarfile.open(path, "w") as t:
        for n in range(1, 41):
            info = tarfile.TarInfo(f"{n}/demodata.bin")
            info.size = len(data)
            t.addfile(info, io.BytesIO(data))
    return path


def test_the_gil_is_released_while_verifying(slow):
    a = teeoracle.Archive(slow)
    assert len(a) == 40 and any("rebuilt" in n for n in a.notes)
    v, ticks, elapsed = turns_beside(a.verify)
    assert v["ok"] is True and v["totals"]["records"] == 40 * 24001
    assert ticks >= 3, (ticks, elapsed)


@pytest.mark.skipif(sys.platform == "win32", reason="SIGINT to itself")
def test_ctrl_c_stops_a_verification_within_a_second(slow):
    code = (
        "import teeoracle, time\n"
        f"a = teeoracle.Archive({str(slow)!r})\n"
        "print('go', flush=True)\n"
        "try:\n"
        "    a.verify()\n"
        "    print('finished', flush=True)\n"
        "except KeyboardInterrupt:\n"
        "    print('interrupted', flush=True)\n"
    )
    p = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE, text=True)
    assert p.stdout.readline() == "go\n"
    time.sleep(0.2)
    sent = time.monotonic()
    p.send_signal(signal.SIGINT)
    out, _ = p.communicate(timeout=60)
    assert "interrupted" in out
    assert time.monotonic() - sent < 1.0


def test_seek_passes_over_a_damaged_checkpoint_with_a_warning(session, tmp_path):
    """ctf1's checkpoint at tick 500 overwritten in a plain archive: the
    seek to 700 says so and replays from the one before it, to the same
    world; verify fails the checkpoint."""
    data = bytearray(bz2.decompress(session.read_bytes()))
    with tarfile.open(fileobj=io.BytesIO(bytes(data))) as t:
        member = t.getmember("2/save2.ron")
    data[member.offset_data:member.offset_data + 8] = b"damaged!"
    path = tmp_path / "damaged.tar"
    path.write_bytes(bytes(data))
    a = teeoracle.Archive(path)
    with pytest.warns(UserWarning, match="2/save2.ron is damaged"):
        world = a.seek(map=2, at=700)
    assert world == teeoracle.replay(CTF1, at=700)
    v = a.verify()
    assert v["ok"] is False
    assert [x["member"] for x in v["verdicts"] if x["status"] == "failed"] == ["2/save2.ron"]
