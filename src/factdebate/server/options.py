"""What a request may choose, and how that becomes verification settings.

Only options that change *how* a claim is checked are open to callers. Those that would let a caller
spend the operator's resources or reach elsewhere (arbitrary model endpoints, the Milvus URI, the claim
length limit, the cache, batch concurrency) stay with the operator."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, TypeVar

from pydantic import BaseModel, ConfigDict, Field, StrictBool, create_model, model_validator
from pydantic_core import PydanticCustomError

from factdebate.engine import GivenEvidence, Method, Option, ResponseVerdict, Settings, Verdict, settings_from
from factdebate.server.caps import SpendingCaps, check_caps
from factdebate.server.corpus_access import CorpusAccess
from factdebate.server.streaming import TRANSCRIPT_CHARS
from factdebate.server.tool_allowlist import check_caller_tools, with_callable_servers
from factdebate.util.errors import ConfigError, InputError
from factdebate.util.scrub import hide_endpoints
from factdebate.util.textsafe import checked_tree

# What the service says of an option besides its own words (each option's constraints are its own: a corpus
# name, which becomes part of a file path, is checked by its type).
SERVICE_FIELDS: dict[str, dict[str, Any]] = {
    "llm": {"description": "Debater model; only models the server offers."},
}


def _field(option: Option) -> tuple[Any, Any]:
    metadata = list(option.field.metadata) if option.field is not None else []
    annotation = Annotated[option.annotation, *metadata] if metadata else option.annotation
    extra = {"description": option.help, **SERVICE_FIELDS.get(option.name, {})}
    return annotation | None, Field(default=None, **extra)


# The texts of a request that have their own check and limit (Settings.checked_claim,
# ResponseSettings.checked_answer...).
REQUEST_TEXTS = frozenset({"claim", "response", "question", "evidence"})
MAX_OPTION_CHARS = 500  # longest text in an option's value: model specs, names, dates, domains


class _OptionsBase(BaseModel):
    # Methods registered after this model was built (plug-ins loaded later) still get their options
    # through: extras are checked against the current option table, then validated by the settings.
    model_config = ConfigDict(extra="allow")

    @model_validator(mode="before")
    @classmethod
    def _clean_texts(cls, data: Any) -> Any:
        """Every text in an option is clean and short before anything reads it: a lone surrogate in a
        method name or a domain would otherwise fail only when a reply or a stream tried to encode it."""
        if isinstance(data, dict):
            for name, value in data.items():
                if name not in REQUEST_TEXTS:
                    try:
                        checked_tree(value, what=f"option '{name}'", limit=MAX_OPTION_CHARS)
                    except InputError as exc:
                        raise PydanticCustomError("unsafe_text", str(exc).replace("{", "(").replace("}", ")")) \
                            from None
        return data

    @model_validator(mode="after")
    def _known_extras(self) -> _OptionsBase:
        known = Option.public_options()
        unknown = sorted(set(self.model_extra or {}) - set(known) - {"claim"})
        if unknown:
            raise ValueError(f"unknown option(s) {', '.join(unknown)}; known: {', '.join(sorted(known))}")
        return self

    def chosen(self) -> dict[str, Any]:
        """The options set on this request (never the claim of a VerifyRequest, nor what the stream shows)."""
        return {k: v for k, v in self.model_dump(exclude_none=True).items() if k not in _NOT_SETTINGS}


if TYPE_CHECKING:
    VerifyOptions = _OptionsBase
else:  # one typed field per option known now, so the API reference documents them all
    VerifyOptions = create_model("VerifyOptions", __base__=_OptionsBase,
                                 **{name: _field(opt) for name, opt in Option.public_options().items()})


class TranscriptChoice(BaseModel):
    """What a check's stream shows besides its events: the text of each model call (llm/transcript.py). The
    caller's own calls only (a stream carries its own run's events), so nothing of another caller's shows."""

    transcript: StrictBool = Field(
        default=False,
        description="Streams only: every llm_call event also carries the call's prompt `messages` (role, content) "
                    f"and the model's `reply`, each cut after {TRANSCRIPT_CHARS} characters with a marker saying so. "
                    "The endpoints that return only the verdict refuse it.")

    def refuse_transcript(self, endpoint: str) -> None:
        """A transcript asked of an endpoint that returns only the verdict would be dropped in silence."""
        if self.transcript:
            raise InputError(f"transcript: the text of model calls comes with {endpoint}/stream's events; {endpoint} "
                             "returns only the verdict")


