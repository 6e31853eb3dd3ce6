"""Demo: lazy (a worker decodes as the events are asked for), the same
events as `teeoracle demo events --format jsonl`, the GIL released and
Ctrl-C honoured while it decodes."""

import json
import os
import signal
import subprocess
import sys
import time

import pytest

import teeoracle
from conftest import CORPUS, turns_beside

A_DEMO = CORPUS / "demo/ddnet-20.1/A_join_move_leave.demo"
BIG_DEMO = CORPUS / "demo/ddnet-bench/Multeasymap_bench.demo"
# The corpus's demos, but the large ones (their JSON is hundreds of MB).
DEMOS = sorted(p for p in CORPUS.rglob("*.demo") if p.stat().st_size < 300_000)


def test_demo_events():
    demo = teeoracle.Demo(A_DEMO)
    assert demo.header["kind"] == "header"
    assert demo.end is None  # nothing read yet
    kinds = [e["kind"] for e in demo]
    assert set(kinds) == {"tick", "message", "snapshot"}
    assert demo.end["kind"] == "end"
    assert demo.end["error"] is None
    assert demo.end["events"] == len(kinds)
    with pytest.raises(RuntimeError, match="read to its end"):
        iter(demo)
    # Passes of their own, of one kind.
    snaps = list(demo.snapshots())
    assert len(snaps) == 5 + 329  # keyframes and deltas applied (check says so)
    assert all(e["kind"] == "snapshot" and e["tick"] >= 0 for e in snaps)
    assert len(list(demo.messages())) == 2198 == kinds.count("message")


@pytest.mark.parametrize("path", DEMOS, ids=[str(p.relative_to(CORPUS)) for p in DEMOS])
def test_demo_same_json_as_the_command(cli, path):
    out = subprocess.run(
        [cli, "demo", "events", "--format", "jsonl", str(path)],
        capture_output=True, text=True,
    ).stdout
    lines = [json.loads(line) for line in out.splitlines()]
    try:
        demo = teeoracle.Demo(path.read_bytes())
    except teeoracle.DecodeError:
        # The command says so on stderr and prints at most its start line.
        assert len(lines) <= 1
        return
    assert lines[1:] == [demo.header, *demo, demo.end]


def test_demo_errors():
    with pytest.raises(teeoracle.DecodeError):
        teeoracle.Demo(b"not a demo at all")
    with pytest.raises(FileNotFoundError):
        teeoracle.Demo("no such.demo")
    with pytest.raises(TypeError):
        teeoracle.Demo(None)


def test_context_manager_stops_the_pass():
    with teeoracle.Demo(A_DEMO) as demo:
        first = next(iter(demo))
        assert first["kind"] in ("tick", "message")
    with pytest.raises(RuntimeError):
        iter(demo)


def test_the_gil_is_released_while_decoding():
    """Another thread runs while a large demo is read. A read that held
    the GIL in Rust, as the eager Demo did, left it nothing until the
    read was over (seconds); how much it gets otherwise is the machine's
    scheduling (a loaded CI machine gave it 4 turns in 330 ms), so the
    test asks for a few turns, not a rate."""
    def read():
        for n, _ in enumerate(teeoracle.Demo(BIG_DEMO).snapshots()):
            if n == 200:
                break

    _, ticks, elapsed = turns_beside(read)
    assert ticks >= 3, (ticks, elapsed)


@pytest.mark.skipif(sys.platform == "win32", reason="SIGINT to itself")
def test_ctrl_c_stops_a_read_within_a_second():
    code = (
        "import teeoracle, time, sys\n"
        "print('go', flush=True)\n"
        "t = time.monotonic()\n"
        "try:\n"
        f"    for _ in teeoracle.Demo({str(BIG_DEMO)!r}): pass\n"
        "except KeyboardInterrupt:\n"
        "    print('interrupted', flush=True)\n"
    )
    p = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE, text=True)
    assert p.stdout.readline() == "go\n"
    time.sleep(0.5)
    sent = time.monotonic()
    p.send_signal(signal.SIGINT)
    out, _ = p.communicate(timeout=30)
    assert "interrupted" in out
    assert time.monotonic() - sent < 1.0
