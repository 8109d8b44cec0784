"""One settings model: every setting is a ``Field`` whose description is its help text and whose metadata
(:mod:`factdebate.core.fields`) says how it is offered. Values come from settings/load.py; secrets (API keys)
from the environment only."""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, PrivateAttr, ValidationError, field_validator, model_validator

from factdebate.core.fields import offered
from factdebate.corpus.builtin import BUILTIN_CORPUS
from factdebate.corpus.names import CorpusName
from factdebate.llm.model_params import REASONING_TOKENS
from factdebate.methods.base import Method
from factdebate.settings.config_file import ConfigFile
from factdebate.settings.legacy import upgrade_settings_data
from factdebate.tools.mcp_config import MCPServerConfig
from factdebate.tools.registry import SearchEngine, auto_search_engine
from factdebate.util.errors import ConfigError
from factdebate.util.textsafe import checked_input

WIKIPEDIA_LANG = re.compile(r"[A-Za-z](?:[A-Za-z-]{0,10}[A-Za-z])?")


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")


class LLMSettings(_Strict):
    """Which model plays each role, and how calls to it are made."""

    debater: str = Field(
        title="Debater model", default="llama-cpp:builtin",
        json_schema_extra=offered("llm", env="FACTDEBATE_LLM", group="models"),
        description="openai:<model>, llama-cpp:<file>|qwen2.5-coder-1.5b|builtin; every role without a model of its "
                    "own uses it. Default: llama-cpp:qwen2.5-coder-1.5b where `factdebate setup` installed it, "
                    "else llama-cpp:builtin (SmolLM2-135M, tiny and fast, near chance).")
    judge: str | None = Field(
        title="Judge model", default=None,
        json_schema_extra=offered("judge_llm", env="FACTDEBATE_JUDGE_LLM", group="models"),
        description="The model that decides when the debaters do not agree (the same as roles.judge; "
                    "default: the debater's).")
    scorer: str | None = Field(
        title="Scorer model", default=None,
        json_schema_extra=offered("scorer_llm", env="FACTDEBATE_SCORER_LLM", group="models"),
        description="The model that scores the debaters' answers (the same as roles.scorer; default: the "
                    "debater's).")
    roles: dict[str, str] = Field(default_factory=dict, description="Model of any role a method asks for (judge, "
                                  "scorer, moderator, judge-2...); a role without one uses the debater's.")
    temperature: float = Field(
        title="Sampling temperature", default=0.0, ge=0, le=2,
        json_schema_extra=offered("temperature", operator_only=True, group="models"),
        description="Randomness of every model call (0: the likeliest answer).")
    concurrency: int | None = Field(default=None, ge=1, le=1024,
                                    description="Calls to one model at once (default: what its "
                                    "backend says it can serve).")
    max_in_flight: int | None = Field(
        title="Requests in flight", default=None, ge=1, le=1024,
        json_schema_extra=offered("llm_max_in_flight", operator_only=True, group="limits"),
        description="Most requests in flight to one model server at once, all roles, agents and claims of the "
                    "process together; the rest wait their turn, outside any timeout (default: on this machine what "
                    "the server says it serves at once, else 1; 64 elsewhere).")
    retries: int = Field(default=16, ge=1, le=100, description="Most tries per call, the first included.")
    retry_budget: float = Field(default=120.0, gt=0, le=86_400, description="Seconds one call's retries may spend: the "
                                "waits and the tries after the first (the first try is bounded by timeout "
                                "alone, so a timed-out call is still tried again).")
    timeout: float = Field(default=120.0, gt=0, le=86_400, description="Seconds per try.")
    reasoning_tokens: int = Field(
        title="Reasoning budget", default=REASONING_TOKENS, ge=0, le=100_000,
        json_schema_extra=offered(operator_only=True, group="models"),
        description="Completion tokens a reasoning model (OpenAI's o-series, GPT-5) may spend thinking, on top "
        "of what each call allows its visible answer: they are sent together as max_completion_tokens. A cap, "
        "not a spend; too low and the model returns empty answers.")
    cache: bool = Field(title="Cache answers", default=True, description="Reuse cached LLM answers.",
                        json_schema_extra=offered("cache", operator_only=True, group="models"))
    constrain: Literal["auto", "grammar", "guided", "json_schema", "none"] = Field(
        default="auto", description="How an OpenAI-compatible server is asked to constrain answers (labels, "
        "query formats, JSON): auto (ask the server what it is), grammar (llama.cpp server), guided (vLLM), "
        "json_schema (OpenAI, Ollama...), none. The in-process llama.cpp always uses grammars.")
    one_call_verdict: bool = Field(default=True, description="On backends that constrain: reasoning and a final "
                                   "'Verdict:' line in one held generation, so the first answer always carries "
                                   "a label (off: a free answer, then a label re-ask when none is readable).")
    number_notes: bool | Literal["auto"] = Field(
        default="auto", description="Under a debater's documents, a line naming the claim's numbers that no "
        "document writes and the numbers the documents' closest sentences give (Tool-MAD, MADKE): small models "
        "compare digits poorly. auto: on for the in-process model (llama-cpp:), off for served ones; false: the "
        "papers' prompts, documents only.")
    stream: bool | Literal["auto"] = Field(
        default="auto", description="Ask OpenAI-compatible servers for answers as streams, so that a call cut "
        "short stops generating at the server: true, false, or auto (streams, except from a server that cut one "
        "or refused the stream parameters; factdebate docs robustness).")
    base_urls: list[str] = Field(default_factory=list, json_schema_extra=offered(reaches="endpoint"),
                                 description="OpenAI-compatible servers of the same model "
                                 "(vLLM replicas): Ray workers take one each, round-robin; the local executor "
                                 "uses the first (empty: OPENAI_BASE_URL, one server or a gateway).")


