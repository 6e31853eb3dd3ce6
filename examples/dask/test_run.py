"""The archive job (run.py) as a user runs it: a LocalCluster of two
workers over a folder with good and bad files. Run by .ci/run with the
job's own virtual environment (examples/dask/requirements.txt):

    target/venv-dask/bin/python -m pytest -q examples/dask/test_run.py

TEEORACLE_BIN names the binary (default: target/release/teeoracle); the
tests fail, never skip, when it is missing.
"""

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pyarrow.parquet as pq
import pytest

ROOT = Path(__file__).resolve().parents[2]
RUN = ROOT / "examples" / "dask" / "run.py"
BIN = Path(os.environ.get("TEEORACLE_BIN", ROOT / "target" / "release" / "teeoracle"))
A = "ddnet-20.1/A_join_move_leave"


@pytest.fixture(scope="module")
def tree(tmp_path_factory):
    """A teehistorian file with its session's demo, a cut copy of it, and
    a file that is no recording at all (named as one)."""
    assert BIN.is_file(), f"{BIN}: build it first (cargo build --release)"
    d = tmp_path_factory.mktemp("tree")
    shutil.copy(ROOT / "corpus" / "teehistorian" / f"{A}.teehistorian", d / "a.teehistorian")
    shutil.copy(ROOT / "corpus" / "demo" / f"{A}.demo", d / "a.demo")
    whole = (d / "a.teehistorian").read_bytes()
    (d / "sub").mkdir()
    (d / "sub" / "cut.teehistorian").write_bytes(whole[: len(whole) // 2])
    (d / "sub" / "bad.teehistorian").write_bytes(b"not a teehistorian file at all")
    return d


def job(*args, cwd=ROOT):
    return subprocess.run(
        [sys.executable, str(RUN), *args, "--teeoracle", str(BIN)],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=600,
    )


def check_json(path):
    p = subprocess.run([str(BIN), "check", "--format", "json", str(path)], capture_output=True)
    assert p.returncode in (0, 1), p.stderr
    return {v["path"]: v for v in json.loads(p.stdout)["files"]}


def test_every_file_is_one_result_equal_to_check_and_a_bad_one_stops_nothing(tree, tmp_path):
    out = tmp_path / "out"
    p = job("check", str(tree), "--out", str(out), "--workers", "2")
    # The bad file fails, so the job does: 1, with every file reported.
    assert p.returncode == 1, p.stderr
    rows = pq.read_table(out / "results.parquet").to_pylist()
    paths = [r["path"] for r in rows]
    assert paths == sorted(paths)
    expected = check_json(tree)
    assert set(paths) == set(expected)
    for r in rows:
        assert json.loads(r["verdict"]) == expected[r["path"]], r["path"]
    by_name = {Path(r["path"]).name: r for r in rows}
    assert by_name["bad.teehistorian"]["status"] == "fail"
    assert by_name["a.teehistorian"]["status"] == "pass"
    # Checked across formats: the demo beside it, against the simulation.
    verdict = json.loads(by_name["a.teehistorian"]["verdict"])
    assert verdict["counts"]["more"]["demo_items_matched"] == 330
    summary = json.loads((out / "summary.json").read_text())
    assert summary["files"] == len(rows) == 4


def test_a_task_that_dies_is_that_files_error_and_the_run_goes_on(tree, tmp_path):
    out = tmp_path / "out"
    # An address-space cap no process can start under: every task dies.
    p = job("check", str(tree), "--out", str(out), "--workers", "2", "--task-memory", "2M")
    assert p.returncode == 1
    rows = pq.read_table(out / "results.parquet").to_pylist()
    assert len(rows) == 4
    assert all(r["error"] for r in rows), rows
    assert all(r["verdict"] is None for r in rows)


def test_bad_usage_is_2(tmp_path):
    p = job("check", "--out", str(tmp_path / "out"))
    assert p.returncode == 2
