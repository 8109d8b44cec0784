"""The guard's default deadline: the operator's ``guard.deadline_s`` when set, else one that fits where the
checker's models run.

A hosted checker decides a reply's claims within 20 s; a model on this machine's CPU does not (every claim
of a newcomer's first replies came back unchecked), so it gets ``guard.max_deadline_s``. "On this machine" is
read from the settings, never probed: an in-process llama.cpp model, or an ``openai:`` model on loopback."""

from __future__ import annotations

import ipaddress
import os
from urllib.parse import urlsplit

from factdebate.settings.model import Settings

__all__ = ["HOSTED_DEADLINE_S", "checker_runs_here", "default_deadline_s", "reads_in_process"]

HOSTED_DEADLINE_S = 20.0  # the wait a chat's reader is promised, and what a hosted or GPU checker meets
IN_PROCESS = ("llama-cpp:", "llamacpp:", "llama_cpp:")  # make_backend's spellings of the in-process llama.cpp
# the claim extractor and the fast tier (guard_engine/check.py, guard_engine/fast.py)
GUARD_ROLES = ("extractor", "debater")


def default_deadline_s(settings: Settings) -> float:
    """``guard.deadline_s``; unset, ``guard.max_deadline_s`` for a local checker, 20 s for a hosted one."""
    guard = settings.guard
    if guard.deadline_s is not None:
        return guard.deadline_s
    return guard.max_deadline_s if checker_runs_here(settings) else min(HOSTED_DEADLINE_S, guard.max_deadline_s)


def checker_runs_here(settings: Settings) -> bool:
    """Whether any model the guard's check calls runs on this machine (the slowest model sets the pace)."""
    from factdebate.methods.base import Method

    method = Method.registered().get(settings.guard.method or settings.method)
    roles = dict.fromkeys([*GUARD_ROLES, *(method.roles if method is not None else ())])
    return any(_runs_here(settings.llm_for(role), settings) for role in roles)


def _runs_here(spec: str, settings: Settings) -> bool:
    if spec.startswith(IN_PROCESS):
        return True
    if not spec.startswith("openai:"):
        return False  # scripted: a test model that answers at once
    # The servers the backend is given (run/build.py), else OPENAI_BASE_URL, else OpenAI's own (hosted).
    urls = settings.llm.base_urls or [os.environ.get("OPENAI_BASE_URL") or ""]
    return any(_loopback(url) for url in urls)


def _loopback(url: str) -> bool:
    try:
        host = urlsplit(url.strip()).hostname
    except ValueError:  # a malformed URL fails where the backend is built; it names no machine here
        return False
    if not host:
        return False
    if host == "localhost" or host.endswith(".localhost"):
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:  # a host name: not this machine's by its name alone
        return False


def reads_in_process(settings: Settings) -> bool:
    """Whether the checker is an in-process GGUF model other than the embedded one (which keeps the tiers)."""
    from factdebate.llm.near_chance import EMBEDDED_MODELS

    spec = settings.llm_for("debater")
    provider, _, target = spec.partition(":")
    return provider in ("llama-cpp", "llamacpp", "llama_cpp") and f"llama-cpp:{target}" not in EMBEDDED_MODELS
