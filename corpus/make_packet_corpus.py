#!/usr/bin/env python3
"""Writes corpus/packet/ddnet-verdicts/dropped_06.pcap: a 0.6 client's
session (classic pcap, raw IPv4 link type, 127.0.0.1:40000 -> :8303) whose
datagrams DDNet 20.1 drops, between a CONNECT and a KEEPALIVE it accepts.
`check` must list each drop (frame, direction, rule) as a warning.

Stdlib only, deterministic. Run from anywhere:

    python3 corpus/make_packet_corpus.py [OUTPUT_ROOT]
"""
import os
import struct
import sys

CLIENT, SERVER = 40000, 8303

# (hex, why DDNet drops it); None: accepted.
DATAGRAMS = [
    ("10000001544b454effffffff", None),  # CONNECT with DDNet's token magic
    ("100000", "control_without_byte"),
    ("1000ff00", "control_with_chunks"),
    ("9000001537", "compressed_control"),
    ("000000", "no_chunks"),
    ("080000", "unknown_flags"),
    # Acks sequence 5, which the server never sent: fed to the connection,
    # an ack out of range; DDNet drops it first.
    ("080501000122", "unknown_flags"),
    ("040000", "too_short_07"),  # 0.6's unused bit: read as 0.7
    # Accepted, but its Cl_Emoticon (emoticon 16) is out of the range
    # DDNet's unpacker takes: the message is dropped, not the datagram.
    ("00000100022e10", None),
    ("10000000", None),  # KEEPALIVE
]


def ipv4_udp(payload, sport, dport):
    udp = struct.pack(">HHHH", sport, dport, 8 + len(payload), 0) + payload
    header = struct.pack(
        ">BBHHHBBH4s4s", 0x45, 0, 20 + len(udp), 0, 0, 64, 17, 0,
        bytes([127, 0, 0, 1]), bytes([127, 0, 0, 1]))
    total = sum(struct.unpack(">10H", header))
    while total > 0xFFFF:
        total = (total & 0xFFFF) + (total >> 16)
    header = header[:10] + struct.pack(">H", ~total & 0xFFFF) + header[12:]
    return header + udp


def pcap(frames):
    # Magic, version 2.4, UTC, accuracy, snaplen, LINKTYPE_RAW (101).
    out = struct.pack("<IHHiIII", 0xA1B2C3D4, 2, 4, 0, 0, 65535, 101)
    for i, frame in enumerate(frames):
        out += struct.pack("<IIII", 1_700_000_000, i * 1000, len(frame), len(frame))
        out += frame
    return out


def main():
    root = sys.argv[1] if len(sys.argv) > 1 else os.path.dirname(os.path.abspath(__file__))
    path = os.path.join(root, "packet", "ddnet-verdicts", "dropped_06.pcap")
    os.makedirs(os.path.dirname(path), exist_ok=True)
    frames = [ipv4_udp(bytes.fromhex(h), CLIENT, SERVER) for h, _ in DATAGRAMS]
    with open(path, "wb") as f:
        f.write(pcap(frames))


if __name__ == "__main__":
    main()
