"""LLM backends behind one protocol, and the wrapper that adds retries, cache and accounting."""

from __future__ import annotations

from factdebate.llm.base import Backend, Completion, GenParams, Message
from factdebate.llm.model import LLM, RetryPolicy
from factdebate.llm.openai_stream import StreamSetting
from factdebate.util.errors import ConfigError

__all__ = ["LLM", "Backend", "Completion", "GenParams", "Message", "RetryPolicy", "make_backend"]


def make_backend(spec: str, *, timeout: float = 120.0, constrain: str = "auto", base_url: str | None = None,
                 reasoning_tokens: int | None = None, stream: StreamSetting = "auto") -> Backend:
    """``openai:<model>``, ``llama-cpp:<path.gguf>`` / ``llama-cpp:builtin``, ``scripted:<name>``; ``base_url``
    defaults to ``OPENAI_BASE_URL``."""
    provider, _, target = spec.partition(":")
    if not target:
        raise ConfigError(f"model spec '{spec}' must look like provider:model "
                          "(openai:gpt-4o-mini, llama-cpp:builtin, llama-cpp:/path/model.gguf)")
    if provider == "openai":
        from factdebate.llm.model_params import REASONING_TOKENS
        from factdebate.llm.openai_compat import OpenAIBackend

        return OpenAIBackend(target, base_url=base_url, timeout=timeout, constrain=constrain,
                             reasoning_tokens=REASONING_TOKENS if reasoning_tokens is None else reasoning_tokens,
                             stream=stream)
    if provider in ("llama-cpp", "llamacpp", "llama_cpp"):
        from factdebate.llm.llama_cpp import LlamaCppBackend

        return LlamaCppBackend(target)
    if provider == "scripted":
        from factdebate.llm.scripted_library import scripted_backend

        return scripted_backend(target)
    raise ConfigError(f"unknown LLM provider '{provider}' in '{spec}'; use openai:, llama-cpp: or scripted:")
