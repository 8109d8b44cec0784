"""The Python API as a type checker sees it: a user's script checked with ``mypy --strict`` against the
installed package (``py.typed``), and the typed keywords kept equal to the option table they spell out.

The mypy test takes 5-10 s on a cold cache (mypy reads the package and pydantic, numpy and the rest its API
names; CONFIG below leaves out what it does not), seconds once ``.mypy_cache/user-script`` holds it."""

from __future__ import annotations

import subprocess
import sys
import typing
import warnings
from pathlib import Path

import pytest

import factdebate
from factdebate.core.errors import ConfigError
from factdebate.settings.keywords import MethodName, Options, SearchEngineName
from factdebate.settings.options import shared_options
from factdebate.tools.registry import SEARCH_ENGINES

from .paths import ROOT

GOOD = '''\
import asyncio

import factdebate as fd
from factdebate import ConfigError, GuardResult, Label, MethodName, ResponseVerdict, Verdict


async def both() -> Verdict:
    return await fd.averify("Paris is in France.", llm="scripted:agree", on_event=lambda event: None)


def main() -> None:
    verdict = fd.verify("The Eiffel Tower is in Rome.", method="dpd", llm="scripted:agree", k=3, cache=False,
                        evidence="both", exclude_domains=["example.org"], method_options={"dpd_max_rounds": 1})
    label: Label | None = verdict.label
    print(label, verdict.decided_by, asyncio.run(both()).label)
    answer = fd.check_response("Paris is in France.", question="Where is Paris?", evidence=["Paris is in France."])
    print(answer.label, [(claim.claim, claim.label) for claim in answer.claims])
    guarded = fd.check_response("Paris is in Spain.", tier="fast", deadline_s=5.0)
    print(guarded.text, guarded.action_taken)
    print(fd.guard("Paris is in Spain.", policy="flag", evidence=[{"text": "Paris is in France."}]).claims)
    passages: list[str] = ["Paris is in France."]
    response: ResponseVerdict = fd.check_response("Paris is in France.", evidence=passages)
    guarded_result: GuardResult = fd.check_response("Paris is in France.", evidence=("a", "b"), tier="fast")
    chosen: MethodName = "mermaid"
    try:
        fd.verify("x", method=chosen, search="wikipedia", given_evidence=passages)
    except ConfigError as exc:
        print(exc, response.label, guarded_result.text)
'''

BAD = '''\
import factdebate as fd

print(fd.verify("x").labelz)
fd.verify("x", roundz=2)
fd.verify("x", k="3")
fd.check_response("x").text
fd.check_response("x", evidence="a passage")
fd.verify("x", method="tool_madd")
fd.verify("x", search="googel")
fd.guard("x", evidence="a passage")
fd.verify("x", given_evidence="a passage")
'''


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
    (tmp_path / "good.py").write_text(GOOD)
    (tmp_path / "bad.py").write_text(BAD)
    (tmp_path / "mypy.ini").write_text(CONFIG)
    # A cache of its own: the package is checked under --strict's flags, unlike the repository's own mypy run.
    cache = ROOT / ".mypy_cache" / "user-script"
    result = subprocess.run([sys.executable, "-m", "mypy", "--config-file", "mypy.ini", "--cache-dir", str(cache),
                             "good.py", "bad.py"],
                            cwd=tmp_path, capture_output=True, text=True, timeout=280)
    lines = result.stdout.splitlines()
    assert not [line for line in lines if line.startswith("good.py")], result.stdout
    assert 'bad.py:3: error: "Verdict" has no attribute "labelz"' in result.stdout
    assert 'bad.py:4: error: Unexpected keyword argument "roundz" for "verify"' in result.stdout
    assert 'bad.py:5: error: Argument "k" to "verify" has incompatible type "str"' in result.stdout
    # Without tier or deadline_s the answer is a ResponseVerdict, which has no guard text.
    assert 'bad.py:6: error: "ResponseVerdict" has no attribute "text"' in result.stdout
    # Issue 50, item 7: one string where a list of passages belongs, and misspelt method or engine names.
    assert 'bad.py:7: error: No overload variant of "check_response" matches' in result.stdout
    assert 'bad.py:8: error: Argument "method" to "verify" has incompatible type' in result.stdout
    assert 'bad.py:9: error: Argument "search" to "verify" has incompatible type' in result.stdout
    assert 'bad.py:10: error: Argument "evidence" to "guard" has incompatible type "str"' in result.stdout
    assert 'bad.py:11: error: Argument "given_evidence" to "verify" has incompatible type "str"' in result.stdout
    assert (Path(factdebate.__file__).parent / "py.typed").is_file()


def test_the_typed_keywords_are_the_option_table() -> None:
    """A shared setting added to the settings model must be added to settings/keywords.py, with its type."""
    hints = typing.get_type_hints(Options)
    table = {option.name: option for option in shared_options()}
    assert set(hints) == set(table) | {"rounds"}  # rounds: Tool-MAD's, the default method's
    # method and search: str in the table (a plug-in's method, an engine's validator), the built-in names here
    assert set(typing.get_args(MethodName)) == set(builtin_methods())
    assert set(typing.get_args(SearchEngineName)) == set(SEARCH_ENGINES)
    for name, option in table.items():
        if name in ("method", "search"):
            continue
        declared = [arg for arg in typing.get_args(hints[name]) if arg is not type(None)]
        wanted = typing.get_args(option.annotation) if typing.get_origin(option.annotation) is typing.Literal \
            else (option.annotation,)
        if typing.get_origin(option.annotation) is typing.Literal:
            assert set(typing.get_args(declared[0])) == set(wanted), name  # Literal's cache may reorder them
        else:
            assert tuple(declared) == wanted, name


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


def test_check_response_is_at_the_top_level() -> None:
    answer = factdebate.check_response("Paris is in France.", method="single", llm="scripted:agree", cache=False)
    assert answer.claims and answer.label is not None


def builtin_methods() -> list[str]:
    """The methods factdebate registers itself (a test may have registered a plug-in of its own)."""
    from factdebate.methods.base import all_methods

    return [name for name, cls in all_methods().items() if cls.__module__.startswith("factdebate.methods.")]


async def test_a_blocking_call_inside_a_running_event_loop_names_the_async_call() -> None:
    """A notebook runs an event loop: asyncio's own error there said nothing about factdebate's async API."""
    from factdebate.core.errors import EventLoopError

    with pytest.raises(EventLoopError, match=r"await factdebate\.averify"):
        factdebate.verify("Paris is in France.", llm="scripted:agree")
    with pytest.raises(RuntimeError, match=r"await factdebate\.acheck_response"):  # still a RuntimeError
        factdebate.check_response("Paris is in France.", llm="scripted:agree")
