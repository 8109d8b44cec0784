"""Settings of the service itself (keys, limits, storage), kept apart from the verification settings.

They come from an optional YAML file (``--service-config`` or ``$FACTDEBATE_SERVICE_CONFIG``), then the
environment, then explicit arguments, put together by pydantic-settings (see settings/sources.py). Only the
fields that name a variable read the environment (``FACTDEBATE_STATE_DB``); API keys may live in the file or
in ``$FACTDEBATE_API_KEYS`` (comma-separated, added to the file's). Keys are held as ``SecretStr`` so no
repr or log line ever shows them."""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, SecretStr, ValidationError, field_validator
from pydantic.fields import FieldInfo
from pydantic_settings import BaseSettings, EnvSettingsSource, InitSettingsSource, SettingsConfigDict

from factdebate.engine import CorpusName
from factdebate.server.caps import SpendingCaps
from factdebate.server.state.db import is_server_url, unsupported
from factdebate.server.tool_allowlist import check_allow_entry
from factdebate.util.errors import ConfigError
from factdebate.util.yaml_file import YamlFile

_KEY_ID = re.compile(r"^key-[0-9a-f]{10}$")


class ServiceConfig(BaseModel):
    model_config = ConfigDict(extra="forbid", hide_input_in_errors=True)  # an error never quotes a key

    api_keys: list[SecretStr] = Field(default_factory=list, description="Keys callers present; "
                                      "FACTDEBATE_API_KEYS (comma-separated) adds more.")
    allow_anonymous: bool = Field(default=False, description="Serve without keys, for local experiments only "
                                  "(`serve` refuses it on a non-loopback address).")
    rate_limit_per_minute: float = Field(default=60, ge=0, le=1_000_000, description="Requests per minute per key "
                                         "(0: no limit, nor of claims_per_minute).")
    rate_burst: int | None = Field(default=None, ge=1, le=1_000_000,
                                   description="Requests a key may make at once (default: a "
                                   "minute's worth).")
    claims_per_minute: float = Field(default=600, ge=0, le=10_000_000, description="Claims per minute per key "
                                     "that guard replies check, apart from the requests (0: no limit); a reply "
                                     "reserves response.max_claims when it starts and gives back what it did not "
                                     "check.")
    claims_burst: int | None = Field(default=None, ge=1, le=10_000_000, description="Claims a key may have "
                                     "checked at once (default: a minute's worth).")
    max_body_bytes: int = Field(default=64 * 1024, ge=1024, le=2**30, description="Largest request body.")
    max_batch_bytes: int = Field(default=8 * 1024 * 1024, ge=1024, le=2**30, description="Largest batch upload.")
    max_batch_claims: int = Field(default=5000, ge=1, le=1_000_000, description="Most claims in one batch.")
    max_pending_claims: int = Field(default=10_000, ge=1, le=10_000_000,
                                    description="Most batch claims one key may have "
                                    "waiting or running, all its batches together; an upload that would pass it "
                                    "is refused (429) until some finish.")
    max_active_runs: int = Field(default=512, ge=1, le=100_000,
                                 description="Interactive debates at once; beyond that, 503.")
    caps: SpendingCaps = Field(default_factory=SpendingCaps, description="The most model calls one request may "
                               "ask for: rounds, steps, samples, judges, claims (server/caps.py).")
    batch_concurrency: int = Field(default=4, ge=1, le=1024, description="Batch claims verified at once, all batches "
                                   "together.")
    batch_join_seconds: float = Field(default=5.0, gt=0, le=3600, description="With shared state: how often a process "
                                      "looks for batches the others run, to share their claims.")
    cors_origins: list[str] = Field(default_factory=list, description="Origins allowed to call from a browser "
                                    "(empty: no CORS headers at all).")
    db_path: Path | None = Field(default=None, description="The service's database (default: <data "
                                 "dir>/service.sqlite).")
    shared_state: bool = Field(default=False, description="Keep the rate limits and the cap on debates in "
                               "progress in a database all the service's processes share (serve --workers N > 1 "
                               "turns it on): state_db, or the batch store's file "
                               "(factdebate docs scale#the-service-in-several-processes).")
    state_db: str | None = Field(
        default=None, json_schema_extra={"env": "FACTDEBATE_STATE_DB"},
        description="sqlite:///PATH: the shared limits in that file (one machine); postgresql://user@host/db: "
        "batches, limits and caps on a PostgreSQL server, for replicas on several machines (shared_state "
        "implied); default: db_path. A password is best left to PGPASSWORD or ~/.pgpass.")
    kept_checks_per_key: int = Field(default=1000, ge=0, le=1_000_000,
                                     description="Finished checks kept per key, so that a link (/?check=<id>, "
                                     "GET /v1/checks/{id}) reopens one; the oldest go first; 0: none kept and no "
                                     "links given.")
    models_required: bool = Field(default=False, description="Answer /v1/health with 503 while a model server "
                                  "the checks call is down (it refused connections: llm/breaker.py), so that a load "
                                  "balancer sends callers elsewhere; off, health lists it in `down` and answers 200.")
    kept_checks_days: float = Field(default=30.0, gt=0, le=36_500, description="Days a finished check is kept for "
                                    "its link; older ones are gone (404).")
    kept_check_calls_bytes: int = Field(default=1024 * 1024, ge=0, le=64 * 1024 * 1024,
                                        description="Most bytes of a check's model calls, plain or streamed (their "
                                        "llm_call events, with the text when a stream asked for its transcript) kept "
                                        "with it, so that a reopened check shows them; calls past it are counted, not "
                                        "kept; 0: none kept (and a plain verify builds no events).")
    resource_cache_size: int = Field(default=4, ge=1, le=1024,
                                     description="Sets of built models and tools kept, one per "
                                     "distinct settings of recent requests.")
    allowed_llms: list[str] = Field(default_factory=list, description="Models a request may choose besides the "
                                    "configured ones; \"*\" allows any model spec.")
    allowed_mcp_tools: list[str] = Field(default_factory=list, description="MCP tools a request may name as "
                                         "agents or evidence tools, and the only ones of mcp_servers a caller's run "
                                         "reaches at all (MERMAID's executor included): mcp:<server>/<tool>, or "
                                         "mcp:<server>/* for all of a server's; empty: none. The configured "
                                         "defaults may use any.")
    allowed_corpora: list[Literal["*"] | CorpusName] = Field(
        default_factory=list, description="Corpora every caller may search besides the built-in one and the "
        "configured default; \"*\" allows any.")
    key_corpora: dict[str, list[CorpusName]] = Field(
        default_factory=dict, description="Corpora only one key may search (besides allowed_corpora), by the key's "
        "id: key- and the first 10 hex digits of the key's SHA-256.")
    defaults: dict[str, Any] = Field(default_factory=dict, description="Default verification options (the flat "
                                     "option names) on top of config_file.")
    config_file: Path | None = Field(default=None, description="The verification settings YAML (the format of "
                                     "the CLI's --config).")
    stream_ping_seconds: float = Field(default=15.0, gt=0, le=3600,
                                       description="Seconds of silence after which a stream "
                                       "sends a keep-alive ping.")
    stream_flush_seconds: float = Field(default=0.01, ge=0, le=1, description="How long a stream gathers the "
                                        "events that follow one another before writing them out together.")
    shutdown_grace_s: int = Field(default=10, ge=1, le=3600, description="Seconds `serve` waits, once told to "
                                  "stop (SIGTERM, Ctrl-C), for the requests in progress; then they are cancelled "
                                  "and the server exits within a few seconds more, whatever is running.")

    heartbeat_lease_s: float = Field(default=20.0, ge=2, le=3600, description="With shared state: seconds "
                                     "without a heartbeat after which a process of another machine counts as gone "
                                     "and its batch claims and debate slots are freed; each process beats four "
                                     "times a lease.")
    mcp_sessions_per_key: int = Field(default=100, ge=1, le=100_000, description="`mcp --http`: the MCP sessions "
                                      "one key may hold open; its next handshake is refused (429) while other "
                                      "keys connect.")
    mcp_max_sessions: int = Field(default=2000, ge=1, le=1_000_000, description="`mcp --http`: the MCP sessions "
                                  "open at once, all keys together.")
    mcp_idle_s: float = Field(default=1800.0, gt=0, le=86_400, description="`mcp --http`: seconds without a request "
                              "after which a session that called a tool ends (its client opens a new one).")
    mcp_unused_idle_s: float = Field(default=60.0, gt=0, le=86_400, description="`mcp --http`: seconds without a "
                                     "request after which a session that never called a tool ends.")
    metrics_key: SecretStr | None = Field(
        default=None, json_schema_extra={"env": "FACTDEBATE_METRICS_KEY"},
        description="The key a Prometheus scrape of GET /metrics on the service's port presents (Authorization: "
        "Bearer); no caller's API key reads the metrics. Unset: /metrics on the service's port answers 404 "
        "(metrics_port serves them apart).")
    metrics_port: int | None = Field(default=None, ge=1, le=65535, description="A port of its own for "
                                     "Prometheus' scrapes of /metrics, without a key, on metrics_host "
                                     "(serve --metrics-port).")
    metrics_host: str = Field(default="127.0.0.1", description="The address metrics_port listens on.")

    @field_validator("allowed_mcp_tools")
    @classmethod
    def _allow_entries(cls, entries: list[str]) -> list[str]:
        return [check_allow_entry(entry) for entry in entries]

    @field_validator("key_corpora")
    @classmethod
    def _key_corpus_entries(cls, entries: dict[str, list[str]]) -> dict[str, list[str]]:
        for key in entries:
            if not _KEY_ID.fullmatch(key):  # a key's id, so that the file never needs to hold the key itself
                raise ValueError("an entry is not a key id (key- and the first 10 hex digits of the key's SHA-256; "
                                 "never the key itself, which is not shown here)")
        return entries

    @field_validator("state_db")
    @classmethod
    def _known_scheme(cls, value: str | None) -> str | None:
        problem = unsupported(value) if value is not None else None
        if problem:
            raise ValueError(problem)
        return value

    @property
    def uses_state_server(self) -> bool:
        return is_server_url(self.state_db)

    def key_values(self) -> list[str]:
        return [key.get_secret_value() for key in self.api_keys if key.get_secret_value()]

    def secret_values(self) -> list[str]:
        """Every secret the service holds: the API keys and the metrics key."""
        metrics = self.metrics_key.get_secret_value() if self.metrics_key else ""
        return [*self.key_values(), *([metrics] if metrics else [])]


