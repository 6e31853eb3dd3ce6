#!/usr/bin/env python3
"""Writes corpus/map/synthetic/ and corpus/map/malformed/: hand-made maps
(ours, no map art in them). Run from the repository root:

    python3 corpus/make_map_corpus.py

`minimal.map` is the smallest map DDNet 20.1's loader accepts, laid out
as DDNet's datafile writer lays it out (version 4, item types by type,
data zlib-compressed at zlib's default level by Python's zlib, which is
zlib itself, as DDNet's writer uses it). Each file of malformed/ breaks
one rule of DDNet's reader or map loader; `check` must fail it.
"""
import os
import struct
import zlib

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "map")


def ints(*values):
    return struct.pack("<%di" % len(values), *values)


def str_to_ints(text, n):
    """DDNet's StrToInts: 4 bytes per int, most significant first, each
    byte plus 128; the last byte is always 0."""
    raw = text.encode().ljust(4 * n, b"\0")[: 4 * n]
    out = []
    for k in range(n):
        b = [(c + 128) & 0xFF for c in raw[4 * k : 4 * k + 4]]
        v = (b[0] << 24) | (b[1] << 16) | (b[2] << 8) | b[3]
        out.append(v - (1 << 32) if v >= 1 << 31 else v)
    out[-1] &= ~0xFF
    return out


def datafile(items, blocks):
    """A version 4 datafile as DDNet's writer makes it. `items` are
    (type, id, payload bytes); `blocks` uncompressed data."""
    items = sorted(items, key=lambda it: it[0])  # stable: by type, in order
    types = []
    for t, _, _ in items:
        if types and types[-1][0] == t:
            types[-1][2] += 1
        else:
            types.append([t, sum(n for _, _, n in types), 1])
    compressed = [zlib.compress(b, 6) for b in blocks]
    item_size = sum(8 + len(p) for _, _, p in items)
    data_size = sum(len(c) for c in compressed)
    tables = 12 * len(types) + 4 * len(items) + 8 * len(blocks)
    swap = 36 + tables + item_size
    out = b"DATA" + ints(4, swap + data_size - 16, swap - 16, len(types), len(items))
    out += ints(len(blocks), item_size, data_size)
    for t in types:
        out += ints(*t)
    at = 0
    for _, _, p in items:
        out += ints(at)
        at += 8 + len(p)
    at = 0
    for c in compressed:
        out += ints(at)
        at += len(c)
    for b in blocks:
        out += ints(len(b))
    for t, i, p in items:
        out += ints((t << 16) | i, len(p)) + p
    return out + b"".join(compressed)


def tiles(indices, flags=None):
    flags = flags or [0] * len(indices)
    return b"".join(bytes([i, f, 0, 0]) for i, f in zip(indices, flags))


def game_layer(width, height, flags=1, version=3):
    """A layer item: the common fields (tiles), then a version 3 tiles
    layer named Game with DDNet's five physics blocks unset."""
    return ints(0, 2, 0, version, width, height, flags, 255, 255, 255, 255, -1, 0, -1, 0,
                *str_to_ints("Game", 3), -1, -1, -1, -1, -1)


def group(num_layers):
    return ints(3, 0, 0, 100, 100, 0, num_layers, 0, 0, 0, 0, 0, *str_to_ints("Game", 3))


# A 3x2 game layer: solid ground with a rotated tile, a spawn (entity 1,
# index 192) above it.
GROUND = tiles([0, 192, 0, 1, 1, 1], [0, 0, 0, 0, 8, 0])


def minimal(layer=None, blocks=None):
    items = [(0, 0, ints(1)), (4, 0, group(1)), (5, 0, layer or game_layer(3, 2))]
    return datafile(items, blocks or [GROUND])


def write(rel, data):
    path = os.path.join(ROOT, rel)
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "wb") as f:
        f.write(data)


def main():
    good = minimal()
    write("synthetic/minimal.map", good)
    # The reader cannot split it.
    write("malformed/truncated_in_data.map", good[:-3])
    backwards = bytearray(good)
    item_offsets = 36 + 12 * 3
    backwards[item_offsets + 4 : item_offsets + 8] = ints(0)
    write("malformed/item_offset_not_rising.map", bytes(backwards))
    # The reader splits it, DDNet refuses it.
    wrong_size = bytearray(good)
    wrong_size[8:12] = ints(len(good))
    write("malformed/header_size_wrong.map", bytes(wrong_size))
    write("malformed/no_game_layer.map", minimal(layer=game_layer(3, 2, flags=0)))
    write("malformed/game_tiles_short.map", minimal(layer=game_layer(4, 2)))
    write("malformed/game_layer_1_wide.map", minimal(layer=game_layer(1, 6)))
    corrupt = bytearray(good)
    corrupt[-4] ^= 0xFF  # inside the zlib stream's Adler-32
    write("malformed/game_block_corrupt.map", bytes(corrupt))


if __name__ == "__main__":
    main()
