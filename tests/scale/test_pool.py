"""Batch and evaluation runs on a local two-worker Ray instance with the scripted backend: every claim
exactly once, verdicts identical to the local executor's, resume rules kept, and a worker killed mid-claim
neither loses nor duplicates its claims."""

from __future__ import annotations

import asyncio
import json
import os
import signal
from pathlib import Path
from typing import Any

import pytest

from factdebate.eval.runner import execute, make_plan
from factdebate.run.batch import read_claims, run_batch
from factdebate.scale.pool import RayPool, WorkerStartError, slim_plan
from factdebate.settings.load import load_settings
from factdebate.settings.model import Settings
from tests.scale.support import records, static_resources, write_claims

pytestmark = pytest.mark.usefixtures("ray_instance")


def settings_for(llm: str, **scale: Any) -> Settings:
    return load_settings(overrides={"llm": {"debater": llm, "cache": False},
                                    "scale": {"executor": "ray", "workers": 2, **scale}}, environ={})


def comparable(record: dict[str, Any]) -> dict[str, Any]:
    """A record without what may differ between executors: wall-clock seconds, the scale settings, and the
    speculative work started and dropped (how far a guessed round got before the real one ended is timing)."""
    out = dict(record)
    usages = [out.get("usage"), *(out.get("usage_by_role") or {}).values(), *(out.get("usage_by_model") or {}).values()]
    for usage in usages:
        if isinstance(usage, dict):
            for timing in ("seconds", "speculative_calls", "speculative_tokens", "speculative_prompt_tokens",
                           "speculative_completion_tokens"):
                usage.pop(timing, None)
    if isinstance(out.get("config"), dict):
        out["config"] = {k: v for k, v in out["config"].items() if k != "scale"}
    return out


async def ray_batch(claims: Path, output: Path, settings: Settings, **kwargs: Any) -> Any:
    async with RayPool(settings, builder=static_resources) as pool:
        stats = await run_batch(read_claims(claims), output, settings, None, progress=False, executor=pool, **kwargs)
        return stats, pool.restarts


def test_twenty_claims_on_two_workers_each_exactly_once(tmp_path: Path) -> None:
    claims = write_claims(tmp_path / "claims.jsonl", 20)
    output = tmp_path / "results.jsonl"
    settings = settings_for("scripted:agree@0.02", worker_concurrency=3)
    stats, restarts = asyncio.run(ray_batch(claims, output, settings))
    rows = records(output)
    assert sorted(r["id"] for r in rows) == sorted(f"c{i}" for i in range(20))  # each once, none missing
    assert not [r for r in rows if r.get("error")]
    assert {r["label"] for r in rows} == {"SUPPORTS"}
    assert (stats.done, stats.skipped, stats.errors, restarts) == (20, 0, 0, 0)
    # A re-run finds every claim done and runs nothing.
    again, _ = asyncio.run(ray_batch(claims, output, settings))
    assert (again.done, again.skipped) == (0, 20)
    assert len(records(output)) == 20


def test_verdicts_identical_to_the_local_executor(tmp_path: Path) -> None:
    """The judge path (the scripted debaters disagree every round) and the consensus path."""
    for llm in ("scripted:disagree", "scripted:agree"):
        claims = write_claims(tmp_path / f"{llm}.jsonl", 6)
        local_settings = settings_for(llm).model_copy(update={"scale": Settings().scale})
        local_out, ray_out = tmp_path / f"local-{llm}.jsonl", tmp_path / f"ray-{llm}.jsonl"
        asyncio.run(run_batch(read_claims(claims), local_out, local_settings, static_resources(local_settings, None),
                              progress=False))
        asyncio.run(ray_batch(claims, ray_out, settings_for(llm)))
        local = {r["id"]: comparable(r) for r in records(local_out)}
        remote = {r["id"]: comparable(r) for r in records(ray_out)}
        assert local == remote
        assert {r["decided_by"] for r in local.values()} == ({"judge"} if "disagree" in llm else {"consensus"})