class RetrievalSettings(_Strict):
    """Where evidence comes from, for every method that retrieves."""

    search: SearchEngine = Field(
        title="Search engine", default="auto", validate_default=True,
        json_schema_extra=offered("search", env="FACTDEBATE_SEARCH", group="evidence"),
        description="What the search agent searches: auto (tavily when TAVILY_API_KEY is set, else local), local, "
                    "tavily, wikipedia.")
    corpus: CorpusName = Field(
        title="Search corpus", default=BUILTIN_CORPUS, json_schema_extra=offered("corpus", group="evidence"),
        description="Indexed corpus to retrieve from (default builtin).")
    milvus_uri: str | None = Field(
        title="Milvus server", default=None,
        json_schema_extra=offered("milvus_uri", operator_only=True, env="FACTDEBATE_MILVUS_URI", group="evidence",
                                  reaches="endpoint"),
        description="URI of a Milvus server (default: a Milvus Lite file under the data directory).")
    wikipedia_lang: str = Field(default="en", description="Language edition of the online Wikipedia: its code "
                                "(en, de, zh-yue), the first part of the host name queries go to.")
    encoder: Literal["int8", "fp32"] = Field(
        default="int8", description="Passage, query and scoring vectors: MiniLM int8 on ONNX Runtime (fast) or "
        "float32 on torch. An index is searched with the encoder that built it: the builtin corpus is re-indexed when "
        "this changes.")
    builtin_docs: int | None = Field(default=None, ge=1, le=10_000_000, description="Index and search only the first N "
                                     "articles of the builtin corpus, for tests and quick trials (the verdicts "
                                     "then rest on part of the evidence; default: all 10,033).")
    while_indexing: Literal["full_text", "wait"] = Field(
        default="full_text", description="What the rag tool searches while the built-in corpus's vector index is "
        "still being built: full_text (the full-text index at once, the vectors built in the background and searched "
        "once complete; a verdict made so lists the rag_full_text deviation) or wait (the first claim waits minutes "
        "for the vectors). Evaluations and batches always wait, so that all their verdicts search alike.")
    k: int = Field(
        title="Documents per retrieval", default=3, ge=1, le=20,
        json_schema_extra=offered("k", short="-k", group="evidence"),
        description="Passages each search returns, for every method.")
    max_doc_chars: int = Field(
        title="Passage length", default=1200, ge=100, le=100_000,
        json_schema_extra=offered("max_doc_chars", operator_only=True, group="length"),
        description="Characters kept of each retrieved passage.")
    evidence: Literal["retrieved", "given", "both"] = Field(
        title="Evidence source", default="retrieved",
        json_schema_extra=offered("evidence", operator_only=True, group="evidence"),
        description="Evidence the agents get: retrieved by their tools, given with the claim by the dataset "
                    "(knowledge, contexts, abstracts, gold evidence), or both.")  # no route of the service takes it
    search_before: str | None = Field(
        title="Evidence before", default=None, json_schema_extra=offered("search_before", group="leakage"),
        description="Leakage control: evidence before this date only (YYYY-MM-DD), where the engine can tell; "
        "in an evaluation a sample's own date (AVeriTeC's claim_date) tightens it.")
    exclude_domains: list[str] = Field(
        title="Excluded domains", default_factory=list, json_schema_extra=offered("exclude_domains", group="leakage"),
        description="Leakage control: domains whose search results are dropped.")
    exclude_fact_checkers: bool = Field(
        title="Exclude fact-checkers", default=False,
        json_schema_extra=offered("exclude_fact_checkers", group="leakage"),
        description="Leakage control: drop the built-in list of fact-checking sites.")

    @field_validator("search")
    @classmethod
    def _resolve_auto(cls, engine: str) -> str:
        # Resolved where the settings are read (the operator's environment, for the service), so a verdict's
        # settings and a run's run.json name the engine that actually searched.
        return auto_search_engine() if engine == "auto" else engine

    @field_validator("wikipedia_lang")
    @classmethod
    def _language_code(cls, lang: str) -> str:
        # It becomes the host name's first part (https://{lang}.wikipedia.org): "127.0.0.1:8080/#" would send
        # every query to that server instead.
        if not WIKIPEDIA_LANG.fullmatch(lang):
            raise ValueError("not a Wikipedia language code (letters and hyphens, at most 12 characters: en, de, "
                             "zh-yue)")
        return lang

    @field_validator("search_before")
    @classmethod
    def _day(cls, value: str | None) -> str | None:
        from factdebate.core.claim_context import iso_day

        return iso_day(value)

    @property
    def corpora(self) -> tuple[str, str]:
        """The corpora every caller of these settings may search: the built-in one and the configured one."""
        return BUILTIN_CORPUS, self.corpus


