"""A ballot held to its schema closes within its token budget (a reason of single letters, about a
token each, ran a 300-character reason past the 320-token cap and cut the vote off), and a ballot cut at
the token limit anyway is reported as cut, not as a missing vote."""

from __future__ import annotations

import importlib.util
import json
import re
from typing import Any

import pytest

from factdebate.core.runtime import RunRecorder, recording
from factdebate.llm.base import GenParams, Message
from factdebate.llm.calls import CallInfo
from factdebate.llm.constraints import openai_request
from factdebate.llm.llama_cpp import builtin_model_path
from factdebate.llm.model import LLM
from factdebate.llm.scripted import ScriptedBackend
from factdebate.methods.dpd.panel import (
    BALLOT_FRAME,
    MIN_WHY_CHARS,
    WHY_CHARS,
    _longest_ballot,
    ask_judge,
    judge_schema,
    read_ballot,
    why_chars,
)
from factdebate.methods.dpd.settings import DPDSettings
from factdebate.prompts import Prompt

FLOOR = DPDSettings.model_fields["judge_tokens"].metadata[0].ge
DEFAULT = DPDSettings.model_fields["judge_tokens"].default
# Every character the schema lets "why" hold.
ALLOWED = "".join(chr(c) for c in range(0x20, 0x7F) if chr(c) not in '"\\')


def test_the_reason_pattern_admits_printable_ascii_without_quote_or_backslash() -> None:
    why = judge_schema(DEFAULT)["properties"]["why"]
    pattern = re.compile(why["pattern"])
    assert pattern.fullmatch(ALLOWED[:why["maxLength"]]) and why["maxLength"] == WHY_CHARS
    assert not any(pattern.fullmatch(c) for c in '"\\\nü')
    assert not pattern.fullmatch("x" * (why["maxLength"] + 1))


@pytest.mark.parametrize("budget", [FLOOR, DEFAULT, 2048])
def test_the_longest_held_ballot_has_no_more_characters_than_the_budget(budget: int) -> None:
    bound = why_chars(budget)
    assert BALLOT_FRAME + bound <= budget and bound >= min(MIN_WHY_CHARS, WHY_CHARS)
    ballot = _longest_ballot(bound)
    assert len(ballot) == BALLOT_FRAME + bound
    assert read_ballot(ballot).vote == 1  # the longest ballot is a readable one


def _adversarial_reasons(bound: int) -> list[str]:
    """Reasons that tokenize badly: runs of each allowed character, single letters with spaces (the live
    case), digits and punctuation alternating, every allowed character in turn."""
    cycled = (ALLOWED * (bound // len(ALLOWED) + 1))[:bound]
    spaced = ("a b c d e f g h i j k l m n o p q r s t u v w x y z " * 10)[:bound]
    mixed = ("1!2#3$4%5&6'7(8)9*0+,-./:;<=>?@[]^_`{|}~" * 10)[:bound]
    return [cycled, spaced, mixed, *(c * bound for c in ALLOWED)]


@pytest.mark.skipif(builtin_model_path() is None or importlib.util.find_spec("llama_cpp") is None,
                    reason="needs the built-in model (scripts/setup.sh)")
@pytest.mark.parametrize("budget", [FLOOR, DEFAULT])
def test_the_shipped_tokenizer_writes_the_longest_ballot_within_the_budget(budget: int) -> None:
    """Under SmolLM2's tokenizer (byte-level BPE), each allowed character is one token alone, and no
    ballot at its longest, with any of these reasons, takes more tokens than the budget."""
    from llama_cpp import Llama

    vocab = Llama(model_path=str(builtin_model_path()), vocab_only=True, verbose=False)

    def tokens(text: str) -> int:
        return len(vocab.tokenize(text.encode(), add_bos=False, special=False))

    assert all(tokens(c) == 1 for c in ALLOWED)
    bound = why_chars(budget)
    longest = _longest_ballot(bound)
    worst = 0
    for reason in _adversarial_reasons(bound):
        ballot = longest.replace('"' + "x" * bound + '"', json.dumps(reason), 1)
        assert len(ballot) == len(longest)
        worst = max(worst, tokens(ballot))
    assert worst <= budget


def test_strict_schema_servers_get_the_reason_without_its_bounds() -> None:
    params = GenParams(max_tokens=DEFAULT, json_schema=judge_schema(DEFAULT))
    grammar = openai_request(params, "grammar").kwargs["response_format"]["schema"]
    assert grammar["properties"]["why"]["maxLength"] == WHY_CHARS and "pattern" in grammar["properties"]["why"]
    strict = openai_request(params, "json_schema").kwargs["response_format"]["json_schema"]["schema"]
    assert {"maxLength", "pattern"}.isdisjoint(strict["properties"]["why"])
    assert strict["properties"]["vote"]["enum"] == ["affirmative", "negative", "tie"]


async def test_a_ballot_cut_at_the_token_limit_is_reported_as_cut() -> None:
    """An unconstrained judge that writes on past the cap: the ballot is lost and said to be cut."""
    seen: list[GenParams] = []

    def ramble(call: CallInfo, messages: list[Message], params: GenParams) -> str:
        seen.append(params)
        return '{"why": "' + "a " * params.max_tokens  # as many words (the scripted tokens) as the cap

    events: list[dict[str, Any]] = []
    with recording(RunRecorder(sinks=[events.append])) as recorder:
        judgement = await ask_judge(LLM(ScriptedBackend(ramble), "judge-factual"), Prompt("dpd_judge", "Vote."),
                                    "factual", 1, temperature=0.0, max_tokens=DEFAULT)
    assert not judgement.parsed and judgement.vote is None
    assert seen[0].json_schema == judge_schema(DEFAULT)
    failure = next(e for e in events if e.get("event") == "parse_failure")
    assert failure["problem"].startswith(f"it was cut at the token limit ({DEFAULT} tokens)")
    assert "vote must be one of" in failure["problem"]
    assert recorder.parse_counts["ballot"].lost == 1

