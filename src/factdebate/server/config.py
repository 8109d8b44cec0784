"""Settings of the service itself (keys, limits, storage), kept apart from the verification settings.

They come from an optional YAML file (``--service-config`` or ``$FACTDEBATE_SERVICE_CONFIG``), then the
environment, then explicit arguments. API keys may live in that file or in ``$FACTDEBATE_API_KEYS``
(comma-separated); they are held as ``SecretStr`` so no repr or log line ever shows them."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import yaml
from pydantic import BaseModel, ConfigDict, Field, SecretStr, ValidationError, field_validator

from factdebate.core.errors import ConfigError
from factdebate.server.caps import SpendingCaps
from factdebate.server.state_db import is_server_url, unsupported


class ServiceConfig(BaseModel):
    model_config = ConfigDict(extra="forbid")

    api_keys: list[SecretStr] = Field(default_factory=list)
    # Only for local experiments: serve without keys. Refused on a non-loopback address by `serve`.
    allow_anonymous: bool = False
    rate_limit_per_minute: float = Field(default=60, ge=0)  # 0: no limit
    rate_burst: int | None = Field(default=None, ge=1)  # None: a minute's worth
    max_body_bytes: int = Field(default=64 * 1024, ge=1024)
    max_batch_bytes: int = Field(default=8 * 1024 * 1024, ge=1024)
    max_batch_claims: int = Field(default=5000, ge=1)
    max_active_runs: int = Field(default=512, ge=1)  # interactive debates at once, beyond that 503
    # The most model calls one request may ask for: rounds, steps, samples, judges, claims (server/caps.py).
    caps: SpendingCaps = Field(default_factory=SpendingCaps)
    batch_concurrency: int = Field(default=4, ge=1)  # batch claims verified at once, all batches together
    # With shared state: how often a process looks for batches the others run, to share their claims.
    batch_join_seconds: float = Field(default=5.0, gt=0)
    cors_origins: list[str] = Field(default_factory=list)  # empty: no CORS headers at all
    db_path: Path | None = None  # None: <data dir>/service.sqlite
    # Keep the rate limits and the cap on debates in progress in a database all the service's processes
    # share (serve --workers N > 1 turns it on): state_db, or the batch store's file (docs/scale.md).
    shared_state: bool = False
    # sqlite:///PATH: the shared limits in that file (one machine); postgresql://user@host/db: batches,
    # limits and caps on a PostgreSQL server, for replicas on several machines (shared_state implied);
    # None: db_path. Also FACTDEBATE_STATE_DB; a password is best left to PGPASSWORD or ~/.pgpass.
    state_db: str | None = None
    resource_cache_size: int = Field(default=4, ge=1)
    # Models a request may choose besides the configured ones; "*" allows any model spec.
    allowed_llms: list[str] = Field(default_factory=list)
    # Default verification options (the flat names of factdebate.settings.options) on top of config_file.
    defaults: dict[str, Any] = Field(default_factory=dict)
    config_file: Path | None = None  # the verification settings YAML (same format as the CLI's --config)
    stream_ping_seconds: float = Field(default=15.0, gt=0)
    # How long a stream gathers the events that follow one another before writing them out together.
    stream_flush_seconds: float = Field(default=0.01, ge=0, le=1)

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


def keys_from_env(environ: dict[str, str] | None = None) -> list[str]:
    raw = (environ if environ is not None else os.environ).get("FACTDEBATE_API_KEYS", "")
    return [part.strip() for part in raw.split(",") if part.strip()]


def load_service_config(path: str | Path | None = None, environ: dict[str, str] | None = None,
                        **overrides: Any) -> ServiceConfig:
    """File < environment (keys are added, not replaced) < keyword overrides (None values skipped)."""
    environ = dict(os.environ) if environ is None else environ
    data: dict[str, Any] = {}
    path = path or environ.get("FACTDEBATE_SERVICE_CONFIG")
    if path:
        try:
            loaded = yaml.safe_load(Path(path).read_text(encoding="utf-8")) or {}
        except (OSError, yaml.YAMLError) as exc:
            raise ConfigError(f"cannot read service config {path}: {exc}") from exc
        if not isinstance(loaded, dict):
            raise ConfigError(f"service config {path} must hold a mapping")
        data.update(loaded)
    if environ.get("FACTDEBATE_STATE_DB"):
        data["state_db"] = environ["FACTDEBATE_STATE_DB"]
    env_keys = keys_from_env(environ)
    if env_keys:
        data["api_keys"] = [*data.get("api_keys", []), *env_keys]
    data.update({k: v for k, v in overrides.items() if v is not None})
    try:
        return ServiceConfig.model_validate(data)
    except ValidationError as exc:
        problems = "; ".join(f"{'.'.join(str(p) for p in e['loc'])}: {e['msg']}" for e in exc.errors())
        raise ConfigError(f"invalid service config: {problems}") from exc
