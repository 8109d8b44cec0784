"""The guard's one call (guard_engine/call.py) behind the doors that are not HTTP routes: ``factdebate.guard``,
``factdebate.aguard_stream``, ``factdebate.check_response`` and MCP's ``check_answer`` and ``check_response``
. A checker model server that cannot be reached is named by what failed on each, never by its
address; ``check_answer`` scopes the model cache to
the API key that calls it, as the HTTP doors do; ``aguard_stream`` takes deltas and ``aguard``'s keywords; and
every name the documentation gives ``factdebate`` imports. (The HTTP doors' side of the unreachable checker:
tests/server/guard/test_guard_endpoints_hidden.py.)"""

from __future__ import annotations

import re
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest

import factdebate as fd
from factdebate.core.errors import EndpointUnavailableError
from factdebate.guard_engine import GuardResult
from factdebate.llm.base import Backend, GenParams, Message
from factdebate.llm.calls import CallInfo
from factdebate.llm.scripted import ScriptedBackend
from tests.guard.support import CLAIMS, REPLY, script

OFFLINE: dict[str, Any] = {"llm": "scripted:agree", "search": "local", "cache": False}
ADDRESS = "http://10.9.8.7:8011/v1"
DOCS = Path(__file__).resolve().parents[2] / "docs"


class DeadExtractor(ScriptedBackend):
    """A checker model server that cannot be reached (every call)."""

    def __init__(self) -> None:
        def respond(call: CallInfo, messages: list[Message], params: GenParams) -> str:
            raise EndpointUnavailableError(ADDRESS, 1, "ConnectError: [Errno 111] Connection refused")

        super().__init__(respond)


async def _deltas(text: str) -> AsyncIterator[str]:
    for word in re.findall(r"\S+\s*", text):
        yield word


async def test_aguard_stream_takes_deltas_and_the_keywords_of_aguard() -> None:
    backend = ScriptedBackend(script())
    outs = [out async for out in fd.aguard_stream(
        _deltas(REPLY), messages=[{"role": "user", "content": "Tell me about Paris."}], policy="hold", tier="fast",
        evidence=["The Eiffel Tower is in Paris."], evidence_mode="given", backends={"debater": backend},
        method="single", **OFFLINE)]
    assert outs[-1].kind == "result" and isinstance(outs[-1].result, GuardResult)
    result = outs[-1].result
    assert [c.claim for c in result.claims] == CLAIMS and result.claims[1].label == "REFUTES"
    shown = "".join(out.text for out in outs if out.kind == "text")
    # hold: the refuted sentence is never shown as the reply's, only quoted in its footnote
    assert shown == result.text and shown.count("The Eiffel Tower is in Rome.") == 1
    assert '"The Eiffel Tower is in Rome." is contradicted' in shown
    assert {out.claim.claim for out in outs if out.kind == "claim" and out.claim} == set(CLAIMS)
    extract = next(m[0]["content"] for info, m in backend.calls if info.prompt == "guard_window")
    assert "Tell me about Paris." in extract  # the conversation's question reached the extractor


async def test_an_unreachable_checker_is_not_named_by_factdebate_guard_or_aguard_stream() -> None:
    backends: dict[str, Backend] = {"debater": DeadExtractor()}
    result = await fd.aguard(REPLY, tier="fast", backends=backends, method="single", **OFFLINE)
    outs = [out async for out in fd.aguard_stream(_deltas(REPLY), tier="fast", backends=backends,
                                                 method="single", **OFFLINE)]
    streamed = outs[-1].result
    assert streamed is not None
    for found in (result, streamed):
        assert found.degraded and "10.9.8.7" not in found.model_dump_json()
        assert found.degraded_reason and "could not reach the operator's endpoint" in found.degraded_reason


class DeadChecker(ScriptedBackend):
    """Claims extracted, then a checker model server that cannot be reached for each claim's check."""

    def __init__(self) -> None:
        extract = script()

        def respond(call: CallInfo, messages: list[Message], params: GenParams) -> str:
            if call.prompt.split(":")[0] == "claims_extract":
                return str(extract(call, messages, params))
            raise EndpointUnavailableError(ADDRESS, 1, "ConnectError: [Errno 111] Connection refused")

        super().__init__(respond)


async def test_factdebate_check_response_makes_the_one_call_and_names_no_unreachable_checker() -> None:
    """Without a tier, ``factdebate.check_response`` makes the one call too (``CheckCall.check_response``):
    an extractor that cannot be reached fails with what failed, a claim checker's failure is in the verdict
    alike, neither with the operator's address."""
    with pytest.raises(EndpointUnavailableError) as failed:
        await fd.acheck_response(REPLY, backends={"debater": DeadExtractor()}, method="single", **OFFLINE)
    assert "10.9.8.7" not in str(failed.value) and "could not reach the operator's endpoint" in str(failed.value)
    verdict = await fd.acheck_response(REPLY, backends={"debater": DeadChecker()}, method="single", **OFFLINE)
    errors = [check.error for check in verdict.claims]
    assert len(errors) == 2 and all(e and "could not reach the operator's endpoint" in e for e in errors), errors
    assert "10.9.8.7" not in verdict.model_dump_json()


