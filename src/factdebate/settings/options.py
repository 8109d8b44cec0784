"""Flat options (``verify(rounds=2)``, ``--rounds 2``, ``?rounds=2``) and where each lands in the settings.

The shared options are listed here once; every method's options are derived from its settings model
(``<prefix><field>``, see :class:`factdebate.methods.base.Method`), so the CLI's ``verify`` and ``eval``, the
Python API, the service's request model and the web page's form all offer exactly the same set.
"""

from __future__ import annotations

import types
import typing
from dataclasses import dataclass
from typing import Any, Literal

from pydantic.fields import FieldInfo

from factdebate.core.errors import ConfigError
from factdebate.methods.base import all_methods
from factdebate.settings.model import LLMSettings, ResponseSettings, RetrievalSettings

Path = tuple[str, ...]


@dataclass(frozen=True)
class Option:
    name: str
    paths: tuple[Path, ...]
    annotation: Any  # the value's type, without None
    help: str = ""
    field: FieldInfo | None = None  # the model field (constraints for the service's request model)
    public: bool = True  # open to callers of the service (False: the operator's alone)
    method: str | None = None  # the method that owns it; None: shared


def _shared(name: str, path: Path, model: type | None = None, help: str = "", *, public: bool = True,
            annotation: Any = None) -> Option:
    info = model.model_fields[path[-1]] if model is not None else None  # type: ignore[attr-defined]
    return Option(name, (path,), annotation if annotation is not None else _bare(info.annotation if info else str),
                  help or (info.description if info and info.description else ""), info, public)


def shared_options() -> list[Option]:
    return [
        _shared("method", ("method",), help="Verification method (see `factdebate methods`).", annotation=str),
        _shared("llm", ("llm", "debater"), LLMSettings,
                "Debater model: openai:<model>, llama-cpp:<file>|builtin (every role without its own)."),
        _shared("judge_llm", ("llm", "judge"), LLMSettings, "Judge model (default: the debater's)."),
        _shared("scorer_llm", ("llm", "scorer"), LLMSettings, "Scorer model (default: the debater's)."),
        _shared("temperature", ("llm", "temperature"), LLMSettings, "Sampling temperature.", public=False),
        _shared("cache", ("llm", "cache"), LLMSettings, "Reuse cached LLM answers.", public=False),
        _shared("llm_max_in_flight", ("llm", "max_in_flight"), LLMSettings, "Most requests in flight to one "
                "model server at once (default: 1 on this machine, 64 elsewhere).", public=False),
        _shared("search", ("retrieval", "search"), RetrievalSettings,
                "Search engine of the search agent: local, tavily, wikipedia."),
        _shared("corpus", ("retrieval", "corpus"), RetrievalSettings,
                "Indexed corpus to retrieve from (default builtin)."),
        _shared("milvus_uri", ("retrieval", "milvus_uri"), RetrievalSettings,
                "Milvus server URI (default: Milvus Lite file).", public=False),
        _shared("k", ("retrieval", "k"), RetrievalSettings, "Documents per retrieval."),
        _shared("evidence", ("retrieval", "evidence"), RetrievalSettings, public=False),  # no route takes evidence
        _shared("max_doc_chars", ("retrieval", "max_doc_chars"), RetrievalSettings,
                "Characters kept of each retrieved passage.", public=False),
        _shared("search_before", ("retrieval", "search_before"), RetrievalSettings,
                "Leakage control: evidence before this date only (YYYY-MM-DD), where the engine can tell."),
        _shared("exclude_domains", ("retrieval", "exclude_domains"), RetrievalSettings,
                "Leakage control: domains whose search results are dropped."),
        _shared("exclude_fact_checkers", ("retrieval", "exclude_fact_checkers"), RetrievalSettings,
                "Leakage control: drop the built-in list of fact-checking sites."),
        _shared("max_claim_chars", ("max_claim_chars",), help="Longest claim accepted.", public=False,
                annotation=int),
        _shared("concurrency", ("concurrency",), help="Claims verified at once in a batch.", public=False,
                annotation=int),
        _shared("medical_search", ("medical", "search"), help="Search agent on scholarly abstracts: openalex, "
                "pubmed.", public=False, annotation=Literal["default", "openalex", "pubmed"]),
        _shared("medical_abstracts", ("medical", "abstracts"), help="Abstracts per scholarly search.",
                public=False, annotation=int),
        _shared("max_claims", ("response", "max_claims"), ResponseSettings),
        _shared("drop_subjective", ("response", "drop_subjective"), ResponseSettings),
        _shared("response_claims", ("response", "claims"), ResponseSettings),
        _shared("claim_concurrency", ("response", "claim_concurrency"), ResponseSettings, public=False),
        _shared("medical_summarize", ("medical", "summarize"), help="Summarise each abstract.", public=False,
                annotation=bool),
    ]


