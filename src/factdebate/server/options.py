"""What a request may choose, and how that becomes verification settings.

Only options that change *how* a claim is checked are open to callers. Those that would let a caller
spend the operator's resources or reach elsewhere (arbitrary model endpoints, the Milvus URI, the claim
length limit, the cache, batch concurrency) stay with the operator."""

from __future__ import annotations

from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from factdebate.api import options_to_overrides, settings_from
from factdebate.config import Settings
from factdebate.corpus.names import PATTERN as CORPUS_PATTERN
from factdebate.errors import ConfigError
from factdebate.methods import get_method
from factdebate.tools.registry import AgentTool, SearchEngine
from factdebate.types import Verdict


class VerifyOptions(BaseModel):
    model_config = ConfigDict(extra="forbid")

    method: str | None = Field(default=None, description="Verification method (GET /v1/methods).")
    llm: str | None = Field(default=None, description="Debater model; only models the server offers.")
    judge_llm: str | None = None
    scorer_llm: str | None = None
    agents: list[AgentTool] | None = Field(
        default=None, description="Tools of the debaters, e.g. [\"rag\", \"search\"].")
    search: SearchEngine | None = Field(
        default=None, description="Search engine used by the search agent.")
    corpus: str | None = Field(default=None, pattern=CORPUS_PATTERN,
                               description="Indexed corpus for retrieval.")
    rounds: int | None = Field(default=None, ge=1, le=10)
    k: int | None = Field(default=None, ge=1, le=20, description="Documents per retrieval.")
    query_formulation: bool | None = None
    scoring: bool | None = None
    scoring_variant: Literal["stability", "consistency"] | None = None
    threshold_on: Literal["round", "average"] | None = None
    faithfulness_threshold: float | None = Field(default=None, ge=0, le=1)
    relevance_threshold: float | None = Field(default=None, ge=0, le=1)

    def chosen(self) -> dict[str, Any]:
        """The options set on this request (never the claim of a VerifyRequest)."""
        return self.model_dump(exclude_none=True, include=set(VerifyOptions.model_fields))


class VerifyRequest(VerifyOptions):
    claim: str = Field(description="The claim to check (one sentence or a short paragraph).")


def _merge(base: dict[str, Any], extra: dict[str, Any]) -> dict[str, Any]:
    out = dict(base)
    for key, value in extra.items():
        out[key] = _merge(out[key], value) if isinstance(value, dict) and isinstance(out.get(key), dict) else value
    return out


class SettingsResolver:
    """Reads the operator's settings once and applies each request's options on top of them."""

    def __init__(self, defaults: dict[str, Any], config_file: str | Path | None, allowed_llms: list[str]) -> None:
        self.base = settings_from(defaults, config_file)
        self._base_data = self.base.model_dump(mode="json")
        self.any_llm = "*" in allowed_llms
        offered = [self.base.llm_for(role) for role in ("debater", "judge", "scorer")]
        self.llms = list(dict.fromkeys([*offered, *(m for m in allowed_llms if m != "*")]))

    def resolve(self, options: VerifyOptions | dict[str, Any]) -> Settings:
        chosen = options.chosen() if isinstance(options, VerifyOptions) else dict(options)
        if not chosen:
            return self.base
        for role in ("llm", "judge_llm", "scorer_llm"):
            model = chosen.get(role)
            if model is not None and not self.any_llm and model not in self.llms:
                raise ConfigError(f"model '{model}' is not offered by this server; choose one of: "
                                  + ", ".join(self.llms))
        data = _merge(self._base_data, options_to_overrides(chosen))
        try:
            settings = Settings.model_validate(data)
        except ValueError as exc:
            raise ConfigError(f"invalid options: {exc}") from exc
        get_method(settings.method)  # unknown method -> ConfigError now, not mid-stream
        return settings


def public_verdict(verdict: Verdict) -> Verdict:
    """The verdict as callers see it: the Milvus URI of the operator may carry credentials, so it is hidden."""
    retrieval = verdict.config.get("retrieval")
    if isinstance(retrieval, dict) and retrieval.get("milvus_uri"):
        verdict.config = {**verdict.config, "retrieval": {**retrieval, "milvus_uri": "(set by the operator)"}}
    return verdict