class ScaleSettings(_Strict):
    """Where batch claims and index builds run: in this process, or over Ray workers (factdebate docs scale)."""

    executor: Literal["local", "ray"] = Field(default="local", description="Where batch claims and index builds run: "
                                              "local (this process) or ray (a pool of Ray workers).",
                                              json_schema_extra=offered(flag="--executor", reaches="executor"))
    ray_address: str | None = Field(default=None, description="Ray cluster to join: auto, or ray://host:port "
                                    "(default: start a local instance).",
                                    json_schema_extra=offered(flag="--ray-address", reaches="endpoint"))
    workers: int = Field(default=2, ge=1, le=1024, description="Ray workers (actors), each with its own models "
                         "and tools.", json_schema_extra=offered(flag="--workers"))
    worker_concurrency: int | None = Field(default=None, ge=1, le=1024, description="Claims at once per Ray worker "
                                           "(default: concurrency).")
    worker_cpus: float = Field(default=1.0, gt=0, le=1024, description="Ray CPUs reserved per worker.")
    lite_copy: bool = Field(default=True, description="Each Ray worker searches its own copy of a Milvus Lite "
                            "folder (Lite serves one process); off: refuse to start workers that would share "
                            "one Lite database (use a Milvus server URI instead).")
    worker_gpus: float = Field(default=0.0, ge=0, le=64, description="GPUs reserved per Ray worker of an index build; "
                               "a worker with one embeds with the float model on it (retrieval.encoder fp32).",
                               json_schema_extra=offered(flag="--worker-gpus"))
    shard_docs: int = Field(default=5000, ge=1, le=10_000_000,
                            description="Documents per shard of an index build on Ray: the "
                            "unit that is written and recorded as done (a stopped build redoes at most the "
                            "shards in flight).", json_schema_extra=offered(flag="--shard-docs"))
    lexical_parts: int = Field(default=1, ge=1, le=64, description="Parts of a new full-text index, which a build on "
                               "Ray writes in parallel, one writer each (1: one index; more: searched together, "
                               "their BM25 hits merged).", json_schema_extra=offered(flag="--lexical-parts"))


class MedicalSettings(_Strict):
    """The paper's flexibility setting: the search agent reads scholarly abstracts, condensed by the model."""

    search: Literal["default", "openalex", "pubmed"] = Field(
        title="Scholarly search", default="default",
        json_schema_extra=offered("medical_search", operator_only=True, group="evidence"),
        description="Search agent on scholarly abstracts: openalex, pubmed (default: retrieval.search unchanged).")
    abstracts: int = Field(
        title="Abstracts per search", default=3, ge=1, le=10,
        json_schema_extra=offered("medical_abstracts", operator_only=True, group="evidence"),
        description="Abstracts per scholarly search.")
    summarize: bool = Field(title="Summarise abstracts", default=True, description="Summarise each abstract.",
                            json_schema_extra=offered("medical_summarize", operator_only=True, group="evidence"))


