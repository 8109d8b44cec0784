"""An errored sample's spend. A scripted model answers a claim's first calls, then fails;
the error record carries the calls and tokens made before the failure (and by model, so it is priced), the
run's summary counts them and says so, and compare's costs include them."""

from __future__ import annotations

import json
import shutil
from collections import Counter
from pathlib import Path
from typing import Any

from factdebate.eval.compare import compare_runs
from factdebate.eval.pricing import parse_prices
from factdebate.eval.report.summary import latest_records
from factdebate.eval.runner import execute, make_plan
from factdebate.llm.base import GenParams, Message
from factdebate.llm.calls import CallInfo
from factdebate.settings.load import load_settings
from tests.eval.support import claim_of, resources_for, truthful

CALLS = 3  # MAD: two debaters and a moderator per claim


def plan_for(tmp_path: Path, output: str) -> Any:
    rows = [{"id": f"c{i}", "claim": f"Claim {i} is {'true' if i % 2 else 'wrong'}.",
             "label": "SUPPORTS" if i % 2 else "REFUTES"} for i in range(4)]
    data = tmp_path / "claims.jsonl"
    data.write_text("".join(json.dumps(r) + "\n" for r in rows))
    settings = load_settings(overrides={"method": "mad", "llm": {"cache": False}}, environ={})
    return make_plan(settings, f"fever:{data}", tmp_path / output, limit=None, seed=1)


async def test_an_errored_sample_keeps_what_it_spent_and_every_total_counts_it(tmp_path: Path) -> None:
    calls: Counter[str] = Counter()

    def fails_late(call: CallInfo, messages: list[Message], params: GenParams) -> str:
        claim = claim_of(messages)
        if "Claim 1 " in claim:
            calls[claim] += 1
            if calls[claim] == CALLS:  # the two debaters answered; the moderator's call fails
                raise RuntimeError("backend fell over")
        return truthful(call, messages, params)

    resources, _, _ = resources_for(fails_late, method="mad")
    summary = await execute(plan_for(tmp_path, "flaky"), resources, progress=False)
    failed = latest_records(tmp_path / "flaky" / "results.jsonl")["c1"]
    assert failed["error"] == "RuntimeError: backend fell over" and failed["predicted"] is None
    usage = failed["usage"]
    # The moderator's request was sent before it failed: counted; its tokens never came.
    assert usage["llm_calls"] == CALLS and usage["prompt_tokens"] > 0 and usage["completion_tokens"] > 0
    (model,) = failed["usage_by_model"]
    assert failed["usage_by_model"][model]["llm_calls"] == CALLS
    assert failed["usage_by_model"][model]["prompt_tokens"] == usage["prompt_tokens"]

    m = summary["metrics"]
    assert m["errored"] == {"c1": "RuntimeError: backend fell over"}
    assert m["cost"]["llm_calls"]["total"] == 3 * CALLS + CALLS  # three finished, one errored (all sent)
    assert m["cost"]["llm_calls"]["mean"] == (3 * CALLS + CALLS) / 4
    assert m["cost_by_model"][model]["llm_calls"] == 3 * CALLS + CALLS
    assert m["errored_spend"] == {"included": 1, "without_usage": 0}
    text = (tmp_path / "flaky" / "summary.md").read_text()
    assert "errored ones' spend before they failed, included" in text

    resources, _, _ = resources_for(truthful, method="mad")
    await execute(plan_for(tmp_path, "clean"), resources, progress=False)
    out = tmp_path / "compared"
    compare_runs([tmp_path / "flaky", tmp_path / "clean"], out, prices=parse_prices([f"{model}=1,2"]))
    flaky, clean = json.loads((out / "compare.json").read_text())["runs"]
    assert flaky["cost"]["total"]["llm_calls"] == 3 * CALLS + CALLS and flaky["cost"]["claims_with_usage"] == 4
    assert flaky["cost"]["errored_without_usage"] == 0
    prompt = sum(r["usage"]["prompt_tokens"] for r in latest_records(tmp_path / "flaky" / "results.jsonl").values())
    completion = sum(r["usage"]["completion_tokens"]
                     for r in latest_records(tmp_path / "flaky" / "results.jsonl").values())
    assert flaky["cost"]["dollars"] == (prompt * 1 + completion * 2) / 1e6
    assert clean["cost"]["total"]["llm_calls"] == 4 * CALLS


async def test_a_record_written_before_errors_kept_their_spend_is_counted_beside(tmp_path: Path) -> None:
    resources, _, _ = resources_for(truthful, method="mad")
    await execute(plan_for(tmp_path, "old"), resources, progress=False)
    results = tmp_path / "old" / "results.jsonl"
    records = [json.loads(line) for line in results.read_text().splitlines()]
    for r in records:
        if r["id"] == "c2":  # as an older runner wrote it: no usage
            r.update(error="RuntimeError: gone", predicted=None, correct=False)
            r.pop("usage"), r.pop("usage_by_model")
    results.write_text("".join(json.dumps(r) + "\n" for r in records))
    shutil.copytree(tmp_path / "old", tmp_path / "again")
    out = tmp_path / "compared"
    compare_runs([tmp_path / "old", tmp_path / "again"], out)
    run = json.loads((out / "compare.json").read_text())["runs"][0]
    assert run["cost"]["errored_without_usage"] == 1 and run["cost"]["total"]["llm_calls"] == 3 * CALLS


def test_spend_adds_up_across_recorders_and_keeps_the_longest_wall_time() -> None:
    # A medical question's options each fail or finish in a recorder of their own: the failure carries the sum.
    from factdebate.core.runtime import RunRecorder, add_spend, charged, spent_before
    from factdebate.core.types import ModelUsage, Usage

    error = RuntimeError("one option failed")
    add_spend(error, Usage(llm_calls=2, prompt_tokens=30, seconds=4.0),
              {"m": ModelUsage(llm_calls=2, prompt_tokens=30)})
    recorder = RunRecorder()
    recorder.role_usage("judge").add(Usage(llm_calls=1, prompt_tokens=5))
    recorder.model_usage("m").add(ModelUsage(llm_calls=1, prompt_tokens=5))
    try:
        with charged(recorder):
            raise error
    except RuntimeError as caught:
        spent = spent_before(caught)
    assert spent is not None
    usage, by_model = spent
    assert (usage.llm_calls, usage.prompt_tokens, usage.seconds) == (3, 35, 4.0)
    assert by_model["m"].llm_calls == 3 and spent_before(ValueError()) is None
