"""What a request may choose, and how that becomes verification settings.

Only options that change *how* a claim is checked are open to callers. Those that would let a caller
spend the operator's resources or reach elsewhere (arbitrary model endpoints, the Milvus URI, the claim
length limit, the cache, batch concurrency) stay with the operator."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

from pydantic import BaseModel, ConfigDict, Field, create_model, model_validator

from factdebate.api import settings_from
from factdebate.config import Settings
from factdebate.corpus.names import PATTERN as CORPUS_PATTERN
from factdebate.errors import ConfigError
from factdebate.options import Option, all_options, options_to_overrides
from factdebate.plugins import get_method
from factdebate.types import Verdict

# What the service adds to an option's own constraints (a corpus name becomes part of a file path).
SERVICE_FIELDS: dict[str, dict[str, Any]] = {
    "corpus": {"pattern": CORPUS_PATTERN},
    "llm": {"description": "Debater model; only models the server offers."},
}


def public_options() -> dict[str, Option]:
    """The options a caller may choose: every method's, and the shared ones that do not spend or reach the
    operator's resources."""
    return {name: option for name, option in all_options().items() if option.public}


def _field(option: Option) -> tuple[Any, Any]:
    metadata = list(option.field.metadata) if option.field is not None else []
    annotation = Annotated[option.annotation, *metadata] if metadata else option.annotation
    extra = {"description": option.help, **SERVICE_FIELDS.get(option.name, {})}
    return annotation | None, Field(default=None, **extra)


class _OptionsBase(BaseModel):
    # Methods registered after this model was built (plug-ins loaded later) still get their options
    # through: extras are checked against the current option table, then validated by the settings.
    model_config = ConfigDict(extra="allow")

    @model_validator(mode="after")
    def _known_extras(self) -> _OptionsBase:
        unknown = sorted(set(self.model_extra or {}) - set(public_options()) - {"claim"})
        if unknown:
            raise ValueError(f"unknown option(s) {', '.join(unknown)}; known: {', '.join(sorted(public_options()))}")
        return self

    def chosen(self) -> dict[str, Any]:
        """The options set on this request (never the claim of a VerifyRequest)."""
        return {k: v for k, v in self.model_dump(exclude_none=True).items() if k != "claim"}


if TYPE_CHECKING:
    VerifyOptions = _OptionsBase
else:  # one typed field per option known now, so the API reference documents them all
    VerifyOptions = create_model("VerifyOptions", __base__=_OptionsBase,
                                 **{name: _field(opt) for name, opt in public_options().items()})


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
        roles = {"debater", "judge", "scorer", *self.base.llm.roles}
        offered = [self.base.llm_for(role) for role in sorted(roles)]
        self.llms = list(dict.fromkeys([*offered, *(m for m in allowed_llms if m != "*")]))

    def resolve(self, options: VerifyOptions | dict[str, Any], caller: str | None = None) -> Settings:
        """The request's settings; with ``caller`` (an API key's id), narrowed to that caller by the method
        (MERMAID: its own evidence-memory namespace)."""
        settings = self._resolve(options)
        return get_method(settings.method).for_caller(settings, caller) if caller is not None else settings

    def _resolve(self, options: VerifyOptions | dict[str, Any]) -> Settings:
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
