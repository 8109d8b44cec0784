"""The shared options as typed keywords of the Python API (``fd.verify(claim, llm=..., k=5)``).

The option table (:mod:`factdebate.settings.options`) is built at run time, which a type checker cannot see;
these TypedDicts spell it out so that a misspelt option or a wrong type fails ``mypy`` in the user's script
(``tests/test_api_types.py`` keeps them equal). The table's ``evidence`` is each function's ``evidence_mode``
parameter; a method's own options go in ``method_options``. ``None`` everywhere means "not given"."""

from __future__ import annotations

from typing import Literal, TypedDict

# The built-in methods and search engines, so that a misspelt name fails a type check (kept equal to the
# registries by tests/test_api_types.py); a plug-in's method: ``typing.cast(MethodName, "my-method")``.
MethodName = Literal["cot", "dpd", "factool", "halueval-fewshot", "mad", "madke", "mermaid", "react", "selfcheck",
                     "single", "tool-mad", "vote", "wecheck"]
SearchEngineName = Literal["auto", "local", "tavily", "wikipedia"]


class SharedOptions(TypedDict, total=False):
    """Options every check reads (``factdebate verify --help``, "Common options", has the long help)."""

    method: MethodName | None  # tool-mad (default), mermaid, dpd, cot, react, mad, madke, vote, single...
    llm: str | None  # every role's model: "openai:<model>", "llama-cpp:builtin", "scripted:agree"
    judge_llm: str | None
    scorer_llm: str | None
    temperature: float | None
    llm_max_in_flight: int | None
    cache: bool | None
    search: SearchEngineName | None
    corpus: str | None
    milvus_uri: str | None
    k: int | None  # passages per search
    max_doc_chars: int | None
    search_before: str | None  # YYYY-MM-DD
    exclude_domains: list[str] | None
    exclude_fact_checkers: bool | None
    medical_search: Literal["default", "openalex", "pubmed"] | None
    medical_abstracts: int | None
    medical_summarize: bool | None
    max_claims: int | None
    drop_subjective: bool | None
    response_claims: Literal["given", "extract"] | None
    claim_concurrency: int | None
    max_claim_chars: int | None
    concurrency: int | None
    rounds: int | None  # Tool-MAD's debate rounds (the default method's; other methods: method_options)

