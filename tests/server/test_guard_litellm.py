"""The guard under LiteLLM (the real ``litellm`` package): docs/guard/litellm-config.yaml's guardrail built by
LiteLLM's own initializer for ``generic_guardrail_api``, run by LiteLLM's post-call hook on a model answer,
against the guard as ``factdebate serve`` runs it (scripted checker models). The proxy server itself is not
started: ``litellm[proxy]`` cannot be installed beside this project's pins (docs/guard.md says why), so the
test calls the hook the proxy calls after each answer. Also LiteLLM's SDK with the guard as its
OpenAI-compatible model endpoint."""

from __future__ import annotations

import asyncio
import os
from pathlib import Path
from typing import Any

import pytest
import yaml

from tests.server.conftest import KEY
from tests.server.guard_support import ANSWER
from tests.server.test_guard_chat import FAST, ROME, Guard, guard  # noqa: F401 - the fixture

CONFIG = Path(__file__).parents[2] / "docs" / "guard" / "litellm-config.yaml"


@pytest.fixture
def litellm() -> Any:
    """LiteLLM, imported by the tests that use it: importing it at collection cost every pytest-xdist worker
    about 3 CPU-seconds (a quarter of a worker's collection)."""
    return pytest.importorskip("litellm", reason="the dev extra installs litellm")


def _guardrail(url: str, **params: Any) -> Any:
    """The guardrail as the proxy builds it from the config file (its ``os.environ/`` values resolved as the
    proxy's config loader does)."""
    from litellm.proxy.guardrails.guardrail_hooks.generic_guardrail_api import initialize_guardrail
    from litellm.types.guardrails import LitellmParams

    entry = yaml.safe_load(CONFIG.read_text())["guardrails"][0]
    settings = entry["litellm_params"]
    settings["api_key"] = os.environ[settings["api_key"].removeprefix("os.environ/")]
    settings["api_base"] = url
    settings["additional_provider_specific_params"].update(params)
    return initialize_guardrail(LitellmParams(**settings), entry)


def _post_call(callback: Any, text: str) -> Any:
    """LiteLLM's post-call path for a chat answer (what the proxy runs after the model replied)."""
    from litellm.proxy._types import UserAPIKeyAuth
    from litellm.proxy.guardrails.guardrail_hooks.unified_guardrail.unified_guardrail import UnifiedLLMGuardrails
    from litellm.types.utils import ModelResponse

    response = ModelResponse(model="gpt-4o-mini", choices=[{"index": 0, "finish_reason": "stop",
                                                            "message": {"role": "assistant", "content": text}}])
    data = {"model": "gpt-4o-mini", "messages": [{"role": "user", "content": "Tell me about Paris."}],
            "guardrail_to_apply": callback}
    return asyncio.run(UnifiedLLMGuardrails().async_post_call_success_hook(
        data=data, user_api_key_dict=UserAPIKeyAuth(request_route="/chat/completions"), response=response))


@pytest.mark.usefixtures("litellm")
def test_the_documented_litellm_guardrail_flags_and_blocks_refuted_answers(guard: Guard,  # noqa: F811
                                                                           monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("LITELLM_LOCAL_MODEL_COST_MAP", "True")
    monkeypatch.setenv("FACTDEBATE_API_KEY", KEY)
    server, _ = guard()
    flagged = _post_call(_guardrail(server.url, method="single"), ANSWER)
    text = flagged.choices[0].message.content
    assert text.startswith(ANSWER) and "Fact check:" in text and ROME in text[len(ANSWER):]
    with pytest.raises(Exception, match="withheld") as blocked:
        _post_call(_guardrail(server.url, method="single", policy="block"), ANSWER)
    assert ROME in str(blocked.value)
    supported = "Paris is the capital of France."
    assert _post_call(_guardrail(server.url, method="single"), supported).choices[0].message.content == supported
    # A wrong key is refused, and LiteLLM fails closed.
    monkeypatch.setenv("FACTDEBATE_API_KEY", "not-a-key-of-this-server")
    with pytest.raises(Exception, match="401"):
        _post_call(_guardrail(server.url, method="single"), ANSWER)


def test_litellms_sdk_with_the_guard_as_its_openai_compatible_endpoint(guard: Guard,  # noqa: F811
                                                                       monkeypatch: pytest.MonkeyPatch,
                                                                       litellm: Any) -> None:
    monkeypatch.setenv("LITELLM_LOCAL_MODEL_COST_MAP", "True")
    server, _ = guard()
    reply = asyncio.run(litellm.acompletion(
        model="openai/scripted", api_base=f"{server.url}/v1", api_key=KEY,
        messages=[{"role": "user", "content": "Tell me about Paris."}],
        extra_body={"factdebate": {**FAST, "policy": "flag"}}))
    text = reply.choices[0].message.content
    assert text.startswith(ANSWER) and ROME in text[len(ANSWER):]
