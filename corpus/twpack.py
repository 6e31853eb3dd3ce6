"""Packing shared by the corpus generators, written from DDNet's sources
independently of teeoracle's code."""


def varint(v):
    """CVariableInt::Pack: sign in bit 6 of the first byte (the value is
    then inverted), 6 bits there, 7 in each further byte, bit 7 = more."""
    out = bytearray()
    b = 0
    if v < 0:
        b |= 0x40
        v = ~v
    b |= v & 0x3F
    v >>= 6
    while v:
        out.append(b | 0x80)
        b = v & 0x7F
        v >>= 7
    out.append(b)
    return bytes(out)
