#!/usr/bin/env python3
"""Writes the hand-made demo and snapshot-delta corpus files:

    corpus/demo/edge/*.demo              valid edge cases (check passes them)
    corpus/demo/malformed/*.demo         one fault each (check must fail them)
    corpus/snapshot/malformed/*.bin      UnpackDelta failures: NAME.from.bin
                                         (the base snapshot) + NAME.delta.bin

Bytes are packed here (TWDEMO v6 header, varints, DDNet's Huffman coder
built from its frequency table, snapshots and deltas as little-endian
int32s), independently of teeoracle, so these files also test its reader.
Stdlib only, deterministic. Run from anywhere:

    python3 corpus/make_demo_corpus.py [OUTPUT_ROOT]

OUTPUT_ROOT defaults to this folder (corpus/); tests/malformed_demos.rs runs
the script into a temporary folder and compares the bytes with the
committed files.
"""
import hashlib
import os
import struct
import sys
import zlib

from twpack import varint

# --- Variable-width ints (CVariableInt::Pack) ------------------------------


def varints(ints):
    return b"".join(varint(v) for v in ints)


# --- Huffman (CHuffman, src/engine/shared/huffman.cpp) ---------------------

# CHuffman::ms_aFreqTable: the 256 byte values, then EOF (frequency 1).
FREQ = [
    1 << 30, 4545, 2657, 431, 1950, 919, 444, 482, 2244, 617, 838, 542,
    715, 1814, 304, 240, 754, 212, 647, 186, 283, 131, 146, 166,
    543, 164, 167, 136, 179, 859, 363, 113, 157, 154, 204, 108,
    137, 180, 202, 176, 872, 404, 168, 134, 151, 111, 113, 109,
    120, 126, 129, 100, 41, 20, 16, 22, 18, 18, 17, 19,
    16, 37, 13, 21, 362, 166, 99, 78, 95, 88, 81, 70,
    83, 284, 91, 187, 77, 68, 52, 68, 59, 66, 61, 638,
    71, 157, 50, 46, 69, 43, 11, 24, 13, 19, 10, 12,
    12, 20, 14, 9, 20, 20, 10, 10, 15, 15, 12, 12,
    7, 19, 15, 14, 13, 18, 35, 19, 17, 14, 8, 5,
    15, 17, 9, 15, 14, 18, 8, 10, 2173, 134, 157, 68,
    188, 60, 170, 60, 194, 62, 175, 71, 148, 67, 167, 78,
    211, 67, 156, 69, 1674, 90, 174, 53, 147, 89, 181, 51,
    174, 63, 163, 80, 167, 94, 128, 122, 223, 153, 218, 77,
    200, 110, 190, 73, 174, 69, 145, 66, 277, 143, 141, 60,
    136, 53, 180, 57, 142, 57, 158, 61, 166, 112, 152, 92,
    26, 22, 21, 28, 20, 26, 30, 21, 32, 27, 20, 17,
    23, 21, 30, 22, 22, 21, 27, 25, 17, 27, 23, 18,
    39, 26, 15, 21, 12, 18, 18, 27, 20, 18, 15, 19,
    11, 17, 33, 12, 18, 15, 19, 18, 16, 26, 17, 18,
    9, 10, 25, 22, 22, 17, 20, 16, 6, 16, 15, 20,
    14, 18, 24, 335, 1,
]
assert len(FREQ) == 257
EOF = 256


def huffman_codes():
    """ConstructTree + SetBitsRecursive: (bits, length) per symbol, the
    first bit of a code in bit 0."""
    work = [(f, s) for s, f in enumerate(FREQ)]
    leaves = {}
    node = 257
    while len(work) > 1:
        work.sort(key=lambda e: -e[0])  # stable, descending
        a, b = work[-1], work[-2]
        leaves[node] = (a[1], b[1])  # leaves[0] = A (bit 0), leaves[1] = B (bit 1)
        work[-2] = (a[0] + b[0], node)
        work.pop()
        node += 1
    codes = {}
    stack = [(work[0][1], 0, 0)]
    while stack:
        n, bits, depth = stack.pop()
        if n < 257:
            codes[n] = (bits, depth)
            continue
        zero, one = leaves[n]
        stack.append((zero, bits, depth + 1))
        stack.append((one, bits | 1 << depth, depth + 1))
    return codes


