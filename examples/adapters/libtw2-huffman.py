"""teeoracle conform adapter for libtw2-huffman (Python bindings of libtw2's
Huffman coder, https://pypi.org/project/libtw2-huffman/).

    python examples/adapters/libtw2-huffman.py info|decode huffman|encode huffman|batch

The library has `decompress(bytes)` and `compress(bytes)` and nothing else: it
does not say which writer made a stream, so decode emits only `hex`, and it
has one writer (DDNet >= 20.0's, without the legacy extra zero byte), so an
encode request for the legacy flavour is rejected rather than faked.
"""

import sys
from importlib.metadata import version

import libtw2_huffman

from contract import Rejected, main

INFO = {
    "name": "libtw2-huffman",
    "version": version("libtw2-huffman"),
    "units": {"huffman": {"decode": True, "encode": True, "fields": ["hex"]}},
}


def decode(data):
    return {"hex": libtw2_huffman.decompress(data).hex()}


def encode(value):
    flavor = value.get("flavor", "ddnet")
    if flavor != "ddnet":
        raise Rejected(f"libtw2-huffman has only DDNet's >= 20.0 writer, not {flavor!r}")
    return libtw2_huffman.compress(bytes.fromhex(value["hex"]))


if __name__ == "__main__":
    sys.exit(main(INFO, {"huffman": decode}, {"huffman": encode}))