def keys_from_env(environ: dict[str, str] | None = None) -> list[str]:
    raw = (environ if environ is not None else os.environ).get("FACTDEBATE_API_KEYS", "")
    return [part.strip() for part in raw.split(",") if part.strip()]


class _NamedEnv(EnvSettingsSource):
    """The environment, read only for the fields that name a variable (``json_schema_extra={"env": ...}``)."""

    def __init__(self, settings_cls: type[BaseSettings], environ: Mapping[str, str]) -> None:
        self.environ = dict(environ)
        super().__init__(settings_cls, env_prefix="", env_ignore_empty=True)

    def _load_env_vars(self) -> Mapping[str, str | None]:
        return {name.lower(): value for name, value in self.environ.items() if value}

    def get_field_value(self, field: FieldInfo, field_name: str) -> tuple[Any, str, bool]:
        extra = field.json_schema_extra if isinstance(field.json_schema_extra, dict) else {}
        name = extra.get("env")
        return (self.env_vars.get(name.lower()) if isinstance(name, str) else None), field_name, False

    def explode_env_vars(self, field_name: str, field: FieldInfo, env_vars: Mapping[str, str | None]) -> dict[str, Any]:
        return {}  # no nesting: a section comes from the file alone


class _File(YamlFile):
    """The service config's file (read bounded, as the settings' own), with the environment's API keys added to
    the file's."""

    def __init__(self, settings_cls: type[BaseSettings], path: str | Path | None, env_keys: list[str]) -> None:
        super().__init__(settings_cls, path, "service config")
        self.env_keys = env_keys

    def __call__(self) -> dict[str, Any]:
        data = super().__call__()
        return {**data, "api_keys": [*data.get("api_keys", []), *self.env_keys]} if self.env_keys else data


