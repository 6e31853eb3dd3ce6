"""teeoracle conform adapter for ddnet-maploader (Python bindings,
https://pypi.org/project/ddnet-maploader/, of the C99 map loader
ddnet_maploader_c99, which it loads as libddnet_map_loader.so).

    python examples/adapters/ddnet-maploader.py info|decode map|batch

The loader gives the game layer DDNet's physics reads (width, height, each
tile's index and flags), the other physics layers and the map settings,
nothing of the container: decode emits the map document's `game` (its
tiles as `index_hex` and `flags_hex`), and declares only those fields. A
map it does not load (no game layer found, or a header it refuses) is
rejected. The C library prints its errors on stdout; the adapter moves them
to stderr, so its answers stay the only thing on stdout.

The shared library is not on PyPI: build it from
https://github.com/Teero888/ddnet_maploader_c99 at the commit the package's
README pins (68de38e317ea5fb2ed005479c6046338007d8420) and install it as
/usr/local/lib/libddnet_map_loader.so, as its CMakeLists.txt does:

    gcc -O2 -std=c99 -shared -fPIC -o /usr/local/lib/libddnet_map_loader.so \
        ddnet_map_loader.c -lz

(.ci/run runs this adapter only where the library is installed, and says
so when it is not).
"""

import os
import sys
import tempfile
from importlib.metadata import version

# The library's printf goes to fd 1: point fd 1 at stderr and answer on a
# copy of the real stdout.
_answers = os.fdopen(os.dup(1), "w")
os.dup2(2, 1)
sys.stdout = _answers

import ddnet_maploader  # noqa: E402

from contract import Rejected, main  # noqa: E402

INFO = {
    "name": "ddnet-maploader",
    "version": version("ddnet-maploader"),
    "units": {
        "map": {
            "decode": True,
            "encode": False,
            "fields": [
                "game.width",
                "game.height",
                "game.index_hex",
                "game.flags_hex",
            ],
        }
    },
}


def decode(data):
    with tempfile.NamedTemporaryFile(suffix=".map") as f:
        f.write(data)
        f.flush()
        try:
            loaded = ddnet_maploader.load_map(f.name)
        except ValueError as e:
            raise Rejected(f"ddnet-maploader: {e}") from e
    with loaded as m:
        n = max(m.width, 0) * max(m.height, 0)
        index = bytes(m.game_layer.data[i] for i in range(n))
        flags = bytes(m.game_layer.flags[i] for i in range(n))
        return {
            "game": {
                "width": m.width,
                "height": m.height,
                "index_hex": index.hex(),
                "flags_hex": flags.hex(),
            }
        }


if __name__ == "__main__":
    sys.exit(main(INFO, {"map": decode}))
