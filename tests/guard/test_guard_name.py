"""``factdebate.guard`` is one function, the same object on every access, whether or not the subpackage of
that name was imported (it was a callable module after the first import, and the second call failed)."""

from __future__ import annotations

import importlib
import inspect
import sys
from typing import Any

import factdebate as fd
from factdebate import api
from factdebate.guard import GuardResult
from factdebate.llm.scripted import ScriptedBackend
from tests.guard.support import REPLY, script
from tests.readiness import run

OFFLINE: dict[str, Any] = {"llm": "scripted:agree", "search": "local", "cache": False}


def test_the_name_is_the_api_function_every_time() -> None:
    importlib.import_module("factdebate.guard")  # the subpackage, loaded: the name stays the function

    assert inspect.isfunction(fd.guard) and fd.guard is api.guard and fd.guard is fd.guard


def test_the_same_call_works_twice() -> None:
    results = []
    for _ in range(2):
        backends: dict[str, Any] = {"debater": ScriptedBackend(script())}
        results.append(fd.guard(REPLY, tier="fast", deadline_s=30, backends=backends, method="single",
                                method_options={}, **OFFLINE))
    assert all(isinstance(r, GuardResult) for r in results)
    assert [c.claim for c in results[0].claims] == [c.claim for c in results[1].claims]


def test_in_a_fresh_interpreter_the_first_access_and_the_later_ones_agree() -> None:
    code = ("import factdebate as fd; first = fd.guard; import factdebate.guard; "
            "from factdebate.guard import GuardResult, check_text; from factdebate.guard.types import Span; "
            "assert fd.guard is first and callable(first) and first.__module__ == 'factdebate.api', fd.guard")
    done = run([sys.executable, "-c", code], what="the guard-name script")
    assert done.returncode == 0, done.stderr
