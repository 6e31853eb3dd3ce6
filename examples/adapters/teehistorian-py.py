"""teeoracle conform adapter for teehistorian-py (Python bindings of the
`teehistorian` Rust crate, https://pypi.org/project/teehistorian-py/).

    python examples/adapters/teehistorian-py.py info|decode teehistorian|batch

`Teehistorian(data)` reads the header (an exception there is a rejection) and
iterates chunks; each chunk's `to_dict()` is mapped to teeoracle's record
(src/schema.md, `teehistorian dump`). What the library does not give is left
out: record offsets and ticks (it has no tick counter: a reader has to apply
the implicit-tick rule itself), the parsed header (only its raw JSON, whose
length is `json_len`), console arguments (joined into one string, so the
list cannot be rebuilt), message records' decoded form.

Record kinds without a typed class come as `Generic`/`AntiBot` chunks whose
`data` is the Rust `Debug` text of the crate's value (`JoinVer7 { cid: 7 }`);
`parse_debug` reads that text back, so those records are compared too.
Strings the library hands over as Python `str` are passed on as they are: if
it replaced invalid UTF-8, the difference shows.
"""

import re
import sys
from importlib.metadata import version

import teehistorian_py

from contract import Rejected, main, text

RECORD_FIELDS = [
    "kind", "cid", "cid1", "cid2", "x", "y", "dx", "dy", "dt", "input", "dinput",
    "data", "reason", "flags", "cmd", "name", "level", "auth_name", "connection_id",
    "version", "version_str", "team", "time", "practice", "save_id", "save", "uuid",
]
FIELDS = (
    ["header.json_len"]
    + [f"records[].{f}" for f in RECORD_FIELDS]
    + ["end.records", "end.end.end"]
)
INFO = {
    "name": "teehistorian-py",
    "version": version("teehistorian-py"),
    "units": {"teehistorian": {"decode": True, "encode": False, "fields": FIELDS}},
}

# Typed chunk classes: their `type` → (teeoracle kind, {library key: teeoracle key}).
TYPED = {
    "PlayerDiff": ("player_diff", {"client_id": "cid", "dx": "dx", "dy": "dy"}),
    "PlayerNew": ("player_new", {"client_id": "cid", "x": "x", "y": "y"}),
    "PlayerOld": ("player_old", {"client_id": "cid"}),
    "InputNew": ("input_new", {"client_id": "cid", "input": "input"}),
    "InputDiff": ("input_diff", {"client_id": "cid", "input": "dinput"}),
    "TickSkip": ("tick_skip", {"dt": "dt"}),
    "NetMessage": ("message", {"client_id": "cid", "msg": "data"}),
    "Join": ("join", {"client_id": "cid"}),
    "JoinVer6": ("joinver6", {"client_id": "cid"}),
    "Drop": ("drop", {"client_id": "cid", "reason": "reason"}),
    "ConsoleCommand": ("console_command", {"client_id": "cid", "flags": "flags", "cmd": "cmd"}),
    "PlayerName": ("player_name", {"client_id": "cid", "name": "name"}),
    "PlayerReady": ("player_ready", {"client_id": "cid"}),
    "PlayerTeam": ("player_team", {"client_id": "cid", "team": "team"}),
    "AuthLogin": ("auth_login", {"client_id": "cid", "level": "level", "auth_name": "auth_name"}),
    "DdnetVersion": (
        "ddnetver",
        {"client_id": "cid", "connection_id": "connection_id", "version": "version",
         "version_str": "version_str"},
    ),
    "TeamLoadSuccess": ("load_success", {"team": "team", "save_id": "save_id", "save": "save"}),
    "TeamLoadFailure": ("load_failure", {"team": "team"}),
    "Unknown": ("unknown_ex", {"uuid": "uuid", "data": "data"}),
    "Eos": ("finish", {}),
}

