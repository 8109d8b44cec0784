"""Every method's token caps fit its formats' longest answers: each call a method makes with
a format (a grammar, a JSON schema, a list of choices) is given ``max_tokens`` that hold the longest answer the
format admits, at one token per two characters (tests/methods/test_token_caps.py says why two). A format
without a bound (a sentence of ``[^.]+``, a string without ``maxLength``) fits no cap: a model may write it to
the cap and be cut (SmolLM2 behind llama-cpp-python's server: 4 of 6 ``single`` replies, DPD's turns 11 times).

Each method runs twice on one claim with a scripted model: everyone answering at once, and every first reply
unreadable so that every re-ask is made (tests/methods/test_call_bounds.py's script); every call's format and
cap are collected. The file names no method: a new one is checked as soon as it registers. A call without a
format fits no cap either: DPD's free-text turns (analyst, rebutters, summarizers) now have grammars bounding
their lines and sentences; the calls still free are named in ``FREE``, each with why."""

from __future__ import annotations

import math

import pytest

from factdebate.llm.base import GenParams, Message
from factdebate.llm.calls import CallInfo
from factdebate.llm.constraints import without_lengths
from factdebate.methods.base import Method
from factdebate.run.claim import run_claim
from tests.eval.support import truthful
from tests.helpers import CLAIM, resources_for
from tests.methods.answer_length import grammar_longest, schema_longest
from tests.methods.test_call_bounds import probe_settings, reask_everything
from tests.methods.test_token_caps import CHARS_PER_TOKEN


def longest(params: GenParams) -> float:
    """The longest answer ``params``' format admits, where a server enforces it (a grammar on llama.cpp's
    servers, a schema with its lengths where guided decoding holds them, the choices)."""
    lengths = [0.0]
    if params.choices:
        lengths.append(max(len(choice) for choice in params.choices))
    if params.grammar:
        lengths.append(grammar_longest(params.grammar))
    if params.json_schema is not None and not params.grammar:
        lengths.append(schema_longest(params.json_schema))
    return max(lengths)


# Calls asked without a format, by method, and why that is left: Tool-MAD's faithfulness statements and
# relevance questions are a numbered list whose re-ask is held to a bounded grammar (scoring/faithfulness.py,
# scoring/relevance.py); the first ask is bounded by its cap alone, a reply cut there counted as cut.
FREE = {"tool-mad": {"faithfulness_statements", "relevance_questions"}}


def calls_of(method: str) -> tuple[dict[tuple[str, str], tuple[GenParams, float]], set[str]]:
    """The formatted calls of ``method``'s probe runs (prompt and parameters: the call and its format's
    longest answer) and the prompts it asked without a format."""
    seen: dict[tuple[str, str], tuple[GenParams, float]] = {}
    free: set[str] = set()

    def recording(script):  # type: ignore[no-untyped-def]
        def respond(call: CallInfo, messages: list[Message], params: GenParams) -> str:
            if params.has_constraint:
                seen[(call.prompt, repr(params.key()))] = (params, longest(params))
            else:
                free.add(call.prompt)
            return str(script(call, messages, params))
        return respond

    async def run_both() -> None:
        for script in (truthful, reask_everything):
            resources, _, _ = resources_for(recording(script), method=method, methods=probe_settings(method))
            await run_claim(CLAIM, resources.settings, resources)

    import asyncio

    asyncio.run(run_both())
    return seen, free


def unfitted(method: str) -> list[str]:
    """Every call of ``method`` whose cap does not hold its format's longest answer, one line each."""
    seen, _ = calls_of(method)
    if not seen:
        pytest.skip(f"{method} asks no model for a formatted answer")
    return [f"{prompt}: max_tokens {params.max_tokens} for an answer of up to "
            f"{'unbounded' if chars == math.inf else int(chars)} characters"
            for (prompt, _), (params, chars) in sorted(seen.items())
            if params.max_tokens * CHARS_PER_TOKEN < chars]


@pytest.mark.parametrize("method", sorted(name for name, cls in Method.registered().items()
                                          if cls.call_probe is not None and not cls.call_probe.elsewhere))
def test_every_call_of_the_method_can_finish_its_format_within_its_cap(method: str) -> None:
    assert unfitted(method) == []


@pytest.mark.parametrize("method", sorted(name for name, cls in Method.registered().items()
                                          if cls.call_probe is not None and not cls.call_probe.elsewhere))
def test_every_call_of_the_method_has_a_format_but_those_named(method: str) -> None:
    """A call without a format is bounded by nothing but its cap: SmolLM2 wrote DPD's statements to theirs
    (11 cut in one claim)."""
    _, free = calls_of(method)
    assert free == FREE.get(method, set())


def test_a_schemas_lengths_are_what_bounds_it() -> None:
    """Where strict structured outputs take the schema without its lengths (OpenAI), the cap alone bounds
    it; the lengths this file measures are the ones grammar and guided servers enforce."""
    schema = {"type": "object", "properties": {"q": {"type": "string", "maxLength": 100}}}
    assert schema_longest(schema) == 2 + 3 + 2 + 102
    assert schema_longest(without_lengths(schema)) == math.inf


def test_an_unbounded_sentence_fits_no_cap() -> None:
    assert grammar_longest('root ::= s s?\ns ::= [^.]+ "."\n') == math.inf
    assert grammar_longest('root ::= s s?\ns ::= [^.]{1,50} "."\n') == 102
    assert grammar_longest('root ::= "Verdict: " ("SUPPORTS" | "NOT ENOUGH INFO")\n') == 24
