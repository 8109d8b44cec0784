"""Each built-in method's own options as a TypedDict: the type of the Python API's ``method_options``.

The flat names are the CLI's (``dpd_max_rounds``); old aliases are left out, so a type checker points new code
at the current name. ``tests/test_api_types.py`` keeps each TypedDict equal to its method's settings model.
``method_options`` takes any of them (:data:`MethodOptions`), not tied to ``method=``, which may come from a
config file: an option given to another method is a run-time warning. A plug-in's options:
``typing.cast(MethodOptions, {...})``."""

from __future__ import annotations

from typing import Literal, TypedDict


class ToolMADOptions(TypedDict, total=False):
    """Tool-MAD (the default method): its names carry no prefix."""

    rounds: int | None
    agents: list[str] | None  # each agent's tool: rag, search, none or mcp:<server>/<tool>
    faithfulness_threshold: float | None
    relevance_threshold: float | None
    relevance_calibrated_dataset: str | None
    relevance_calibrated_encoder: str | None
    relevance_calibrated_share: float | None
    threshold_on: Literal["round", "average", "sum"] | None
    threshold_pass: Literal["above", "at_least"] | None
    query_formulation: bool | None
    round1_query: Literal["model", "claim"] | None
    scoring: bool | None
    scoring_variant: Literal["stability", "consistency"] | None
    relevance_questions: int | None
    judge_evidence_chars: int | None
    score_note: bool | None
    answer_sentences: int | None
    label_guide: bool | None
    offline_scoring: bool | None
    speculate: bool | None


class DPDOptions(TypedDict, total=False):
    dpd_min_rounds: int | None
    dpd_max_rounds: int | None
    dpd_consensus_threshold: float | None
    dpd_transition: Literal["true-skeptic", "true-trust", "always-skeptic", "always-trust"] | None
    dpd_judges: list[str] | None
    dpd_judge_llms: list[str] | None
    dpd_snippets: int | None
    dpd_snippet_chars: int | None
    dpd_pool_k: int | None
    dpd_tools: list[Literal["search", "rag"]] | None
    dpd_query_generation: bool | None
    dpd_summary_samples: int | None
    dpd_summary_temperature: float | None
    dpd_gatherers: bool | None
    dpd_analysts: bool | None
    dpd_summarizers: bool | None
    dpd_tie_label: Literal["NOT ENOUGH INFO", "REFUTES"] | None
    dpd_binary_tie: Literal["REFUTES", "SUPPORTS"] | None
    dpd_judge_evidence: int | None
    dpd_statement_tokens: int | None
    dpd_judge_tokens: int | None
    dpd_task: Literal["auto", "claim", "kbqa", "qa", "summarization", "dialogue"] | None
    dpd_task_search: bool | None
    dpd_evidence_sentences: int | None
    dpd_speculate: bool | None


class MERMAIDOptions(TypedDict, total=False):
    mermaid_max_steps: int | None
    mermaid_decomposer: bool | None
    mermaid_repeat_stop: bool | None
    mermaid_repeat_skip: bool | None
    mermaid_labels: Literal["binary", "three-way"] | None
    mermaid_servers: list[Literal["wikipedia", "search", "scholar"]] | None
    mermaid_wikipedia_online: bool | None
    mermaid_memory: Literal["on", "off", "readonly"] | None
    mermaid_memory_path: str | None
    mermaid_memory_from: str | None
    mermaid_memory_namespace: str | None
    mermaid_memory_semantic: bool | None
    mermaid_memory_ttl_days: float | None
    mermaid_memory_busy_timeout_s: float | None
    mermaid_observation_chars: int | None


class FacToolOptions(TypedDict, total=False):
    factool_decompose: bool | None
    factool_max_claims: int | None
    factool_queries: int | None
    factool_tool: str | None
    factool_paper: Literal["dpd", "mermaid"] | None


class MADOptions(TypedDict, total=False):
    mad_rounds: int | None  # also sets MADKE's rounds
    mad_speculate: bool | None


class MADKEOptions(TypedDict, total=False):
    madke_rounds: int | None
    madke_tools: list[str] | None  # rag, search or mcp:<server>/<tool>
    madke_label_guide: bool | None  # None: on for the offline model (Tool-MAD's label_guide)


class ReActOptions(TypedDict, total=False):
    react_max_steps: int | None
    react_repeat_skip: bool | None


class SelfCheckOptions(TypedDict, total=False):
    selfcheck_samples: int | None
    selfcheck_shots: int | None
    selfcheck_temperature: float | None
    selfcheck_threshold: float | None


class VoteOptions(TypedDict, total=False):
    vote_samples: int | None
    vote_temperature: float | None


class WeCheckOptions(TypedDict, total=False):
    wecheck_threshold: float | None
    wecheck_tool: str | None


MethodOptions = (ToolMADOptions | DPDOptions | MERMAIDOptions | FacToolOptions | MADOptions | MADKEOptions
                 | ReActOptions | SelfCheckOptions | VoteOptions | WeCheckOptions)

# Which TypedDict spells which method's options (the test reads it; a user may too).
METHOD_OPTIONS: dict[str, type] = {
    "tool-mad": ToolMADOptions, "dpd": DPDOptions, "mermaid": MERMAIDOptions, "factool": FacToolOptions,
    "mad": MADOptions, "madke": MADKEOptions, "react": ReActOptions, "selfcheck": SelfCheckOptions,
    "vote": VoteOptions, "wecheck": WeCheckOptions}
