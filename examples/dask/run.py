#!/usr/bin/env python3
"""Run `teeoracle check`, `simulate` or `export` over a tree of recordings,
or `replay` its teehistorian files into a server build, on Dask
distributed: one task per file, each task one `teeoracle` process.

    python examples/dask/run.py check corpus ../shared/corpus --out target/dask-check
    python examples/dask/run.py export /archive --out /results/export --scheduler tcp://sched:8786
    python examples/dask/run.py replay /archive --server /usr/games/DDNet-Server --out /results/replay

Without --scheduler a LocalCluster of --workers processes is started on this
machine; with it, the same tasks go to that cluster (every worker must see
the files and the `teeoracle` binary at the same paths, e.g. on a shared
file system). See docs/archive-scale.md.

Each task runs the `teeoracle` binary as a subprocess on one file, with
`-j 1` and an address-space limit (--task-memory): the process isolates the
file (a crash, a hang or a runaway allocation ends that process, not the
worker: it is reported as that file's error), its memory is bounded and
given back to the system when it ends, and the result is exactly what the
command line says (`check --format json`), so the job's verdicts are the
same as `teeoracle check`'s by construction and by test (compare.py).

Results: OUT/results.parquet (one row per file, in path order: status,
format, counts, error, the verdict as JSON, exit code, seconds, bytes),
OUT/summary.json (totals, errors, throughput); for `export`, each file's
tables in OUT/parts/NNNNNNN/TABLE.parquet (read them all at once with a
glob, e.g. DuckDB's read_parquet('OUT/parts/*/characters.parquet')).
Exit 0 when every file passed, 1 when one failed or could not be run, 2 for
bad usage.

`replay` (replay.py) runs `teeoracle record --server S --replay FILE -o
OUT/runs/NAME --format json` per teehistorian file, each server in a
network namespace of its own, one replay per core (--workers) under a
timeout from the file's length; rows say identical, changed (from which
tick, which players, and whether record flagged that tick as late: the
machine's load), partial or failed. Exit 0 when every file replayed
identically.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import signal
import subprocess
import sys
import time
from pathlib import Path

import replay

MODES = ("check", "simulate", "export", "replay")


def walk(root: Path, out: list[Path]) -> None:
    """The files below `root` in name order, as teeoracle walks a folder
    (each folder's entries sorted; links to folders met while walking are
    left out)."""
    if root.is_dir():
        for entry in sorted(os.listdir(root)):
            p = root / entry
            if p.is_dir() and p.is_symlink():
                continue
            walk(p, out)
    else:
        out.append(root)


def limit_memory(limit: int):
    """A pre-exec function capping the child's address space at `limit`
    bytes (0: no cap)."""

    def apply() -> None:
        if limit > 0:
            resource.setrlimit(resource.RLIMIT_AS, (limit, limit))

    return apply


# The statuses summary.json lists under `errors`: each row has its reason.
FAILED = ("fail", "error")


def reason(status: str, error: str | None, findings: list[dict]) -> str | None:
    """Why a file failed: its decoding error, else its first failing
    finding's message (a file refused as not its format, a simulation's
    divergence, ... has no decoding error), else any finding's. None when
    it did not fail and has no error."""
    if error:
        return error
    if status not in FAILED:
        return None
    for severity in ("fail", None):
        for f in findings:
            if f.get("message") and severity in (None, f.get("severity")):
                return f["message"]
    return f"status {status} without a finding"


def read_check_reports(part: str) -> list[dict]:
    """The part's check_reports rows (one per finding, or one without a
    finding), in finding order."""
    import pyarrow.parquet as pq

    rows = pq.read_table(Path(part) / "check_reports.parquet").to_pylist()
    return sorted(rows, key=lambda r: -1 if r["finding"] is None else r["finding"])


def run_one(task: dict) -> dict:
    """One file: run teeoracle on it, give back its result row. Never
    raises: whatever goes wrong is the row's `error`."""
    path = task["path"]
    started = time.monotonic()
    row = {
        "index": task["index"],
        "path": path,
        "bytes": task["bytes"],
        "status": "error",
        "format": None,
        "records": None,
        "last_tick": None,
        "error": None,
        "findings": 0,
        "summary": None,
        "verdict": None,
        "rows": None,
        "exit_code": None,
        "seconds": 0.0,
    }
    cmd = [task["teeoracle"]]
    if task["mode"] == "export":
        part = str(Path(task["out"]) / "parts" / f"{task['index']:07d}")
        cmd += ["export", "--walked", path, "--to", part, "--format", "json"]
    else:
        cmd += ["check", "--walked", "-j", "1", "--format", "json", path]
    for m in task["maps"]:
        cmd += ["--maps", m]
    try:
        proc = subprocess.run(
            cmd,
            capture_output=True,
            timeout=task["timeout"] or None,
            preexec_fn=limit_memory(task["task_memory"]),
            cwd=task["cwd"],
        )
    except subprocess.TimeoutExpired:
        row["error"] = f"timed out after {task['timeout']} s"
        row["seconds"] = time.monotonic() - started
        return row
    except OSError as e:
        row["error"] = f"cannot run {task['teeoracle']}: {e}"
        row["seconds"] = time.monotonic() - started
        return row
    row["seconds"] = time.monotonic() - started
    row["exit_code"] = proc.returncode
    stderr = proc.stderr.decode("utf-8", "replace").strip()
    if proc.returncode < 0:
        name = signal.Signals(-proc.returncode).name
        row["error"] = f"teeoracle was killed by {name}: {stderr[-500:]}"
        return row
    try:
        doc = json.loads(proc.stdout)
        verdict_like = doc["files"][0]
    except (ValueError, KeyError, IndexError, TypeError):
        row["error"] = f"exit {proc.returncode}, no report: {stderr[-500:]}"
        return row
    if task["mode"] == "export":
        row["rows"] = json.dumps(verdict_like["rows"], sort_keys=True)
        # The document names the status; the verdict's error and findings
        # are in the part's check_reports table.
        row["status"] = verdict_like["status"]
        row["format"] = verdict_like["format"]
        try:
            reports = read_check_reports(part)
        except Exception as e:  # noqa: BLE001 - any unreadable table is the row's error
            if row["status"] in FAILED:
                row["error"] = f"exit {proc.returncode}, its check_reports table unreadable: {e}"
            return row
        first = reports[0] if reports else {}
        row["records"] = first.get("records")
        row["last_tick"] = first.get("last_tick")
        findings = [r for r in reports if r["finding"] is not None]
        row["findings"] = len(findings)
        row["error"] = reason(row["status"], first.get("error"), findings)
        return row
    v = verdict_like
    row["status"] = v["status"]
    row["format"] = v["format"]
    row["records"] = v["counts"].get("records")
    row["last_tick"] = v["counts"].get("last_tick")
    row["error"] = reason(v["status"], v["error"]["message"] if v["error"] else None, v["findings"])
    row["findings"] = len(v["findings"])
    row["summary"] = v["summary"]
    row["verdict"] = json.dumps(v, sort_keys=True)
    return row


