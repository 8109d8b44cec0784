"""A scripted model that holds some of its answers until the test lets them go: a page test that looks at a run
in flight (a verdict not there yet, a Stop that finds work to stop) waits for that state instead of hoping a
latency outlasts the browser's round trips on a loaded machine."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Callable

from factdebate.llm.base import Completion, GenParams, Message
from factdebate.llm.calls import CallInfo, current_call
from factdebate.llm.scripted import Responder, ScriptedBackend

Holds = Callable[[CallInfo, list[Message]], bool]


def every_call(call: CallInfo, messages: list[Message]) -> bool:
    return True


def judge_calls(call: CallInfo, messages: list[Message]) -> bool:
    return call.role == "judge"


class HeldModel(ScriptedBackend):
    """``responder``'s answers; a call that ``holds`` picks waits while ``gate`` is closed (it starts closed).
    ``held`` counts the calls that found it closed, ``cancelled`` those cancelled while they waited there."""

    def __init__(self, responder: Responder, holds: Holds = every_call, *, latency: float = 0.0,
                 name: str = "scripted:held") -> None:
        super().__init__(responder, latency=latency, name=name, record=False)
        self.holds = holds
        self.gate = threading.Event()
        self.held = 0
        self.cancelled = 0

    async def complete(self, messages: list[Message], params: GenParams) -> Completion:
        if not self.gate.is_set() and self.holds(current_call(), messages):
            self.held += 1
            try:
                while not self.gate.is_set():  # set from the test's thread: polled, not awaited
                    await asyncio.sleep(0.01)
            except asyncio.CancelledError:
                self.cancelled += 1
                raise
        return await super().complete(messages, params)
