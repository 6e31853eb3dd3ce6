#!/usr/bin/env python3
"""Compare a Dask job's results (run.py check) with `teeoracle check` over
the same paths, file for file: the same files, and for each the same
verdict (status, format, error, round trip, findings, counts, summary).
Prints each difference and exits 1 if there is any. Run it from the
folder the job was run from (the paths are compared as given); the
binary is $TEEORACLE_BIN, else the repository's target/release/teeoracle
(found from this script, wherever it is run from).

    python examples/dask/compare.py target/dask-check/results.parquet corpus ../shared/corpus
"""

import json
import os
import subprocess
import sys
from pathlib import Path

import pyarrow.parquet as pq


def main() -> int:
    if len(sys.argv) < 3:
        print(__doc__, file=sys.stderr)
        return 2
    results, paths = sys.argv[1], sys.argv[2:]
    repository = Path(__file__).resolve().parents[2]
    teeoracle = os.environ.get("TEEORACLE_BIN") or str(repository / "target/release/teeoracle")
    proc = subprocess.run(
        [teeoracle, "check", "--format", "json", *paths], capture_output=True
    )
    if proc.returncode not in (0, 1):
        print(f"teeoracle check exited {proc.returncode}: {proc.stderr.decode()}", file=sys.stderr)
        return 1
    expected = {v["path"]: v for v in json.loads(proc.stdout)["files"]}
    got = {}
    for row in pq.read_table(results).to_pylist():
        got[row["path"]] = json.loads(row["verdict"]) if row["verdict"] else {
            "status": row["status"], "error": row["error"]}
    differences = 0
    for path in sorted(set(expected) | set(got)):
        if path not in got:
            print(f"{path}: checked by teeoracle check, not by the job")
        elif path not in expected:
            print(f"{path}: in the job's results, not in teeoracle check's")
        elif got[path] != expected[path]:
            e, g = expected[path], got[path]
            keys = sorted(k for k in set(e) | set(g) if e.get(k) != g.get(k))
            for k in keys:
                print(f"{path}: {k}: teeoracle check {json.dumps(e.get(k))}, job {json.dumps(g.get(k))}")
        else:
            continue
        differences += 1
    print(
        f"compare: {len(expected)} file(s) by teeoracle check, {len(got)} by the job, "
        f"{differences} differ"
    )
    return 1 if differences else 0


if __name__ == "__main__":
    sys.exit(main())
