"""Free text cut at the token limit is counted: a DPD statement that stops at
``statement_tokens`` is counted as ``cut`` under its prompt in the reply counts, traced as ``reply_cut``, and
shown in the summary's texts; a parsed reply cut at its limit is counted the same way. Where the server holds
a grammar, a statement is held to lines or sentences that close within the cap, so it ends
at a line or a sentence instead of being cut."""

from __future__ import annotations

from typing import Any

import pytest

from factdebate.eval.report.reply_counts import counts_text, short_text
from factdebate.llm.base import GenParams, Message
from factdebate.llm.calls import CallInfo
from factdebate.methods.dpd.team import statement_params
from factdebate.run.claim import run_claim
from tests.helpers import CLAIM, resources_for
from tests.methods.answer_length import grammar_longest
from tests.methods.dpd.test_method import dpd_script, unanimous
from tests.methods.test_token_caps import CHARS_PER_TOKEN


def long_analysts(call: CallInfo, messages: list[Message], params: GenParams) -> str:
    if call.prompt == "dpd_analyst":
        return " ".join(["Paris"] * 40)  # 40 tokens on the scripted backend: past a limit of 32
    return dpd_script(unanimous())(call, messages, params)


async def test_a_statement_cut_at_its_limit_is_counted_and_traced() -> None:
    resources, backend, _ = resources_for(long_analysts, method="dpd", methods={"dpd": {
        "min_rounds": 1, "max_rounds": 1, "statement_tokens": 32}})
    events: list[dict[str, Any]] = []
    verdict = await run_claim(CLAIM, resources.settings, resources, sinks=[events.append])
    analysts = [call for call, _ in backend.calls if call.prompt == "dpd_analyst"]
    counts = verdict.parse_counts["dpd_analyst"]
    assert counts.asked == len(analysts) == counts.cut > 0
    rebutters = verdict.parse_counts["dpd_rebutter"]
    assert rebutters.cut == 0 and "cut" not in rebutters.model_dump()  # none cut: left out of the record
    cut = [e for e in events if e["event"] == "reply_cut"]
    assert len(cut) == counts.cut and {e["what"] for e in cut} == {"dpd_analyst"}
    assert all(e["max_tokens"] == 32 and e["completion_tokens"] == 40 for e in cut)
    rows = {what: c.model_dump() for what, c in verdict.parse_counts.items()}
    assert f"dpd_analyst {counts.asked} asked, 0 re-asked, 0 recovered, 0 lost, {counts.cut} cut" in counts_text(rows)
    assert f"cut at the token limit: dpd_analyst {counts.cut}/{counts.asked}" in short_text(rows)


async def test_a_parsed_reply_cut_at_its_limit_is_counted_under_its_kind() -> None:
    def long_queries(call: CallInfo, messages: list[Message], params: GenParams) -> str:
        if call.prompt == "dpd_queries":
            return '{"support": "capital of France", "refute": "Paris capital"} ' + "x " * params.max_tokens
        return dpd_script(unanimous())(call, messages, params)

    resources, _, _ = resources_for(long_queries, method="dpd", methods={"dpd": {"min_rounds": 1, "max_rounds": 1}})
    verdict = await run_claim(CLAIM, resources.settings, resources)
    assert verdict.parse_counts["query"].cut == verdict.parse_counts["query"].asked == 2
    assert verdict.parse_counts["query"].lost == 0  # the reply was read: cut and readable are separate counts


@pytest.mark.parametrize("tokens", [32, 256, 2048])  # statement_tokens' floor, default and ceiling
@pytest.mark.parametrize("role", ["analyst", "rebutter", "summarizer"])
def test_a_statements_grammar_closes_within_its_cap(role: str, tokens: int) -> None:
    params = statement_params(role, 0.0, tokens)
    assert params.max_tokens == tokens and params.grammar is not None
    assert 0 < grammar_longest(params.grammar) <= tokens * CHARS_PER_TOKEN
    llama_cpp = pytest.importorskip("llama_cpp")
    llama_cpp.LlamaGrammar.from_string(params.grammar, verbose=False)  # llama.cpp's parser takes it


async def test_every_statement_is_asked_with_its_grammar() -> None:
    asked: dict[str, GenParams] = {}
    script = dpd_script(unanimous())

    def recording(call: CallInfo, messages: list[Message], params: GenParams) -> str:
        asked[call.prompt] = params
        return str(script(call, messages, params))

    resources, _, _ = resources_for(recording, method="dpd", methods={"dpd": {
        "min_rounds": 1, "max_rounds": 1, "statement_tokens": 200}})
    await run_claim(CLAIM, resources.settings, resources)
    for role in ("analyst", "rebutter", "summarizer"):
        params = asked[f"dpd_{role}"]
        assert params.max_tokens == 200 and params.grammar == statement_params(role, 0.0, 200).grammar
