"""``factdebate.guard`` is one function, the same object on every access, and the check engine below it is the
package ``factdebate.guard_engine``, named apart so that neither hides the other (a package named ``guard``
replaced the function once imported, and the second call failed). docs/guard.md lists the engine's public
names; each one it lists imports, and it lists them all."""

from __future__ import annotations

import importlib
import inspect
import re
import sys
from typing import Any

import factdebate as fd
from factdebate import api
from factdebate.guard_engine import GuardResult
from factdebate.llm.scripted import ScriptedBackend
from tests.guard.support import REPLY, script
from tests.paths import ROOT
from tests.readiness import run

OFFLINE: dict[str, Any] = {"llm": "scripted:agree", "search": "local", "cache": False}
# The sentence that opens the list in docs/ways/python.md, and the list's items up to the first blank line.
LIST_OPENS = "The engine's public names (`factdebate.guard_engine.__all__`):\n\n"
NAME = re.compile(r"`(\w+)`")


def documented_engine_names() -> list[str]:
    text = (ROOT / "docs" / "ways" / "python.md").read_text(encoding="utf-8")
    assert text.count(LIST_OPENS) == 1, "docs/ways/python.md lists the engine's names once"
    listing = text.split(LIST_OPENS, 1)[1].split("\n\n", 1)[0]
    items = [line.split(":", 1)[0] for line in listing.splitlines() if line.startswith("- ")]
    return [name for item in items for name in NAME.findall(item)]


def test_the_docs_list_every_public_name_of_the_engine_and_each_imports() -> None:
    names = documented_engine_names()
    engine = importlib.import_module("factdebate.guard_engine")
    assert sorted(names) == sorted(engine.__all__)
    missing = [name for name in names if getattr(engine, name, None) is None]
    assert not missing, missing


def test_the_name_is_the_api_function_after_the_engine_is_imported() -> None:
    import factdebate.guard_engine as engine

    assert engine.GuardResult is GuardResult
    assert inspect.isfunction(fd.guard) and fd.guard is api.guard and fd.guard is fd.guard
    assert "factdebate.guard" not in sys.modules  # no module of the function's name


def test_the_same_call_works_twice() -> None:
    results = []
    for _ in range(2):
        backends: dict[str, Any] = {"debater": ScriptedBackend(script())}
        results.append(fd.guard(REPLY, tier="fast", deadline_s=30, backends=backends, method="single",
                                method_options={}, **OFFLINE))
    assert all(isinstance(r, GuardResult) for r in results)
    assert [c.claim for c in results[0].claims] == [c.claim for c in results[1].claims]


def test_in_a_fresh_interpreter_the_engine_imports_as_a_module_and_the_function_stays() -> None:
    code = ("import factdebate as fd; first = fd.guard; import factdebate.guard_engine as g; "
            "import factdebate.guard_engine.types as t; from factdebate.guard_engine import check_text; "
            "assert g.GuardResult is t.GuardResult and callable(check_text); "
            "import factdebate; assert factdebate.guard is first and fd.guard is first, fd.guard; "
            "assert callable(first) and first.__module__ == 'factdebate.api', first")
    done = run([sys.executable, "-c", code], what="the guard-name script")
    assert done.returncode == 0, done.stderr
