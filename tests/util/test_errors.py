"""The base of the errors a user can act on has one address, factdebate.util.errors, and says so: a traceback
names the module that defines it, and every module imports it from there (or from ``factdebate``)."""

from __future__ import annotations

import ast
import pickle
import traceback
from pathlib import Path

import factdebate
from factdebate.core.errors import EndpointUnavailableError
from factdebate.util import errors

ROOT = Path(__file__).resolve().parents[2]


def test_the_base_lives_where_it_is_defined() -> None:
    assert errors.FactDebateError.__module__ == "factdebate.util.errors"
    assert factdebate.FactDebateError is errors.FactDebateError
    assert issubclass(EndpointUnavailableError, errors.FactDebateError)
    try:
        raise errors.FactDebateError("no such claim file")
    except errors.FactDebateError as exc:
        printed = "".join(traceback.format_exception(exc))
        copy = pickle.loads(pickle.dumps(exc))  # a worker's error reaches the parent process as the same class
    assert printed.rstrip().endswith("factdebate.util.errors.FactDebateError: no such claim file")
    assert type(copy) is errors.FactDebateError and copy.args == ("no such claim file",)


def _importers_elsewhere(tree: ast.AST) -> list[str]:
    """The modules ``tree`` imports FactDebateError from other than factdebate.util.errors and factdebate."""
    return [node.module or "" for node in ast.walk(tree)
            if isinstance(node, ast.ImportFrom) and any(a.name == "FactDebateError" for a in node.names)
            and node.module not in ("factdebate.util.errors", "factdebate")]


def test_every_module_imports_the_base_from_its_one_address() -> None:
    # Only a file that writes the name can import it: the others are not parsed (most of the tree's files).
    found = {str(path.relative_to(ROOT)): modules for folder in ("src", "tests", "benchmarks", "scripts")
             for path in sorted((ROOT / folder).rglob("*.py"))
             if "FactDebateError" in (text := path.read_text(encoding="utf-8"))
             and (modules := _importers_elsewhere(ast.parse(text)))}
    assert found == {}, "import FactDebateError from factdebate.util.errors"


def test_the_import_check_sees_another_address() -> None:
    tree = ast.parse("from factdebate.core.errors import IndexError_, FactDebateError\n"
                     "from factdebate.util.errors import FactDebateError\nfrom factdebate import FactDebateError")
    assert _importers_elsewhere(tree) == ["factdebate.core.errors"]
