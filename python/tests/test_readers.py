"""open() and the readers of maps and captures: the JSON of their
commands (`map info`, `map dump`, `pcap dump --format jsonl`), context
managers for every reader."""

import json
import subprocess

import pytest

import teeoracle
from conftest import CORPUS

A_TH = CORPUS / "teehistorian/ddnet-20.1/A_join_move_leave.teehistorian"
A_DEMO = CORPUS / "demo/ddnet-20.1/A_join_move_leave.demo"
A_PCAP = CORPUS / "packet/ddnet-20.1/A_join_move_leave.pcap"
MAPS = sorted((CORPUS / "map").rglob("*.map"))[:8]
CAPTURES = sorted(p for p in (CORPUS / "packet").rglob("*.pcap*") if "malformed" not in str(p))


def run_json(cli, *args):
    out = subprocess.run([cli, *map(str, args)], capture_output=True, text=True, check=True).stdout
    return json.loads(out)


def test_open_detects_the_format():
    assert type(teeoracle.open(A_TH)) is teeoracle.Teehistorian
    assert type(teeoracle.open(A_DEMO)) is teeoracle.Demo
    assert type(teeoracle.open(A_PCAP)) is teeoracle.Capture
    assert type(teeoracle.open(MAPS[0])) is teeoracle.Map
    with pytest.raises(ValueError, match="no format teeoracle reads"):
        teeoracle.open(CORPUS.parent / "README.md")
    with pytest.raises(FileNotFoundError):
        teeoracle.open("no such file")


@pytest.mark.parametrize("path", [A_TH, A_DEMO, A_PCAP, MAPS[0]], ids=lambda p: p.name)
def test_every_reader_is_a_context_manager(path):
    with teeoracle.open(path) as reader:
        assert reader is not None
    if not isinstance(reader, teeoracle.Map):
        # Closed: it reads no further, as a reader at its end.
        with pytest.raises(RuntimeError, match="read to its end"):
            iter(reader)


@pytest.mark.parametrize("path", MAPS + [A_DEMO], ids=lambda p: p.name)
def test_map_same_json_as_the_command(cli, path):
    m = teeoracle.Map(path)
    info = run_json(cli, "map", "info", path, "--format", "json")
    for key, value in m.info.items():
        assert info[key] == value, key
    dump = run_json(cli, "map", "dump", path, "--format", "json")
    assert m.datafile == dump["datafile"]
    assert m.items == dump["items"]
    assert m.blocks == dump["blocks"]
    assert m.layers == dump["tiles"]
    assert m.embedded_at == dump.get("embedded_at")


@pytest.mark.parametrize("path", CAPTURES, ids=lambda p: p.name)
def test_capture_same_json_as_the_command(cli, path):
    out = subprocess.run(
        [cli, "pcap", "dump", "--format", "jsonl", str(path)], capture_output=True, text=True
    ).stdout
    lines = [json.loads(line) for line in out.splitlines()]
    c = teeoracle.Capture(path)
    assert lines[1:] == [*c, c.end]


def test_capture_arrow_and_errors():
    c = teeoracle.Capture(A_PCAP)
    assert c.to_arrow().num_rows == sum(1 for _ in teeoracle.Capture(A_PCAP))
    with pytest.raises(teeoracle.DecodeError):
        teeoracle.Capture(b"not a capture")
    with pytest.raises(ValueError, match="by its path"):
        teeoracle.Capture(A_PCAP.read_bytes()).to_arrow()


def test_map_errors():
    with pytest.raises(teeoracle.DecodeError):
        teeoracle.Map(b"not a map at all, not even close")