_NOT_SETTINGS = frozenset({"claim", *TranscriptChoice.model_fields, *GivenEvidence.model_fields})


class VerifyRequest(VerifyOptions, TranscriptChoice, GivenEvidence):
    claim: str = Field(description="The claim to check (one sentence or a short paragraph).")


class SettingsResolver:
    """Reads the operator's settings once and applies each request's options on top of them. Every setting a
    caller's run gets comes from here, so what callers may reach is narrowed here once: the MCP servers (and
    their tools) to the allow-list, whatever method or face the request came through."""

    def __init__(self, defaults: dict[str, Any], config_file: str | Path | None, allowed_llms: list[str],
                 caps: SpendingCaps | None = None, allowed_mcp_tools: list[str] | None = None,
                 allowed_corpora: list[str] | None = None, key_corpora: dict[str, list[str]] | None = None) -> None:
        operator = settings_from(defaults, config_file)
        self.allowed_mcp_tools = list(allowed_mcp_tools or [])  # operator's allow-list; empty: no MCP tool
        # MERMAID offers its executor every server in the settings: the servers off the list are not there.
        self.base = with_callable_servers(operator, self.allowed_mcp_tools)
        self.corpora = CorpusAccess(self.base.retrieval.corpora, allowed_corpora, key_corpora)
        self.caps = caps  # None: no spending caps (the MCP server: its tools take only bounded options)
        self._base_data = self.base.model_dump(mode="json")
        self.any_llm = "*" in allowed_llms
        roles = {"debater", "judge", "scorer", *self.base.llm.roles}
        offered = [self.base.llm_for(role) for role in sorted(roles)]
        self.llms = list(dict.fromkeys([*offered, *(m for m in allowed_llms if m != "*")]))

    def resolve(self, options: VerifyOptions | dict[str, Any], caller: str | None = None) -> Settings:
        """The request's settings; with ``caller`` (an API key's id), narrowed to that caller by the method
        (MERMAID: its own evidence-memory namespace)."""
        settings = self._resolve(options, caller=caller)
        return Method.named(settings.method).for_caller(settings, caller) if caller is not None else settings

    def check_tools(self, chosen: dict[str, Any]) -> None:
        """The one check of which tools a caller may name, for every face (HTTP routes, batches, the MCP
        server's tools, the guard): any MCP tool in ``chosen`` must be on the operator's allow-list."""
        check_caller_tools(chosen, self.allowed_mcp_tools)

    def resolve_recorded(self, config: dict[str, Any], caller: str | None = None) -> Settings:
        """The settings a kept verdict was checked with (its ``config``, the public options
        :func:`caller_config` left on it) over the operator's settings now, so that a claim of a kept check is
        checked again as the check was asked, whatever the page's form shows. What differs from the operator's
        settings is checked as a request's options are: offered models, MCP tools, spending caps."""
        recorded = caller_config(config)
        chosen = {name: option.value_in(recorded) for name, option in Option.public_options().items()
                  if option.alias_of is None and any(_value_at(recorded, path) not in (None, _value_at(
                      self._base_data, path)) for path in option.paths)}
        settings = self._resolve({k: v for k, v in chosen.items() if v is not None}, overrides=recorded,
                                 caller=caller)
        return Method.named(settings.method).for_caller(settings, caller) if caller is not None else settings

    def _resolve(self, options: VerifyOptions | dict[str, Any], overrides: dict[str, Any] | None = None,
                 caller: str | None = None) -> Settings:
        """``overrides``: the nested settings to apply, when they are not the options' own (a kept verdict's)."""
        chosen = options.chosen() if isinstance(options, VerifyOptions) else dict(options)
        if not chosen:
            return self.base
        for role in ("llm", "judge_llm", "scorer_llm"):
            model = chosen.get(role)
            if model is not None and not self.any_llm and model not in self.llms:
                raise ConfigError(_not_offered(model, self.llms))
        self.check_tools(chosen)
        nested = Option.overrides(chosen) if overrides is None else overrides
        # The operator's method sections were validated at start: only those the request changes are validated
        # again (a chat check's method is read from the sections as they are, not every method's rules run).
        settings = Settings.over(self._base_data, nested, self.base.methods)  # a ConfigError never quotes the values
        Method.named(settings.method)  # unknown method -> ConfigError now, not mid-stream
        self.corpora.check(settings.retrieval.corpus, caller)
        if self.caps is not None:
            check_caps(chosen, settings, self.caps)
        return settings


