"""Reading every record of a teehistorian file from Python: teeoracle
against teehistorian-py, as whole processes.

    python python/bench/bench_teehistorian.py [--file F] [--runs N]

Each way of reading runs as its own process (`python -c ...`), in turn
(A B C A B C ...), `--runs` times each; the table gives the median wall
time (timed around the process), the records per second, the peak RSS
(median, from `wait4`) and each time against teehistorian-py's doing the
same: dicts against its dicts, batches against its cheapest way (an
object per record, fields not read). Every
process prints its record count, and all must agree before anything is
timed twice. The default file is the 116 MB file of the crate's benches
(64 players; docs/benchmarks.md), made by `cargo bench --bench
teehistorian` when it is missing.

The ways:

- teehistorian-py: `for chunk in Teehistorian(data)` (its only API: the
  file's bytes in memory, a Python object per record), and the same with
  each chunk's `to_dict()` (its fields as a dict);
- teeoracle, dicts: `for rec in teeoracle.Teehistorian(path)`, a dict per
  record (the `teehistorian dump --format jsonl` line);
- teeoracle, batches: `for b in teeoracle.Teehistorian(path).batches()`,
  every record decoded into columns (memoryviews), 65,536 records a batch,
  and the records per kind summed (`batch.counts()`).
"""

import argparse
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
DEFAULT = ROOT / "target" / "peers" / "big.teehistorian"

PY_ITER = "teehistorian-py 2025.2.2, an object per record (`for chunk in Teehistorian(data)`)"
PY_DICT = "teehistorian-py 2025.2.2, a dict per record (`chunk.to_dict()`)"

# name: (code, the teehistorian-py way it is compared with)
WAYS = {
    PY_ITER: ("""
import sys, teehistorian_py
data = open(sys.argv[1], "rb").read()
n = 0
for chunk in teehistorian_py.Teehistorian(data):
    n += 1
print(n)
""", PY_ITER),
    PY_DICT: ("""
import sys, teehistorian_py
data = open(sys.argv[1], "rb").read()
n = 0
for chunk in teehistorian_py.Teehistorian(data):
    chunk.to_dict()
    n += 1
print(n)
""", PY_DICT),
    "teeoracle, a dict per record (`for rec in Teehistorian(path)`)": ("""
import sys, teeoracle
n = 0
for rec in teeoracle.Teehistorian(sys.argv[1]):
    n += 1
print(n)
""", PY_DICT),
    "teeoracle, batches of columns (`Teehistorian(path).batches()`)": ("""
import sys, collections, teeoracle
n = 0
kinds = collections.Counter()
for batch in teeoracle.Teehistorian(sys.argv[1]).batches():
    n += len(batch)
    kinds.update(batch.counts())
assert sum(kinds.values()) == n
print(n)
""", PY_ITER),
}


def run(python, code, path):
    """One process: (seconds, CPU seconds (user and system), peak RSS in
    KiB, stdout)."""
    start = time.perf_counter()
    proc = subprocess.Popen([python, "-c", code, str(path)], stdout=subprocess.PIPE)
    out = proc.stdout.read()
    _, status, usage = os.wait4(proc.pid, 0)
    seconds = time.perf_counter() - start
    proc.returncode = os.waitstatus_to_exitcode(status)
    if proc.returncode != 0:
        sys.exit(f"failed (exit {proc.returncode}): {code}")
    return seconds, usage.ru_utime + usage.ru_stime, usage.ru_maxrss, out.decode().strip()


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--file", type=Path, default=DEFAULT)
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--python", default=sys.executable)
    args = ap.parse_args()
    if not args.file.exists():
        if args.file != DEFAULT:
            sys.exit(f"{args.file}: no such file")
        args.file.parent.mkdir(parents=True, exist_ok=True)
        env = dict(os.environ, TEEORACLE_BENCH_MB="116", TEEORACLE_BENCH_WRITE=str(args.file))
        subprocess.run(
            ["cargo", "bench", "--quiet", "--bench", "teehistorian"],
            cwd=ROOT, env=env, check=True, stdout=subprocess.DEVNULL,
        )
    times = {name: [] for name in WAYS}
    cpu = {name: [] for name in WAYS}
    rss = {name: [] for name in WAYS}
    counts = {}
    for _ in range(args.runs):
        for name, (code, _) in WAYS.items():
            seconds, used, peak, out = run(args.python, code, args.file)
            times[name].append(seconds)
            cpu[name].append(used)
            rss[name].append(peak)
            counts[name] = out
    if len(set(counts.values())) != 1:
        sys.exit(f"the record counts differ: {counts}")
    records = int(next(iter(counts.values())))
    size = args.file.stat().st_size
    print(f"{args.file.name}: {size / 1e6:.0f} MB, {records} records; "
          f"medians of {args.runs} runs each, alternating")
    print()
    print("| how | time | CPU | records/s | peak RSS | teehistorian-py's / this: time, CPU |")
    print("|---|---|---|---|---|---|")
    for name, (_, peer) in WAYS.items():
        t = statistics.median(times[name])
        c = statistics.median(cpu[name])
        m = statistics.median(rss[name]) / 1024
        base, base_cpu = statistics.median(times[peer]), statistics.median(cpu[peer])
        versus = "-" if peer == name else (
            f"{base / t:.2f}x, {base_cpu / c:.2f}x (vs {'objects' if peer == PY_ITER else 'dicts'})")
        print(f"| {name} | {t:.2f} s | {c:.2f} s | {records / t / 1e6:.1f} M | {m:.0f} MB | {versus} |")


if __name__ == "__main__":
    main()
