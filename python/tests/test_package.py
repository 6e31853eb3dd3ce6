"""The package as an editor sees it: its stubs name exactly what the
extension module has, every public item has a docstring, and the wheel's
files are there."""

import ast
from pathlib import Path

import teeoracle
from teeoracle import _teeoracle

PACKAGE = Path(teeoracle.__file__).parent


def stub():
    tree = ast.parse((PACKAGE / "_teeoracle.pyi").read_text())
    top, classes = set(), {}
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.ClassDef)):
            top.add(node.name)
        if isinstance(node, ast.ClassDef):
            classes[node.name] = {
                n.name for n in node.body if isinstance(n, ast.FunctionDef)
            }
        if isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            top.add(node.target.id)
    return {n for n in top if not n.startswith("_") or n == "__version__"}, classes


def test_stubs_name_what_the_module_has():
    names, classes = stub()
    runtime = {n for n in dir(_teeoracle) if not n.startswith("_") or n == "__version__"}
    assert names == runtime
    for cls, methods in classes.items():
        for m in methods - {"__init__"}:
            assert hasattr(getattr(_teeoracle, cls), m), f"{cls}.{m}"


def test_public_items_have_docstrings():
    for name in teeoracle.__all__:
        item = getattr(teeoracle, name)
        if callable(item):
            assert item.__doc__, name
    assert teeoracle.DecodeError.__doc__
    assert issubclass(teeoracle.DecodeError, ValueError)


def test_typed_package():
    assert (PACKAGE / "py.typed").exists()
    assert teeoracle.__version__ == "0.1.0"
    assert teeoracle.KINDS[:3] == ("player_diff", "finish", "tick_skip")
    assert len(teeoracle.KINDS) == len(set(teeoracle.KINDS))
