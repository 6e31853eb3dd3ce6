"""``python -m teeoracle ARGS``: the ``teeoracle`` command line, the same
program as the crate's binary (``teeoracle check``, ``record``, ...). The
wheel installs it as the ``teeoracle`` command too."""

from __future__ import annotations

import signal
import sys
from typing import List, Optional

from . import _teeoracle


def main(argv: Optional[List[str]] = None) -> int:
    """Runs the command line ``argv`` (default: this process's arguments)
    and gives its exit code (0 ok, 1 a bad file or failed check, 2 bad
    usage)."""
    args = sys.argv[1:] if argv is None else list(argv)
    # Ctrl-C stops the command as it stops the binary: the command runs
    # without Python's handler, which only acts between Python lines.
    before = signal.signal(signal.SIGINT, signal.SIG_DFL)
    try:
        return _teeoracle.cli(["teeoracle", *args], [sys.executable, "-m", "teeoracle"])
    finally:
        signal.signal(signal.SIGINT, before)


if __name__ == "__main__":
    sys.exit(main())
