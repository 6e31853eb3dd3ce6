"""The type stubs (`teeoracle/_teeoracle.pyi`) agree with the extension
module: mypy's stubtest finds nothing (signatures, `__new__`,
positional-only parameters, `__all__`, `@final` classes)."""

import os
import subprocess
import sys


def test_stubtest_finds_nothing(tmp_path):
    env = dict(os.environ, MYPY_CACHE_DIR=str(tmp_path / "mypy-cache"))
    done = subprocess.run(
        [sys.executable, "-m", "mypy.stubtest", "teeoracle"],
        capture_output=True, text=True, env=env, cwd=tmp_path,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert "Success: no issues found" in done.stdout
