"""One settings model. Precedence: defaults < YAML file < environment (FACTDEBATE_*) < CLI flags / API
keyword arguments. Secrets (API keys) are read from the environment only, never from the YAML file."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any, Literal

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from factdebate.errors import ConfigError
from factdebate.tools.mcp_config import MCPServerConfig
from factdebate.tools.registry import AgentTool, RetrievalTool, SearchEngine


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")


class LLMSettings(_Strict):
    debater: str = "llama-cpp:builtin"
    judge: str | None = None  # None: same as the debater
    scorer: str | None = None
    temperature: float = 0.0
    concurrency: int | None = None  # None: what the backend says it can serve
    retries: int = Field(default=16, ge=1, le=100)  # most tries per call (first included)
    retry_budget: float = Field(default=120.0, gt=0)  # seconds one call may spend on tries and waits
    timeout: float = 120.0
    cache: bool = True
    # How an OpenAI-compatible server is asked to constrain answers (labels, query formats, JSON):
    # auto (ask the server what it is), grammar (llama.cpp server), guided (vLLM), json_schema
    # (response_format: OpenAI, Ollama...), none. The in-process llama.cpp always uses grammars.
    constrain: Literal["auto", "grammar", "guided", "json_schema", "none"] = "auto"
    # On backends that constrain: reasoning and a final "Verdict:" line in one held generation, so the
    # first answer always carries a label. Off: free answer, then a label re-ask when none is readable.
    one_call_verdict: bool = True


class ToolMADSettings(_Strict):
    rounds: int = Field(default=3, ge=1, le=10)
    k: int = Field(default=3, ge=1, le=20)
    faithfulness_threshold: float = Field(default=0.7, ge=0, le=1)
    relevance_threshold: float = Field(default=0.8, ge=0, le=1)
    # Algorithm 1 compares "the stability score" with the thresholds without saying whether that is this
    # round's score or the running average; we default to this round's and offer the average.
    threshold_on: Literal["round", "average"] = "round"
    agents: list[AgentTool] = Field(default_factory=lambda: ["rag", "search"])
    query_formulation: bool = True
    scoring: bool = True  # off: consensus on labels alone, nothing scored, judge sees no scores
    scoring_variant: Literal["stability", "consistency"] = "stability"
    relevance_questions: int = Field(default=3, ge=1, le=10)
    max_doc_chars: int = Field(default=1200, ge=100)
    judge_evidence_chars: int = Field(default=300, ge=0)

    @field_validator("agents")
    @classmethod
    def _two_or_three(cls, agents: list[AgentTool]) -> list[AgentTool]:
        if len(agents) not in (2, 3):
            raise ValueError("Tool-MAD needs 2 or 3 agents")
        return agents


class RetrievalSettings(_Strict):
    search: SearchEngine = "local"
    corpus: str = "builtin"
    milvus_uri: str | None = None  # None: a Milvus Lite file under the data directory
    wikipedia_lang: str = "en"
    # Passage and query vectors: MiniLM int8 on ONNX Runtime (fast) or float32 on torch. An index must be
    # searched with the encoder that built it; the builtin corpus is re-indexed when this changes.
    encoder: Literal["int8", "fp32"] = "int8"
    # Index and search only the first N articles of the builtin corpus: for tests and quick trials (the
    # verdicts then rest on a fraction of the evidence). None: all 10,033.
    builtin_docs: int | None = Field(default=None, ge=1)

    @field_validator("corpus")
    @classmethod
    def _corpus_name(cls, corpus: str) -> str:
        from factdebate.corpus.names import check_corpus_name

        try:
            return check_corpus_name(corpus)
        except ConfigError as exc:
            raise ValueError(str(exc)) from None


class BaselineSettings(_Strict):
    """The comparison methods of the Tool-MAD paper (docs/methods/<name>.md say what each value means)."""

    react_max_steps: int = Field(default=5, ge=1, le=20)  # thought/action/observation steps before a forced answer
    mad_rounds: int = Field(default=3, ge=1, le=10)  # MAD and MADKE debate rounds
    madke_tools: list[RetrievalTool] = Field(default_factory=lambda: ["rag", "search"])
    # None: as many answers as the most LLM calls one Tool-MAD debate with the current settings can make.
    vote_samples: int | None = Field(default=None, ge=1, le=200)
    vote_temperature: float = Field(default=0.7, ge=0, le=2)


class MedicalSettings(_Strict):
    """The paper's flexibility setting: the search agent reads scholarly abstracts, condensed by the model."""

    search: Literal["default", "openalex", "pubmed"] = "default"  # default: retrieval.search unchanged
    abstracts: int = Field(default=3, ge=1, le=10)
    summarize: bool = True


