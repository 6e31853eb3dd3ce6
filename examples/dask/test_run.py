"""The archive job (run.py) as a user runs it: a LocalCluster of two
workers over a folder with good and bad files. Run by .ci/run with the
job's own virtual environment (examples/dask/requirements.txt):

    target/venv-dask/bin/python -m pytest -q examples/dask/test_run.py

TEEORACLE_BIN names the binary (default: target/release/teeoracle); the
tests fail, never skip, when it is missing. The replay tests need a DDNet
server (DDNET_SERVER, default Debian's /usr/games/DDNet-Server) and are
skipped, saying so, without one.
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


@pytest.fixture(scope="module")
def failing(tmp_path_factory):
    """Files that fail in different ways beside a good one and a cut one
    (a warning): empty, cut in its header, not a recording at all (named
    as a teehistorian file and as a demo)."""
    assert BIN.is_file(), f"{BIN}: build it first (cargo build --release)"
    d = tmp_path_factory.mktemp("failing")
    whole = (ROOT / "corpus" / "teehistorian" / f"{A}.teehistorian").read_bytes()
    (d / "a.teehistorian").write_bytes(whole)
    (d / "cut.teehistorian").write_bytes(whole[: len(whole) // 2])
    (d / "headless.teehistorian").write_bytes(whole[:100])
    (d / "empty.teehistorian").write_bytes(b"")
    (d / "bad.teehistorian").write_bytes(b"not a teehistorian file at all")
    (d / "bad.demo").write_bytes(b"not a demo either")
    return d


@pytest.mark.parametrize("mode", ["check", "export"])
def test_every_failed_file_has_its_reason_in_results_and_summary(failing, tmp_path, mode):
    out = tmp_path / "out"
    p = job(mode, str(failing), "--out", str(out), "--workers", "2")
    assert p.returncode == 1, p.stderr
    rows = pq.read_table(out / "results.parquet").to_pylist()
    by_name = {Path(r["path"]).name: r for r in rows}
    assert by_name["a.teehistorian"]["status"] == "pass"
    assert by_name["a.teehistorian"]["error"] is None
    assert by_name["cut.teehistorian"]["status"] == "warn"
    assert by_name["cut.teehistorian"]["error"] is None
    failed = [r for r in rows if r["status"] in ("fail", "error")]
    assert sorted(Path(r["path"]).name for r in failed) == [
        "bad.demo", "bad.teehistorian", "empty.teehistorian", "headless.teehistorian"]
    for r in failed:
        assert r["error"] and r["error"].strip(), r
    # The reasons are check's own words, export's the same as check's.
    assert "the file is empty" in by_name["empty.teehistorian"]["error"]
    assert "not one" in by_name["bad.demo"]["error"]
    assert by_name["headless.teehistorian"]["error"].startswith("at byte 100 "), by_name["headless.teehistorian"]
    verdicts = check_json(failing)
    for r in failed:
        v = verdicts[r["path"]]
        expected = v["error"]["message"] if v["error"] else next(
            f["message"] for f in v["findings"] if f["severity"] == "fail")
        assert r["error"] == expected, r["path"]
        assert r["findings"] == len(v["findings"]), r["path"]
    summary = json.loads((out / "summary.json").read_text())
    assert summary["errors"] == [
        {"path": r["path"], "status": r["status"], "error": r["error"]} for r in failed]


def test_bad_usage_is_2(tmp_path):
    p = job("check", "--out", str(tmp_path / "out"))
    assert p.returncode == 2


SERVER = Path(os.environ.get("DDNET_SERVER", "/usr/games/DDNet-Server"))
needs_server = pytest.mark.skipif(
    not os.access(SERVER, os.X_OK), reason=f"no DDNet server at {SERVER} (set DDNET_SERVER)"
)
# A changed server's recording (push between players 1.55, not 1.45):
# replayed into DDNet 16.4, four players depart on tick 2.
PUSHED = ROOT / "corpus" / "teehistorian" / "malformed" / "physics" / "push_1_55.teehistorian"


@pytest.fixture(scope="module")
def games(tmp_path_factory):
    """Two short DDNet 16.4 games (4 s and 10 s) and a file that is no
    recording (named as one)."""
    assert BIN.is_file(), f"{BIN}: build it first (cargo build --release)"
    d = tmp_path_factory.mktemp("games")
    shutil.copy(ROOT / "corpus" / "teehistorian" / "ddnet-16.4" / "phys_turret_dragger_coverage.teehistorian", d)
    shutil.copy(PUSHED, d)
    (d / "bad.teehistorian").write_bytes(b"not a teehistorian file at all")
    return d


def leftovers(out):
    """Processes still running whose command line names `out`."""
    import psutil

    found = []
    for p in psutil.process_iter(["cmdline"]):
        if any(str(out) in a for a in p.info["cmdline"] or []):
            found.append(p.info["cmdline"])
    return found


@needs_server
def test_replay_gives_record_s_verdict_per_file_each_server_in_its_own_namespace(games, tmp_path):
    out = tmp_path / "out"
    p = job("replay", str(games), "--server", str(SERVER), "--out", str(out), "--workers", "2")
    assert p.returncode == 1, p.stderr
    rows = pq.read_table(out / "results.parquet").to_pylist()
    assert [Path(r["path"]).name for r in rows] == [
        "bad.teehistorian", "phys_turret_dragger_coverage.teehistorian", "push_1_55.teehistorian"]
    by_name = {Path(r["path"]).name: r for r in rows}
    bad = by_name["bad.teehistorian"]
    assert bad["status"] == "failed"
    assert "magic" in bad["error"], bad["error"]
    pushed = by_name["push_1_55.teehistorian"]
    assert pushed["status"] == "changed", pushed
    assert pushed["first_difference"] == 2
    assert pushed["first_players"] == ["a #1", "d #1", "i #1", "j #1"]
    assert (pushed["changed_players"], pushed["players"]) == (4, 10)
    # Whether record flagged the first difference's tick as late.
    assert pushed["late"] == (2 in (pushed["late_ticks"] or [])), pushed
    for r in rows[1:]:
        run = out / "runs" / r["name"]
        assert r["name"] == f"{games.name}/{Path(r['path']).name}"
        for f in ("compare.json", "replay.json", "original.teehistorian", "server.teehistorian"):
            assert (run / f).is_file(), run / f
        # The job's verdict is record's: identical exactly when record
        # says so (exit 0), else the first tick a player departs in its
        # comparison.
        compare = json.loads((run / "compare.json").read_text())
        assert (r["status"] == "identical") == (r["exit_code"] == 0), r
        if r["status"] == "changed":
            ticks = [min(t for t in ((p["path"] or {}).get("tick"), (p["events"] or {}).get("tick")) if t is not None)
                     for p in compare["players"] if p["status"] == "changed"]
            assert r["first_difference"] == min(ticks)
        # record ran the server in a network namespace of its own.
        assert r["netns"] and r["netns"] != r["worker_netns"], r
    summary = json.loads((out / "summary.json").read_text())
    assert sum(summary["by_status"].values()) == 3
    assert summary["errors"] == [{"path": bad["path"], "status": "failed", "error": bad["error"]}]
    assert summary["namespaces"] == {
        "servers_seen": 2, "in_workers_namespace": 0, "shared_by_servers_alive_at_once": 0}
    assert not leftovers(out)


@needs_server
def test_a_replay_out_of_time_is_stopped_and_leaves_no_server(games, tmp_path):
    out = tmp_path / "out"
    p = job("replay", str(games / "push_1_55.teehistorian"), "--server", str(SERVER),
            "--out", str(out), "--workers", "1", "--timeout", "3")
    assert p.returncode == 1, p.stderr
    [row] = pq.read_table(out / "results.parquet").to_pylist()
    assert row["status"] == "failed"
    assert row["error"].startswith("timed out after 3.0 s (the file plays 10.3 s)"), row["error"]
    assert row["seconds"] < 60
    assert not leftovers(out)


def test_replay_refuses_a_run_folder_that_holds_files_and_needs_a_server(games, tmp_path):
    out = tmp_path / "out"
    run = out / "runs" / games.name / "push_1_55.teehistorian"
    run.mkdir(parents=True)
    (run / "server.log").write_text("an earlier run\n")
    p = job("replay", str(games), "--server", "/bin/true", "--out", str(out))
    assert p.returncode == 2
    assert "--force" in p.stderr
    p = job("replay", str(games), "--out", str(tmp_path / "other"))
    assert p.returncode == 2
    assert "--server" in p.stderr
