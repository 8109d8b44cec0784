"""One settings model. Precedence: defaults < YAML file < environment (FACTDEBATE_*) < CLI flags / API
keyword arguments. Secrets (API keys) are read from the environment only, never from the YAML file."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator

from factdebate.core.errors import ConfigError
from factdebate.methods.base import all_methods
from factdebate.settings.legacy import upgrade_settings_data
from factdebate.tools.mcp_config import MCPServerConfig
from factdebate.tools.registry import SearchEngine


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")


class LLMSettings(_Strict):
    debater: str = "llama-cpp:builtin"
    judge: str | None = None  # shorthand for roles.judge; None: same as the debater
    scorer: str | None = None  # shorthand for roles.scorer
    # Any role a method asks for (judge, scorer, moderator, judge-2...) -> model; unnamed roles use the debater.
    roles: dict[str, str] = Field(default_factory=dict)
    temperature: float = 0.0
    concurrency: int | None = None  # None: what the backend says it can serve
    # Requests in flight to one model server (base URL) at once, all roles, agents and claims of the
    # process together; the rest wait their turn, which counts against no timeout. None: 1 for a server on
    # this machine (a local server may serve one at a time), 64 for any other (llm/in_flight.py).
    max_in_flight: int | None = Field(default=None, ge=1, le=1024)
    retries: int = Field(default=16, ge=1, le=100)  # most tries per call (first included)
    # Seconds one call's retries may spend: the waits and the tries after the first (the first try is
    # bounded by ``timeout`` alone, so a timed-out call is still tried again).
    retry_budget: float = Field(default=120.0, gt=0)
    timeout: float = 120.0  # seconds per try
    cache: bool = True
    # How an OpenAI-compatible server is asked to constrain answers (labels, query formats, JSON):
    # auto (ask the server what it is), grammar (llama.cpp server), guided (vLLM), json_schema
    # (response_format: OpenAI, Ollama...), none. The in-process llama.cpp always uses grammars.
    constrain: Literal["auto", "grammar", "guided", "json_schema", "none"] = "auto"
    # On backends that constrain: reasoning and a final "Verdict:" line in one held generation, so the
    # first answer always carries a label. Off: free answer, then a label re-ask when none is readable.
    one_call_verdict: bool = True
    # Several OpenAI-compatible servers (vLLM replicas, say) serving the same model: Ray workers take one
    # each, round-robin; the local executor uses the first. Empty: OPENAI_BASE_URL (one server or a gateway).
    base_urls: list[str] = Field(default_factory=list)


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
    k: int = Field(default=3, ge=1, le=20)  # documents per retrieval, for every method
    max_doc_chars: int = Field(default=1200, ge=100)  # each passage is cut to this length
    evidence: Literal["retrieved", "given", "both"] = Field(
        default="retrieved", description="Evidence the agents get: retrieved by their tools, given with the "
        "claim by the dataset (knowledge, contexts, abstracts, gold evidence), or both.")
    # Leakage controls for every search-like tool (MERMAID's MCP servers, Tool-MAD's search agent): evidence
    # from before this date only (YYYY-MM-DD or DD-MM-YYYY), where the engine can tell; a per-sample date
    # (AVeriTeC's claim_date) tightens it during an evaluation. See docs/methods/mermaid.md.
    search_before: str | None = Field(default=None, description="Evidence before this date only, where the "
                                      "engine can tell (YYYY-MM-DD).")
    exclude_domains: list[str] = Field(default_factory=list, description="Domains whose results are dropped.")
    exclude_fact_checkers: bool = Field(default=False, description="Also drop the built-in list of "
                                        "fact-checking sites.")

    @field_validator("search_before")
    @classmethod
    def _day(cls, value: str | None) -> str | None:
        from factdebate.core.claim_context import iso_day

        return iso_day(value)

    @field_validator("corpus")
    @classmethod
    def _corpus_name(cls, corpus: str) -> str:
        from factdebate.corpus.names import check_corpus_name

        try:
            return check_corpus_name(corpus)
        except ConfigError as exc:
            raise ValueError(str(exc)) from None


class ScaleSettings(_Strict):
    """Where batch claims run (docs/scale.md): in this process, or sharded over a pool of Ray workers."""

    executor: Literal["local", "ray"] = "local"
    ray_address: str | None = None  # auto, ray://host:port; None: start a local Ray instance
    workers: int = Field(default=2, ge=1, le=1024)  # Ray actors, each with its own resources
    worker_concurrency: int | None = Field(default=None, ge=1)  # claims at once per worker; None: concurrency
    worker_cpus: float = Field(default=1.0, gt=0)  # Ray CPUs reserved per worker
    # Milvus Lite serves one process: each Ray worker searches its own copy of the folder. Off: refuse to
    # start when workers would share one Lite database (use a Milvus server URI instead).
    lite_copy: bool = True


class MedicalSettings(_Strict):
    """The paper's flexibility setting: the search agent reads scholarly abstracts, condensed by the model."""

    search: Literal["default", "openalex", "pubmed"] = "default"  # default: retrieval.search unchanged
    abstracts: int = Field(default=3, ge=1, le=10)
    summarize: bool = True


