#!/usr/bin/env python3
"""Writes the damaged packet captures, each made from the first frames of
the real capture packet/ddnet-20.1/A_join_move_leave.pcap (classic pcap,
little-endian, Ethernet, snapshot length 262144):

    corpus/packet/malformed/record_501_bad_length.pcap
        records 1-510, record 501's captured length set to 0xffffffff
    corpus/packet/edge/cut_in_record_501.pcap
        records 1-500, then record 501 cut after 37 of its 69 bytes
    corpus/packet/malformed/block_501_bad_length.pcapng
        the same frames 1-510 as pcapng, frame 501's block length at its
        start off by 2 (not a multiple of 4)
    corpus/packet/edge/cut_in_block_501.pcapng
        frames 1-500 as pcapng, then frame 501's block cut after 40 bytes

The pcapng files are one little-endian section: a section header block, one
interface description block (Ethernet, snapshot length 262144, if_tsresol 9:
nanosecond timestamps) and an enhanced packet block per frame. Stdlib only,
deterministic. Run from anywhere:

    python3 corpus/make_capture_corpus.py [OUTPUT_ROOT]

OUTPUT_ROOT defaults to this folder (corpus/); tests/captures.rs runs the
script into a temporary folder and compares the bytes with the committed
files.
"""
import os
import struct
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
SOURCE = os.path.join(HERE, "packet", "ddnet-20.1", "A_join_move_leave.pcap")


def records(pcap):
    """The file header, then each record as (ts_sec, ts_usec, orig_len, data)."""
    header, at, out = pcap[:24], 24, []
    while at < len(pcap):
        sec, usec, incl, orig = struct.unpack_from("<IIII", pcap, at)
        out.append((sec, usec, orig, pcap[at + 16 : at + 16 + incl]))
        at += 16 + incl
    return header, out


def pcap_record(rec, incl=None):
    sec, usec, orig, data = rec
    incl = len(data) if incl is None else incl
    return struct.pack("<IIII", sec, usec, incl, orig) + data


def block(kind, body):
    """A pcapng block: type, total length, body (padded to 4), length."""
    body += b"\0" * (-len(body) % 4)
    n = 12 + len(body)
    return struct.pack("<II", kind, n) + body + struct.pack("<I", n)


def pcapng_head():
    # Section header: byte-order magic, version 1.0, section length unknown.
    shb = block(0x0A0D0D0A, struct.pack("<IHHq", 0x1A2B3C4D, 1, 0, -1))
    # Interface: Ethernet, snapshot length 262144; if_tsresol (9) = 9, then
    # opt_endofopt.
    options = struct.pack("<HHB", 9, 1, 9) + b"\0" * 3 + struct.pack("<HH", 0, 0)
    idb = block(1, struct.pack("<HHI", 1, 0, 262144) + options)
    return shb + idb


def epb(rec):
    sec, usec, orig, data = rec
    ns = sec * 1_000_000_000 + usec * 1000
    head = struct.pack("<IIIII", 0, ns >> 32, ns & 0xFFFFFFFF, len(data), orig)
    return block(6, head + data)


def main():
    root = sys.argv[1] if len(sys.argv) > 1 else HERE
    with open(SOURCE, "rb") as f:
        header, recs = records(f.read())
    good, r501, after = recs[:500], recs[500], recs[501:510]

    bad = pcap_record(r501, incl=0xFFFFFFFF)
    cut = pcap_record(r501)[: 16 + 37]
    blocks = [epb(r) for r in good]
    bad_block = bytearray(epb(r501))
    struct.pack_into("<I", bad_block, 4, len(bad_block) + 2)
    files = {
        "packet/malformed/record_501_bad_length.pcap": header
        + b"".join(map(pcap_record, good))
        + bad
        + b"".join(map(pcap_record, after)),
        "packet/edge/cut_in_record_501.pcap": header
        + b"".join(map(pcap_record, good))
        + cut,
        "packet/malformed/block_501_bad_length.pcapng": pcapng_head()
        + b"".join(blocks)
        + bytes(bad_block)
        + b"".join(map(epb, after)),
        "packet/edge/cut_in_block_501.pcapng": pcapng_head()
        + b"".join(blocks)
        + epb(r501)[:40],
    }
    for name, data in files.items():
        path = os.path.join(root, name)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "wb") as f:
            f.write(data)


if __name__ == "__main__":
    main()
