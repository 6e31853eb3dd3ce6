"""The archive job's `replay` mode (run.py; docs/archive-scale.md): each
teehistorian file played again into a server build, one task per file.

A task is one `teeoracle record --server S --replay FILE [--maps DIR] -o
OUT/runs/NAME --format json` process: record starts the server inside a
network namespace of its own (`unshare`), plays the file's clients into
it on their recorded ticks, and compares the replayed game with the
recorded one player by player (compare.json in the run's folder; what
the replay could not give back is in replay.json's notes). A replay
runs in real time, so each task's timeout is the file's own length plus
a margin, and at most one replay per core runs at once: a server that
overruns its ticks records an input a tick late, which is a difference
of the machine's load, not of the build.

A file's verdict: `identical` (record's exit 0: every player's path and
events as recorded, nothing left out), `changed` (a player's path or
events differ; `first_difference` and `first_players` say where and
who, and `late` whether record flagged that tick: something sent on it
went out after the tick was over, or the server overran it, so the
difference is the machine's load, not the build's; replay it again),
`partial` (identical, but the replay left something out: its
notes), `failed` (no comparison, or record named problems with the run:
the error says why).
"""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import tempfile
import time
from pathlib import Path

VERDICTS = ("identical", "changed", "partial", "failed")
# A replay's time beyond the file's own: the server's start, the stop,
# the checks of what it wrote and the comparison (under a loaded
# machine's scheduling), per file and per second of play.
TIMEOUT_START = 60.0
TIMEOUT_PER_SECOND = 2.0
# record plays at most a file's first 600 s (a longer one is partial).
MAX_PLAYED = 600.0
TICKS_PER_SECOND = 50
# What one replay holds at its peak: the server, record's bots and its
# checks (57 MB measured for eight players), with room for 64 players and
# the Dask worker's own process.
MEMORY_PER_REPLAY = 512 << 20
# After a timeout: how long record has to stop its server in order
# (it forwards SIGTERM and gives the inner process 60 s) before every
# process of the task is killed.
STOP_GRACE = 75.0


def default_workers() -> int:
    """As many replays at once as the machine holds: one per core this
    process may use, fewer if memory does not hold that many."""
    import psutil

    cores = len(os.sched_getaffinity(0))
    by_memory = psutil.virtual_memory().available // MEMORY_PER_REPLAY
    return max(1, min(cores, by_memory))


def run_name(root: Path, path: Path) -> str:
    """The run folder of `path` (found under the argument `root`) below
    OUT/runs: the root's own name and the path below it, so the folders
    mirror the tree and stay the same from run to run."""
    base = Path(os.path.abspath(root)).name or "root"
    if root.is_dir():
        return str(Path(base) / path.relative_to(root))
    return base


def new_row(task: dict) -> dict:
    return {
        "index": task["index"],
        "path": task["path"],
        "name": task["name"],
        "bytes": task["bytes"],
        "ticks": None,
        "status": "failed",
        "error": None,
        "first_difference": None,
        "first_players": None,
        "players": None,
        "changed_players": None,
        "changed": None,
        "notes": None,
        "problems": None,
        "overran": None,
        "late_ticks": None,
        "late": None,
        "netns": None,
        "server_seen": None,
        "worker_netns": None,
        "host": socket.gethostname(),
        "exit_code": None,
        "timeout": None,
        "started": time.time(),
        "seconds": 0.0,
    }


def file_ticks(teeoracle: str, path: str, cwd: str) -> int | None:
    """The file's last tick (`teehistorian stats`, streamed), or None
    when it does not read (record then says why)."""
    try:
        p = subprocess.run(
            [teeoracle, "teehistorian", "stats", "--format", "json", path],
            capture_output=True,
            timeout=600,
            cwd=cwd,
        )
        return int(json.loads(p.stdout)["last_tick"])
    except (OSError, subprocess.TimeoutExpired, ValueError, KeyError, TypeError):
        return None


def timeout_for(ticks: int | None) -> float:
    played = min((ticks or 0) / TICKS_PER_SECOND, MAX_PLAYED)
    return round(TIMEOUT_START + TIMEOUT_PER_SECOND * played, 1)


def _netns(pid: int) -> str | None:
    try:
        return os.readlink(f"/proc/{pid}/ns/net")
    except OSError:
        return None


def _stop(proc: subprocess.Popen, seen: dict) -> None:
    """Stops a record that ran out of time: SIGTERM, which it forwards to
    the process in the namespace, which stops the server in order; then,
    if that does not end it, SIGKILL to every process of the task."""
    import psutil

    proc.send_signal(signal.SIGTERM)
    try:
        proc.wait(timeout=STOP_GRACE)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()
    for p in seen.values():
        try:
            p.kill()
        except psutil.Error:
            pass


