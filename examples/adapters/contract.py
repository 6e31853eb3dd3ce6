"""The adapter side of `teeoracle conform` (src/schema.md, section "conform").

Each adapter in this folder describes itself (`info`) and gives one function
per unit and operation; `main` turns that into the program teeoracle calls:

    CMD info | CMD decode UNIT | CMD encode UNIT | CMD batch

A decoder takes the input bytes and returns the unit's JSON value; an encoder
takes the JSON value and returns bytes. Raising `Rejected` (or any exception
the library raises for bad input) means "rejected". A Rust panic inside a
library binding is not a rejection but a crash, so it aborts the process
(SIGABRT), which the harness reports as `crash`.
"""

import json
import os
import sys


class Rejected(Exception):
    """The implementation refuses this input; the message is the reason."""


def _is_panic(exc):
    # pyo3 and uniffi surface Rust panics under these names; pyo3's derives
    # from BaseException, so it is not caught as an ordinary Exception.
    name = type(exc).__name__
    return name == "PanicException" or (
        name == "InternalError" and "panic" in str(exc).lower()
    )


def _run(table, op, unit, payload):
    fn = table.get((op, unit))
    if fn is None:
        raise Rejected(f"{op} {unit}: not supported by this adapter")
    try:
        return fn(payload)
    except (KeyboardInterrupt, SystemExit):
        raise
    except BaseException as exc:
        if _is_panic(exc):
            sys.stderr.write(f"panic in the library: {exc}\n")
            sys.stderr.flush()
            os.abort()
        if isinstance(exc, Rejected):
            raise
        raise Rejected(f"{type(exc).__name__}: {exc}") from exc


def main(info, decoders, encoders=None):
    """Serve the contract. `decoders`/`encoders`: {unit: function}."""
    encoders = encoders or {}
    table = {("decode", u): f for u, f in decoders.items()}
    table.update({("encode", u): f for u, f in encoders.items()})
    args = sys.argv[1:]
    if args == ["info"]:
        info = dict(info, batch=True)
        print(json.dumps(info))
        return 0
    if len(args) == 2 and args[0] in ("decode", "encode"):
        op, unit = args
        raw = sys.stdin.buffer.read()
        payload = raw if op == "decode" else json.loads(raw)
        try:
            out = _run(table, op, unit, payload)
        except Rejected as exc:
            # A rejection by the contract: one JSON line with "error" on
            # stdout, exit 1 (anything else is a crash).
            sys.stdout.write(json.dumps({"error": str(exc)}) + "\n")
            sys.stderr.write(f"{exc}\n")
            return 1
        if op == "decode":
            sys.stdout.write(json.dumps(out) + "\n")
        else:
            sys.stdout.buffer.write(out)
        return 0
    if args == ["batch"]:
        return _batch(table)
    sys.stderr.write("usage: ADAPTER info | decode UNIT | encode UNIT | batch\n")
    return 2


def _batch(table):
    out = sys.stdout
    for line in sys.stdin:
        if not line.strip():
            continue
        req = json.loads(line)
        rid, op, unit = req["id"], req["op"], req["unit"]
        payload = bytes.fromhex(req["input_hex"]) if op == "decode" else req["input"]
        try:
            value = _run(table, op, unit, payload)
        except Rejected as exc:
            resp = {"id": rid, "ok": False, "error": str(exc)}
        else:
            if op == "decode":
                resp = {"id": rid, "ok": True, "output": value}
            else:
                resp = {"id": rid, "ok": True, "output_hex": value.hex()}
        out.write(json.dumps(resp) + "\n")
        out.flush()
    return 0


def text(raw):
    """Bytes as teeoracle writes text: a string when UTF-8, else {"hex": ...}."""
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError:
        return {"hex": raw.hex()}