def _bare(annotation: Any) -> Any:
    """``int | None`` -> ``int``: every flat option is optional anyway (None: not given)."""
    if typing.get_origin(annotation) in (typing.Union, types.UnionType):
        args = [a for a in typing.get_args(annotation) if a is not type(None)]
        if len(args) == 1:
            return args[0]
    return annotation


def method_options() -> list[Option]:
    """Each method's fields as ``<prefix><field>`` plus its declared aliases; a name two methods share
    (``mad_rounds``) sets both."""
    merged: dict[str, Option] = {}
    for name, method in all_methods().items():
        for field_name, info in method.settings_model.model_fields.items():
            path = ("methods", name, field_name)
            for flat in (method.prefix() + field_name, *method.option_aliases.get(field_name, ())):
                if flat in merged:  # an alias shared with another method's field: it sets both
                    known = merged[flat]
                    merged[flat] = Option(flat, (*known.paths, path), known.annotation,
                                          f"{known.help} (also sets methods.{name}.{field_name})",
                                          known.field, known.public, known.method)
                else:
                    # A field marked operator_only (a spending lever) is not offered to service callers.
                    extra = info.json_schema_extra if isinstance(info.json_schema_extra, dict) else {}
                    merged[flat] = Option(flat, (path,), _bare(info.annotation), info.description or "", info,
                                          not extra.get("operator_only"), name)
    return list(merged.values())


def all_options() -> dict[str, Option]:
    options: dict[str, Option] = {}
    for option in [*shared_options(), *method_options()]:
        if option.name in options:
            raise ConfigError(f"option '{option.name}' is declared twice (a method's field clashes with a "
                              "shared option; give the method an option_prefix)")
        options[option.name] = option
    return options


def options_to_overrides(options: dict[str, Any]) -> dict[str, Any]:
    """Flat options -> nested settings overrides; ``None`` values are skipped."""
    table = all_options()
    overrides: dict[str, Any] = {}
    for key, value in options.items():
        if key not in table:
            raise ConfigError(f"unknown option '{key}'; known: {', '.join(sorted(table))}")
        if value is None:
            continue
        for path in table[key].paths:
            target = overrides
            for part in path[:-1]:
                target = target.setdefault(part, {})
            target[path[-1]] = value
    return overrides


def convert(option: Option, value: Any) -> Any:
    """A list option given as text (a flag, a query parameter) is comma-separated."""
    if value is not None and typing.get_origin(option.annotation) is list and isinstance(value, str):
        return [part.strip() for part in value.split(",") if part.strip()]
    return value


def option_schema(option: Option) -> dict[str, Any]:
    """The JSON Schema of one option's value, constraints included (what the web form draws)."""
    from pydantic import TypeAdapter

    metadata = list(option.field.metadata) if option.field is not None else []
    annotation: Any = typing.Annotated[option.annotation, *metadata] if metadata else option.annotation
    return TypeAdapter(annotation).json_schema()


def option_value(settings_data: dict[str, Any], option: Option) -> Any:
    value: Any = settings_data
    for part in option.paths[0]:
        value = value.get(part) if isinstance(value, dict) else None
    return value
