"""Spending caps: the most model calls one request to the service may ask for.

Each option that multiplies calls (rounds, steps, samples, judges, claims, tools searched) is capped by an
operator setting (``caps:`` in the service config); a request over a cap is refused before any work with
a message that names the cap and the setting that raises it. A last cap bounds the calls one claim may
cost whatever the combination (each method's own ``call_bounds``), which also covers plug-in methods whose
options are not listed here. Only the options a caller chose are checked against the per-option caps: the
operator's own settings are theirs to choose. docs/robustness.md tabulates the worst case per method."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from factdebate.engine import Method, Settings
from factdebate.util.errors import ConfigError


class SpendingCaps(BaseModel):
    model_config = ConfigDict(extra="forbid")

    max_claims: int = Field(default=12, ge=1, le=1000, description="Claims checked per response; sub-claims of one "
                            "FacTool claim.")
    max_rounds: int = Field(default=5, ge=1, le=1000, description="Debate rounds of any method.")
    max_steps: int = Field(default=10, ge=1, le=1000, description="Agent steps (ReAct, MERMAID).")
    max_judges: int = Field(default=5, ge=1, le=1000, description="Judges of DPD's panel.")
    max_samples: int = Field(default=5, ge=1, le=1000, description="Sampled answers (DPD summaries, SelfCheck, votes).")
    max_tools: int = Field(default=3, ge=1, le=1000,
                           description="Tools searched per evidence gathering (one search each).")
    max_calls_per_claim: int = Field(default=200, ge=1, le=1_000_000,
                                     description="LLM calls one claim may cost at worst, "
                                     "whatever the combination of options.")


# Option -> the cap it counts against (a list counts by its length).
LEVERS: dict[str, str] = {
    "max_claims": "max_claims",
    "factool_max_claims": "max_claims",
    "rounds": "max_rounds",
    "mad_rounds": "max_rounds",
    "madke_rounds": "max_rounds",
    "dpd_max_rounds": "max_rounds",
    "react_max_steps": "max_steps",
    "mermaid_max_steps": "max_steps",
    "dpd_judges": "max_judges",
    "dpd_summary_samples": "max_samples",
    "selfcheck_samples": "max_samples",
    "vote_samples": "max_samples",
    "madke_tools": "max_tools",
    "dpd_tools": "max_tools",
}
UNITS = {"max_claims": "claims", "max_rounds": "rounds", "max_steps": "steps", "max_judges": "judges",
         "max_samples": "samples", "max_tools": "tools"}


def _refused(what: str, cap: str, limit: int) -> ConfigError:
    return ConfigError(f"{what} is over this server's cap of {limit}; the operator can raise caps.{cap} in the "
                       "service config")


def check_caps(chosen: dict[str, Any], settings: Settings, caps: SpendingCaps) -> None:
    """Refuse (``ConfigError``) a request whose chosen options, or whose resulting settings, cost more than
    the operator allows."""
    for name, value in chosen.items():
        cap = LEVERS.get(name)
        if cap is None or value is None:
            continue
        amount = len(value) if isinstance(value, list | tuple) else value
        limit = getattr(caps, cap)
        if amount > limit:
            raise _refused(f"{name}: {amount} {UNITS[cap]}", cap, limit)
    if chosen:
        most = Method.named(settings.method).call_bounds(settings)[1]
        if most > caps.max_calls_per_claim:
            raise _refused(f"these options allow up to {most} model calls per claim ({settings.method})",
                           "max_calls_per_claim", caps.max_calls_per_claim)
