"""A scripted backend for tests and benchmarks: answers come from a Python function, optionally after a
fixed delay. It sees who is asking (role, agent, round, prompt name) through :func:`current_call`."""

from __future__ import annotations

import asyncio
from collections.abc import Callable

from factdebate.llm.base import Completion, GenParams, Message
from factdebate.llm.calls import CallInfo, current_call

Responder = Callable[[CallInfo, list[Message], GenParams], str]


class ScriptedBackend:
    endpoint = ""

    def __init__(self, responder: Responder, latency: float = 0.0, name: str = "scripted",
                 max_parallel: int = 1024, record: bool = True) -> None:
        self.responder = responder
        self.latency = latency
        self.name = name
        self.max_parallel = max_parallel
        self.record = record  # tests inspect the calls; a long-running server must not keep them
        self.calls: list[tuple[CallInfo, list[Message]]] = []

    async def complete(self, messages: list[Message], params: GenParams) -> Completion:
        info = current_call()
        if self.record:
            self.calls.append((info, messages))
        if self.latency:
            await asyncio.sleep(self.latency)
        text = self.responder(info, messages, params)
        prompt_tokens = sum(len(m["content"].split()) for m in messages)
        return Completion(text=text, prompt_tokens=prompt_tokens, completion_tokens=len(text.split()))