def run_replay(task: dict) -> dict:
    """One file: replay it, give back its row. Never raises: whatever
    goes wrong is the row's `error`."""
    import psutil

    row = new_row(task)
    started = time.monotonic()
    row["ticks"] = file_ticks(task["teeoracle"], task["path"], task["cwd"])
    timeout = task["timeout"] if task["timeout"] is not None else timeout_for(row["ticks"])
    row["timeout"] = timeout
    run_dir = Path(task["out"]) / "runs" / task["name"]
    cmd = [task["teeoracle"], "record", "--server", task["server"], "--replay", task["path"]]
    for m in task["maps"]:
        cmd += ["--maps", m]
    cmd += ["-o", str(run_dir), "--format", "json"]
    if task["force"]:
        cmd.append("--force")
        # What is read back must be this run's, not an earlier one's.
        for f in ("compare.json", "replay.json"):
            try:
                (run_dir / f).unlink()
            except OSError:
                pass
    server = os.path.realpath(task["server"])
    row["worker_netns"] = _netns(os.getpid())
    # Every process of the task seen while it ran (to kill them all should
    # it not stop), and the server's network namespace.
    seen: dict[int, psutil.Process] = {}
    timed_out = False
    # Files, not pipes: record's report may be larger than a pipe holds.
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        try:
            proc = subprocess.Popen(cmd, stdout=out, stderr=err, cwd=task["cwd"])
        except OSError as e:
            row["error"] = f"cannot run {task['teeoracle']}: {e}"
            row["seconds"] = time.monotonic() - started
            return row
        while True:
            try:
                proc.wait(timeout=0.5)
                break
            except subprocess.TimeoutExpired:
                pass
            try:
                children = psutil.Process(proc.pid).children(recursive=True)
            except psutil.Error:
                children = []
            for p in children:
                seen.setdefault(p.pid, p)
                try:
                    if p.exe() == server and p.is_running():
                        row["netns"] = row["netns"] or _netns(p.pid)
                        now = time.time()
                        row["server_seen"] = [(row["server_seen"] or [now])[0], now]
                except psutil.Error:
                    pass
            if timeout and time.monotonic() - started > timeout:
                timed_out = True
                _stop(proc, seen)
                break
        out.seek(0)
        stdout = out.read().decode("utf-8", "replace")
        err.seek(0)
        stderr = err.read().decode("utf-8", "replace").strip()
    row["seconds"] = time.monotonic() - started
    row["exit_code"] = proc.returncode
    if row["netns"] is not None and row["netns"] == row["worker_netns"]:
        row["error"] = f"the server ran in the worker's own network namespace ({row['netns']})"
        return row
    if timed_out:
        played = (row["ticks"] or 0) / TICKS_PER_SECOND
        row["error"] = f"timed out after {timeout} s (the file plays {played:.1f} s); stopped"
        return row
    if proc.returncode < 0:
        name = signal.Signals(-proc.returncode).name
        row["error"] = f"teeoracle was killed by {name}: {stderr[-500:]}"
        return row
    # record prints its JSON document, then the comparison as text.
    try:
        report, _ = json.JSONDecoder().raw_decode(stdout.lstrip())
        row["problems"] = json.dumps(report["problems"]) if report["problems"] else None
        row["overran"] = len(report["timing"]["overran"])
        row["late_ticks"] = sorted({r["tick"] for r in report["timing"]["at_risk"]}) or None
    except (ValueError, KeyError, TypeError):
        report = None
    try:
        compare = json.loads((run_dir / "compare.json").read_text())
        plan = json.loads((run_dir / "replay.json").read_text())
    except (OSError, ValueError):
        said = "; ".join(report["problems"]) if report and report["problems"] else stderr[-500:]
        row["error"] = f"exit {proc.returncode}, no comparison: {said or 'nothing said'}"
        return row
    judge(row, compare, plan)
    if report is None or report["problems"]:
        # Not a clean run (interrupted, a server that died or a bot it
        # refused): its comparison (kept in the row) says nothing of the
        # build, so no verdict but record's problems.
        said = "; ".join(report["problems"]) if report else f"no report: {stderr[-500:]}"
        row["status"] = "failed"
        row["error"] = f"exit {proc.returncode}: {said}"
    return row


