"""The ``teeoracle`` command from the wheel (``python -m teeoracle`` and
the script pip puts on PATH): the crate's command line, the same output
and exit codes as the binary built from this checkout."""

import subprocess
import sys
from pathlib import Path

from conftest import CORPUS

FILE = str(CORPUS / "teehistorian" / "ddnet-20.1" / "A_join_move_leave.teehistorian")


def run(*args):
    return subprocess.run(args, capture_output=True, text=True)


def test_python_m_teeoracle_is_the_binarys_command_line(cli, tmp_path):
    bad = tmp_path / "bad.teehistorian"
    bad.write_bytes(b"not a teehistorian file")
    for args, code in ((["check", "--format", "json", FILE], 0), (["check", str(bad)], 1)):
        ours = run(sys.executable, "-m", "teeoracle", *args)
        binary = run(cli, *args)
        assert (ours.returncode, ours.stdout) == (code, binary.stdout)
        assert binary.returncode == code


def test_bad_usage_exits_2_naming_the_program():
    bad = run(sys.executable, "-m", "teeoracle", "check", "--no-such-flag")
    assert bad.returncode == 2
    assert "Usage: teeoracle check" in bad.stderr


def test_pip_installs_the_teeoracle_script_beside_python(cli):
    script = Path(sys.executable).parent / "teeoracle"
    assert script.is_file(), "no teeoracle script in the environment's bin/"
    shown = run(str(script), "--version")
    assert (shown.returncode, shown.stdout) == (0, run(cli, "--version").stdout)
