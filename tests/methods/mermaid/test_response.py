"""check-response with method=mermaid: each atomic claim of a response goes through the decomposer, the
executor and the memory; the response is false when any claim is."""

from __future__ import annotations

from pathlib import Path

from factdebate.core.types import Label
from factdebate.guard_engine.response_check import run_response
from tests.methods.mermaid.memory_worker import FACTS
from tests.methods.mermaid.policy import capital_policy
from tests.methods.mermaid.support import FactToolset, mermaid_resources


async def test_a_response_is_false_when_one_claim_is(tmp_path: Path) -> None:
    toolset = FactToolset(FACTS)
    resources, _ = await mermaid_resources(capital_policy, toolset, memory_path=tmp_path / "m.sqlite")
    claims = ["Paris is the capital of France", "Bergen is the capital of Norway"]
    async with resources:
        verdict = await run_response(". ".join(claims) + ".", resources.settings, resources, given_claims=claims)
    assert verdict.method == "mermaid" and verdict.label == Label.REFUTES and verdict.factual is False
    assert [c.label for c in verdict.claims] == [Label.SUPPORTS, Label.REFUTES]
    assert all(c.verdict is not None and c.verdict.method == "mermaid" for c in verdict.claims)
    assert verdict.usage.tool_calls == 2 == len(toolset.calls)
