"""No import cycles in src/: a small graph of every ``import`` in the package (lazy ones inside functions
included; ``if TYPE_CHECKING:`` blocks excluded, then, in a second view, included). A cycle means code sits in
the wrong module."""

from __future__ import annotations

import ast
import json
import subprocess
import sys
import tomllib
from pathlib import Path

import factdebate

ROOT = Path(factdebate.__file__).parent


def _module_name(path: Path) -> str:
    parts = ["factdebate", *path.relative_to(ROOT).with_suffix("").parts]
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _is_type_checking(node: ast.If) -> bool:
    test = node.test
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING")


def _imports(tree: ast.AST, modules: set[str], here: str, *, typing: bool = False) -> set[str]:
    """The package's modules that ``tree`` imports; with ``typing``, those under ``if TYPE_CHECKING:`` too."""
    found: set[str] = set()
    stack = [tree]
    while stack:
        node = stack.pop()
        if not typing and isinstance(node, ast.If) and _is_type_checking(node):
            stack.extend(node.orelse)
            continue
        if isinstance(node, ast.Import):
            found.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found.add(node.module)
            found.update(f"{node.module}.{a.name}" for a in node.names)
        stack.extend(ast.iter_child_nodes(node))
    return {m for m in found if m in modules and m != here}


def import_graph(*, typing: bool = False) -> dict[str, set[str]]:
    files = {_module_name(p): p for p in ROOT.rglob("*.py")}
    return {name: _imports(ast.parse(path.read_text(encoding="utf-8")), set(files), name, typing=typing)
            for name, path in files.items()}


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components with more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    found: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        for nxt in sorted(graph[node]):
            if nxt not in index:
                visit(nxt)
                low[node] = min(low[node], low[nxt])
            elif nxt in stack:
                low[node] = min(low[node], index[nxt])
        if low[node] == index[node]:
            component = []
            while True:
                member = stack.pop()
                component.append(member)
                if member == node:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return found


def test_the_package_has_no_import_cycle() -> None:
    assert cycles(import_graph()) == []


def test_the_check_sees_a_cycle() -> None:
    assert cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]


def test_no_cycle_once_typing_imports_count() -> None:
    """An annotation's import closes a cycle as much as a call's: methods name the settings
    through methods/settings_protocol.py's RunSettings, and the guard's overloaded stream is handed the
    relay's parts rather than naming its type."""
    assert cycles(import_graph(typing=True)) == []


def test_the_layers_contract_counts_typing_imports() -> None:
    """An annotation that names a higher layer is an upward edge: the layers contract (``lint-imports``, run by
    scripts/test.sh) reads the imports under ``if TYPE_CHECKING:`` too, so a new typing-only upward edge fails
    it."""
    config = tomllib.loads((ROOT.parents[1] / "pyproject.toml").read_text(encoding="utf-8"))
    assert config["tool"]["importlinter"].get("exclude_type_checking_imports", False) is False


def _imported_by_name(tree: ast.AST) -> list[str]:
    """String literals naming a factdebate module given to ``import_module`` or ``__import__``."""
    names = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and node.args and isinstance(node.args[0], ast.Constant):
            func = node.func
            called = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")
            value = node.args[0].value
            if called in ("import_module", "__import__") and isinstance(value, str) and value.startswith("factdebate"):
                names.append(value)
    return names


def test_no_module_of_the_package_is_imported_by_a_name_in_a_string() -> None:
    """An import by name is an edge this file's graph (and the layers contract) cannot see: a hidden cycle."""
    found = {str(path.relative_to(ROOT)): names for path in ROOT.rglob("*.py")
             if (names := _imported_by_name(ast.parse(path.read_text(encoding="utf-8"))))}
    assert found == {}


def test_the_string_check_sees_an_import_by_name() -> None:
    tree = ast.parse('import importlib\n'
                     'importlib.import_module("factdebate.eval.datasets.loaders")\n__import__("json")')
    assert _imported_by_name(tree) == ["factdebate.eval.datasets.loaders"]


# Every module of the library, imported one after another in a clean interpreter; the service (server/) and the
# MCP tool servers that some methods start (toolservers/) are the only places a web framework may load.
_LOAD_THE_LIBRARY = """
import importlib, json, pkgutil, sys
import factdebate
names = [m.name for m in pkgutil.walk_packages(factdebate.__path__, "factdebate.")
         if not m.name.startswith(("factdebate.server", "factdebate.toolservers"))]
for name in names:
    importlib.import_module(name)
web = sorted(m for m in sys.modules if m.split(".")[0] in ("fastapi", "starlette", "uvicorn"))
print(json.dumps({"imported": len(names), "web": web}))
"""


def test_the_library_loads_no_web_framework() -> None:
    """``pip install factdebate`` is the library and the research CLI without a web server: importing every
    module of it (factdebate.engine and the CLI's commands included) loads no fastapi, starlette or uvicorn; only
    ``factdebate serve`` and ``factdebate mcp`` import the service, inside the command."""
    done = subprocess.run([sys.executable, "-c", _LOAD_THE_LIBRARY], capture_output=True, text=True, timeout=240,
                          check=True)
    loaded = json.loads(done.stdout.strip().splitlines()[-1])
    assert loaded["imported"] > 300  # the walk reached the whole library, not a corner of it
    assert loaded["web"] == []