def judge(row: dict, compare: dict, plan: dict) -> None:
    """The verdict from compare.json (`teehistorian_compare`) and
    replay.json (the notes of what was left out)."""
    notes = plan.get("notes") or []
    row["notes"] = json.dumps(notes) if notes else None
    players = compare["players"]
    row["players"] = len(players)
    changed = []
    for p in players:
        if p["status"] == "unchanged":
            continue
        path = (p.get("path") or {}).get("tick")
        events = (p.get("events") or {}).get("tick")
        ticks = [t for t in (path, events) if t is not None]
        changed.append(
            {
                "name": p["name"],
                "join": p["join"],
                "status": p["status"],
                # Its first difference: where its path departs or its
                # events part; a player one side lacks, from its join.
                "tick": min(ticks) if ticks else p["joined"],
                "path": path,
                "events": events,
                "finish_changed": bool((p.get("finishes") or {}).get("changed")),
            }
        )
    row["changed_players"] = len(changed)
    if compare["verdict"] == "changed" and changed:
        first = min(c["tick"] for c in changed)
        row["status"] = "changed"
        row["first_difference"] = first
        row["first_players"] = [f"{c['name']} #{c['join']}" for c in changed if c["tick"] == first]
        row["changed"] = json.dumps(changed)
        row["late"] = first in (row["late_ticks"] or [])
    elif notes:
        row["status"] = "partial"
    else:
        row["status"] = "identical"


def write_results(rows: list[dict], out: Path) -> None:
    import pyarrow as pa
    import pyarrow.parquet as pq

    schema = pa.schema(
        [
            ("path", pa.string()),
            ("name", pa.string()),
            ("bytes", pa.int64()),
            ("ticks", pa.int32()),
            ("status", pa.string()),
            ("error", pa.string()),
            ("first_difference", pa.int32()),
            ("first_players", pa.list_(pa.string())),
            ("players", pa.int32()),
            ("changed_players", pa.int32()),
            ("changed", pa.string()),
            ("notes", pa.string()),
            ("problems", pa.string()),
            ("overran", pa.int32()),
            ("late_ticks", pa.list_(pa.int32())),
            ("late", pa.bool_()),
            ("netns", pa.string()),
            ("server_seen", pa.list_(pa.float64())),
            ("worker_netns", pa.string()),
            ("host", pa.string()),
            ("exit_code", pa.int32()),
            ("timeout", pa.float64()),
            ("started", pa.float64()),
            ("seconds", pa.float64()),
        ]
    )
    table = pa.Table.from_pylist([{k: r[k] for k in schema.names} for r in rows], schema=schema)
    pq.write_table(table, out / "results.parquet", compression="snappy")


def summary_of(rows: list[dict]) -> dict:
    """The replay-specific part of summary.json."""
    by_status = {v: 0 for v in VERDICTS}
    for r in rows:
        by_status[r["status"]] += 1
    played = sum(min((r["ticks"] or 0) / TICKS_PER_SECOND, MAX_PLAYED) for r in rows)
    return {
        "by_status": by_status,
        "errors": [
            {"path": r["path"], "status": r["status"], "error": r["error"]}
            for r in rows
            if r["status"] == "failed"
        ],
        "changed": [
            {
                "path": r["path"],
                "first_difference": r["first_difference"],
                "players": r["first_players"],
                "changed_players": r["changed_players"],
                "of": r["players"],
                "late": r["late"],
            }
            for r in rows
            if r["status"] == "changed"
        ],
        "partial": [
            {"path": r["path"], "notes": [n["what"] for n in json.loads(r["notes"])]}
            for r in rows
            if r["status"] == "partial"
        ],
        "played_seconds": round(played, 1),
        "namespaces": namespaces(rows),
    }


def namespaces(rows: list[dict]) -> dict:
    """One network namespace per server: the servers seen, those in their
    worker's namespace, and pairs of servers seen alive at once in one
    namespace on one host (both must be 0; a namespace's number is reused
    once it is freed, so only servers alive at once are compared)."""
    seen = sorted((r for r in rows if r["netns"]), key=lambda r: r["server_seen"][0])
    shared = 0
    alive: list[dict] = []  # servers seen up to now, at most the workers'
    for r in seen:
        alive = [a for a in alive if a["server_seen"][1] >= r["server_seen"][0]]
        shared += sum(1 for a in alive if (a["host"], a["netns"]) == (r["host"], r["netns"]))
        alive.append(r)
    return {
        "servers_seen": len(seen),
        "in_workers_namespace": sum(1 for r in seen if r["netns"] == r["worker_netns"]),
        "shared_by_servers_alive_at_once": shared,
    }
