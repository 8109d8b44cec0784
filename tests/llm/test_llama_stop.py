"""An in-process llama.cpp generation stops at its next token when the process is told to stop (Ctrl-C or
SIGTERM: core/stopping.py) and when its caller is gone (cancelled at a deadline), on the shipped SmolLM2 model:
the model is not held for minutes after the interrupt, and the next call finds it free and whole. Steps are
counted, not timed: a grammar makes the answer 300 tokens long, and the stop comes at the fifth step."""

from __future__ import annotations

import asyncio
import importlib.util
from collections.abc import Iterator

import pytest

from factdebate.core import stopping
from factdebate.llm import llama_cpp
from factdebate.llm.base import GenParams, Message
from factdebate.llm.llama_cpp import LlamaCppBackend, builtin_model_path

pytestmark = pytest.mark.skipif(
    builtin_model_path() is None or importlib.util.find_spec("llama_cpp") is None,
    reason="built-in model or llama-cpp-python not installed (run scripts/setup.sh)")

LONG = GenParams(max_tokens=400, grammar="root ::= [0-9]{300}")  # no end before 300 digits
MESSAGES: list[Message] = [{"role": "user", "content": "Write three hundred digits."}]


@pytest.fixture(autouse=True)
def _shared_data_dir(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    monkeypatch.setenv("FACTDEBATE_DATA_DIR", str(tmp_path_factory.getbasetemp() / "llama-stop-data"))
    yield
    stopping._stop.clear()  # the flag is the process's: the next test starts unstopped


class Steps:
    """Counts the model's steps (prompt batches and tokens) and does ``then`` at step ``at``."""

    def __init__(self, at: int, then: object) -> None:
        self.count, self.at, self.then = 0, at, then
        self.real = llama_cpp.raise_if_stopped

    def __call__(self) -> None:
        self.count += 1
        if self.count == self.at:
            self.then()  # type: ignore[operator]
        self.real()


async def test_a_stop_during_a_generation_ends_it_at_the_next_token(monkeypatch: pytest.MonkeyPatch) -> None:
    backend = LlamaCppBackend("builtin")
    steps = Steps(5, stopping.stop_all)
    monkeypatch.setattr(llama_cpp, "raise_if_stopped", steps)
    with pytest.raises(stopping.Stopped):
        await backend.complete(MESSAGES, LONG)
    assert steps.count == 5  # the step after the signal's never ran: 4 of 300 tokens at most
    stopping._stop.clear()
    monkeypatch.setattr(llama_cpp, "raise_if_stopped", steps.real)
    again = await backend.complete(MESSAGES, GenParams(max_tokens=8, grammar="root ::= [0-9]{3}"))
    assert again.text.isdigit() and len(again.text) == 3  # the model is free and whole


async def test_a_generation_whose_caller_is_gone_stops_and_frees_the_model(monkeypatch: pytest.MonkeyPatch) -> None:
    backend = LlamaCppBackend("builtin")
    await backend.complete(MESSAGES, GenParams(max_tokens=2))  # loaded: the steps below are the call's own
    ended: list[BaseException | str] = []
    real_sync = LlamaCppBackend._complete_sync

    def recorded(self: LlamaCppBackend, *args: object) -> object:
        try:
            done = real_sync(self, *args)  # type: ignore[arg-type]
        except BaseException as exc:
            ended.append(exc)
            raise
        ended.append(done.text)
        return done

    monkeypatch.setattr(LlamaCppBackend, "_complete_sync", recorded)
    loop = asyncio.get_running_loop()
    call = loop.create_task(backend.complete(MESSAGES, LONG))
    steps = Steps(5, lambda: loop.call_soon_threadsafe(call.cancel))
    monkeypatch.setattr(llama_cpp, "raise_if_stopped", steps)
    with pytest.raises(asyncio.CancelledError):
        await call
    # The next call waits for the model's lock: it gets it once the abandoned generation has stopped.
    again = await backend.complete(MESSAGES, GenParams(max_tokens=8, grammar="root ::= [0-9]{3}"))
    assert again.text.isdigit() and len(again.text) == 3
    assert isinstance(ended[0], llama_cpp.GenerationAbandoned), ended  # stopped, not run to its 300 tokens