class ResponseSettings(_Strict):
    """Response-level checking (``factdebate check-response``, response datasets in ``eval``)."""

    max_claims: int = Field(default=12, ge=1, le=100, description="Most atomic claims taken from one response.")
    drop_subjective: bool = Field(default=False, description="Remove opinions and other subjective content "
                                  "before extracting claims (DPD's dialogue mode).")
    claims: Literal["given", "extract"] = Field(default="given", description="On datasets that supply a "
                                                "response's atomic claims: check those (given, as FIRE and "
                                                "the papers do) or extract claims anew (extract).")
    claim_concurrency: int = Field(default=4, ge=1, le=64, description="Claims of one response checked at once.")
    max_response_chars: int = Field(default=20000, ge=100, description="Longest response accepted.")
    max_question_chars: int = Field(default=2000, ge=10, description="Longest question (the one the response "
                                    "answers) accepted.")


class Settings(_Strict):
    method: str = "tool-mad"
    llm: LLMSettings = Field(default_factory=LLMSettings)
    retrieval: RetrievalSettings = Field(default_factory=RetrievalSettings)
    # One section per registered method, validated by the method's own settings model (factdebate.methods.base).
    methods: dict[str, Any] = Field(default_factory=dict, validate_default=True)
    medical: MedicalSettings = Field(default_factory=MedicalSettings)
    response: ResponseSettings = Field(default_factory=ResponseSettings)
    # MCP servers whose tools agents may use as ``mcp:<server>/<tool>`` (see docs/configuration.md).
    mcp_servers: dict[str, MCPServerConfig] = Field(default_factory=dict)
    max_claim_chars: int = 2000
    concurrency: int = 4  # claims verified at once in batch runs
    scale: ScaleSettings = Field(default_factory=ScaleSettings)

    @model_validator(mode="before")
    @classmethod
    def _upgrade(cls, data: Any) -> Any:
        return upgrade_settings_data(data) if isinstance(data, dict) else data

    @field_validator("methods")
    @classmethod
    def _validate_methods(cls, sections: dict[str, Any]) -> dict[str, Any]:
        registered = all_methods()
        given = dict(sections)
        unknown = sorted(set(given) - set(registered))
        if unknown:
            raise ValueError(f"no method named {', '.join(unknown)}; methods: {', '.join(registered)}")
        out: dict[str, Any] = {}
        for name, method in registered.items():
            value = given.get(name) or {}
            model = method.settings_model
            out[name] = value if isinstance(value, model) else _section(name, model, value)
        return out

    def llm_for(self, role: str) -> str:
        chosen = self.llm.roles.get(role) or {"judge": self.llm.judge, "scorer": self.llm.scorer}.get(role)
        if not chosen and role.startswith("judge-"):  # one judge of a panel (DPD): the judge's model
            return self.llm_for("judge")
        return chosen or self.llm.debater


def _section(name: str, model: type[BaseModel], value: Any) -> BaseModel:
    try:
        return model.model_validate(value)
    except ValidationError as exc:
        problems = "; ".join(f"methods.{name}.{'.'.join(str(p) for p in err['loc'])}: {err['msg']}"
                             for err in exc.errors())
        raise ValueError(problems) from None