def test_a_worker_killed_mid_claim_loses_and_duplicates_nothing(tmp_path: Path) -> None:
    claims = write_claims(tmp_path / "claims.jsonl", 12)
    output = tmp_path / "results.jsonl"
    settings = settings_for("scripted:agree@0.15", worker_concurrency=2)
    killed: list[int] = []

    async def go() -> tuple[Any, int, list[int]]:
        async with RayPool(settings, builder=static_resources) as pool:
            pids = await pool.pids()

            def kill_once(_: dict[str, Any]) -> None:
                if not killed:  # after the first record: both workers still hold claims in flight
                    os.kill(pids[0], signal.SIGKILL)
                    killed.append(pids[0])

            stats = await run_batch(read_claims(claims), output, settings, None, progress=False, executor=pool,
                                    on_result=kill_once)
            return stats, pool.restarts, await pool.pids()

    stats, restarts, pids_after = asyncio.run(go())
    rows = records(output)
    assert killed and killed[0] not in pids_after  # the killed worker was replaced
    assert restarts == 1
    assert sorted(r["id"] for r in rows) == sorted(f"c{i}" for i in range(12))
    assert not [r for r in rows if r.get("error")]
    assert (stats.done, stats.errors) == (12, 0)


def test_eval_on_ray_matches_local(tmp_path: Path) -> None:
    data = write_claims(tmp_path / "data.jsonl", 8, label=True)
    settings = settings_for("scripted:disagree")

    async def run(executor: str) -> dict[str, Any]:
        chosen = settings if executor == "ray" else settings.model_copy(update={"scale": Settings().scale})
        plan = make_plan(chosen, f"claims:{data}", tmp_path / executor, limit=None, seed=0)
        if executor == "local":
            return await execute(plan, static_resources(chosen, None), progress=False)
        async with RayPool(plan.settings, builder=static_resources, context=slim_plan(plan)) as pool:
            return await execute(plan, progress=False, executor=pool)

    local, remote = asyncio.run(run("local")), asyncio.run(run("ray"))
    assert remote["metrics"]["n"] == local["metrics"]["n"] == 8
    assert remote["metrics"]["accuracy"] == local["metrics"]["accuracy"]
    local_rows = {r["id"]: comparable(r) for r in records(tmp_path / "local" / "results.jsonl")}
    ray_rows = {r["id"]: comparable(r) for r in records(tmp_path / "ray" / "results.jsonl")}
    assert local_rows == ray_rows and len(ray_rows) == 8


def test_resume_rules_hold_across_executors(tmp_path: Path) -> None:
    """Claims finished by a local run are skipped on Ray; an errored one is run again and replaced."""
    claims = write_claims(tmp_path / "claims.jsonl", 10)
    output = tmp_path / "results.jsonl"
    settings = settings_for("scripted:agree")
    local = settings.model_copy(update={"scale": Settings().scale})
    first = read_claims(claims)[:5]
    asyncio.run(run_batch(first, output, local, static_resources(local, None), progress=False))
    broken = records(output)[0] | {"error": "a transient failure"}
    with output.open("a", encoding="utf-8") as fh:
        fh.write(json.dumps(broken) + "\n")
    events: list[dict[str, Any]] = []

    async def go() -> Any:
        async with RayPool(settings, builder=static_resources, trace=True) as pool:
            return await run_batch(read_claims(claims), output, settings, None, progress=False, executor=pool,
                                   sinks=[events.append])

    stats = asyncio.run(go())
    assert (stats.skipped, stats.done) == (4, 6)
    rows = records(output)
    assert sorted(r["id"] for r in rows) == sorted(f"c{i}" for i in range(10))
    assert not [r for r in rows if r.get("error")]
    # The workers' trace events reach the driver's sinks: one run per claim that ran.
    assert sorted(e["claim"] for e in events if e["event"] == "run_started") == sorted(
        f"Claim number {i} is true." for i in (0, *range(5, 10)))