class ResponseSettings(_Strict):
    """Response-level checking (``factdebate check-response``, response datasets in ``eval``)."""

    max_claims: int = Field(
        title="Most claims", default=12, ge=1, le=100,
        json_schema_extra=offered("max_claims", group="response", only="response"),
        description="Most atomic claims taken from one response.")
    drop_subjective: bool = Field(
        title="Drop opinions", default=False,
        json_schema_extra=offered("drop_subjective", group="response", only="response"),
        description="Remove opinions and other subjective content before extracting claims (DPD's dialogue mode).")
    claims: Literal["given", "extract"] = Field(
        title="Claims to check", default="given",
        json_schema_extra=offered("response_claims", group="response", only="eval"),
        description="On datasets that supply a response's atomic claims: check those (given, as FIRE and the papers "
                    "do) or extract claims anew (extract).")
    claim_concurrency: int = Field(
        title="Claims at once", default=4, ge=1, le=64,
        json_schema_extra=offered("claim_concurrency", operator_only=True, group="limits"),
        description="Claims of one response checked at once.")
    max_response_chars: int = Field(default=20000, ge=100, le=1_000_000, description="Longest response accepted.")
    max_question_chars: int = Field(default=2000, ge=10, le=100_000,
                                    description="Longest question (the one the response "
                                    "answers) accepted.")

    def checked_answer(self, response: str, question: str | None) -> tuple[str, str | None]:
        """An answer to check and the question it answers, each checked within these limits, as every door
        reads them before the check (guard_engine/response_check.py checks them again)."""
        return (checked_input(response, what="response", empty="give the text to check",
                              limit=self.max_response_chars, setting="response.max_response_chars"),
                self.checked_question(question))

    def checked_question(self, question: str | None) -> str | None:
        """The question a response answers, checked as the response is; a blank question is none."""
        if question is None or (isinstance(question, str) and not question.strip()):
            return None
        return checked_input(question, what="question", empty="", limit=self.max_question_chars,
                             setting="response.max_question_chars")