CODES = huffman_codes()


def huffman(data):
    """CHuffman::Compress as DDNet >= 20.0 writes it: a last partial byte
    only if bits remain."""
    acc = 0
    n = 0
    for sym in list(data) + [EOF]:
        bits, length = CODES[sym]
        acc |= bits << n
        n += length
    return acc.to_bytes((n + 7) // 8, "little")


# Golden vectors from spec section 3 (src/test/huffman_test.cpp).
assert huffman(b"") == bytes.fromhex("8a1b")
assert huffman(bytes(range(8)) + bytes(56)) == bytes.fromhex("515878761bb7ffffffffffff7fc50d")
assert huffman(b"\x15" + bytes(63)) == bytes.fromhex("befdffffffffffffff1537")


def payload(ints):
    """A demo chunk payload: Huffman over the varints of int32s."""
    return huffman(varints(ints))


# --- Snapshots and deltas (snapshot.cpp) ------------------------------------


def key(type_id, id_):
    return type_id << 16 | id_


def snapshot(items):
    """CSnapshot: data_size, num_items, offsets, then key + data per item."""
    offsets, area = [], []
    for k, data in items:
        offsets.append(4 * len(area))
        area += [k] + list(data)
    return [4 * len(area), len(items)] + offsets + area


def int32s(ints):
    return b"".join(struct.pack("<i", v) for v in ints)


# --- Demo files (src/engine/shared/demo.cpp, version 6) ---------------------

SHA256_UUID = bytes.fromhex("6be6da4acebd380c9b5b1289c842d780")
NET_VERSION = b"0.6 626fce9a778df4d4"
MAP = b"tiny stand-in map, not a datafile\n"
MAX_TICK = 0x6FFFFFFF


def fixed(text, size):
    assert len(text) < size
    return text + bytes(size - len(text))


def header(version=6, map_data=MAP, map_size=None, magic=b"TWDEMO\0", length=0):
    """CDemoHeader (176 bytes), the timeline markers (none), the SHA-256
    item and the map."""
    h = (
        magic
        + bytes([version])
        + fixed(NET_VERSION, 64)
        + fixed(b"tiny", 64)
        + struct.pack(">I", len(map_data) if map_size is None else map_size)
        + struct.pack(">I", zlib.crc32(MAP))
        + fixed(b"server", 8)
        # The length Stop writes, (last tick - first tick) / 50 seconds: 0
        # for the few ticks of most of these files.
        + struct.pack(">I", length)
        + fixed(b"2024-05-01_12-00-00", 20)
    )
    assert len(h) == 176
    timeline = bytes(4 + 64 * 4)
    sha = SHA256_UUID + hashlib.sha256(MAP).digest()
    return h + timeline + sha + map_data


def tick(t, keyframe=False):
    """An absolute tick marker (the writer's form for keyframes)."""
    return bytes([0x80 | (0x40 if keyframe else 0)]) + struct.pack(">i", t)


def tick_plus(d):
    """A relative tick marker (TICK_COMPRESSED, versions >= 5)."""
    assert 0 < d < 32
    return bytes([0x80 | 0x20 | d])


SNAPSHOT, MESSAGE, DELTA, UNKNOWN = 1, 2, 3, 0


def chunk(kind, data):
    """A data chunk: type in bits 5-6, size inline, in one byte or in two."""
    n = len(data)
    if n < 30:
        head = bytes([kind << 5 | n])
    elif n < 256:
        head = bytes([kind << 5 | 30, n])
    else:
        head = bytes([kind << 5 | 31]) + struct.pack("<H", n)
    return head + data


def snap_chunk(items):
    return chunk(SNAPSHOT, payload(snapshot(items)))


def delta_chunk(ints):
    return chunk(DELTA, payload(ints))


def message_chunk(msg):
    """A message: its bytes zero-padded to whole int32s (LE), as ints."""
    msg += bytes(-len(msg) % 4)
    return chunk(MESSAGE, payload(list(struct.unpack("<%di" % (len(msg) // 4), msg))))


# Items of the small world every demo starts from (0.6 types and sizes).
GAME_INFO = (key(6, 0), [0, 0, 0, 1, 0, 0, 0, 0])  # NETOBJTYPE_GAMEINFO, 8 ints
FLAG = (key(5, 0), [1600, 800, 0])  # NETOBJTYPE_FLAG, 3 ints
EXTRA = (key(100, 0), [7])  # type 100: no pre-agreed size
BASE_ITEMS = [GAME_INFO, FLAG, EXTRA]
KEYFRAME = tick(0, keyframe=True) + snap_chunk(BASE_ITEMS)
# Moves the flag by (+32, -16): one update of a pre-agreed type, no size.
MOVE_FLAG = [0, 1, 0, 5, 0, 32, -16, 0]


def edge_demos():
    """Valid files, each showing one thing the reader must accept."""
    broadcast = message_chunk(varint(2 << 1) + b"hi\0")  # game msg 2: Sv_Broadcast (0.6)
    # Longer broadcasts, for the one-byte (30..255) and two-byte chunk sizes.
    medium = message_chunk(varint(2 << 1) + b"a broadcast long enough for a one-byte size\0")
    long_text = b" ".join(b"word%d" % n for n in range(60))
    long = message_chunk(varint(2 << 1) + long_text + b"\0")
    assert len(medium) - 2 in range(30, 256) and len(long) - 3 >= 256
    keyframe_delta = (
        header() + KEYFRAME + broadcast
        + tick_plus(1) + delta_chunk(MOVE_FLAG) + medium
        + tick_plus(1)  # an empty delta: the writer leaves only the marker
        + tick_plus(1) + long
    )
    return {
        # A keyframe, a delta, a tick with an empty delta, and messages
        # with each of the three chunk size forms.
        "keyframe_delta_empty_tick": keyframe_delta,
        # Cut inside the last chunk's payload (3 bytes short): kept as a truncated tail,
        # like a recorder killed mid-write (F_crash_truncated).
        "truncated_mid_chunk": keyframe_delta[:-3],
        # Chunk type 0 is no known type; DDNet's player ignores it.
        "unknown_chunk_type": header() + KEYFRAME + chunk(UNKNOWN, payload([1, 2, 3]))
        + tick_plus(1) + delta_chunk(MOVE_FLAG),
        # Tick markers may go backwards: neither DDNet nor teeoracle check.
        "tick_backwards": header() + tick(10, keyframe=True) + snap_chunk(BASE_ITEMS)
        + tick(5) + delta_chunk(MOVE_FLAG),
        # Removing a key the base does not have is no error in UnpackDelta.
        "delta_removes_absent_key": header() + KEYFRAME
        + tick_plus(1) + delta_chunk([1, 0, 0, key(9, 3)]),
    }


def malformed_demos():
    """One fault each; everything else valid."""
    good = header() + KEYFRAME + tick_plus(1) + delta_chunk(MOVE_FLAG)
    cut_snapshot = payload(snapshot(BASE_ITEMS))[:-1]
    bad_offsets = snapshot(BASE_ITEMS)
    bad_offsets[3] = 6  # the flag's offset: not a multiple of 4
    return {
        # The magic's last letter changed: not a demo (check skips it).
        "bad_magic": header(magic=b"TWDEMX\0") + KEYFRAME,
        # Cut inside the 176-byte header.
        "truncated_header": good[:100],
        # Version 2 predates every version a reader supports (3..6).
        "version_2": header(version=2) + KEYFRAME,
        # Version 7: no DDNet writes it.
        "version_7": header(version=7) + KEYFRAME,
        # The header's map size is 4096 bytes; the file ends long before.
        "map_past_eof": header(map_size=4096) + KEYFRAME,
        # A relative tick marker (+1) before any absolute tick.
        "relative_tick_first": header() + tick_plus(1) + snap_chunk(BASE_ITEMS),
        # Absolute tick MAX_TICK (0x6fffffff): ticks must stay below it.
        "tick_out_of_range": header() + tick(MAX_TICK, keyframe=True) + snap_chunk(BASE_ITEMS),
        # The keyframe's Huffman stream lost its last byte: no EOF code.
        "keyframe_huffman_no_eof": header() + tick(0, keyframe=True)
        + chunk(SNAPSHOT, cut_snapshot),
        # The keyframe's Huffman stream is fine, but the bytes it holds end
        # inside a varint (a continuation byte 0x80 last).
        "keyframe_varint_cut": header() + tick(0, keyframe=True)
        + chunk(SNAPSHOT, huffman(varints(snapshot(BASE_ITEMS)) + b"\x80")),
        # A message chunk whose Huffman stream lost its last byte: no EOF
        # code. DDNet's player stops at any payload that does not decode,
        # messages included.
        "message_huffman_no_eof": header() + KEYFRAME
        + chunk(MESSAGE, payload([0x0F, 0, 0])[:-1]),
        # A message chunk whose bytes end inside a varint.
        "message_varint_cut": header() + KEYFRAME
        + chunk(MESSAGE, huffman(varints([0x0F, 0]) + b"\x80")),
        # The keyframe's second item offset is 6: not a multiple of 4.
        "keyframe_bad_offset": header() + tick(0, keyframe=True)
        + chunk(SNAPSHOT, payload(bad_offsets)),
        # A delta with no snapshot before it to apply to.
        "delta_before_keyframe": header() + tick(0) + delta_chunk(MOVE_FLAG),
        # The delta gives item 100:0 (1 int in the keyframe, kept) 2 ints:
        # UnpackDelta -206.
        "delta_item_size_changes": header() + KEYFRAME
        + tick_plus(1) + delta_chunk([0, 1, 0, 100, 0, 2, 1, 1]),
        # The delta updates the flag (3 ints, pre-agreed) but has only 2
        # ints left for it: UnpackDelta -205.
        "delta_static_item_cut": header() + KEYFRAME
        + tick_plus(1) + delta_chunk([0, 1, 0, 5, 0, 32, -16]),
        # 200 good ticks (a keyframe at tick 1, the flag moving at ticks 2
        # to 200; the header's length is Stop's (200 - 1) / 50 = 3 s), then
        # the marker of tick 201 replaced by the absolute tick MAX_TICK,
        # and the delta that followed it: the reader keeps the 200 ticks.
        "tick_out_of_range_at_201": header(length=3) + tick(1, keyframe=True)
        + snap_chunk(BASE_ITEMS)
        + b"".join(tick_plus(1) + delta_chunk(MOVE_FLAG) for _ in range(2, 201))
        + tick(MAX_TICK) + delta_chunk(MOVE_FLAG),
    }


def delta_cases():
    """(base snapshot items, delta ints) per UnpackDelta failure, named by
    the DDNet code. -301 (the kept base items do not fit a new snapshot)
    has no case: a valid base always fits, the builder's limits being
    IsValid's."""
    flag_key = key(5, 0)
    full = [(key(100, i), []) for i in range(1024)]  # MAX_ITEMS items
    return {
        "e101_deleted_keys_past_end": (BASE_ITEMS, [2, 0, 0, flag_key]),
        "e102_update_header_cut": (BASE_ITEMS, [0, 1, 0, 100]),
        "e103_size_missing": (BASE_ITEMS, [0, 1, 0, 100, 1]),
        "e201_num_deleted_negative": (BASE_ITEMS, [-1, 0, 0]),
        "e202_type_out_of_range": (BASE_ITEMS, [0, 1, 0, 0x8000, 0, 0]),
        "e203_id_out_of_range": (BASE_ITEMS, [0, 1, 0, 100, 0x10000, 0]),
        "e204_size_negative": (BASE_ITEMS, [0, 1, 0, 100, 1, -1]),
        "e205_data_past_end": (BASE_ITEMS, [0, 1, 0, 5, 0, 32, -16]),
        "e206_size_differs_from_kept": (BASE_ITEMS, [0, 1, 0, 100, 0, 2, 1, 1]),
        "e207_size_differs_from_base": (BASE_ITEMS, [1, 1, 0, key(100, 0), 100, 0, 2, 1, 1]),
        "e302_new_item_does_not_fit": (full, [0, 1, 0, 100, 1024, 0]),
    }


def write(root, rel, data):
    path = os.path.join(root, rel)
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "wb") as f:
        f.write(data)


def main():
    root = sys.argv[1] if len(sys.argv) > 1 else os.path.dirname(os.path.abspath(__file__))
    for name, data in edge_demos().items():
        write(root, "demo/edge/%s.demo" % name, data)
    for name, data in malformed_demos().items():
        write(root, "demo/malformed/%s.demo" % name, data)
    for name, (items, delta) in delta_cases().items():
        write(root, "snapshot/malformed/%s.from.bin" % name, int32s(snapshot(items)))
        write(root, "snapshot/malformed/%s.delta.bin" % name, int32s(delta))


if __name__ == "__main__":
    main()
