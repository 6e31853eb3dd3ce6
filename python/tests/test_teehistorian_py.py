"""teeoracle's records against teehistorian-py's, record by record, on every
teehistorian file of the corpus.

teehistorian-py's chunks are mapped to teeoracle's field names by the
conformance adapter (examples/adapters/teehistorian-py.py), so both sides
are read exactly as `teeoracle conform` reads them. Where teehistorian-py
is right the records are equal; where it is not, the difference must be
one of its known bugs (examples/adapters/findings.json), each named here
and checked to be exactly that bug, not merely "some difference".
"""

import importlib.util
import sys
from pathlib import Path

import pytest

import teeoracle
from conftest import CORPUS, ROOT, ids, teehistorian_files

# The corpus holds files cut short on purpose: their warning is tested in
# test_end_states.py.
pytestmark = pytest.mark.filterwarnings("ignore::teeoracle.TruncatedWarning")

teehistorian_py = pytest.importorskip("teehistorian_py")

ADAPTERS = ROOT / "examples" / "adapters"


def load_adapter():
    sys.path.insert(0, str(ADAPTERS))  # for its `contract` import
    spec = importlib.util.spec_from_file_location("adapter_teehistorian_py", ADAPTERS / "teehistorian-py.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


adapter = load_adapter()

# Files teehistorian-py rejects though DDNet reads them (its crate's
# strictness; findings.json: "rejected_must_accept").
REJECTS_VALID = {
    "edge/overlong_varint.teehistorian": "Overlong twint encoding",
    "edge/ex_trailing_bytes.teehistorian": "trailing bytes while parsing",
}
# Files teehistorian-py accepts though they are not what DDNet writes
# (findings.json: "accepted_must_reject"); teeoracle raises DecodeError.
ACCEPTS_INVALID = {
    "malformed/ex_in_version_1.teehistorian",
    "malformed/ex_payload_too_short.teehistorian",
    "malformed/message_size_too_large.teehistorian",
    "malformed/header_not_json.teehistorian",
    "malformed/unsupported_version.teehistorian",
}


def ours(path):
    """teeoracle's records, or the DecodeError."""
    try:
        return list(teeoracle.Teehistorian(path)), None
    except teeoracle.DecodeError as e:
        return None, e


def theirs(path):
    """teehistorian-py's records (through the adapter), or its error: any
    exception is a rejection, as `teeoracle conform` counts it (a Rust
    panic is a BaseException, not caught)."""
    try:
        return adapter.decode(path.read_bytes()), None
    except Exception as e:  # noqa: BLE001
        return None, e


def lossy(value):
    """What teehistorian-py makes of bytes: text through lossy UTF-8."""
    raw = bytes.fromhex(value["hex"]) if isinstance(value, dict) else value.encode()
    return raw.decode("utf-8", "replace")


def known_difference(kind, key, mine, its):
    """The name of the known teehistorian-py bug that explains `its` for
    teeoracle's `mine`, or None."""
    if kind == "message" and key == "data":
        # Payloads reach Python as lossy UTF-8 text, trailing NULs lost.
        raw = bytes.fromhex(mine)
        if its == raw.rstrip(b"\0").decode("utf-8", "replace").encode().hex():
            return "message payload as lossy UTF-8 text"
    if isinstance(mine, dict) and "hex" in mine and isinstance(its, str):
        # Other strings also through lossy UTF-8 (U+FFFD).
        if its == lossy(mine):
            return "string through lossy UTF-8"
    return None


PATHS = teehistorian_files()


@pytest.mark.parametrize("path", PATHS, ids=ids(PATHS))
def test_records_agree_with_teehistorian_py(path):
    name = str(path.relative_to(CORPUS / "teehistorian"))
    mine, my_error = ours(path)
    its, its_error = theirs(path)
    if name in REJECTS_VALID:
        assert mine is not None, my_error
        assert its_error is not None and REJECTS_VALID[name] in str(its_error)
        return
    if name in ACCEPTS_INVALID:
        assert my_error is not None
        assert its_error is None
        return
    if my_error is not None or its_error is not None:
        # Both reject the file (teeoracle names the byte).
        assert my_error is not None and its_error is not None, (my_error, its_error)
        return
    its_records = its["records"]
    # teehistorian-py stops at FINISH; so does teeoracle.
    assert len(its_records) == len(mine)
    differences = []
    for i, (m, t) in enumerate(zip(mine, its_records)):
        assert m["kind"] == t["kind"], (i, m, t)
        for key, value in t.items():
            if key == "kind" or m.get(key) == value:
                continue
            why = known_difference(m["kind"], key, m.get(key), value)
            assert why is not None, f"record {i} ({m['kind']} at byte {m['offset']}): {key}: teeoracle {m.get(key)!r}, teehistorian-py {value!r}"
            differences.append(why)
    # The header's JSON is the same length.
    th = teeoracle.Teehistorian(path)
    assert th.header["json_len"] == its["header"]["json_len"]


def test_the_known_differences_do_show():
    """Each named bug does show somewhere in the corpus (else the list is
    stale)."""
    seen = set()
    for path in PATHS:
        name = str(path.relative_to(CORPUS / "teehistorian"))
        if name in REJECTS_VALID or name in ACCEPTS_INVALID:
            continue
        mine, _ = ours(path)
        its, _ = theirs(path)
        if mine is None or its is None:
            continue
        for m, t in zip(mine, its["records"]):
            for key, value in t.items():
                if key != "kind" and m.get(key) != value:
                    seen.add(known_difference(m["kind"], key, m.get(key), value))
    assert seen == {"message payload as lossy UTF-8 text", "string through lossy UTF-8"}
