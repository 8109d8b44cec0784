"""The label guide: on the offline model, the debaters and the judge are asked, just before they reason, to
say what the documents state about the claim's subject and whether it matches (what tells REFUTES from NOT
ENOUGH INFO), and the verdict declares it; the embedded SmolLM2 and a served model read the papers'
prompts unchanged, and ``label_guide`` set either way wins."""

from __future__ import annotations

from typing import Any

import pytest

from factdebate.core.deviations import keys
from factdebate.core.types import Document
from factdebate.run.claim import run_claim
from tests.helpers import CLAIM, StaticTool, debate_script, resources_for

GUIDE = "First say what the documents state about the claim's subject"
SILENT = "NOT ENOUGH INFO is for documents that say nothing about it"
# The debaters disagree every round, so the judge is asked too.
SPLIT = {(agent, r): label for r in (1, 2, 3) for agent, label in (("rag", "SUPPORTS"), ("search", "REFUTES"))}


async def run(model: str, tools: dict[str, Any] | None = None,
              **tool_mad: Any) -> tuple[list[str], list[str], list[str]]:
    """The debaters' and the judge's prompts as the model read them, and the verdict's deviation keys."""
    resources, backend, _ = resources_for(debate_script(SPLIT), llm={"debater": model, "cache": False},
                                          methods={"tool-mad": tool_mad}, tools=tools)
    verdict = await run_claim(CLAIM, resources.settings, resources)
    assert verdict.decided_by == "judge"
    asked = [(info.prompt, messages[-1]["content"]) for info, messages in backend.calls]
    return ([text for name, text in asked if name == "debate_answer"],
            [text for name, text in asked if name == "judge"], keys(verdict.deviations))


async def test_the_offline_model_reads_the_guide_and_the_verdict_declares_it() -> None:
    debaters, judges, declared = await run("llama-cpp:qwen2.5-coder-1.5b")
    assert debaters and judges
    assert all(GUIDE in text for text in debaters + judges)
    # Documents silent on the claim are NOT ENOUGH INFO: each debater and the judge read it right before they
    # reason (benchmarks/label_guide.py measures whether the offline model follows it).
    assert all(text.endswith(SILENT + ".\n\nReasoning:") for text in debaters + judges)
    assert "label_guide" in declared


@pytest.mark.parametrize("model", ["llama-cpp:builtin", "openai:gpt-4o-mini"])
async def test_the_embedded_and_a_served_model_read_the_papers_prompts(model: str) -> None:
    debaters, judges, declared = await run(model)
    assert not any(GUIDE in text for text in debaters + judges)
    assert "label_guide" not in declared


async def test_the_setting_wins_either_way() -> None:
    debaters, _, declared = await run("openai:gpt-4o-mini", label_guide=True)
    assert GUIDE in debaters[0] and "label_guide" in declared
    debaters, _, declared = await run("llama-cpp:qwen2.5-coder-1.5b", label_guide=False)
    assert GUIDE not in debaters[0] and "label_guide" not in declared


async def test_documents_about_something_else_are_read_with_the_papers_prompts() -> None:
    # What the full-text index returned for a FEVER claim it holds no page on: namesakes (the guide made the
    # offline model refute over them, benchmarks/decisions/label_guide.md).
    claim = "Steve Coogan produced What Maisie Knew."
    namesakes = [Document(id=title, title=title, text=f"{title} was an American businessman.")
                 for title in ("Steve Wozniak", "Steve Jobs")]
    tools = {"rag": StaticTool("rag", namesakes), "search": StaticTool("local", namesakes)}
    resources, backend, _ = resources_for(debate_script(SPLIT), llm={"debater": "llama-cpp:qwen2.5-coder-1.5b",
                                                                     "cache": False}, tools=tools)
    verdict = await run_claim(claim, resources.settings, resources)
    asked = [messages[-1]["content"] for info, messages in backend.calls if info.prompt in ("debate_answer", "judge")]
    assert asked and verdict.decided_by == "judge"
    assert not any(GUIDE in text for text in asked)
    # where a debater is shown the subject's own page, that debater (and the judge, who reads every turn) is guided
    tools["search"] = StaticTool("local", [Document(id="c", title="Steve Coogan",
                                                    text="Steve Coogan is an English actor and producer.")])
    resources, backend, _ = resources_for(debate_script(SPLIT), llm={"debater": "llama-cpp:qwen2.5-coder-1.5b",
                                                                     "cache": False}, tools=tools)
    await run_claim(claim, resources.settings, resources)
    by_agent = {(info.agent, info.prompt): messages[-1]["content"] for info, messages in backend.calls}
    assert GUIDE in by_agent[("search", "debate_answer")] and GUIDE not in by_agent[("rag", "debate_answer")]
    assert any(GUIDE in text for (agent, prompt), text in by_agent.items() if prompt == "judge")