class GuardSettings(_Strict):
    """The guard's operator defaults and the caps no request may pass (factdebate docs guard)."""

    upstream: str | None = Field(
        title="Guard upstream", default=None,
        json_schema_extra=offered(operator_only=True, reaches="endpoint"),
        description="OpenAI-compatible base URL (ending in /v1) of the chat model the guard forwards to "
                    "(unset: no /v1/chat/completions).")
    upstream_key_env: str = Field(
        title="Guard upstream key variable", default="FACTDEBATE_GUARD_UPSTREAM_KEY",
        pattern=r"^[A-Za-z_][A-Za-z0-9_]*$",
        json_schema_extra=offered(operator_only=True, reaches="key"),
        description="Environment variable holding the upstream's API key (unset: no key is sent).")
    policy: Literal["annotate", "flag", "hold", "rewrite", "block"] = Field(
        default="flag", description="What a reply with refuted claims becomes by default: flag (a footnote list "
        "appended, the default: the mark is in the text every client shows), annotate (unchanged, verdicts beside "
        "it, which only a client that reads the extra field sees), hold (each refuted sentence withheld, a "
        "streamed sentence shown only once its claims are decided, and the footnotes), rewrite (revised by the "
        "upstream), block (refused). An answer asked for as JSON stays JSON (factdebate docs guard).")
    deadline_s: float | None = Field(
        default=None, gt=0, le=3600, description="Seconds to decide a reply's claims by default; a claim not "
        "decided in time is unchecked. Unset: fitted to where the checker's models run (guard_engine/deadline.py): "
        "max_deadline_s when one runs on this machine (llama-cpp:builtin or a .gguf file, or an openai: model "
        "whose server is localhost, 127.0.0.0/8 or ::1), else 20.")
    max_deadline_s: float = Field(default=120.0, gt=0, le=3600, description="Longest deadline a request may ask "
                                  "for, and the default deadline of a checker on this machine.")
    tier: Literal["fast", "standard", "deep"] = Field(
        default="standard", description="Default tier: fast (one model call a reply window, window_call; else "
        "one per claim), standard (one round of the method), deep (the full method).")
    max_tier: Literal["fast", "standard", "deep"] = Field(
        default="deep", description="Highest tier a request may ask for or a claim may escalate to.")
    window_call: bool = Field(
        default=True, description="At the fast tier, ask a reply window's claims, their verdicts and a refuted "
        "claim's correction in one model call (a plain reply is one window; a stream asks once for the "
        "sentences completed while its previous call ran). Off: an extraction call, then a call per claim "
        "and a corrector's call per refuted claim.")
    stance_step: bool = Field(
        default=True, description="At the fast tier, a SUPPORTS or REFUTES stands only where the passage "
        "sentences closest to the claim (copied by code) state or contradict it, as one constrained model call "
        "decides; they are the claim's quote. Off: the checker's own quote, which a SUPPORTS must hold and be "
        "about the claim. One short call more a labelled claim.")
    window_sentences: int = Field(
        default=2, ge=1, le=20, description="While a reply streams, the fewest check-worthy sentences a window "
        "asks about (the reply's end asks about what waits at once; under hold each part is asked at once): "
        "fewer checker calls a reply, a verdict a sentence later at most. 1: each sentence as soon as the "
        "checker is free.")
    on_unchecked: Literal["pass", "block"] = Field(
        default="pass", description="A reply with unchecked claims: pass it on (said so) or block it.")
    on_not_enough_info: Literal["pass", "flag", "block"] = Field(
        default="flag", description="A claim the evidence neither supports nor refutes (NOT ENOUGH INFO): pass "
        "(said in the verdicts only), flag (default: under flag and hold a footnote says it could not be "
        "confirmed) or block (the reply is refused, as one with an unchecked claim under on_unchecked: block).")
    method: str | None = Field(default=None, description="Method of the standard and deep tiers by default "
                               "(default: the configured method, tool-mad unless set).")
    max_messages: int = Field(default=200, ge=1, le=10_000, description="Kept so older configurations load; a "
                              "conversation of any length is accepted (refusing a long agent session would "
                              "break it for every later turn).")
    max_message_chars: int = Field(default=100_000, ge=100, le=10_000_000,
                                   description="Longest message in one chat request.")
    max_evidence_items: int = Field(default=50, ge=0, le=500, description="Most evidence passages per request.")
    max_evidence_chars: int = Field(default=200_000, ge=100, le=10_000_000,
                                    description="Characters of evidence per request, all passages together.")
    upstream_timeout_s: float = Field(default=120.0, gt=0, le=3600,
                                      description="Seconds to wait for the upstream model's answer: a plain "
                                      "answer's whole, a streamed one's head and each of its reads.")
    upstream_resend: bool = Field(default=False, description="Send a chat request to the upstream once more, on a "
                                  "new connection, when a kept-alive connection closes before any byte of its "
                                  "answer (the upstream timed the connection out as it was reused). Off: the "
                                  "upstream may have received the request and be paid for it twice; the caller "
                                  "gets a 502 and may try again itself.")
    upstream_stream_s: float = Field(default=900.0, gt=0, le=86_400,
                                     description="Seconds a streamed answer of the upstream model may take from "
                                     "the request to its end (16,384 tokens at about 20 a second); past it the "
                                     "stream ends with an error that says so.")
    max_tokens: int = Field(default=16_384, ge=1, le=1_000_000,
                            description="The most tokens a request may ask the upstream to write for one answer "
                            "(max_tokens, max_completion_tokens): a larger value is lowered to it.")
    max_choices: int = Field(default=4, ge=1, le=8, description="The most answers (n) one chat request may ask "
                             "for: every answer is checked, so a larger n is refused (422).")
    block_finish_reason: Literal["content_filter", "stop"] = Field(
        default="content_filter", description="How a refused reply ends on the chat route: content_filter "
        "(OpenAI's value for an answer a filter withheld; some clients, OpenClaw among them, report it as a failed "
        "run) or stop (the refusal is an ordinary answer, which such clients show).")
    rewrite_fallback: Literal["flag", "block"] = Field(
        default="flag", description="What a rewrite becomes when its revision cannot be sent as checked (it "
        "repeats a refuted claim, could not be checked again, or no revision came): flag (the original answer "
        "with the footnote) or block (refused).")

    on_overload: Literal["503", "pass"] = Field(
        default="503", description="A request the service cannot check within its deadline, the checks already "
        "running filling what it can do (checks_at_once), is answered at once: 503 (refused with Retry-After; an "
        "OpenAI client retries) or pass (the reply passed at once, unchecked: overloaded, said).")
    checks_at_once: int = Field(
        default=0, ge=0, le=100_000, description="Guard checks one service process runs at full speed at once; "
        "past it a request whose check would not end within its deadline is answered as on_overload says, the "
        "heavier API key's first (factdebate docs service). 0: 8 per CPU core.")
    max_loop_lag_ms: float = Field(
        default=0, ge=0, le=60_000, description="With at least a quarter of checks_at_once running, a request "
        "is answered as on_overload says while the event loop runs more than this many milliseconds late "
        "(factdebate docs service#past-capacity-shedding-load). 0: not watched (the default).")
    max_cpu_share: float = Field(
        default=0, ge=0, le=64, description="An operator's cap on the guard's CPU: a request is answered as "
        "on_overload says when the checks running plus it would use more than this share of one core, forecast "
        "from the process's recent CPU per check (factdebate docs service#past-capacity-shedding-load). 0: not "
        "watched (the default: the adaptive limit on checks in flight sheds load).")

    @field_validator("upstream")
    @classmethod
    def _v1(cls, url: str | None) -> str | None:
        if url is None or not url.strip():
            return None
        url = url.strip().rstrip("/")
        if not url.startswith(("http://", "https://")) or not url.endswith("/v1"):
            raise ValueError("guard.upstream must be an http(s) base URL ending in /v1")
        return url

    @model_validator(mode="after")
    def _caps(self) -> GuardSettings:
        order = ("fast", "standard", "deep")
        if self.deadline_s is not None and self.deadline_s > self.max_deadline_s:
            raise ValueError("guard.deadline_s is above guard.max_deadline_s")
        if order.index(self.tier) > order.index(self.max_tier):
            raise ValueError("guard.tier is above guard.max_tier")
        return self


