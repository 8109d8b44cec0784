"""The Python API as a type checker sees it: a user's script checked with ``mypy --strict`` against the
installed package (``py.typed``), the typed keywords (shared, and each method's ``method_options``) kept equal
to the option table they spell out, and the evidence keywords, their old spellings and their mistakes at run
time.

The mypy test is one mypy run for the good script and all 20 mistakes: 10.6 s wall (2.9 CPU-s, 260 MB) on a
cold cache at load 16, 0.5 s once the machine's cache (tests/paths.py MYPY_CACHE) holds it (mypy reads the
package and pydantic, numpy and the rest its API names; CONFIG below leaves out what it does not)."""

from __future__ import annotations

import subprocess
import sys
import typing
import warnings
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

import factdebate
from factdebate.api import EvidenceMode
from factdebate.core.types import Document
from factdebate.settings.keywords import MethodName, SearchEngineName, SharedOptions
from factdebate.settings.method_keywords import METHOD_OPTIONS, MethodOptions
from factdebate.settings.options import Option, method_options, shared_options
from factdebate.tools.registry import SEARCH_ENGINES
from factdebate.util.errors import ConfigError, InputError

from .paths import MYPY_CACHE

GOOD = '''\
import asyncio

import factdebate as fd
from factdebate import ConfigError, GuardResult, Label, MethodName, ResponseVerdict, Verdict


async def both() -> Verdict:
    return await fd.averify("Paris is in France.", llm="scripted:agree", on_event=lambda event: None)


def main() -> None:
    verdict = fd.verify("The Eiffel Tower is in Rome.", method="dpd", llm="scripted:agree", k=3, cache=False,
                        evidence=["The Eiffel Tower is in Paris."], evidence_mode="both",
                        exclude_domains=["example.org"], method_options={"dpd_max_rounds": 1, "dpd_tools": ["rag"]})
    label: Label | None = verdict.label
    print(label, verdict.decided_by, asyncio.run(both()).label)
    answer = fd.check_response("Paris is in France.", question="Where is Paris?", evidence=["Paris is in France."])
    print(answer.label, [(claim.claim, claim.label) for claim in answer.claims])
    guarded = fd.guard("Paris is in Spain.", tier="fast", deadline_s=5.0)
    print(guarded.text, guarded.action_taken)
    print(fd.guard("Paris is in Spain.", policy="flag", evidence=["Paris is in France."]).claims)
    passages: list[str] = ["Paris is in France."]
    response: ResponseVerdict = fd.check_response("Paris is in France.", evidence=passages)
    guarded_result: GuardResult = fd.guard("Paris is in France.", evidence=("a", "b"), tier="fast")
    chosen: MethodName = "mermaid"
    options: fd.MERMAIDOptions = {"mermaid_max_steps": 4, "mermaid_servers": ["wikipedia"]}
    given: list[fd.Passage] = [{"title": "Guide", "text": "Paris is in France.", "url": "https://example.org"}]
    try:
        fd.verify("x", method=chosen, search="wikipedia", evidence=given, method_options=options)
    except (ConfigError, fd.InputError, fd.EventLoopError) as exc:
        print(exc, response.label, guarded_result.text, [isinstance(c, fd.GuardClaim) for c in guarded.claims])
'''