def caller_config(config: dict[str, Any]) -> dict[str, Any]:
    """The settings a caller sees on a verdict: only the values a caller may choose (the public options),
    nested as in the settings. Operator-only settings (MCP servers with their environment and arguments,
    endpoints, the Milvus URI, limits, the cache...) are left out entirely rather than masked, so no
    setting added later can leak by default."""
    out: dict[str, Any] = {}
    for path in _public_paths():
        value: Any = config
        for part in path:
            value = value.get(part, _MISSING) if isinstance(value, dict) else _MISSING
        if value is _MISSING:
            continue
        target = out
        for part in path[:-1]:
            target = target.setdefault(part, {})
        target[path[-1]] = value
    return out


_MISSING = object()


def _value_at(data: dict[str, Any], path: tuple[str, ...]) -> Any:
    value: Any = data
    for part in path:
        value = value.get(part) if isinstance(value, dict) else None
    return value

_PATHS: dict[tuple[str, ...], list[tuple[str, ...]]] = {}


def _public_paths() -> list[tuple[str, ...]]:
    """Where the public options live in the settings, worked out once per set of registered methods (the
    option table is rebuilt on every call, too slow for every verdict of a loaded server)."""
    key = tuple(Method.registered())  # plug-ins registered since the last call change it
    if key not in _PATHS:
        _PATHS[key] = [path for option in Option.public_options().values() for path in option.paths]
    return _PATHS[key]


V = TypeVar("V", Verdict, ResponseVerdict)


def public_verdict(verdict: V) -> V:
    """The verdict as callers see it: its settings reduced to :func:`caller_config`, and no endpoint's address
    in what it says went wrong (a claim's error names the model server it could not reach)."""
    verdict.config = caller_config(verdict.config)
    if verdict.error:
        verdict.error = hide_endpoints(verdict.error)
    if isinstance(verdict, ResponseVerdict):
        for check in verdict.claims:
            check.error = hide_endpoints(check.error) if check.error else check.error
            if check.verdict is not None and check.verdict.error:
                check.verdict.error = hide_endpoints(check.verdict.error)
    else:
        verdict.warnings = [w.model_copy(update={"message": hide_endpoints(w.message)}) for w in verdict.warnings]
    return verdict


def _not_offered(model: str, offered: Sequence[str]) -> str:
    """Why a caller's model is refused. A name with an endpoint ("openai:m@http://...") is told apart: shown
    scrubbed it would read as one of the offered names ("'openai:m' is not offered ... choose one of: openai:m")."""
    name, at, _ = model.partition("@")
    if at:
        return (f"model '{name}' with an endpoint of the request's own is not offered: where a model runs is "
                f"the operator's to set; choose one of: " + ", ".join(offered))
    return f"model '{model}' is not offered by this server; choose one of: " + ", ".join(offered)
