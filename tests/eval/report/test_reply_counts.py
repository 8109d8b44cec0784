"""Every reply a parser could not read is counted, per kind, where a reader of the run looks: the verdict
(``parse_counts``), the turn (``parse_retries``), ``summary.json``/``summary.md`` (with a warning above 5%
lost) and the trace, whose ``llm_call`` events name the sample they served."""

from __future__ import annotations

import json
from pathlib import Path

from factdebate.eval.report.reply_counts import lost_warning, short_text
from factdebate.eval.runner import execute, make_plan
from factdebate.llm.base import GenParams, Message
from factdebate.llm.calls import CallInfo
from factdebate.run.claim import run_claim
from factdebate.settings.load import load_settings
from tests.eval.support import claim_of, resources_for, truthful
from tests.helpers import CLAIM


def _dataset(tmp_path: Path) -> str:
    rows = [{"id": f"c{i}", "claim": f"Claim {i} is true.", "label": "SUPPORTS"} for i in range(4)]
    path = tmp_path / "claims.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return f"fever:{path}"


def garbled(call: CallInfo, messages: list[Message], params: GenParams) -> str:
    """Claim 1's label is unreadable once (recovered); claim 2's twice (lost); the others read at once."""
    claim = claim_of(messages)
    if "Claim 1" in claim and not call.prompt.endswith("reask"):
        return "I would rather not say."
    if "Claim 2" in claim:
        return "I would rather not say."
    return truthful(call, messages, params)


async def test_the_summary_counts_reasked_recovered_and_lost_replies(tmp_path: Path) -> None:
    settings = load_settings(overrides={"method": "cot", "llm": {"cache": False}}, environ={})
    plan = make_plan(settings, _dataset(tmp_path), tmp_path / "run", limit=None, seed=1)
    resources, _, _ = resources_for(garbled, method="cot")
    events: list[dict] = []
    summary = await execute(plan, resources, concurrency=2, progress=False, sinks=[events.append])
    assert summary["metrics"]["replies"] == {"label": {"asked": 4, "reasked": 2, "recovered": 1, "lost": 1}}
    records = {r["id"]: r for r in map(json.loads, (plan.output / "results.jsonl").read_text().splitlines())}
    assert records["c1"]["parse_counts"]["label"]["recovered"] == 1
    assert records["c1"]["rounds"][0]["turns"][0]["parse_retries"] == 1
    assert records["c2"]["decided_by"] == "unparsed" and records["c2"]["parse_counts"]["label"]["lost"] == 1
    markdown = (plan.output / "summary.md").read_text()
    assert "label 4 asked, 2 re-asked, 1 recovered, 1 lost" in markdown
    assert "label 1/4 lost" in markdown  # 25% lost: more than 5%, so the run is warned about
    # The trace's model calls name the sample they served.
    calls = [e for e in events if e["event"] == "llm_call"]
    assert calls and {e["sample"] for e in calls} == set(records)


def test_the_warning_starts_above_five_percent_lost() -> None:
    assert lost_warning({"ballot": {"asked": 20, "reasked": 3, "recovered": 2, "lost": 1}}) is None
    assert "ballot 2/20" in (lost_warning({"ballot": {"asked": 20, "reasked": 2, "recovered": 0, "lost": 2}}) or "")
    assert short_text({"query": {"asked": 9, "reasked": 2, "recovered": 1, "lost": 1}}) == \
        "replies re-asked/recovered/lost: query 2/1/1"


async def test_a_turn_counts_every_reask_of_its_round_not_only_its_label() -> None:
    """Tool-MAD's round-2 query of the search agent is unreadable once: the turn says so."""

    def script(call: CallInfo, messages: list[Message], params: GenParams) -> str:
        if call.prompt == "query_select" and call.agent == "search" and call.round == 2:
            return "I would keep it."
        if call.prompt == "query_select:reask" and call.agent == "search":
            return "[Paris capital of France]"
        answer = truthful(call, messages, params)
        return answer.replace("SUPPORTS", "REFUTES") if call.agent == "search" and call.round == 1 else answer

    resources, _, _ = resources_for(script, methods={"tool-mad": {"rounds": 2, "scoring": False}})
    verdict = await run_claim(CLAIM, resources.settings, resources)
    search = [t for rnd in verdict.rounds for t in rnd.turns if t.agent == "search"]
    assert [t.parse_retries for t in search] == [0, 1]
    # round 1's query is asked too: two agents, two rounds
    assert verdict.parse_counts["query"].model_dump() == {"asked": 4, "reasked": 1, "recovered": 1, "lost": 0}
