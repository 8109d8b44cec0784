"""Every method records a reply it had to re-ask the same way: one ``ParseProblem`` per re-ask, from
``llm.ask`` (the one helper), naming what was asked, the first prompt and the problem. The script is the
call-bounds one: every first reply is unreadable (its re-asks are readable but for the relevance scorer's)."""

from __future__ import annotations

from typing import Any

import pytest

from factdebate.run.claim import run_claim
from tests.helpers import CLAIM, resources_for
from tests.methods.test_call_bounds import probe_settings, probed, reask_everything


@pytest.mark.parametrize("method", probed())
async def test_every_reask_is_one_parse_problem(method: str) -> None:
    resources, backend, _ = resources_for(reask_everything, method=method, methods=probe_settings(method))
    events: list[dict[str, Any]] = []
    await run_claim(CLAIM, resources.settings, resources, sinks=[events.append])
    reasks = sorted((call.agent, call.round) for call, _ in backend.calls
                    if call.prompt.endswith(":reask") or call.prompt == "label_reask")
    problems = [e for e in events if e["event"] in ("parse_failure", "parse_recovered")]
    if not reasks:
        pytest.skip(f"{method} makes no model call, so nothing is re-asked")
    assert sorted((e["agent"], e["round"]) for e in problems) == reasks
    assert all(e["what"] and e["prompt"] and e["problem"] for e in problems)
    assert any(e["event"] == "parse_recovered" for e in problems)
    first_prompts = {call.prompt for call, _ in backend.calls}
    assert {e["prompt"] for e in problems} <= first_prompts
