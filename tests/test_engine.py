"""factdebate.engine, the library as the service sees it: each name resolves to the library's own object, the
service imports the library through it alone (and of util, the helpers beneath both, only the names its
``FROM_UTIL`` lists) and uses every name it lists, and its docstring says what each is for (pyproject.toml's
import-linter contracts hold the same from the import graph)."""

from __future__ import annotations

import ast
import importlib
import pkgutil
import re
import tomllib
from pathlib import Path

import factdebate
from factdebate import engine

SERVER = Path(factdebate.__file__).parent / "server"
MOST_NAMES = 28  # what the service still needs of the library; a name that leaves the service leaves the module
UTIL_CONTRACT = "The service imports of util only what factdebate.engine's FROM_UTIL lists"


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
    allowed = {(module, name) for module, names in engine.FROM_UTIL.items() for name in names}
    elsewhere = {key: files for key, files in imports.items() if key[0] != "factdebate.engine" and key not in allowed}
    assert elsewhere == {}
    # the allow-list is what the service uses: a helper it stops importing leaves the list
    assert {key for key in imports if key[0] != "factdebate.engine"} == allowed
    used = {name for module, name in imports if module == "factdebate.engine"}
    assert used == set(engine.__all__)  # every name listed is used: the module lists what the service needs
    assert len(used) <= MOST_NAMES


def test_the_docstring_says_what_each_name_is_for() -> None:
    said = set(re.findall(r"``(\w+)``", engine.__doc__ or ""))
    assert set(engine.__all__) <= said
    assert set().union(*engine.FROM_UTIL.values()) <= said
    assert {module.rpartition(".")[2] for module in engine.FROM_UTIL} <= said


def test_each_util_name_the_service_may_import_is_there() -> None:
    for module, names in engine.FROM_UTIL.items():
        assert module.startswith("factdebate.util."), module
        loaded = importlib.import_module(module)
        assert {name for name in names if not hasattr(loaded, name)} == set(), module


def _util_modules() -> set[str]:
    import factdebate.util

    return {m.name for m in pkgutil.walk_packages(factdebate.util.__path__, "factdebate.util.")}


def test_the_import_contract_forbids_the_service_every_other_util_module() -> None:
    """``lint-imports`` holds the service to the same modules from the import graph: every module of util
    that :data:`factdebate.engine.FROM_UTIL` does not list is forbidden to it, a new one included."""
    config = tomllib.loads((SERVER.parents[2] / "pyproject.toml").read_text(encoding="utf-8"))
    contract = next(c for c in config["tool"]["importlinter"]["contracts"] if c["name"] == UTIL_CONTRACT)
    assert contract["source_modules"] == ["factdebate.server"]
    assert set(contract["forbidden_modules"]) == _util_modules() - set(engine.FROM_UTIL)


def test_an_unknown_name_is_an_attribute_error() -> None:
    try:
        engine.no_such_name  # noqa: B018
    except AttributeError as exc:
        assert "no_such_name" in str(exc)
    else:
        raise AssertionError("an unknown name resolved")