class Settings(_Strict):
    method: str = "tool-mad"
    llm: LLMSettings = Field(default_factory=LLMSettings)
    toolmad: ToolMADSettings = Field(default_factory=ToolMADSettings)
    retrieval: RetrievalSettings = Field(default_factory=RetrievalSettings)
    baselines: BaselineSettings = Field(default_factory=BaselineSettings)
    medical: MedicalSettings = Field(default_factory=MedicalSettings)
    # MCP servers whose tools agents may use as ``mcp:<server>/<tool>`` (see docs/configuration.md).
    mcp_servers: dict[str, MCPServerConfig] = Field(default_factory=dict)
    max_claim_chars: int = 2000
    concurrency: int = 4  # claims verified at once in batch runs

    def llm_for(self, role: str) -> str:
        chosen = {"judge": self.llm.judge, "scorer": self.llm.scorer}.get(role)
        return chosen or self.llm.debater


# Short environment names for the settings people change most; any other setting is reachable as
# FACTDEBATE_<SECTION>__<FIELD>, e.g. FACTDEBATE_TOOLMAD__ROUNDS=2.
ENV_ALIASES = {
    "FACTDEBATE_LLM": ("llm", "debater"),
    "FACTDEBATE_JUDGE_LLM": ("llm", "judge"),
    "FACTDEBATE_SCORER_LLM": ("llm", "scorer"),
    "FACTDEBATE_SEARCH": ("retrieval", "search"),
    "FACTDEBATE_MILVUS_URI": ("retrieval", "milvus_uri"),
    "FACTDEBATE_METHOD": ("method",),
}


def _set_path(target: dict[str, Any], path: tuple[str, ...], value: Any) -> None:
    for part in path[:-1]:
        target = target.setdefault(part, {})
    target[path[-1]] = value


def _merge(base: dict[str, Any], extra: dict[str, Any]) -> dict[str, Any]:
    out = dict(base)
    for key, value in extra.items():
        if isinstance(value, dict) and isinstance(out.get(key), dict):
            out[key] = _merge(out[key], value)
        else:
            out[key] = value
    return out


def _from_env(environ: dict[str, str]) -> dict[str, Any]:
    data: dict[str, Any] = {}
    for name, value in environ.items():
        if name in ENV_ALIASES:
            _set_path(data, ENV_ALIASES[name], value)
        elif name.startswith("FACTDEBATE_") and "__" in name:
            path = tuple(p.lower() for p in name.removeprefix("FACTDEBATE_").split("__"))
            try:
                parsed = yaml.safe_load(value) if value else value  # "2" -> 2, "[rag, none]" -> list
            except yaml.YAMLError as exc:
                problem = str(getattr(exc, "problem", None) or "not valid YAML")
                raise ConfigError(f"environment variable {name}={value[:60]!r} is not a valid value ({problem}); "
                                  "give a plain value such as 2 or a YAML list such as [rag, search]") from None
            _set_path(data, path, parsed)
    return data


def _from_file(path: Path) -> dict[str, Any]:
    try:
        loaded = yaml.safe_load(path.read_text(encoding="utf-8")) or {}
    except (OSError, yaml.YAMLError) as exc:
        raise ConfigError(f"cannot read config file {path}: {exc}") from exc
    if not isinstance(loaded, dict):
        raise ConfigError(f"config file {path} must hold a mapping of settings")
    return loaded


def load_settings(config_file: str | Path | None = None, overrides: dict[str, Any] | None = None,
                  environ: dict[str, str] | None = None) -> Settings:
    """Build settings from file, environment and explicit overrides (nested dicts, None values skipped)."""
    environ = dict(os.environ) if environ is None else environ
    data: dict[str, Any] = {}
    path = config_file or environ.get("FACTDEBATE_CONFIG")
    if path is None and Path("factdebate.yaml").exists():
        path = "factdebate.yaml"
    if path:
        data = _merge(data, _from_file(Path(path)))
    data = _merge(data, _from_env(environ))
    data = _merge(data, _drop_none(overrides or {}))
    try:
        return Settings.model_validate(data)
    except ValidationError as exc:
        problems = "; ".join(
            f"{'.'.join(str(p) for p in err['loc'])}: {err['msg']}" for err in exc.errors()
        )
        raise ConfigError(f"invalid settings: {problems}") from exc


def _drop_none(data: dict[str, Any]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key, value in data.items():
        if isinstance(value, dict):
            value = _drop_none(value)
            if value:
                out[key] = value
        elif value is not None:
            out[key] = value
    return out