def test_a_worker_that_cannot_start_says_why() -> None:
    settings = load_settings(overrides={"method": "single", "llm": {"debater": "openai:some-model"},
                                        "scale": {"executor": "ray", "workers": 2}}, environ={})

    async def go() -> None:
        async with RayPool(settings):
            pass

    with pytest.raises(WorkerStartError, match="needs an API key: set the environment variable OPENAI_API_KEY"):
        asyncio.run(go())


@pytest.mark.slow
def test_cli_batch_on_ray_with_the_real_indexes(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The default path: the builtin corpus indexed once by the driver, each worker searching its own copy
    of the Milvus Lite folder and the shared tantivy index; scripted model. Then the same batch locally."""
    from factdebate.cli.main import run

    monkeypatch.setenv("FACTDEBATE_RETRIEVAL__BUILTIN_DOCS", "40")
    claims = write_claims(tmp_path / "claims.jsonl", 6)
    output = tmp_path / "results.jsonl"
    code = run(["verify", "--input", str(claims), "--output", str(output), "--llm", "scripted:agree",
                "--no-cache", "--executor", "ray", "--workers", "2"])
    rows = records(output)
    assert code == 0, [r.get("error") for r in rows if r.get("error")]
    assert sorted(r["id"] for r in rows) == sorted(f"c{i}" for i in range(6))
    assert all(r["rounds"][0]["turns"][0]["evidence"] for r in rows)  # real passages came back
    assert {r["config"]["scale"]["executor"] for r in rows} == {"ray"}
    # The workers' copies of the Milvus Lite folder find what the original finds: same records as a local run.
    local = tmp_path / "local.jsonl"
    assert run(["verify", "--input", str(claims), "--output", str(local), "--llm", "scripted:agree",
                "--no-cache"]) == 0
    assert {r["id"]: comparable(r) for r in records(local)} == {r["id"]: comparable(r) for r in rows}


def test_cli_eval_on_ray(tmp_path: Path) -> None:
    """`factdebate eval --executor ray`: the driver writes results and the summary with running accuracy."""
    from factdebate.cli.main import run

    data = write_claims(tmp_path / "data.jsonl", 6, label=True)
    out = tmp_path / "run"
    code = run(["eval", "-d", f"claims:{data}", "-o", str(out), "--llm", "scripted:agree", "--agents", "none,none",
                "--no-scoring", "--no-cache", "--executor", "ray", "--workers", "2"])
    assert code == 0
    summary = json.loads((out / "summary.json").read_text(encoding="utf-8"))
    assert summary["metrics"]["n"] == 6 and summary["metrics"]["accuracy"] == 1.0
    assert sorted(r["id"] for r in records(out / "results.jsonl")) == [f"c{i}" for i in range(6)]


def test_llm_base_urls_are_spread_over_the_workers(tmp_path: Path) -> None:
    """Two OpenAI-compatible servers in llm.base_urls: worker i sends to server i mod 2 (real HTTP)."""
    from tests.fake_openai import FakeOpenAI

    claims = write_claims(tmp_path / "claims.jsonl", 8)
    output = tmp_path / "results.jsonl"
    with FakeOpenAI(reply="The documents disagree.\nREFUTES") as one, \
            FakeOpenAI(reply="The documents disagree.\nREFUTES") as two:
        settings = load_settings(overrides={
            "llm": {"debater": "openai:served-model", "cache": False, "constrain": "none",
                    "base_urls": [one.base_url, two.base_url]},
            "methods": {"tool-mad": {"agents": ["none", "none"], "scoring": False}},
            "scale": {"executor": "ray", "workers": 2, "worker_concurrency": 2}}, environ={})

        async def go() -> Any:
            async with RayPool(settings) as pool:
                return await run_batch(read_claims(claims), output, settings, None, progress=False, executor=pool)

        stats = asyncio.run(go())
    assert (stats.done, stats.errors) == (8, 0)
    assert {r["label"] for r in records(output)} == {"REFUTES"}
    assert one.requests and two.requests  # both servers served
    assert {r["body"]["model"] for r in one.requests + two.requests} == {"served-model"}
