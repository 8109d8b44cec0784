"""A begun check's steps as a door makes them in a straight line (guard_engine/call.py's ``Begun``): ``session``
opens the host's resources only for a reply there is something to check in, ``check`` gives one reply's result as
the check wrote it, and ``finish`` is what hides it and has the host keep it. The chat proxy's plain door makes
these steps itself (tests/server/guard/test_plain_door.py)."""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator
from typing import Any

from factdebate.core.runtime import EventSink
from factdebate.guard_engine import GuardOptions, GuardResult
from factdebate.guard_engine.call import CheckCall, LocalHost, Open, Reply
from factdebate.methods.resources import Resources
from factdebate.settings.model import Settings
from tests.guard.support import CLAIMS, PARIS_DOC, REPLY, script
from tests.guard.test_one_call import ADDRESS, DeadExtractor
from tests.helpers import StaticTool, resources_for

TOOL_CALL = {"role": "assistant", "content": None, "tool_calls": [{"id": "t1", "function": {"name": "lookup"}}]}


class Full(Open):
    """An admission without room: the reply passes unchecked, said."""

    overloaded = "the server is at its limit of checks"


class Recording(LocalHost):
    """A Python caller's host that notes each session it opens and each result it keeps."""

    def __init__(self, respond: Any, admission: Open | None = None) -> None:
        tools = {"rag": StaticTool("rag", [PARIS_DOC]), "search": StaticTool("local", [PARIS_DOC])}
        resources, _, _ = resources_for(respond, method="single", tools=tools)
        assert isinstance(resources.settings, Settings)
        self.opened: list[Settings] = []
        self.kept: list[GuardResult] = []
        self.admission = admission or Open()

        @contextlib.asynccontextmanager
        async def session(settings: Settings) -> AsyncIterator[tuple[Resources, list[EventSink]]]:
            self.opened.append(settings)
            yield resources, []

        super().__init__(resources.settings, session)

    def admit(self, settings: Settings) -> Open:
        return self.admission

    async def keep(self, result: GuardResult, calls: Any, first: bool, conversation_id: str | None) -> GuardResult:
        self.kept.append(result)
        return result


async def _checked(host: Recording, reply: Reply) -> GuardResult:
    begun = await host.begin(CheckCall([], GuardOptions(tier="fast")))
    async with begun.session([reply]) as (resources, sinks):
        return await begun.check(reply, resources, sinks)


async def test_a_session_is_opened_only_for_a_reply_with_text_to_check() -> None:
    host = Recording(script())
    called = await _checked(host, Reply.of_message(TOOL_CALL))
    assert host.opened == [] and called.claims == [] and not called.degraded
    assert called.passed_through == ["1 tool call(s) in the reply, not checked: lookup"]
    full = Recording(script(), Full())
    passed = await _checked(full, Reply(REPLY))
    assert full.opened == [] and [claim.status for claim in passed.claims] == ["unchecked"]
    assert passed.claims[0].reason and passed.claims[0].reason.startswith(f"overloaded: {Full.overloaded};")
    checked = await _checked(host, Reply(REPLY))
    assert len(host.opened) == 1 and [claim.claim for claim in checked.claims] == CLAIMS
    assert host.kept == []  # nothing is kept before the door finishes the check


async def test_finish_hides_the_operators_address_and_has_the_host_keep_the_result() -> None:
    host = Recording(DeadExtractor().responder)
    begun = await host.begin(CheckCall([], GuardOptions(tier="fast")))
    async with begun.session([Reply(REPLY)]) as (resources, sinks):
        written = await begun.check(Reply(REPLY), resources, sinks)
    assert written.degraded and ADDRESS in (written.degraded_reason or "") and host.kept == []
    finished = await begun.finish(written, None, True)
    assert host.kept == [finished] and ADDRESS not in finished.model_dump_json()
    assert "could not reach the operator's endpoint" in (finished.degraded_reason or "")
