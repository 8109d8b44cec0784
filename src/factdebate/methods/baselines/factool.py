"""``factool``: FacTool's knowledge-QA pipeline in one pass (Chern et al., 2023), a DPD baseline.

Claims are extracted (``decompose``), ``queries`` queries written per claim, each searched once with
``tool``, and one JSON verdict given per claim; the input is REFUTES if any claim is false
(``response_level.aggregate``). Unreadable queries fall back to the claim itself (recorded)."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any, Literal

from pydantic import Field

from factdebate.core.fields import offered
from factdebate.core.runtime import span
from factdebate.core.types import Document, Label, Round, Turn, Verdict
from factdebate.llm.ask import Reask, Unreadable, ask, part_chars
from factdebate.llm.base import GenParams
from factdebate.llm.json_reply import enclosed
from factdebate.methods.base import CallProbe, Method, MethodSettings, register
from factdebate.methods.baselines import paper_rows
from factdebate.methods.baselines.scripted import FACTOOL_REPLIES
from factdebate.methods.kit.common import search_tool, trim
from factdebate.methods.kit.fields import free_field
from factdebate.methods.kit.fields import query_problem as fields_query_problem
from factdebate.methods.kit.query_text import clean_query
from factdebate.methods.kit.turns import answered, end_round, finish, turn_started
from factdebate.methods.resources import Resources
from factdebate.methods.view import AGENTS, declare_view
from factdebate.prompts import render
from factdebate.response_level.aggregate import RULES, response_label
from factdebate.response_level.extract import aextract_claims, ask_for_list
from factdebate.tools.registry import RetrievalTool
from factdebate.util.tasks import gather_all  # a failed part cancels its siblings

if TYPE_CHECKING:
    from factdebate.core.deviations import Deviation
    from factdebate.methods.settings_protocol import RunSettings

VERIFY_TOKENS = 256
# The reasoning is bounded so that the verdict closes within VERIFY_TOKENS instead of being cut mid-object.
VERIFY_SCHEMA: dict[str, Any] = {
    "type": "object", "additionalProperties": False, "required": ["reasoning", "factual"],
    "properties": {"reasoning": {"type": "string", "maxLength": part_chars(VERIFY_TOKENS, 1, 40)},
                   "factual": {"type": "boolean"}}}


class FacToolSettings(MethodSettings):
    decompose: bool = Field(
        title="Split into claims", default=True, json_schema_extra=offered(group="agents", main=True),
        description="Split the input into atomic claims first.")
    max_claims: int = Field(
        title="Most claims", default=5, ge=1, le=20, json_schema_extra=offered(group="rounds", main=True),
        description="Most atomic claims checked.")
    queries: int = Field(
        title="Queries per claim", default=2, ge=1, le=5, json_schema_extra=offered(group="evidence", main=True),
        description="Search queries per claim.")
    tool: RetrievalTool = Field(
        title="Evidence source", default="search", json_schema_extra=offered(group="evidence", main=True),
        description="Where evidence comes from: search, rag, mcp:<server>/<tool>.")
    paper: Literal["dpd", "mermaid"] = Field(
        title="Paper row", default="dpd", json_schema_extra=offered(group="models"),
        description="Whose FacTool row the run stands for, so it is checked against that paper's backbone: "
                    "dpd (ChatGPT, the DPD paper's tables) or mermaid (GPT-4o, MERMAID's Table 1).")


def parse_verification(text: str) -> tuple[bool | None, str, str]:
    """(factual, reasoning, problem) from ``{"reasoning": ..., "factual": true|false}`` in ``text``."""
    if "{" not in text:
        return None, "", "no JSON object in the reply"
    try:
        value = enclosed(text)
    except json.JSONDecodeError as exc:
        return None, "", f"not valid JSON ({exc.msg})"
    if not isinstance(value, dict) or not isinstance(value.get("factual"), bool):
        return None, "", '"factual" must be true or false'
    return value["factual"], str(value.get("reasoning", "")), ""


def read_verification(text: str) -> tuple[bool, str]:
    """(factual, reasoning), or :class:`Unreadable` with the problem the re-ask names."""
    factual, reasoning, problem = parse_verification(text)
    if factual is None:
        raise Unreadable(problem)
    if reasoning:  # a copied "why, in one to three sentences" explains nothing: dropped, counted (kit/fields.py)
        reasoning = free_field(reasoning, "factool_verify", "reasoning")
    return factual, reasoning


def query_problem(item: str, claim: str) -> str | None:
    """Why one of the written queries says nothing (methods/kit/fields.py), or None."""
    return fields_query_problem(clean_query(item).text, "factool_queries", claim=claim)


@register
class FacTool(Method[FacToolSettings]):
    name = "factool"
    description = "FacTool single pass: extract claims, generate queries, gather evidence, verify each claim"
    settings_model = FacToolSettings
    # Its verdict is decided as a response's is, by a rule worded to follow "Decided by"; a card per claim.
    view = declare_view(decisions={code: f"the rule: {words}" for code, words in RULES.items() if code != "unparsed"},
                        agents={**AGENTS, "claim": "Claim"})
    scripted_replies = FACTOOL_REPLIES
    # As many claims as max_claims allows, each then searched and verified; in words too short to name
    # anything, so the extractor's grounding check (response_level.extract.grounded) keeps them whatever
    # the claim under test is.
    call_probe = CallProbe(reasks={
        # Five claims the grounding keeps ("He is." and "She was." no longer are: an unresolved pronoun).
        "claims_extract": json.dumps({"claims": ["It is so.", "It was so.", "It is not.", "It was not.",
                                                 "It is not so."]}),
        "factool_queries": json.dumps({"queries": ["q1", "q2"]}),
        "factool_verify": json.dumps({"reasoning": "r", "factual": False})})

    def tools(self, settings: RunSettings) -> set[str]:
        return {self.cfg(settings).tool}

    def paper_deviations(self, settings: RunSettings) -> list[Deviation]:
        cfg = self.cfg(settings)
        return paper_rows.factool(cfg.tool, settings, cfg.paper)

    def call_bounds(self, settings: RunSettings) -> tuple[int, int]:
        cfg = self.cfg(settings)
        extraction = 2 if cfg.decompose else 0
        return (1 if cfg.decompose else 0) + 2, extraction + cfg.max_claims * 4

    async def run(self, claim: str, resources: Resources) -> Verdict:
        cfg = self.cfg(resources.settings)
        claims, note = [claim], ""
        if cfg.decompose:
            with span("claims", "extraction"):
                extraction = await aextract_claims(claim, llm=resources.llm("extractor"), max_claims=cfg.max_claims,
                                                   fit=False)
            if extraction.parsed and extraction.claims:
                claims = extraction.claims
            else:  # the input itself is checked: nothing is made up in its place
                note = "claim extraction could not be read; the input was checked as one claim. "
        with span("round 1", "round", round=1):
            turns = await gather_all(*(self._check(i, text, cfg, resources) for i, text in enumerate(claims, 1)))
        label, rule = response_label([t.label for t in turns])
        rnd = Round(round=1, turns=list(turns))
        end_round(rnd, consensus=False, final=True)
        explanation = note + f"{len(turns)} claim(s): " + ", ".join(
            f"{t.agent} {t.label.value if t.label else 'unparsed'}" for t in turns) + f" ({rule})"
        return finish(claim, self.name, label, rule, [rnd], explanation=explanation)

    async def _check(self, number: int, claim: str, cfg: FacToolSettings, resources: Resources) -> Turn:
        agent = f"claim-{number}"
        reply = await ask_for_list(resources.debater, "factool_queries", "factool_queries_reask", "queries",
                                   max_items=cfg.queries, min_items=1, max_tokens=120, what="queries", agent=agent,
                                   claim=claim,
                                   n=cfg.queries, check=lambda item: query_problem(item, claim))
        # Each query cleaned of list numbering, quotes and a "query:" label; one left empty is dropped, as
        # an empty item is, and with none left the claim is the query.
        written: dict[str, str | None] = {}
        for query in (clean_query(item) for item in reply.items or []):
            if query.text and query.text not in written:
                written[query.text] = query.written
        queries = list(written) or [claim]
        tool = resources.tool(cfg.tool)
        retrieval = resources.settings.retrieval
        found = await gather_all(*(search_tool(tool, q, retrieval.k, agent=agent, round=1,
                                                   written=written.get(q)) for q in queries))
        evidence: list[Document] = []
        for doc in trim([d for docs in found for d in docs], retrieval.max_doc_chars):
            if doc.id not in {e.id for e in evidence}:
                evidence.append(doc)
        # The claim's own words on its turn: the page titles its card with them, not "claim-1".
        turn = Turn(agent=agent, role="verifier", tool=tool.name, query=" | ".join(queries), claim=claim,
                    evidence=evidence)
        turn_started(turn, 1)
        factual, reasoning, retries, raw = await self._verify(claim, evidence, agent, resources)
        turn.response = reasoning or raw
        turn.label = None if factual is None else (Label.SUPPORTS if factual else Label.REFUTES)
        turn.parse_retries = retries + reply.retries
        answered(turn, 1)
        return turn

    @staticmethod
    async def _verify(claim: str, evidence: list[Document], agent: str,
                      resources: Resources) -> tuple[bool | None, str, int, str]:
        asked = await ask(resources.debater, render("factool_verify", claim=claim, documents=evidence),
                          read_verification, what="factool_verdict",
                          params=GenParams(temperature=0.0, max_tokens=VERIFY_TOKENS, json_schema=VERIFY_SCHEMA),
                          reask=Reask(template="factool_verify_reask"), agent=agent, round=1)
        factual, reasoning = asked.value if asked.value is not None else (None, "")
        return factual, reasoning, asked.retries, asked.raw
