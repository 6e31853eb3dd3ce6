"""Shared paths of the package's tests: the repository's corpus and the
`teeoracle` command this checkout built (the tests that compare with the
command skip, saying so, where it is not built)."""

import os
import shutil
import threading
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
CORPUS = ROOT / "corpus"


def teeoracle_bin():
    """The `teeoracle` command: $TEEORACLE_BIN, else this checkout's
    release build, else one on PATH."""
    env = os.environ.get("TEEORACLE_BIN")
    if env:
        return env
    built = ROOT / "target" / "release" / "teeoracle"
    if built.exists():
        return str(built)
    return shutil.which("teeoracle")


@pytest.fixture
def cli():
    path = teeoracle_bin()
    if path is None:
        pytest.skip("no teeoracle command built (cargo build --release)")
    return path


def teehistorian_files():
    return sorted(p for p in (CORPUS / "teehistorian").rglob("*.teehistorian"))


def ids(paths):
    return [str(p.relative_to(CORPUS)) for p in paths]


def turns_beside(work):
    """Runs ``work()`` while another thread takes turns (a 1 ms sleep
    each): a call that held the GIL in Rust would leave it none. Returns
    ``work``'s result, the turns and the seconds ``work`` took."""
    turns = 0
    stop = threading.Event()

    def count():
        nonlocal turns
        while not stop.is_set():
            turns += 1
            time.sleep(0.001)

    t = threading.Thread(target=count)
    t.start()
    start = time.monotonic()
    try:
        result = work()
    finally:
        elapsed = time.monotonic() - start
        stop.set()
        t.join()
    return result, turns, elapsed
