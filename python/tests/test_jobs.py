"""check, simulate, demos and packets from Python: what they give, and the
same JSON as the command line."""

import json
import subprocess

import pytest

import teeoracle
from conftest import CORPUS

A_TH = CORPUS / "teehistorian/ddnet-20.1/A_join_move_leave.teehistorian"
A_DEMO = CORPUS / "demo/ddnet-20.1/A_join_move_leave.demo"
UNKNOWN_ID = CORPUS / "teehistorian/malformed/unknown_message_id.teehistorian"
DATAGRAMS = CORPUS / "packet/ddnet-verdicts/datagrams.txt"


def run_json(cli, *args):
    proc = subprocess.run([cli, *map(str, args)], capture_output=True, text=True)
    return json.loads(proc.stdout)


def test_check_verdicts():
    report = teeoracle.check([A_TH, UNKNOWN_ID])
    assert report["kind"] == "check"
    assert report["schema_version"] == teeoracle.SCHEMA_VERSION
    good, bad = report["files"]
    assert good["status"] == "pass"
    assert good["format"] == "teehistorian"
    assert good["counts"]["records"] == 970
    # A malformed/ file must fail: it does, as expected.
    assert bad["status"] == "xfail"
    (finding,) = [f for f in bad["findings"] if f["severity"] == "fail"]
    assert (finding["code"], finding["offset"]) == ("decode", 3194)
    # An expected failure counts as passed.
    assert report["totals"]["passed"] == 2
    assert report["totals"]["failed"] == 0


def test_check_same_json_as_the_command(cli):
    paths = [CORPUS / "teehistorian/ddnet-20.1", A_DEMO, UNKNOWN_ID]
    want = run_json(cli, "check", "--format", "json", *paths)
    assert teeoracle.check(paths) == want
    # Files checked one at a time or side by side: the same report.
    assert teeoracle.check(paths, jobs=1) == want
    assert teeoracle.check(paths, jobs=3) == want
    # One file, no simulation.
    want = run_json(cli, "check", "--format", "json", "--no-simulate", A_TH)
    assert teeoracle.check(A_TH, simulate=False) == want


def test_simulate():
    report = teeoracle.simulate(A_TH, A_DEMO)
    assert report["kind"] == "simulation"
    assert report["player_ticks"] == 851
    assert report["matched"] == 851
    assert report["divergences"] == 0
    with_demo = teeoracle.simulate(A_TH, A_DEMO, demo=A_DEMO)
    assert with_demo["demo"]["mismatched"] == 0
    assert with_demo["demo"]["matched"] > 0
    at = teeoracle.simulate(A_TH, A_DEMO, at=500)
    assert at["world"]["tick"] == 500
    with pytest.raises(ValueError):
        teeoracle.simulate(A_TH, A_DEMO, at=10**6)
    # A's records up to byte 3585, then a record that does not decode:
    # the simulation stops there and says so (the command exits 1).
    broken = A_TH.read_bytes()[:3585] + UNKNOWN_ID.read_bytes()[3194:]
    stopped = teeoracle.simulate(broken, A_DEMO)["stopped"]
    assert stopped.startswith("at byte 3585 (0xe01): reading teehistorian.message_id")
    # A file the simulator cannot run at all raises.
    with pytest.raises(ValueError, match="not a DDNet version this simulator models"):
        with pytest.warns(teeoracle.MapMismatchWarning, match="Kobra 3 Solo"):
            teeoracle.simulate(UNKNOWN_ID, A_DEMO)
    with pytest.raises(teeoracle.DecodeError) as info:
        teeoracle.simulate(CORPUS / "teehistorian/malformed/bad_magic.teehistorian", A_DEMO)
    assert (info.value.offset, info.value.code) == (0, "decode")


def test_simulate_same_json_as_the_command(cli):
    want = run_json(cli, "teehistorian", "simulate", "--format", "json", A_TH, "--map", A_DEMO)
    assert teeoracle.simulate(A_TH, A_DEMO) == want


def datagrams():
    out = []
    for line in DATAGRAMS.read_text().splitlines():
        if line.startswith("#") or not line.strip():
            continue
        name, version, data = line.split(None, 2)
        if data.startswith("{"):
            continue
        out.append((name, version, bytes.fromhex(data)))
    return out


def snapshot_verdicts():
    """DDNet's verdicts on the vectors, as the crate's snapshot has them:
    {name: "read as 0.6, accepted" | "read as 0.6, dropped (rule): ..."}."""
    out, name = {}, None
    snap = CORPUS.parent / "snapshots/packet/ddnet_verdicts.snap"
    for line in snap.read_text().splitlines():
        if line and not line.startswith(" ") and "(" in line:
            name = line.split(" (")[0]
        elif line.startswith("  ddnet 20.1: "):
            out[name] = line[len("  ddnet 20.1: "):]
    return out


VERDICTS = snapshot_verdicts()


@pytest.mark.parametrize("name,version,data", datagrams(), ids=[d[0] for d in datagrams()])
def test_packet_verdicts(name, version, data):
    entry = teeoracle.decode_packet(data, version=version)
    assert entry["bytes"] == len(data)
    ddnet = entry["verdict"]["ddnet"]
    said = f"read as {ddnet['read_as']}, "
    if ddnet["accepted"]:
        said += "accepted"
    else:
        said += f"dropped ({ddnet['rule']}): {ddnet['reason']}"
    assert said == VERDICTS[name]


def test_packet_decode_encode_round_trip():
    for name, version, data in datagrams():
        entry = teeoracle.decode_packet(data, version=version)
        if "packet" in entry and not entry["failed"]:
            assert teeoracle.encode_packet(entry) == data, name


def test_packet_same_json_as_the_command(cli):
    data = bytes.fromhex("0000010000")
    doc = run_json(cli, "packet", "decode", "--format", "json", "--version", "0.6", data.hex())
    assert [teeoracle.decode_packet(data, version="0.6")] == doc["packets"]
    assert teeoracle.encode_packets(doc) == [data]


def test_packet_bad_arguments():
    with pytest.raises(ValueError):
        teeoracle.decode_packet(b"\0\0", version="0.8")
    with pytest.raises(ValueError):
        teeoracle.encode_packet({"kind": "nonsense"})


def test_bad_arguments_raise():
    with pytest.raises(FileNotFoundError):
        teeoracle.check(CORPUS / "no such folder")
    with pytest.raises(TypeError):
        teeoracle.Teehistorian(123)
    with pytest.raises(ValueError, match="magic"):
        teeoracle.simulate(A_TH, A_TH)  # not a map


def test_simulate_with_another_physics():
    report = teeoracle.simulate(A_TH, A_DEMO, physics="20.1")
    assert report["matched"] == report["player_ticks"] == 851
    other = teeoracle.simulate(A_TH, A_DEMO, physics="16.4")
    assert other["kind"] == "simulation"
    assert other["player_ticks"] == 851
    with pytest.raises(ValueError, match="16.4"):
        teeoracle.simulate(A_TH, A_DEMO, physics="9.9")
