"""A failed part ends its siblings, in every method that runs agents together: with
``asyncio.gather`` the others ran on at the server after the claim had failed (DPD's judges 152 s and 310 s
more). One agent's call fails at once here while the others' take 30 s: the claim fails without waiting,
and the others' calls were cancelled, not left running."""

from __future__ import annotations

import asyncio
import time

import pytest

from factdebate.llm.base import Completion, FatalLLMError, GenParams, Message
from factdebate.llm.calls import current_call
from factdebate.llm.scripted import ScriptedBackend
from factdebate.run.build import build_resources
from factdebate.run.claim import run_claim
from factdebate.settings.load import load_settings
from factdebate.util.errors import FactDebateError
from tests.eval.support import truthful
from tests.helpers import CLAIM, BagOfWordsEncoder, StaticTool


class OneFails(ScriptedBackend):
    """Calls of ``prompt``: the first fails, the others hang for 120 s (noted in ``cancelled`` when cancelled)."""

    def __init__(self, prompt: str) -> None:
        super().__init__(truthful)
        self.prompt, self.seen, self.cancelled = prompt, 0, 0

    async def complete(self, messages: list[Message], params: GenParams) -> Completion:
        if current_call().prompt != self.prompt:
            return await super().complete(messages, params)
        self.seen += 1
        if self.seen == 1:
            await asyncio.sleep(0.05)
            raise FatalLLMError("HTTP 400 from the model server: refused")
        try:
            await asyncio.sleep(120)
        except asyncio.CancelledError:
            self.cancelled += 1
            raise
        return await super().complete(messages, params)


@pytest.mark.parametrize(("method", "prompt"), [("vote", "vote_answer"), ("madke", "madke_answer")])
async def test_a_failed_agent_cancels_the_others(method: str, prompt: str) -> None:
    backend = OneFails(prompt)
    settings = load_settings(overrides={"method": method, "llm": {"cache": False}}, environ={})
    tools = {"rag": StaticTool("rag"), "search": StaticTool("local")}
    resources = build_resources(settings, backends={"debater": backend}, tool_factory=lambda kind: tools[kind],
                                encoder_factory=BagOfWordsEncoder)
    started = time.perf_counter()
    with pytest.raises(FactDebateError, match="refused"):
        await run_claim(CLAIM, resources.settings, resources)
    assert time.perf_counter() - started < 60  # not the others' 120 s (the margin is for a loaded machine)
    assert backend.seen >= 2 and backend.cancelled == backend.seen - 1
