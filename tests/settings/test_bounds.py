"""Every number a setting holds has its bounds: a count of 0 hung a batch, -1 crashed
it, a negative timeout hung every call. One walk over every settings model (the verification settings with
each method's section, the evidence memory's, the service's with its caps, an MCP server's) tries 0, -1 and
a huge value for each numeric field: the huge value and -1 are refused everywhere, 0 wherever it does not
mean something on purpose (listed below with what it means). A field added later is walked too."""

from __future__ import annotations

import types
import typing
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from pydantic import BaseModel, ValidationError

from factdebate.cli.main import run
from factdebate.memory.settings import MemorySettings
from factdebate.methods.base import Method
from factdebate.server.config import ServiceConfig
from factdebate.settings.model import Settings
from factdebate.tools.mcp_config import MCPServerConfig

HUGE = 10**15

# Fields where 0 is a setting of its own, and what it means.
ZERO_MEANS = {
    "guard.checks_at_once": "8 per CPU core (server/ops/shedding.py)",
    "guard.max_loop_lag_ms": "admission does not watch the event loop's lateness",
    "guard.max_cpu_share": "admission does not forecast the checks' CPU",
    "guard.max_evidence_items": "callers may send no evidence of their own",
    "llm.temperature": "greedy decoding",
    "llm.reasoning_tokens": "no thinking budget beyond the answer's",
    "scale.worker_gpus": "a worker without a GPU",
    "memory.semantic_threshold": "recall any record by meaning",
    "service.rate_limit_per_minute": "no rate limit",
    "service.claims_per_minute": "no claims limit",
    "service.stream_flush_seconds": "write each event at once",
    "service.kept_checks_per_key": "keep no finished check (no links given)",
    "service.kept_check_calls_bytes": "keep no model calls with a finished check",
    "methods.dpd.min_rounds": "the judges may stop after the opening",
    "methods.dpd.max_rounds": "the opening only",
    "methods.dpd.consensus_threshold": "any consensus stops the debate",
    "methods.dpd.summary_temperature": "greedy summaries",
    "methods.dpd.judge_evidence": "judges read no snippets",
    "methods.selfcheck.samples": "one verdict from the model's own knowledge",
    "methods.selfcheck.shots": "no worked examples",
    "methods.selfcheck.temperature": "greedy samples",
    "methods.selfcheck.threshold": "any inconsistency refutes",
    "methods.tool-mad.faithfulness_threshold": "no faithfulness needed",
    "methods.tool-mad.relevance_threshold": "no relevance needed",
    "methods.tool-mad.judge_evidence_chars": "the judge reads no evidence",
    "methods.vote.temperature": "greedy voters",
    "methods.wecheck.threshold": "a similarity threshold (cosine, -1 to 1)",
}
# Fields where -1 is in range: a cosine similarity.
MINUS_ONE_MEANS = {"methods.wecheck.threshold": "every claim is similar enough"}


def _numeric(annotation: Any) -> bool:
    union = typing.get_origin(annotation) in (typing.Union, types.UnionType)
    kinds = [a for a in (typing.get_args(annotation) if union else (annotation,)) if a is not type(None)]
    return len(kinds) == 1 and kinds[0] in (int, float)


def _walk(model: type[BaseModel], prefix: str) -> Iterator[tuple[str, type[BaseModel], str]]:
    for name, info in model.model_fields.items():
        annotation = info.annotation
        if isinstance(annotation, type) and issubclass(annotation, BaseModel):
            yield from _walk(annotation, f"{prefix}{name}.")
        elif _numeric(annotation):
            yield f"{prefix}{name}", model, name


def numeric_fields() -> list[tuple[str, type[BaseModel], str]]:
    roots: list[tuple[type[BaseModel], str]] = [(Settings, ""), (MemorySettings, "memory."),
                                                (ServiceConfig, "service."), (MCPServerConfig, "mcp_servers.")]
    roots += [(method.settings_model, f"methods.{name}.") for name, method in sorted(Method.registered().items())]
    return [field for model, prefix in roots for field in _walk(model, prefix)]


FIELDS = numeric_fields()
MCP_REQUIRED = {"command": "factdebate-tools"}  # an MCP server needs a command or a URL


def refused(model: type[BaseModel], name: str, value: float) -> bool:
    """Whether ``model`` refuses ``value`` for ``name`` itself (a model-level check that other fields fail,
    DPD's fewest rounds over its most, is not the bound under test)."""
    data = {**(MCP_REQUIRED if model is MCPServerConfig else {}), name: value}
    try:
        model.model_validate(data)
    except ValidationError as exc:
        return any(err["loc"][:1] == (name,) for err in exc.errors())
    return False


def test_the_walk_finds_the_fields_of_every_model() -> None:
    paths = {path for path, _, _ in FIELDS}
    assert {"concurrency", "llm.timeout", "llm.concurrency", "retrieval.k", "scale.shard_docs",
            "memory.recall_limit", "service.batch_concurrency", "service.caps.max_rounds",
            "mcp_servers.timeout", "methods.dpd.max_rounds", "methods.mermaid.max_steps"} <= paths
    assert set(ZERO_MEANS) <= paths and set(MINUS_ONE_MEANS) <= paths  # the lists name real fields


@pytest.mark.parametrize(("path", "model", "name"), FIELDS, ids=[path for path, _, _ in FIELDS])
def test_zero_negative_and_huge_values_are_refused(path: str, model: type[BaseModel], name: str) -> None:
    assert refused(model, name, HUGE), f"{path}: {HUGE} accepted; give it an upper bound (le=...)"
    assert refused(model, name, -1) != (path in MINUS_ONE_MEANS), f"{path}: -1 accepted; give it a lower bound"
    assert refused(model, name, 0) != (path in ZERO_MEANS), (
        f"{path}: 0 accepted; give it a lower bound (ge=1, gt=0) or list what 0 means in ZERO_MEANS")


@pytest.mark.parametrize("value", ["0", "-1"])
def test_cli_refuses_a_concurrency_below_one_in_one_line(value: str, tmp_path: Path,
                                                         capsys: pytest.CaptureFixture[str]) -> None:
    claims = tmp_path / "claims.jsonl"
    claims.write_text('"Paris is in France."\n', encoding="utf-8")
    out = tmp_path / "out.jsonl"
    code = run(["verify", "--input", str(claims), "--output", str(out), "--llm", "scripted:agree",
                "--agents", "none,none", "--no-cache", "--concurrency", value])
    err = capsys.readouterr().err
    assert code == 2 and "concurrency" in err and "internal error" not in err, err
    assert not out.exists()


def test_a_negative_timeout_from_the_environment_is_refused(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                            capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setenv("FACTDEBATE_LLM__TIMEOUT", "-5")
    code = run(["verify", "Paris is in France.", "--llm", "scripted:agree", "--agents", "none,none", "--no-cache"])
    err = capsys.readouterr().err
    assert code == 2 and "llm.timeout" in err and "greater than 0" in err, err


@pytest.mark.parametrize("value", ["0", "-1"])
def test_eval_refuses_a_concurrency_below_one(value: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "run"
    code = run(["eval", "--dataset", "countries", "--output", str(out), "--llm", "scripted:agree",
                "--concurrency", value])
    err = capsys.readouterr().err
    assert code == 2 and "--concurrency" in err and "greater than or equal to 1" in err, err
    assert not out.exists()
