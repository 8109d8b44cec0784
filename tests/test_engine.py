"""factdebate.engine, the library as the service sees it: each name resolves to the library's own object, the
service imports the library through it alone (and util, the foundation beneath both, directly) and uses every
name it lists, and its docstring says what each is for (pyproject.toml's import-linter contracts hold the same
from the import graph)."""

from __future__ import annotations

import ast
import importlib
import re
from pathlib import Path

import factdebate
from factdebate import engine

SERVER = Path(factdebate.__file__).parent / "server"
MOST_NAMES = 25  # what the service still needs of the library; a name that leaves the service leaves the module


def _service_imports() -> dict[tuple[str, str], list[str]]:
    """Every (module, name) of the library a module of the service imports, with the files importing it."""
    found: dict[tuple[str, str], list[str]] = {}
    for path in sorted(SERVER.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("factdebate"):
                if not node.module.startswith("factdebate.server"):
                    for alias in node.names:
                        found.setdefault((node.module, alias.name), []).append(path.name)
            elif isinstance(node, ast.Import):
                for alias in node.names:
                    if alias.name.startswith("factdebate") and not alias.name.startswith("factdebate.server"):
                        found.setdefault((alias.name, ""), []).append(path.name)
    return found


def _foundation(module: str) -> bool:
    """util: the domain-free foundation the library and the service both import directly."""
    return module == "factdebate.util" or module.startswith("factdebate.util.")


def test_each_name_is_the_library_object_it_names() -> None:
    where = engine._WHERE
    assert sorted(where) == sorted(engine.__all__)
    for name, (module, attribute) in where.items():
        assert getattr(engine, name) is getattr(importlib.import_module(module), attribute), name


def test_the_type_checker_reads_the_same_names() -> None:
    """The ``if TYPE_CHECKING:`` imports (what mypy and the reference site read) and the table the module loads
    at run time name the same objects."""
    tree = ast.parse(Path(engine.__file__).read_text(encoding="utf-8"))
    block = next(node for node in tree.body if isinstance(node, ast.If))
    imported = {alias.asname or alias.name: (node.module, alias.name)
                for node in block.body if isinstance(node, ast.ImportFrom) for alias in node.names}
    assert imported == engine._WHERE


def test_the_service_imports_the_library_only_through_the_engine() -> None:
    imports = _service_imports()
    elsewhere = {key: files for key, files in imports.items()
                 if key[0] != "factdebate.engine" and not _foundation(key[0])}
    assert elsewhere == {}
    used = {name for module, name in imports if module == "factdebate.engine"}
    assert used == set(engine.__all__)  # every name listed is used: the module lists what the service needs
    assert len(used) <= MOST_NAMES


def test_the_docstring_says_what_each_name_is_for() -> None:
    said = set(re.findall(r"``(\w+)``", engine.__doc__ or ""))
    assert set(engine.__all__) <= said


def test_an_unknown_name_is_an_attribute_error() -> None:
    try:
        engine.no_such_name  # noqa: B018
    except AttributeError as exc:
        assert "no_such_name" in str(exc)
    else:
        raise AssertionError("an unknown name resolved")