class _Loaded(ServiceConfig, BaseSettings):
    """:class:`ServiceConfig` as pydantic-settings builds it; :func:`load_service_config` hands out a copy."""

    model_config = SettingsConfigDict(extra="forbid", validate_default=False)


def load_service_config(path: str | Path | None = None, environ: dict[str, str] | None = None,
                        **overrides: Any) -> ServiceConfig:
    """File < environment (keys are added, not replaced) < keyword overrides (None values skipped)."""
    environ = dict(os.environ) if environ is None else environ
    path = path or environ.get("FACTDEBATE_SERVICE_CONFIG")
    sources = (InitSettingsSource(_Loaded, {k: v for k, v in overrides.items() if v is not None}),
               _NamedEnv(_Loaded, environ), _File(_Loaded, path, keys_from_env(environ)))
    try:
        # pydantic-settings' own argument for sources built per call (the mypy plugin knows only the fields)
        loaded = _Loaded(_build_sources=(sources, {}))  # type: ignore[call-arg]
    except ValidationError as exc:
        problems = "; ".join(f"{'.'.join(str(p) for p in e['loc'])}: {e['msg']}" for e in exc.errors())
        raise ConfigError(f"invalid service config: {problems}") from exc
    return ServiceConfig.model_construct(loaded.model_fields_set, **{name: getattr(loaded, name)
                                                                     for name in ServiceConfig.model_fields})