async def test_mcp_check_response_does_not_name_an_unreachable_checker(monkeypatch: pytest.MonkeyPatch) -> None:
    pytest.importorskip("mcp", reason="the mcp package (extra 'serve') is not installed")
    from tests.server.conftest import offline_build

    monkeypatch.setenv("FACTDEBATE_LLM", "scripted:agree")
    server = _mcp_server(lambda settings: offline_build(settings, DeadChecker()))
    answer = await server.call_tool("check_response", {"response": REPLY, "method": "single"})
    text = str(answer)
    assert "10.9.8.7" not in text and "could not reach the operator's endpoint" in text, text


def _mcp_server(build: Any) -> Any:
    from factdebate.scale.resource_pool import ResourcePool
    from factdebate.server.mcp.server import build_server

    return build_server(None, ResourcePool(size=4, build=build))


async def test_mcp_check_answer_does_not_name_an_unreachable_checker(monkeypatch: pytest.MonkeyPatch) -> None:
    pytest.importorskip("mcp", reason="the mcp package (extra 'serve') is not installed")
    from tests.server.conftest import offline_build

    monkeypatch.setenv("FACTDEBATE_LLM", "scripted:agree")
    server = _mcp_server(lambda settings: offline_build(settings, DeadExtractor()))
    answer = await server.call_tool("check_answer", {"answer": REPLY, "tier": "fast",
                                                     "evidence": [{"title": "Guide", "text": "Paris."}],
                                                     "evidence_mode": "given"})
    text = str(answer)
    assert "10.9.8.7" not in text and "could not reach the operator's endpoint" in text, text


async def test_mcp_check_answer_and_check_response_keep_each_keys_model_cache_apart(
        monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """The same answer checked for two API keys, by check_answer and by check_response: the second key's check
    sends its own model calls (nothing cached from the first key's), and the first key's second check is
    answered from its cache."""
    pytest.importorskip("mcp", reason="the mcp package (extra 'serve') is not installed")
    from mcp.server.mcpserver import Context

    from factdebate.server.mcp.guard_host import caller_of
    from factdebate.server.security import CALLER_STATE
    from tests.server.conftest import offline_build

    monkeypatch.setenv("FACTDEBATE_LLM", "scripted:agree")
    monkeypatch.setenv("FACTDEBATE_CACHE", "true")
    monkeypatch.setenv("FACTDEBATE_DATA_DIR", str(tmp_path))  # the model cache's folder
    backend = ScriptedBackend(script())
    server = _mcp_server(lambda settings: offline_build(settings, backend))

    class Request:
        def __init__(self, who: str) -> None:
            self.scope = {"state": {CALLER_STATE: who}}

    class Session:  # a call slower than the progress tick reports to it, as to a client's session
        async def report_progress(self, progress: float, total: float | None, message: str | None) -> None:
            pass

    class RequestContext:
        def __init__(self, who: str) -> None:
            self.request = Request(who)
            self.session = Session()

    def as_key(who: str) -> Context:
        context = Context(request_context=RequestContext(who))  # type: ignore[arg-type]
        assert caller_of(context) == who
        return context

    evidence = [{"title": "Guide", "text": "Paris is in France."}]
    calls = {"check_answer": {"answer": REPLY, "tier": "fast", "evidence": evidence, "evidence_mode": "given"},
             "check_response": {"response": REPLY, "method": "single", "evidence": evidence,
                                "evidence_mode": "given"}}
    for tool, arguments in calls.items():
        sent = []
        for who in ("key-a", "key-b", "key-a"):
            before = len(backend.calls)
            await server.call_tool(tool, arguments, context=as_key(who))
            sent.append(len(backend.calls) - before)
        # key-b got nothing of key-a's cache; key-a's own second check was answered from it
        assert sent[0] > 0 and sent[1] == sent[0] and sent[2] == 0, (tool, sent)


DOCUMENTED = re.compile(r"\b(?:factdebate|fd)\.([a-z_][a-z_0-9]*)\(")


def test_every_name_the_docs_call_on_factdebate_imports() -> None:
    """``factdebate.X(...)``/``fd.X(...)`` in the docs and the README: each ``X`` is there (``factdebate.guard``
    a function, never the engine's package; a stream is checked by ``aguard_stream``)."""
    texts = [path.read_text(encoding="utf-8") for path in [*DOCS.glob("*.md"), DOCS.parent / "README.md"]]
    names = {name for text in texts for name in DOCUMENTED.findall(text)}
    assert {"guard", "aguard_stream", "verify"} <= names
    missing = sorted(name for name in names if not hasattr(fd, name))
    assert not missing, missing
    for name in fd.__all__:
        assert getattr(fd, name) is not None, name
    assert callable(fd.guard) and not hasattr(fd.guard, "guard_stream")
