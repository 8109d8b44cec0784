"""A scripted executor that searches until the evidence it has (recalled or observed) names the claim's
object, then answers from it: the memory mechanism measured apart from any model."""

from __future__ import annotations

import re

from factdebate.llm.calls import CallInfo
from tests.methods.mermaid.support import action, answer, decomposition

CLAIM = re.compile(r"^(?P<subject>.+?) is the capital of (?P<object>.+?)\.?$")


def parts(claim: str) -> tuple[str, str]:
    match = CLAIM.match(claim)
    assert match, claim
    return match.group("subject"), match.group("object")


def evidence_part(text: str) -> str:
    """What the executor's prompt shows as evidence: the memory section and the observations."""
    cut = text.split("Tools:")[0]
    return cut.split("Evidence remembered from earlier claims", 1)[-1] if "Evidence remembered" in cut \
        else cut.split("Steps so far:", 1)[-1]


def capital_policy(call: CallInfo, text: str) -> str:
    claim = re.search(r"Claim: (.*)", text).group(1)  # type: ignore[union-attr]
    subject, country = parts(claim)
    if call.prompt == "mermaid_decompose":
        return decomposition(subject, country)
    seen = evidence_part(text)
    if f"capital of {country}" in seen or f"capital and largest city of {country}" in seen:
        return answer("True" if f"{subject} is the capital" in seen else "False")
    if call.prompt == "mermaid_force":
        return answer("False")
    return action("search_facts", f"capital of {country}")
