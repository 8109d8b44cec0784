"""Every Python block of README.md and docs/ type-checks with ``mypy --strict``, as a reader's script written
from the page would: each block is a module of its own, checked against the installed package (``py.typed``)
in one mypy run. A block a page marks as a fragment (an outline, or lines from inside a method, with names it
does not define: ``PyImports`` in tests/test_documented_lines.py) is not a script and is left out; the rest
are run too, by that module.

A block that imports a package not installed here is checked against the environment that has it: NeMo
Guardrails' action (docs/ways/nemo.md, a copy of docs/guard/nemo/actions.py) by a second mypy run whose Python is
``.venv-nemo``'s, the NeMo gateway's locked environment, so ``--strict`` reads NeMo's decorator as the reader's
mypy does. LangChain's blocks are left out: no environment here holds LangChain for mypy (such blocks are copies
of files benchmarks/client_snippets.py runs in LangChain's own), and without the package its decorators and
return values are untyped, so ``--strict`` would judge what the reader's mypy does not see."""

from __future__ import annotations

import inspect
import itertools
import re
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from tests.documented_lines import PyImports, Snippet, snippets
from tests.paths import MYPY_CACHE, ROOT
from tests.test_documented_lines import PYTHON

NOT_INSTALLED = re.compile(r"^\s*(from|import)\s+(langchain\w*|nemoguardrails)\b", re.M)
NEMO = re.compile(r"^\s*(from|import)\s+nemoguardrails\b", re.M)
NEMO_PYTHON = ROOT / ".venv-nemo" / "bin" / "python"
CONFIG = """\
[mypy]
strict = True
python_version = 3.11

[mypy-torch.*,transformers.*,sentence_transformers.*,ray.*]
follow_imports = skip
"""
# NeMo Guardrails ships no py.typed marker, so mypy would read its decorator as Any (and refuse the action under
# --strict as untyped) though its source is annotated: its modules are read as they are. Only the modules an
# action imports are followed (nemoguardrails.actions and its actions.py, typing alone); the package's own
# __init__ and everything it pulls in (LangChain, the rails) are skipped, as no action reads them.
NEMO_CONFIG = CONFIG + """
[mypy-nemoguardrails.*]
follow_untyped_imports = True
follow_imports = skip

[mypy-nemoguardrails.actions,nemoguardrails.actions.actions]
follow_imports = normal
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


def nemo_scripts() -> list[Snippet]:
    """The Python blocks that import NeMo Guardrails (and nothing else absent from its environment)."""
    return [s for s in snippets() if s.kind == "python" and not isinstance(PYTHON.get(s.key), PyImports)
            and NEMO.search(s.text) and not re.search(r"^\s*(from|import)\s+langchain", s.text, re.M)]


def mypy_problems(blocks: list[Snippet], folder: Path, config: str, cache: str,
                  python: Path | None = None) -> list[str]:
    """What ``mypy --strict`` says is wrong in ``blocks``, each block a module of its own, as ``file:line:
    message`` of the page it is on; ``python``: the interpreter whose packages the imports are read from
    (default: this one's)."""
    where = {}
    for snippet in blocks:
        name = module_name(snippet)
        (folder / f"{name}.py").write_text(snippet.text, encoding="utf-8")
        where[name] = snippet
    (folder / "mypy.ini").write_text(config, encoding="utf-8")
    interpreter = ["--python-executable", str(python)] if python is not None else []
    result = subprocess.run([sys.executable, "-m", "mypy", "--config-file", "mypy.ini", *interpreter,
                             "--cache-dir", str(MYPY_CACHE / cache), *sorted(f"{name}.py" for name in where)],
                            cwd=folder, capture_output=True, text=True, timeout=280)
    problems = []
    for line in result.stdout.splitlines():
        found = re.match(r"(\w+)\.py:(\d+): (error|note): (.*)", line)
        if found and found.group(1) in where and found.group(3) == "error":
            snippet = where[found.group(1)]
            problems.append(f"{snippet.file}:{snippet.line + int(found.group(2)) - 1}: {found.group(4)}")
    if not problems and result.returncode != 0:  # mypy itself failed (a config or an import it could not read)
        problems.append(result.stdout + result.stderr)
    return problems


def test_every_documented_python_block_passes_mypy_strict(tmp_path: Path) -> None:
    blocks = scripts()
    assert len(blocks) >= 12, "the docs' Python blocks were not found"
    # The cache tests/test_api_types.py's user script fills: the same flags, the same package.
    problems = mypy_problems(blocks, tmp_path, CONFIG, "user-script")
    assert not problems, "\n".join(problems)


def test_the_nemo_guardrails_action_passes_mypy_strict_in_nemos_environment(tmp_path: Path) -> None:
    blocks = nemo_scripts()
    assert [b.file for b in blocks] == ["docs/ways/nemo.md"], "the NeMo Guardrails action was not found in the docs"
    if not NEMO_PYTHON.exists():
        pytest.skip(".venv-nemo is missing, so NeMo Guardrails' action cannot be checked against NeMo: "
                    "`make setup` (scripts/setup.sh --dev) builds it from requirements/gateways/")
    problems = mypy_problems(blocks, tmp_path, NEMO_CONFIG, "nemo-script", python=NEMO_PYTHON)
    assert not problems, "\n".join(problems)
