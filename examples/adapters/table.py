"""The conformance table (docs/conform.md) from `teeoracle conform run --format json`
reports (src/schema.md, `conform run --format json`), one per adapter:

    python3 examples/adapters/table.py [--notes examples/adapters/findings.json] REPORT.json...

prints a Markdown table: implementation, version, unit, passed of the cases
run (cases of units or operations the adapter does not declare,
`not_covered`, are not counted), and the main findings, grouped by result and JSON path, each with its
explanation from the notes file. A finding group without a note is printed
as UNEXPLAINED and makes the exit code 1, so a new finding cannot slip into
docs/conform.md unexplained. Only the standard library is used.

The notes file is a JSON list of
`{"adapter": NAME or [NAME, ...], "unit": UNIT, "result": RESULT, "path": PREFIX,
  "ids": [PART OF A CASE ID, ...], "detail": PART OF THE DETAIL,
  "note": "whose bug and why"}` (`path`, `ids` and `detail` optional); the
first entry that matches a finding explains it.
"""

import argparse
import collections
import json
import re
import sys

FINDINGS_SHOWN = 4


def group_path(path):
    """`packet.chunks[3].size` → `packet.chunks[].size`."""
    return re.sub(r"\[\d+\]", "[]", path or "")


def explain(notes, adapter, case):
    for n in notes:
        names = n["adapter"] if isinstance(n["adapter"], list) else [n["adapter"]]
        if adapter not in names or n["unit"] != case["unit"]:
            continue
        if n["result"] != case["result"]:
            continue
        if "path" in n and not group_path(case.get("path")).startswith(n["path"]):
            continue
        if "ids" in n and not any(p in case["id"] for p in n["ids"]):
            continue
        if "detail" in n and n["detail"] not in (case.get("detail") or ""):
            continue
        return n["note"]
    return None


def rows(report, notes):
    adapter = report["adapter"]
    name, version = adapter["name"], adapter.get("version", "")
    by_unit = collections.defaultdict(list)
    for case in report["cases"]:
        by_unit[case["unit"]].append(case)
    unexplained = 0
    for unit in sorted(by_unit):
        cases = [c for c in by_unit[unit] if c["result"] != "not_covered"]
        if not cases:
            continue
        passed = sum(c["result"] == "pass" for c in cases)
        groups = collections.Counter()
        for c in cases:
            if c["result"] == "pass":
                continue
            note = explain(notes, name, c)
            if note is None:
                unexplained += 1
                note = "UNEXPLAINED"
            where = group_path(c.get("path"))
            groups[(c["result"], where, note)] += 1
        found = []
        for (result, where, note), count in groups.most_common(FINDINGS_SHOWN):
            at = f" `{where}`" if where else ""
            found.append(f"{count}× {result}{at}: {note}")
        if len(groups) > FINDINGS_SHOWN:
            rest = sum(groups.values()) - sum(n for _, n in groups.most_common(FINDINGS_SHOWN))
            found.append(f"{rest} more in {len(groups) - FINDINGS_SHOWN} other groups")
        ops = "/".join(sorted({c["op"] for c in cases}))
        yield (
            f"| {name} | {version} | {unit} ({ops}) | {passed}/{len(cases)} | "
            + ("<br>".join(found) or "none")
            + " |"
        ), unexplained
        unexplained = 0


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--notes", help="the findings' explanations (JSON)")
    ap.add_argument("reports", nargs="+", help="`conform run --format json` outputs")
    args = ap.parse_args()
    notes = []
    if args.notes:
        with open(args.notes, encoding="utf-8") as f:
            notes = json.load(f)
    print("| implementation | version | unit | pass/run | main findings (whose bug) |")
    print("|---|---|---|---|---|")
    unexplained = 0
    for path in args.reports:
        with open(path, encoding="utf-8") as f:
            report = json.load(f)
        if report.get("kind") != "conform_run":
            sys.exit(f"{path}: not a conform_run report")
        for row, n in rows(report, notes):
            print(row)
            unexplained += n
    if unexplained:
        print(f"{unexplained} finding(s) without a note", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
