"""Faithfulness, answer relevance and consistency on hand-made cases."""

from __future__ import annotations

import json
from typing import Any

import numpy as np
import pytest

from factdebate.core.runtime import RunRecorder, recording
from factdebate.core.types import Document
from factdebate.llm.model import LLM
from factdebate.llm.openai_compat import OpenAIBackend
from factdebate.llm.scripted import ScriptedBackend
from factdebate.scoring.consistency import consistency
from factdebate.scoring.faithfulness import faithfulness
from factdebate.scoring.relevance import answer_relevance, mean_cosine
from tests.fake_openai import FakeOpenAI
from tests.helpers import BagOfWordsEncoder

DOCS = [Document(id="1", title="Paris", text="Paris is the capital and largest city of France.")]


def scorer(replies: dict[str, list[str]]) -> tuple[LLM, ScriptedBackend]:
    queues = {k: list(v) for k, v in replies.items()}
    backend = ScriptedBackend(lambda call, messages, params: queues[call.prompt].pop(0))
    return LLM(backend, "scorer"), backend


async def test_faithfulness_is_the_supported_fraction() -> None:
    llm, backend = scorer({
        "faithfulness_statements": ["1. Paris is the capital of France.\n2. Paris has 40 million people.\n"
                                    "3. Paris is in France."],
        "faithfulness_verdicts": ["1: yes\n2: no\n3: yes"],
    })
    result = await faithfulness(llm, "Paris is the capital of France", "answer text", DOCS)
    assert result.value == pytest.approx(2 / 3) and result.error is None
    verdict_prompt = backend.calls[1][1][0]["content"]
    assert "2. Paris has 40 million people." in verdict_prompt and "largest city of France" in verdict_prompt


async def test_faithfulness_reasks_once_then_reports_unscorable() -> None:
    llm, backend = scorer({
        "faithfulness_statements": ["1. One.\n2. Two."],
        "faithfulness_verdicts": ["I think they are fine"],
        "faithfulness_verdicts:reask": ["still prose"],
    })
    result = await faithfulness(llm, "c", "a", DOCS)
    assert result.value is None and "yes/no" in (result.error or "")
    assert [c[0].prompt for c in backend.calls][-1] == "faithfulness_verdicts:reask"
    assert "could not be read" in backend.calls[-1][1][-1]["content"]


async def test_faithfulness_recovers_on_reask() -> None:
    llm, _ = scorer({
        "faithfulness_statements": ["nothing numbered here"],
        "faithfulness_statements:reask": ["1. Paris is the capital."],
        "faithfulness_verdicts": ["1: yes"],
    })
    # "nothing numbered here" is a plain line, which parse_list accepts as one statement
    result = await faithfulness(llm, "c", "a", DOCS)
    assert result.value == 1.0


async def test_faithfulness_without_documents_is_not_applicable() -> None:
    llm, backend = scorer({})
    result = await faithfulness(llm, "c", "a", [])
    assert result.value is None and backend.calls == []


async def test_answer_relevance_is_mean_cosine_to_the_claim() -> None:
    claim = "paris capital france"
    llm, _ = scorer({"relevance_questions": ["1. paris capital france\n2. paris capital\n3. zebra stripes"]})
    encoder = BagOfWordsEncoder()
    result = await answer_relevance(llm, encoder, claim, "Paris is the capital.", n=3)
    # cosines by hand: identical words -> 1; {paris, capital} vs 3 words -> 2/sqrt(6); disjoint -> 0
    expected = (1 + 2 / np.sqrt(6) + 0) / 3
    assert result.value == pytest.approx(expected, abs=1e-6)
    assert result.details["questions"] == ["paris capital france", "paris capital", "zebra stripes"]


async def test_answer_relevance_unparseable_is_none_not_zero() -> None:
    llm, _ = scorer({"relevance_questions": [""], "relevance_questions:reask": [""]})
    result = await answer_relevance(llm, BagOfWordsEncoder(), "c", "a")
    assert result.value is None and result.error


async def test_consistency_is_mean_similarity_to_documents() -> None:
    docs = [Document(id="1", title="a", text="b c"), Document(id="2", title="x", text="y z")]
    result = await consistency(BagOfWordsEncoder(), "a b c", docs)
    # "a. b c" has words {a,b,c} = the answer's: cosine 1; "x. y z" is disjoint: 0
    assert result.value == pytest.approx(0.5)


def test_mean_cosine_handles_zero_vectors() -> None:
    assert mean_cosine(np.array([1.0, 0.0]), np.array([[0.0, 0.0], [1.0, 0.0]])) == pytest.approx(0.5)


async def test_faithfulness_verdicts_reach_a_schema_only_server_as_a_json_schema_and_are_read() -> None:
    """Ollama and OpenAI's strict mode take a JSON schema, not a grammar: the verdict lines go as their JSON
    twin (one yes/no field per statement) and the object comes back as the "1: yes" lines."""

    def reply(body: dict[str, Any]) -> str:
        if "response_format" not in body:
            return "1. Paris is the capital of France.\n2. Paris has 40 million people."
        return json.dumps({"statement_1": "yes", "statement_2": "no"})

    with FakeOpenAI(reply=reply) as server:
        llm = LLM(OpenAIBackend("m", base_url=server.base_url, constrain="json_schema"), "scorer")
        with recording(RunRecorder()) as recorder:
            result = await faithfulness(llm, "Paris is the capital of France", "answer text", DOCS)
    verdicts = server.requests[1]["body"]
    assert verdicts["response_format"]["type"] == "json_schema" and "grammar" not in verdicts
    schema = verdicts["response_format"]["json_schema"]["schema"]
    assert schema["required"] == ["statement_1", "statement_2"]
    assert schema["properties"]["statement_2"]["enum"] == ["yes", "no"]
    assert result.value == pytest.approx(1 / 2) and result.details["supported"] == [True, False]
    assert recorder.parse_counts["statement_verdicts"].reasked == 0