# Mistakes a newcomer makes with the API, each of which must fail ``mypy --strict`` on its own
# line (before, 4 of the 18 passed it and failed only at run time, or not at all). (what, the line, a piece of
# mypy's message).
MISTAKES = [
    ("a misspelt field of the verdict", 'print(fd.verify("x").labelz)', '"Verdict" has no attribute "labelz"'),
    ("a misspelt option", 'fd.verify("x", roundz=2)', 'Unexpected keyword argument "roundz"'),
    ("an option of the wrong type", 'fd.verify("x", k="3")', 'Argument "k" to "verify" has incompatible type'),
    ("the guard's field on a ResponseVerdict (no tier)", 'fd.check_response("x").text',
     '"ResponseVerdict" has no attribute "text"'),
    ("one string as the passages", 'fd.check_response("x", evidence="a passage")',
     'Argument "evidence" to "check_response" has incompatible type "str"'),
    # check_response has one return type: a check within a deadline is fd.guard's
    ("the guard's tier given to check_response", 'fd.check_response("x", tier="fast")',
     'Unexpected keyword argument "tier" for "check_response"'),
    ("one passage dict, not a list of them", 'fd.guard("x", evidence={"text": "a passage"})',
     'Argument "evidence" to "guard" has incompatible type'),
    ("(title, text) pairs as passages", 'fd.verify("x", evidence=[("Guide", "Paris is in France.")])',
     "List item 0 has incompatible type"),
    ("the passages' old name", 'fd.verify("x", given_evidence=["a passage"])',
     'Unexpected keyword argument "given_evidence"'),
    ("the evidence mode under the passages' name", 'fd.verify("x", evidence="given")',
     'Argument "evidence" to "verify" has incompatible type "str"'),
    ("a misspelt evidence mode", 'fd.check_response("x", evidence=["a"], evidence_mode="retreived")',
     'Argument "evidence_mode" to "check_response" has incompatible type'),
    ("a misspelt method", 'fd.verify("x", method="tool_mad")', 'Argument "method" to "verify" has incompatible'),
    ("an unknown search engine", 'fd.verify("x", search="google")', 'Argument "search" to "verify" has incompatible'),
    ("a misspelt method option", 'fd.verify("x", method="dpd", method_options={"dpd_max_round": 2})',
     'Argument "method_options" to "verify" has incompatible type'),
    ("a method option of the wrong type", 'fd.verify("x", method="dpd", method_options={"dpd_max_rounds": "2"})',
     'Argument "method_options" to "verify" has incompatible type'),
    # The message above does not name the key; the method's own type does (README, "Python")
    ("a misspelt key of one method's options", 'misspelt: fd.DPDOptions = {"dpd_max_round": 2}',
     'Extra key "dpd_max_round" for TypedDict "DPDOptions"'),
    ("a method option as a plain keyword", 'fd.verify("x", method="dpd", dpd_max_rounds=2)',
     'Unexpected keyword argument "dpd_max_rounds"'),
    ("the blocking call awaited", 'async def awaited() -> None: print(await fd.verify("x"))',
     'Incompatible types in "await" (actual type "Verdict"'),
    ("the async call not awaited", 'async def not_awaited() -> None: print(fd.averify("x").label)',
     'has no attribute "label"'),
    ("one string where a list belongs", 'fd.verify("x", exclude_domains="example.org")',
     'Argument "exclude_domains" to "verify" has incompatible type "str"'),
]
BAD = "import factdebate as fd\n" + "".join(line + "\n" for _, line, _ in MISTAKES)


# --strict, and the libraries that only the package's model and cluster code import (inside functions) are not
# read: the API's types do not come from them, and reading them was 23 of mypy's 29 s of work on a cold cache
# (60 s wall, 1.9 GB; 5 s and 260 MB without them), for the same messages.
CONFIG = """\
[mypy]
strict = True
python_version = 3.11

[mypy-torch.*,transformers.*,sentence_transformers.*,ray.*]
follow_imports = skip
"""


def test_a_users_script_type_checks_with_mypy_strict(tmp_path: Path) -> None:
    """One mypy run for both files: mypy is the slow part, not the number of lines."""
    (tmp_path / "good.py").write_text(GOOD)
    (tmp_path / "bad.py").write_text(BAD)
    (tmp_path / "mypy.ini").write_text(CONFIG)
    # A cache of its own: the package is checked under --strict's flags, unlike the repository's own mypy run.
    cache = MYPY_CACHE / "user-script"
    result = subprocess.run([sys.executable, "-m", "mypy", "--config-file", "mypy.ini", "--cache-dir", str(cache),
                             "good.py", "bad.py"],
                            cwd=tmp_path, capture_output=True, text=True, timeout=280)
    lines = result.stdout.splitlines()
    assert not [line for line in lines if line.startswith("good.py")], result.stdout
    assert len(MISTAKES) == 20
    missed = [f"line {number}, {what}: {line}" for number, (what, line, message) in enumerate(MISTAKES, start=2)
              if not any(out.startswith(f"bad.py:{number}: error: ") and message in out for out in lines)]
    assert not missed, "\n".join([*missed, result.stdout])
    assert (Path(factdebate.__file__).parent / "py.typed").is_file()