def write_results(rows: list[dict], out: Path) -> None:
    import pyarrow as pa
    import pyarrow.parquet as pq

    schema = pa.schema(
        [
            ("path", pa.string()),
            ("bytes", pa.int64()),
            ("status", pa.string()),
            ("format", pa.string()),
            ("records", pa.int64()),
            ("last_tick", pa.int32()),
            ("error", pa.string()),
            ("findings", pa.int32()),
            ("summary", pa.string()),
            ("verdict", pa.string()),
            ("rows", pa.string()),
            ("exit_code", pa.int32()),
            ("seconds", pa.float64()),
        ]
    )
    table = pa.Table.from_pylist(
        [{k: r[k] for k in schema.names} for r in rows], schema=schema
    )
    pq.write_table(table, out / "results.parquet", compression="snappy")


def late_note(summary: dict) -> str:
    """Of the changed replays, those whose first difference is at a tick
    record flagged as late (the machine's load: replay them again)."""
    late = sum(1 for c in summary.get("changed") or [] if c["late"])
    return f" ({late} of them first differ at a tick record flagged late)" if late else ""


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("mode", choices=MODES)
    ap.add_argument("paths", nargs="+", help="files or folders (walked)")
    ap.add_argument("--out", required=True, help="the results folder")
    ap.add_argument(
        "--scheduler", help="a Dask scheduler's address (default: a LocalCluster)"
    )
    ap.add_argument(
        "--workers",
        type=int,
        help="LocalCluster worker processes (default 2; replay: one per core, "
        "fewer if memory does not hold them)",
    )
    ap.add_argument(
        "--teeoracle",
        default="target/release/teeoracle",
        help="the binary (the same path on every worker)",
    )
    ap.add_argument(
        "--maps",
        action="append",
        default=None,
        help="folders of maps to simulate teehistorian files on "
        "(default: the folders given, as `teeoracle check` over them finds them; "
        "replay: none, record looks beside each file and in the server's maps)",
    )
    ap.add_argument("--server", help="replay: the server binary (the same path on every worker)")
    ap.add_argument(
        "--force",
        action="store_true",
        help="replay: write into run folders that hold files (record --force)",
    )
    ap.add_argument(
        "--task-memory",
        default="4G",
        help="address-space cap of one teeoracle process (K, M, G; 0: none; "
        "not replay: a server's memory is its own)",
    )
    ap.add_argument(
        "--timeout",
        type=float,
        help="seconds per file (0: none; default 3600; replay: "
        f"{replay.TIMEOUT_START:g} s and {replay.TIMEOUT_PER_SECOND:g} per second the file plays)",
    )
    ap.add_argument(
        "--window",
        type=int,
        default=10000,
        help="tasks submitted at once (bounds the scheduler's memory)",
    )
    args = ap.parse_args()

    mult = {"K": 1 << 10, "M": 1 << 20, "G": 1 << 30}
    mem = args.task_memory.strip().upper()
    try:
        task_memory = (
            int(mem[:-1]) * mult[mem[-1]] if mem[-1] in mult else int(mem)
        )
    except ValueError:
        ap.error(f"--task-memory: not a size: {args.task_memory}")
    teeoracle = str(Path(args.teeoracle).resolve())
    if not os.access(teeoracle, os.X_OK):
        ap.error(f"--teeoracle {teeoracle}: not an executable")
    if args.mode == "replay":
        if not args.server:
            ap.error("replay: give the server with --server")
        args.server = str(Path(args.server).resolve())
        if not os.access(args.server, os.X_OK) or not os.path.isfile(args.server):
            ap.error(f"--server {args.server}: not an executable file")
    if args.workers is None:
        args.workers = replay.default_workers() if args.mode == "replay" else 2
    if args.timeout is None and args.mode != "replay":
        args.timeout = 3600
    out = Path(args.out)

    files: list[Path] = []
    roots: list[Path] = []
    for p in args.paths:
        if not os.path.exists(p):
            ap.error(f"{p}: no such file or folder")
        found: list[Path] = []
        walk(Path(p), found)
        files += found
        roots += [Path(p)] * len(found)
    if args.mode in ("simulate", "replay"):
        # A pipe, socket or device met in a folder is never opened (a
        # read of a FIFO waits for a writer that may never come); check
        # and export report it skipped, these modes leave it out, named.
        special = [f for f in files if f.exists() and not f.is_file()]
        for f in special:
            print(f"left out: {f}: not a regular file (a pipe, socket or device)", file=sys.stderr)
        kept = [
            i for i, f in enumerate(files) if ".teehistorian" in f.name and f not in special
        ]
        files, roots = [files[i] for i in kept], [roots[i] for i in kept]
    names: list[str | None] = [None] * len(files)
    if args.mode == "replay":
        # Each file's run folder, OUT/runs/NAME: new (or empty), and one
        # file's only, before anything starts.
        owner: dict[str, Path] = {}
        for i, (root, f) in enumerate(zip(roots, files)):
            names[i] = replay.run_name(root, f)
            if names[i] in owner:
                ap.error(f"{owner[names[i]]} and {f} would both write runs/{names[i]}: "
                         "give folders of different names")
            owner[names[i]] = f
            run_dir = out / "runs" / names[i]
            if not args.force and run_dir.is_dir() and any(run_dir.iterdir()):
                ap.error(f"{run_dir} holds files: name a new --out, or add --force")
    out.mkdir(parents=True, exist_ok=True)
    # As `teeoracle check` over the folders: maps anywhere under them.
    if args.maps is not None:
        maps = args.maps
    elif args.mode == "replay":
        maps = []
    else:
        maps = [p for p in args.paths if os.path.isdir(p)]
    cwd = os.getcwd()
    tasks = []
    for i, f in enumerate(files):
        try:
            size = f.stat().st_size
        except OSError:
            size = 0
        is_th = ".teehistorian" in f.name
        tasks.append(
            {
                "index": i,
                "path": str(f),
                "bytes": size,
                "mode": args.mode,
                "teeoracle": teeoracle,
                "out": str(out.resolve()),
                "cwd": cwd,
                # Only teehistorian files are simulated; the others need no
                # maps (a demo's own map is always at hand).
                "maps": maps if is_th else [],
                "task_memory": task_memory,
                "timeout": args.timeout,
                "name": names[i],
                "server": args.server,
                "force": args.force,
            }
        )
    run_task = replay.run_replay if args.mode == "replay" else run_one
    # replay.py travels with the task (a cluster's workers need not have it).
    import cloudpickle

    cloudpickle.register_pickle_by_value(replay)

    from dask.distributed import Client, LocalCluster, as_completed

    if args.scheduler:
        client = Client(args.scheduler)
        cluster = None
    else:
        # One thread per worker process: each task is one teeoracle process
        # on one core.
        cluster = LocalCluster(
            n_workers=args.workers,
            threads_per_worker=1,
            processes=True,
            dashboard_address=None,
        )
        client = Client(cluster)
    print(
        f"dask: {len(tasks)} file(s), mode {args.mode}, "
        f"{len(client.scheduler_info()['workers'])} worker(s) at {client.scheduler.address}",
        file=sys.stderr,
    )
    started = time.monotonic()
    rows: list[dict] = []
    pending = iter(tasks)
    running = as_completed()
    # The largest files first would balance better; path order keeps the
    # submission simple and the results are sorted anyway.
    for t in pending:
        running.add(client.submit(run_task, t, key=f"teeoracle-{args.mode}-{t['index']}", pure=False))
        if running.count() >= args.window:
            break
    def lost(t: dict, error: str) -> dict:
        """The row of a file whose task gave none."""
        if args.mode == "replay":
            return {**replay.new_row(t), "error": error}
        return {
            "index": t["index"], "path": t["path"], "bytes": t["bytes"], "status": "error",
            "format": None, "records": None, "last_tick": None, "error": error, "findings": 0,
            "summary": None, "verdict": None, "rows": None, "exit_code": None, "seconds": 0.0,
        }

    done = 0
    last_print = 0.0
    try:
        for fut in running:
            try:
                row = fut.result()
            except Exception as e:  # a worker died: the file is an error, not the run's end
                row = lost(tasks[int(fut.key.rsplit("-", 1)[1])], f"task failed: {type(e).__name__}: {e}")
            rows.append(row)
            done += 1
            nxt = next(pending, None)
            if nxt is not None:
                running.add(client.submit(run_task, nxt, key=f"teeoracle-{args.mode}-{nxt['index']}", pure=False))
            now = time.monotonic()
            bad = row["status"] not in ("pass", "warn", "xfail", "skip", "identical")
            if bad or now - last_print > 2 or done == len(tasks):
                last_print = now
                note = f" {row['status']}: {row['path']}" if bad else ""
                print(f"[{done}/{len(tasks)}] {now - started:6.1f} s{note}", file=sys.stderr)
    except KeyboardInterrupt:
        # Ctrl-C reached the workers and their teeoracle processes too
        # (record stops its server in order); the files done are kept,
        # the others are reported as not done.
        got = {r["index"] for r in rows}
        rows += [lost(t, "interrupted (Ctrl-C) before its result came back")
                 for t in tasks if t["index"] not in got]
        print(f"dask: interrupted after {done} of {len(tasks)} file(s)", file=sys.stderr)
    wall = time.monotonic() - started
    try:
        client.close()
        if cluster is not None:
            cluster.close()
    except Exception:  # workers Ctrl-C ended
        pass

    rows.sort(key=lambda r: r["index"])
    total_bytes = sum(r["bytes"] for r in rows)
    summary = {
        "mode": args.mode,
        "paths": args.paths,
        "files": len(rows),
        "bytes": total_bytes,
    }
    if args.mode == "replay":
        replay.write_results(rows, out)
        summary["server"] = args.server
        summary.update(replay.summary_of(rows))
    else:
        write_results(rows, out)
        by_status: dict[str, int] = {}
        for r in rows:
            by_status[r["status"]] = by_status.get(r["status"], 0) + 1
        summary["by_status"] = dict(sorted(by_status.items()))
        summary["errors"] = [
            {"path": r["path"], "status": r["status"], "error": r["error"]}
            for r in rows
            if r["status"] in FAILED
        ]
    summary.update({
        "workers": args.workers if cluster is not None else None,
        "scheduler": args.scheduler,
        "wall_seconds": round(wall, 3),
        "files_per_second": round(len(rows) / wall, 3) if wall else None,
        "mb_per_second": round(total_bytes / 1e6 / wall, 3) if wall else None,
        "task_seconds": round(sum(r["seconds"] for r in rows), 3),
    })
    (out / "summary.json").write_text(json.dumps(summary, indent=2) + "\n")
    print(
        f"dask: {len(rows)} file(s) in {wall:.1f} s "
        f"({summary['files_per_second']} files/s, {summary['mb_per_second']} MB/s): "
        + ", ".join(f"{n} {s}" for s, n in summary["by_status"].items())
        + late_note(summary)
        + f"; {out / 'results.parquet'}, {out / 'summary.json'}",
        file=sys.stderr,
    )
    if args.mode == "replay":
        return 0 if summary["by_status"]["identical"] == len(rows) else 1
    return 1 if summary["errors"] else 0


if __name__ == "__main__":
    sys.exit(main())
