"""Compiles, once, what each pytest worker would otherwise compile for itself on a fresh clone.

scripts/test.sh runs this before pytest. On a clone with no bytecode yet, every xdist worker starts at the same
moment, finds no cached file and compiles the package and rewrites the test modules' asserts on its own: about
8 of the 16 CPU-seconds a worker's collection costs there, paid by each of the three. Done here first, each
worker reads the cached files (the package's ordinary bytecode, and pytest's rewritten modules in the file
names and format its import hook reads back: ``<name>.<cache tag>-pytest-<version>.pyc``). A file that is
already up to date is left alone, so a second run costs little; a failure here only means the workers compile
as before, so it never stops the tests.
"""

from __future__ import annotations

import ast
import compileall
import fnmatch
import importlib.util
import marshal
import os
import struct
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
TEST_FILES = ("test_*.py", "*_test.py", "conftest.py")  # pytest's default python_files, and conftest modules


def rewritten_pyc(source: Path, tail: str) -> Path:
    return source.parent / "__pycache__" / (source.name[:-3] + tail)


def up_to_date(pyc: Path, stat: os.stat_result) -> bool:
    """The checks pytest's own reader makes (magic number, flags, the source's mtime and size)."""
    try:
        with open(pyc, "rb") as fp:
            head = fp.read(16)
    except OSError:
        return False
    expected = struct.pack("<LL", int(stat.st_mtime) & 0xFFFFFFFF, stat.st_size & 0xFFFFFFFF)
    return len(head) == 16 and head[:4] == importlib.util.MAGIC_NUMBER and head[4:8] == bytes(4) \
        and head[8:] == expected


def rewrite_tests(folder: Path) -> int:
    """pytest's assert rewriting of every test module and conftest under ``folder``, written where pytest
    looks for it; returns how many were written."""
    from _pytest.assertion.rewrite import PYC_TAIL, rewrite_asserts

    written = 0
    for source in sorted(folder.rglob("*.py")):
        if not any(fnmatch.fnmatch(source.name, pattern) for pattern in TEST_FILES):
            continue
        stat = source.stat()
        pyc = rewritten_pyc(source, PYC_TAIL)
        if up_to_date(pyc, stat):
            continue
        data = source.read_bytes()
        tree = ast.parse(data, filename=str(source))
        rewrite_asserts(tree, data, str(source))  # no config: the assertion-pass hook is off, as in pyproject
        code = compile(tree, str(source), "exec", dont_inherit=True)
        pyc.parent.mkdir(exist_ok=True)
        partial = pyc.with_name(f"{pyc.name}.{os.getpid()}")
        with open(partial, "wb") as fp:  # pytest's layout: magic, flags, mtime, size, code
            fp.write(importlib.util.MAGIC_NUMBER + bytes(4))
            fp.write(struct.pack("<LL", int(stat.st_mtime) & 0xFFFFFFFF, stat.st_size & 0xFFFFFFFF))
            fp.write(marshal.dumps(code))
        os.replace(partial, pyc)  # atomic, as pytest writes it: a worker never reads half a file
        written += 1
    return written


class _TestModules:
    """compileall's ``rx``: a file it should skip (pytest compiles test modules and conftests its own way)."""

    def search(self, path: str) -> bool:
        return any(fnmatch.fnmatch(os.path.basename(path), pattern) for pattern in TEST_FILES)


def main() -> int:
    if sys.flags.dont_write_bytecode:
        return 0  # nothing would be read back
    try:
        compileall.compile_dir(ROOT / "src", quiet=1, workers=1)
        # The tests' helper modules are imported as ordinary modules; the test modules get pytest's files below.
        compileall.compile_dir(ROOT / "tests", quiet=1, workers=1, rx=_TestModules())
        count = rewrite_tests(ROOT / "tests")
    except Exception as exc:  # an optimisation only: the workers compile for themselves as before
        print(f"scripts/precompile.py: skipped ({type(exc).__name__}: {exc})", file=sys.stderr)
        return 0
    print(f"scripts/precompile.py: {count} test modules rewritten", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