def test_the_typed_keywords_are_the_option_table() -> None:
    """A shared setting added to the settings model must be added to settings/keywords.py, with its type."""
    hints = typing.get_type_hints(SharedOptions)
    table = {option.name: option for option in shared_options()}
    # rounds: Tool-MAD's, the default method's; evidence: each function's evidence_mode (evidence= the passages)
    assert set(hints) == set(table) - {"evidence"} | {"rounds"}
    assert set(typing.get_args(EvidenceMode)) == set(typing.get_args(table["evidence"].annotation))
    # method and search: str in the table (a plug-in's method, an engine's validator), the built-in names here
    assert set(typing.get_args(MethodName)) == set(builtin_methods())
    assert set(typing.get_args(SearchEngineName)) == set(SEARCH_ENGINES)
    for name, option in table.items():
        if name not in ("method", "search", "evidence"):
            assert_same_type(hints[name], option)


def test_each_methods_typed_options_are_its_settings() -> None:
    """A method's field added, renamed or retyped must be so in settings/method_keywords.py too (an old alias
    is left out there on purpose: it runs, but a type checker points at the current name)."""
    declared: dict[str, dict[str, Option]] = {}
    for option in method_options():
        if option.alias_of is None and option.method is not None:
            declared.setdefault(option.method, {})[option.name] = option
    assert set(METHOD_OPTIONS) == {name for name in builtin_methods() if name in declared}
    for method, typed in METHOD_OPTIONS.items():
        hints = typing.get_type_hints(typed)
        assert set(hints) == set(declared[method]), method
        assert not typed.__required_keys__, method  # total=False: every key may be left out
        for name, option in declared[method].items():
            assert_same_type(hints[name], option)


def assert_same_type(hint: object, option: Option) -> None:
    """``hint`` (``X | None``) is the option's type: Literal names as a set (Literal's cache may reorder them),
    a list's item type without its validators (``Annotated``)."""
    declared = [arg for arg in typing.get_args(hint) if arg is not type(None)]
    assert len(declared) == 1, option.name
    assert _plain(declared[0]) == _plain(option.annotation), option.name


def _plain(annotation: object) -> object:
    if typing.get_origin(annotation) is typing.Annotated:
        return _plain(typing.get_args(annotation)[0])
    if typing.get_origin(annotation) is typing.Literal:
        return frozenset(typing.get_args(annotation))
    if typing.get_origin(annotation) is list:
        return ("list", _plain(typing.get_args(annotation)[0]))
    return annotation


def test_method_options_and_a_misplaced_option() -> None:
    opts = {"llm": "scripted:agree", "cache": False}
    verdict = factdebate.verify("Paris is in France.", method="mad", method_options={"mad_rounds": 1}, **opts)
    assert verdict.config["methods"]["mad"]["rounds"] == 1
    with pytest.raises(ConfigError, match="given twice"):
        factdebate.verify("x", method_options={"k": 2}, k=3)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        factdebate.verify("Paris is in France.", method="single", rounds=2, **opts)
    assert [str(w.message) for w in caught] == ["option 'rounds' is tool-mad's: method single ignores it"]


OFFLINE: dict[str, Any] = {"method": "single", "llm": "scripted:agree", "search": "local", "cache": False}


def test_one_evidence_keyword_across_the_three_calls() -> None:
    """verify, check_response and guard take the passages as ``evidence`` (text, dicts or documents) and where
    evidence comes from as ``evidence_mode``; passages without a mode are read before retrieval (``both``), as
    the service does."""
    from factdebate.llm.scripted import ScriptedBackend
    from tests.eval.support import truthful

    backend = ScriptedBackend(truthful)
    guide = Document(id="g", title="Guide", text="Lyon is a city in France.", source="https://example.org/lyon")
    verdict = factdebate.verify("Lyon is in France.", evidence=[guide], backends={"debater": backend}, **OFFLINE)
    assert verdict.config["retrieval"]["evidence"] == "both"
    assert "Lyon is a city in France." in backend.calls[0][1][0]["content"]
    answer = factdebate.check_response("Lyon is in France.", evidence=["Lyon is a city in France."],
                                       evidence_mode="given", **OFFLINE)
    assert answer.claims and answer.label is not None
    guarded = factdebate.guard("Lyon is in France.", evidence=["Lyon is a city in France."], evidence_mode="given",
                               tier="fast", deadline_s=30, **OFFLINE)  # plain strings: it took only dicts before
    assert guarded.claims and guarded.claims[0].status == "checked"