class Settings(_Strict):
    """Every verification setting: defaults < YAML file < environment < flags (settings/load.py)."""

    method: str = Field(
        title="Verification method", default="tool-mad", json_schema_extra=offered("method", env="FACTDEBATE_METHOD"),
        description="Verification method (see `factdebate methods`).")
    llm: LLMSettings = Field(default_factory=LLMSettings, description=LLMSettings.__doc__)
    retrieval: RetrievalSettings = Field(default_factory=RetrievalSettings, description=RetrievalSettings.__doc__)
    methods: dict[str, Any] = Field(default_factory=dict, validate_default=True, description="One section per "
                                    "registered method, validated by the method's own settings model.")
    medical: MedicalSettings = Field(default_factory=MedicalSettings, description=MedicalSettings.__doc__)
    response: ResponseSettings = Field(default_factory=ResponseSettings, description="Response-level checking.")
    mcp_servers: dict[str, MCPServerConfig] = Field(default_factory=dict, json_schema_extra=offered(reaches="command"),
                                                    description="MCP servers whose tools "
                                                    "agents may use as mcp:<server>/<tool>.")
    max_claim_chars: int = Field(title="Longest claim", default=2000, ge=1, le=1_000_000,
                                 description="Characters a claim may have.",
                                 json_schema_extra=offered("max_claim_chars", operator_only=True, group="limits"))
    concurrency: int = Field(title="Claims at once", default=4, ge=1, le=1024,
                             description="Claims verified at once in a batch.",
                             json_schema_extra=offered("concurrency", operator_only=True, group="limits"))
    scale: ScaleSettings = Field(default_factory=ScaleSettings, description=ScaleSettings.__doc__)
    guard: GuardSettings = Field(default_factory=GuardSettings, description=GuardSettings.__doc__)
    # The file these settings were read from and how it was chosen (settings/load.py): no setting, a record.
    _config_file: ConfigFile | None = PrivateAttr(default=None)

    @property
    def config_file(self) -> ConfigFile | None:
        return self._config_file

    def __eq__(self, other: object) -> bool:
        # The same settings read from two files (or none) are the same settings: the file is a record only.
        if not isinstance(other, Settings):
            return NotImplemented
        return type(self) is type(other) and self.__dict__ == other.__dict__
    @model_validator(mode="before")
    @classmethod
    def _upgrade(cls, data: Any) -> Any:
        return normalised(data) if isinstance(data, dict) else data

    @field_validator("methods")
    @classmethod
    def _validate_methods(cls, sections: dict[str, Any]) -> dict[str, Any]:
        registered = Method.registered()
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
        """The model of ``role``: ``llm.roles``, then the method's own bindings (DPD's ``judge_llms``), then
        ``llm.judge``/``llm.scorer``, then (a panel judge) the judge's, then the debater's."""
        chosen = (self.llm.roles.get(role) or self._method_roles().get(role)
                  or {"judge": self.llm.judge, "scorer": self.llm.scorer}.get(role))
        if not chosen and role.startswith("judge-"):  # one judge of a panel (DPD): the judge's model
            return self.llm_for("judge")
        return chosen or self.llm.debater

    @classmethod
    def over(cls, base: dict[str, Any], nested: dict[str, Any],
             sections: Mapping[str, BaseModel] | None = None) -> Settings:
        """Settings from a settings dump ``base`` (``Settings.model_dump(mode="json")``) with ``nested`` overrides
        over it (flat options become those by ``Option.overrides``): a request's choices over the operator's
        settings. ``sections``: ``base``'s method sections already validated, by method; each one the overrides
        leave as ``base`` has it is kept, not validated again, so a request validates only the method sections
        it changes (a chat check changes none). What is wrong is a ``ConfigError`` that says where and why, never
        the values (:func:`validation_problems`)."""
        data = merged(base, nested)
        if sections:
            data = _kept_sections(normalised(data), base, sections)
        try:
            return cls.model_validate(data)
        except ValidationError as exc:
            raise ConfigError(f"invalid options: {validation_problems(exc)}") from None
        except ValueError as exc:
            raise ConfigError(f"invalid options: {exc}") from exc

    def checked_claim(self, claim: str) -> str:
        """``claim`` stripped, or an ``InputError``: not text, empty, unsafe, longer than ``max_claim_chars``."""
        return checked_input(claim, what="claim", empty="give a sentence to check", limit=self.max_claim_chars,
                             setting="max_claim_chars")

    def _method_roles(self) -> dict[str, str]:
        methods = Method.registered()
        return methods[self.method]().role_models(self) if self.method in methods else {}


