"""Every Python block of README.md and docs/ type-checks with ``mypy --strict``, as a reader's script written
from the page would: each block is a module of its own, checked against the installed package (``py.typed``)
in one mypy run. A block a page marks as a fragment (an outline, or lines from inside a method, with names it
does not define: ``PyImports`` in tests/test_documented_lines.py) is not a script and is left out; the rest
are run too, by that module.

A block that imports a package not installed here (LangChain, NeMo Guardrails: such blocks are copies of
files that other tests run in those packages' own environments) is left out too: without the package its
decorators and return values are untyped, so ``--strict`` would judge what the reader's mypy does not see."""

from __future__ import annotations

import inspect
import itertools
import re
import subprocess
import sys
import textwrap
from pathlib import Path

from tests.documented_lines import PyImports, Snippet, snippets
from tests.paths import ROOT
from tests.test_documented_lines import PYTHON

NOT_INSTALLED = re.compile(r"^\s*(from|import)\s+(langchain\w*|nemoguardrails)\b", re.M)
CONFIG = """\
[mypy]
strict = True
python_version = 3.11

[mypy-torch.*,transformers.*,sentence_transformers.*,ray.*]
follow_imports = skip
"""


def scripts() -> list[Snippet]:
    """The Python blocks a reader may run as they stand, with what they import installed, and the examples of
    the public functions' docstrings (what ``help(fd.verify_many)`` shows)."""
    pages = [s for s in snippets() if s.kind == "python" and not isinstance(PYTHON.get(s.key), PyImports)
             and not NOT_INSTALLED.search(s.text)]
    return pages + docstring_examples()


def docstring_examples() -> list[Snippet]:
    from factdebate import api

    found = []
    for name in api.__all__:
        doc = inspect.getdoc(getattr(api, name)) or ""
        if "Example::" in doc:
            block = doc.split("Example::", 1)[1].split("\n\n", 1)[1]
            lines = block.splitlines()
            code = [line for line in itertools.takewhile(lambda line: not line or line.startswith("    "), lines)]
            found.append(Snippet(f"factdebate.{name}'s docstring", 1, "python", textwrap.dedent("\n".join(code))))
    return found


def module_name(snippet: Snippet) -> str:
    return re.sub(r"\W", "_", f"{snippet.file}_{snippet.line}")


def test_every_documented_python_block_passes_mypy_strict(tmp_path: Path) -> None:
    blocks = scripts()
    assert len(blocks) >= 12, "the docs' Python blocks were not found"
    where = {}
    for snippet in blocks:
        name = module_name(snippet)
        (tmp_path / f"{name}.py").write_text(snippet.text, encoding="utf-8")
        where[name] = snippet
    (tmp_path / "mypy.ini").write_text(CONFIG, encoding="utf-8")
    # The cache tests/test_api_types.py's user script fills: the same flags, the same package.
    cache = ROOT / ".mypy_cache" / "user-script"
    result = subprocess.run([sys.executable, "-m", "mypy", "--config-file", "mypy.ini", "--cache-dir", str(cache),
                             *sorted(f"{name}.py" for name in where)],
                            cwd=tmp_path, capture_output=True, text=True, timeout=280)
    problems = []
    for line in result.stdout.splitlines():
        found = re.match(r"(\w+)\.py:(\d+): (error|note): (.*)", line)
        if found and found.group(1) in where and found.group(3) == "error":
            snippet = where[found.group(1)]
            problems.append(f"{snippet.file}:{snippet.line + int(found.group(2)) - 1}: {found.group(4)}")
    assert not problems, "\n".join(problems)
    assert result.returncode == 0, result.stdout + result.stderr
