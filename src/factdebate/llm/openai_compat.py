"""Any OpenAI-compatible chat endpoint through the official SDK: OpenAI, vLLM, Ollama, llama.cpp server...

``OPENAI_BASE_URL`` picks the server and ``OPENAI_API_KEY`` the key. Local servers rarely check keys, so a
missing key is only an error when the base URL is OpenAI's own.
"""

from __future__ import annotations

import json
import os
from typing import Any

from factdebate.errors import MissingDependencyError, MissingKeyError
from factdebate.llm.base import Completion, FatalLLMError, GenParams, Message, TransientLLMError
from factdebate.redact import redact_url

OPENAI_DEFAULT_URL = "https://api.openai.com/v1"
UNREACHED_TRIES = 3  # tries against a server that has never answered before giving up


def _retry_after(headers: Any) -> float | None:
    try:
        value = headers.get("retry-after") if headers is not None else None
        return float(value) if value is not None else None
    except (TypeError, ValueError):
        return None


class OpenAIBackend:
    def __init__(self, model: str, base_url: str | None = None, api_key: str | None = None,
                 timeout: float = 120.0, max_parallel: int = 16) -> None:
        try:
            import openai
        except ImportError as exc:  # pragma: no cover - depends on the environment
            raise MissingDependencyError("openai", "openai") from exc
        self._openai = openai
        self.model = model
        self.endpoint = (base_url or os.environ.get("OPENAI_BASE_URL") or OPENAI_DEFAULT_URL).rstrip("/")
        key = api_key or os.environ.get("OPENAI_API_KEY")
        if not key:
            if self.endpoint == OPENAI_DEFAULT_URL:
                raise MissingKeyError("OPENAI_API_KEY", f"the model openai:{model}")
            key = "not-needed"
        # The name shows in traces, errors and cache keys: never with the URL's credentials.
        self.name = f"openai:{model}@{redact_url(self.endpoint)}"
        self.max_parallel = max_parallel
        self._answered = False  # has the server ever answered (any HTTP status)?
        # The SDK's own retries are off: the LLM wrapper owns retrying, so attempts are capped once.
        self._client = openai.AsyncOpenAI(base_url=self.endpoint, api_key=key, timeout=timeout, max_retries=0)

    async def complete(self, messages: list[Message], params: GenParams) -> Completion:
        openai = self._openai
        try:
            response = await self._client.chat.completions.create(
                model=self.model,
                messages=messages,  # type: ignore[arg-type]
                temperature=params.temperature,
                max_tokens=params.max_tokens,
            )
        except openai.RateLimitError as exc:
            self._answered = True
            raise TransientLLMError(f"429 rate limited: {exc.message}", _retry_after(exc.response.headers),
                                    self.endpoint) from exc
        except openai.APIStatusError as exc:
            self._answered = True
            if exc.status_code >= 500 or exc.status_code in (408, 409):
                raise TransientLLMError(f"HTTP {exc.status_code}: {exc.message}",
                                        _retry_after(exc.response.headers), self.endpoint) from exc
            raise FatalLLMError(f"HTTP {exc.status_code} from {self.endpoint}: {exc.message}") from exc
        except (openai.APITimeoutError, openai.APIConnectionError) as exc:
            # Until the server has answered once, a refused connection is likely a wrong URL: a few tries,
            # not the whole time budget.
            raise TransientLLMError(f"{type(exc).__name__}: {exc}", None, self.endpoint,
                                    give_up_after=None if self._answered else UNREACHED_TRIES) from exc
        except (openai.APIResponseValidationError, json.JSONDecodeError) as exc:
            # A 200 whose body is not a chat completion (a proxy's error page, a truncated body): the next
            # try usually gets a real one.
            raise TransientLLMError(f"unusable response body: {type(exc).__name__}", None, self.endpoint) from exc
        self._answered = True
        return _completion(response, self.endpoint)


def _completion(response: Any, endpoint: str) -> Completion:
    """The text and usage of a response, or a TransientLLMError when it has no usable choice."""
    try:
        choice = response.choices[0]
        text = choice.message.content
        usage = response.usage
        prompt_tokens = int(usage.prompt_tokens) if usage else 0
        completion_tokens = int(usage.completion_tokens) if usage else 0
    except (AttributeError, IndexError, KeyError, TypeError, ValueError) as exc:
        raise TransientLLMError(f"unusable response body: no choices ({type(exc).__name__})", None,
                                endpoint) from exc
    if text is not None and not isinstance(text, str):
        raise TransientLLMError("unusable response body: the message content is not text", None, endpoint)
    return Completion(text=text or "", prompt_tokens=prompt_tokens, completion_tokens=completion_tokens)