def _kept_sections(data: dict[str, Any], base: dict[str, Any], sections: Mapping[str, BaseModel]) -> dict[str, Any]:
    """``data`` with each method section still as ``base`` dumped it replaced by its validated twin in
    ``sections``. Compared after the overrides are merged and old names upgraded, so a section changed under
    any spelling (``methods.tool_mad``) is validated again."""
    given, before = data.get("methods"), base.get("methods")
    if not isinstance(given, dict) or not isinstance(before, dict):
        return data
    kept = {name: sections[name] if name in sections and value == before.get(name) else value
            for name, value in given.items()}
    return {**data, "methods": kept}


def merged(base: dict[str, Any], extra: dict[str, Any]) -> dict[str, Any]:
    """``base`` with ``extra`` over it, section by section."""
    out = dict(base)
    for key, value in extra.items():
        out[key] = merged(out[key], value) if isinstance(value, dict) and isinstance(out.get(key), dict) else value
    return out


def validation_problems(exc: ValidationError) -> str:
    """Each error's place and message, never its input (pydantic's text would show a whole section of the
    operator's settings to an API caller)."""
    return "; ".join(_problem(err) for err in exc.errors())


def _problem(err: Any) -> str:
    where, message = ".".join(str(p) for p in err["loc"]), str(err["msg"]).replace("Value error, ", "")
    return message if message.startswith(where + ".") else f"{where}: {message}"


def normalised(data: dict[str, Any]) -> dict[str, Any]:
    """One layer of settings data with method sections named as registered and old names upgraded."""
    methods = data.get("methods")
    if isinstance(methods, dict) and any("_" in str(key) for key in methods):
        data = {**data, "methods": {str(key).replace("_", "-"): value for key, value in methods.items()}}
    return upgrade_settings_data(data)


def _section(name: str, model: type[BaseModel], value: Any) -> BaseModel:
    try:
        return model.model_validate(value)
    except ValidationError as exc:
        # A model-level check has no field: its place is the section itself (no trailing dot).
        problems = "; ".join(f"{'.'.join(['methods', name, *(str(p) for p in err['loc'])])}: {err['msg']}"
                             for err in exc.errors())
        raise ValueError(problems) from None