# The crate's Debug variant names → teeoracle kinds (fields keep their names).
DEBUG_KINDS = {
    "JoinVer7": "joinver7",
    "RejoinVer6": "rejoinver6",
    "AuthInit": "auth_init",
    "AuthLogout": "auth_logout",
    "DdnetVersionOld": "ddnetver_old",
    "PlayerSwap": "player_swap",
    "PlayerFinish": "player_finish",
    "TeamFinish": "team_finish",
    "TeamPractice": "team_practice",
    "TeamSaveSuccess": "save_success",
    "TeamSaveFailure": "save_failure",
    "Antibot": "antibot",
    "Test": "test",
}
# Byte fields in the Debug text (lists of u8) and how teeoracle shows them.
DEBUG_BYTES = {"auth_name": text, "save": text, "data": bytes.hex}

UUID = r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}"
TOKEN = re.compile(rf"\s*({UUID}|-?\d+|[A-Za-z_]\w*|[{{}}()\[\]:,])")


def parse_debug(s):
    """Rust Debug text → (variant name, {field: value}), outermost struct wins."""
    toks, pos = [], 0
    while pos < len(s.rstrip()):
        m = TOKEN.match(s, pos)
        if not m:
            raise Rejected(f"cannot read the library's Debug text {s!r}")
        toks.append(m.group(1))
        pos = m.end()
    toks.reverse()

    def value():
        t = toks.pop()
        if t == "[":
            items = []
            while toks[-1] != "]":
                items.append(value())
                if toks[-1] == ",":
                    toks.pop()
            toks.pop()
            return items
        if re.fullmatch(r"-?\d+", t):
            return int(t)
        if re.fullmatch(UUID, t):
            return t
        # an identifier: a unit variant, a tuple variant or a struct
        name = t
        if toks and toks[-1] == "(":
            toks.pop()
            inner = value()
            toks.pop()  # ")"
            return (name, inner[1] if isinstance(inner, tuple) else inner)
        if toks and toks[-1] == "{":
            toks.pop()
            fields = {}
            while toks[-1] != "}":
                key = toks.pop()
                toks.pop()  # ":"
                fields[key] = value()
                if toks[-1] == ",":
                    toks.pop()
            toks.pop()
            return (name, fields)
        return (name, {})

    out = value()
    return out if isinstance(out, tuple) else (out, {})


def from_debug(s):
    variant, fields = parse_debug(s)
    kind = DEBUG_KINDS.get(variant)
    if kind is None:
        raise Rejected(f"unmapped record {s!r}")
    rec = {"kind": kind}
    for key, val in fields.items():
        conv = DEBUG_BYTES.get(key)
        if conv is not None and isinstance(val, list):
            val = conv(bytes(val))
        rec[key] = val
    return rec


def record(d):
    kind = d["type"]
    if kind in ("Generic", "AntiBot"):
        return from_debug(d["data"])
    if kind not in TYPED:
        raise Rejected(f"unmapped chunk type {kind}")
    name, keys = TYPED[kind]
    rec = {"kind": name}
    for lib_key, key in keys.items():
        val = d[lib_key]
        if isinstance(val, (bytes, bytearray)):
            val = val.hex() if key == "data" else text(val)
        elif key == "data" and isinstance(val, str):
            val = val.encode("utf-8").hex()
        rec[key] = val
    return rec


def decode(data):
    th = teehistorian_py.Teehistorian(data)
    # The crate allows the header only before the first chunk.
    header = {"kind": "header", "json_len": len(th.header())}
    records, end = [], {"end": "truncated"}
    try:
        for chunk in th:
            records.append(record(chunk.to_dict()))
            if records[-1]["kind"] == "finish":
                end = {"end": "finished"}
                break
    except teehistorian_py.TeehistorianError as e:
        # A record that does not read: the file is not one DDNet writes.
        # (A cut file ends the iteration without an error.)
        raise Rejected(f"after {len(records)} records: {e}") from e
    return {
        "header": header,
        "records": records,
        "end": {"kind": "end", "records": len(records), "end": end},
    }


if __name__ == "__main__":
    sys.exit(main(INFO, {"teehistorian": decode}))
