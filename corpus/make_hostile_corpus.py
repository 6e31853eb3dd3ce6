#!/usr/bin/env python3
"""Writes corpus/hostile/: small files that once made teeoracle use
gigabytes of memory or minutes of time (issue 14), and their neighbours.
What makes each hostile is a count, a spacing or a size that the file
itself chooses. Those under malformed/ also fail `check` (a cap is hit,
or members are wrong and rebuilt). tests/hostile.rs
runs each through every command that reads it, under stated bounds.
Run from the repository root:

    python3 corpus/make_hostile_corpus.py

The archives are plain tar streams compressed with bzip2 by Python's own
modules (no teeoracle index.txt), so reading them goes through the spool.
"""
import bz2
import io
import os
import tarfile

from make_teehistorian_corpus import FINISH, header, i, s, skip

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "hostile")
E_ARCHIVE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "archive", "E_map_change.tar.bz2")


def console(n, tick_gap, arg_len):
    """A recording of `n` console commands (cid -1, the server), one every
    `tick_gap` ticks; returns its bytes and each record's offset."""
    h = header()
    body = bytearray()
    offsets = []
    for k in range(n):
        offsets.append(len(h) + len(body))
        arg = ("cmd %06d " % k).ljust(arg_len, "x")
        body += skip(tick_gap - 1) + i(-10) + i(-1) + i(1) + s("echo") + i(1) + s(arg)
    return h + bytes(body) + FINISH, offsets


def top_info(every):
    return (
        "# teeoracle recording archive: one folder per map, in recording order\n"
        "version: 2\nname: hostile\nauthor: corpus/make_hostile_corpus.py\n"
        "date: 1970-01-01T00:00:00+0000\nmaps: 1\ncheckpoint_every: %d ticks\n" % every
    ).encode()


def member(tar, name, data):
    info = tarfile.TarInfo(name)
    info.size = len(data)
    info.mode = 0o644
    tar.addfile(info, io.BytesIO(data))


def write_archive(name, members):
    """A .tar.bz2 of (name, bytes) members, the tar made in memory."""
    raw = io.BytesIO()
    with tarfile.open(fileobj=raw, mode="w", format=tarfile.USTAR_FORMAT) as tar:
        for m, data in members:
            member(tar, m, data)
    with open(os.path.join(ROOT, name), "wb") as f:
        f.write(bz2.compress(raw.getvalue(), 9))


MALFORMED = os.path.join("malformed", "")


def zeros_archive(name, size):
    """An archive whose second member is `size` zero bytes: the tar stream
    is written to the compressor piece by piece."""
    rec, _ = console(10, 1, 8)
    comp = bz2.BZ2Compressor(9)
    out = bytearray()
    raw = io.BytesIO()
    # Not closed: closing would write the end-of-archive blocks.
    tar = tarfile.open(fileobj=raw, mode="w", format=tarfile.USTAR_FORMAT)
    member(tar, "info.txt", top_info(1500))
    member(tar, "1/demodata.bin", rec)
    head = raw.getvalue()
    out += comp.compress(head)
    info = tarfile.TarInfo("1/zeros.bin")
    info.size = size
    info.mode = 0o644
    out += comp.compress(info.tobuf(format=tarfile.USTAR_FORMAT))
    block = b"\0" * (1 << 20)
    for _ in range(size >> 20):
        out += comp.compress(block)
    out += comp.compress(b"\0" * 1024)
    out += comp.flush()
    with open(os.path.join(ROOT, name), "wb") as f:
        f.write(out)


def zeros_after(name, head, size):
    """`head`, then `size` zero bytes, compressed with bzip2 piece by piece."""
    comp = bz2.BZ2Compressor(9)
    out = bytearray(comp.compress(head))
    block = b"\0" * (1 << 20)
    for _ in range(size >> 20):
        out += comp.compress(block)
    out += comp.flush()
    with open(os.path.join(ROOT, name), "wb") as f:
        f.write(out)


def real_save():
    """save2.ron of map 2 of the golden archive E: a real checkpoint."""
    with tarfile.open(E_ARCHIVE, "r:bz2") as tar:
        return tar.extractfile("2/save2.ron").read().decode()


def big_save(players):
    """A checkpoint listing `players` copies of E's first player (with ids
    0, 1, 2, ...), about 900 bytes of text each."""
    text = real_save()
    start = text.index("      players: [\n") + len("      players: [\n")
    end = text.index("        (\n", text.index("cid: 1,") - 40)
    one = text[start:end]
    many = "".join(one.replace("cid: 0,", "cid: %d," % k, 1) for k in range(players))
    return (text[:start] + many + text[text.index("      ],\n", end):]).encode()


def main():
    os.makedirs(os.path.join(ROOT, MALFORMED), exist_ok=True)
    # 3,000 ticks of console commands, and an info.txt asking for a
    # checkpoint every tick.
    rec, offsets = console(3000, 1, 8)
    write_archive("checkpoint_every_1.tar.bz2", [("info.txt", top_info(1)), ("1/demodata.bin", rec)])
    # The same recording with a toc.txt listing a checkpoint at every
    # record (and no saves: verify would rebuild every one).
    toc = "# toc.txt\n" + "".join("save%d.ron %d %d\n" % (k + 1, k, o) for k, o in enumerate(offsets))
    write_archive(
        MALFORMED + "toc_every_record.tar.bz2",
        [("info.txt", top_info(1500)), ("1/toc.txt", toc.encode()), ("1/demodata.bin", rec)],
    )
    # 12,000 console commands 50 ticks apart (about 830 KB).
    rec, _ = console(12000, 50, 57)
    with open(os.path.join(ROOT, "console_12000.teehistorian"), "wb") as f:
        f.write(rec)
    # Checkpoints listing tens of MB of players: one save of 60 MB, and six
    # of 10 MB, over E's second recording.
    with tarfile.open(E_ARCHIVE, "r:bz2") as tar:
        e2 = tar.extractfile("2/demodata.bin").read()
    save_toc = "".join("save%d.ron 500 13501\n" % k for k in range(1, 7))
    write_archive(
        MALFORMED + "saves_60mb.tar.bz2",
        [
            ("info.txt", top_info(250)),
            ("1/toc.txt", b"save1.ron 500 13501\n"),
            ("1/demodata.bin", e2),
            ("1/save1.ron", big_save(66_000)),
        ],
    )
    ten = big_save(11_000)
    write_archive(
        MALFORMED + "saves_6x10mb.tar.bz2",
        [("info.txt", top_info(250)), ("1/toc.txt", save_toc.encode()), ("1/demodata.bin", e2)]
        + [("1/save%d.ron" % k, ten) for k in range(1, 7)],
    )
    # A member of 1 GiB of zeros.
    zeros_archive(MALFORMED + "zeros_1gib.tar.bz2", 1 << 30)
    # A compressed recording and a compressed demo that go on with 1 GiB of
    # zeros (zeros are PLAYER_DIFF records of cid 0 to a teehistorian
    # reader).
    zeros_after(MALFORMED + "zeros_1gib.teehistorian.bz2", header(), 1 << 30)
    demo = os.path.join(os.path.dirname(ROOT), "demo", "synthetic", "unfinished.demo")
    with open(demo, "rb") as f:
        zeros_after(MALFORMED + "zeros_1gib.demo.bz2", f.read(), 1 << 30)


if __name__ == "__main__":
    main()