@pytest.mark.parametrize("keywords", [{"given_evidence": ["Lyon is a city in France."]}, {"tier": "fast"}])
def test_a_keyword_the_api_does_not_take_is_refused_by_name(keywords: dict[str, Any]) -> None:
    """A misspelt or foreign keyword (the passages under another name, the guard's tier given to
    check_response) is refused in one line that names it, never run as something else."""
    for call in (factdebate.verify, factdebate.check_response):
        with pytest.raises(ConfigError, match=f"unknown option '{next(iter(keywords))}'"):
            call("Lyon is in France.", **keywords, **OFFLINE)


@pytest.mark.parametrize(("keywords", "error", "message"), [
    ({"evidence": "a passage"}, ConfigError, r"a list of passages, not one string: evidence=\['a passage'\]"),
    ({"evidence": {"text": "a passage"}}, ConfigError, r"put the one passage in a list, evidence=\[\{...\}\]"),
    ({"evidence": [("Guide", "Lyon is in France.")]}, ConfigError, r"evidence item 1 \(tuple\) is not a passage"),
    ({"evidence": [{"text": "Lyon.", "source": "x"}]}, InputError, "evidence item 1: source: Extra inputs"),
    ({"evidence": ["  "]}, InputError, "evidence item 1: text: .*empty"),
    ({"evidence": "both"}, ConfigError, "where evidence comes from is evidence_mode='both'"),
    ({"evidence": ["a"], "evidence_mode": "retreived"}, ConfigError, "evidence_mode='retreived': it is one of given"),
])
def test_evidence_mistakes_are_one_clear_error_in_each_call(keywords: dict[str, Any], error: type[Exception],
                                                            message: str) -> None:
    calls: list[Callable[..., object]] = [factdebate.verify, factdebate.check_response, factdebate.guard]
    for call in calls:
        with pytest.raises(error, match=message):
            call("Lyon is in France.", **keywords, **OFFLINE)


def test_check_response_is_at_the_top_level() -> None:
    answer = factdebate.check_response("Paris is in France.", method="single", llm="scripted:agree", cache=False)
    assert answer.claims and answer.label is not None


def builtin_methods() -> list[str]:
    """The methods factdebate registers itself (a test may have registered a plug-in of its own)."""
    from factdebate.methods.base import Method

    return [name for name, cls in Method.registered().items() if cls.__module__.startswith("factdebate.methods.")]


async def test_a_blocking_call_inside_a_running_event_loop_names_the_async_call() -> None:
    """A notebook runs an event loop: asyncio's own error there said nothing about factdebate's async API."""
    from factdebate.core.errors import EventLoopError

    with pytest.raises(EventLoopError, match=r"factdebate\.verify\(\) .* use `await factdebate\.averify\(\.\.\.\)`"):
        factdebate.verify("Paris is in France.", llm="scripted:agree")
    with pytest.raises(RuntimeError, match=r"await factdebate\.acheck_response"):  # still a RuntimeError
        factdebate.check_response("Paris is in France.", llm="scripted:agree")
    with pytest.raises(factdebate.EventLoopError, match=r"await factdebate\.aguard"):
        factdebate.guard("Paris is in France.", llm="scripted:agree")


def test_the_public_result_and_error_types_are_exported() -> None:
    """What a user annotates or catches is importable from ``factdebate`` itself, and names what it is."""
    from factdebate.core import errors, types
    from factdebate.guard_engine import types as guard_types
    from factdebate.util import errors as generic_errors

    expected = {"Verdict": types.Verdict, "ResponseVerdict": types.ResponseVerdict, "ClaimCheck": types.ClaimCheck,
                "GuardResult": guard_types.GuardResult, "GuardClaim": guard_types.GuardClaim,
                "FactDebateError": generic_errors.FactDebateError, "ConfigError": generic_errors.ConfigError,
                "InputError": generic_errors.InputError, "EventLoopError": errors.EventLoopError,
                "MethodOptions": MethodOptions, **{t.__name__: t for t in METHOD_OPTIONS.values()}}
    for name, value in expected.items():
        assert name in factdebate.__all__ and getattr(factdebate, name) == value, name
    assert not [name for name in factdebate.__all__ if not hasattr(factdebate, name)]


def test_the_api_modules_names_are_the_packages() -> None:
    """``factdebate.api.__all__`` names only what ``factdebate`` itself exports, the same objects: one public
    face, not two (``session``, an internal helper, was listed there and importable from nowhere else)."""
    from factdebate import api

    assert [name for name in api.__all__ if name not in factdebate.__all__] == []
    assert [name for name in api.__all__ if getattr(factdebate, name) is not getattr(api, name)] == []
