"""The one call behind every door of the guard, so that every door checks a reply the same way.

A door (``/v1/guard/check``, LiteLLM's guardrail route, MCP, the Python API) reads its input into a
:class:`CheckCall` and the reply or replies, makes this call with its :class:`Host`
(:meth:`CheckCall.check_replies`), and writes the answer; without a tier, check-response's doors make
:meth:`CheckCall.check_response`, the same call over the full method. The chat proxy, whose reply comes from its
upstream once the check is admitted, makes the call's steps itself, in order: :meth:`Host.begin`, its upstream's
answer, :meth:`Begun.session` and :meth:`Begun.check` for each reply, :meth:`Begun.finish` (a stream checks
through ``GuardedStream`` between the first and the last); the library never calls back into the door.
Everything else happens here, once: the conversation's tool results become evidence, settings and options are
resolved, the check is admitted, the reviser is the host's, the model cache is scoped to the caller, each
result is hidden (no operator address: :func:`hidden_result`) and kept, and the charge settled.

A host is where the check runs: the service (server/guard/host.py), the MCP server, or a Python caller's
session (:class:`LocalHost`, which admits and keeps nothing); its refusals are raised as it raises them."""

from __future__ import annotations

import asyncio
import contextlib
import gc
import logging
import threading
from collections.abc import Callable, Sequence
from contextlib import AbstractAsyncContextManager
from dataclasses import dataclass, field
from typing import Any, Protocol, TypeVar

from factdebate.core.claim_context import given_evidence
from factdebate.core.runtime import EventSink
from factdebate.core.types import Document, ResponseVerdict
from factdebate.guard_engine.check import check_text
from factdebate.guard_engine.clock import not_counted
from factdebate.guard_engine.messages import person_question, text_of
from factdebate.guard_engine.options import with_conversation
from factdebate.guard_engine.overload import overloaded_result
from factdebate.guard_engine.policy import asking, no_text_result
from factdebate.guard_engine.response_check import check_response_text
from factdebate.guard_engine.response_view import response_verdict
from factdebate.guard_engine.types import Chat, GuardClaim, GuardOptions, GuardResult, ResolvedGuardOptions, Reviser
from factdebate.llm.calls import cache_scope, caller_scope
from factdebate.methods.resources import Resources
from factdebate.settings.model import Settings
from factdebate.util.errors import FactDebateError
from factdebate.util.observe import watched
from factdebate.util.scrub import hide_endpoints
from factdebate.util.tasks import gather_all

log = logging.getLogger("factdebate.guard_engine")
# A conversation of more messages is read in a worker thread: read on the event loop, it held every request.
LONG_CONVERSATION = 200
T = TypeVar("T")


@dataclass
class CheckCall:
    """What a door read from its input: the conversation before the reply, the options, the question; and the
    one call every door makes with it (:meth:`check_replies`, :meth:`check_response`)."""

    messages: Sequence[Any] = ()
    options: GuardOptions = field(default_factory=GuardOptions)
    question: str | None = None

    async def check_replies(self, replies: Sequence[Reply], host: Host) -> list[GuardResult]:
        """The one call: every reply checked within one admission, each with its own deadline and result (the
        first kept under the request's id)."""
        begun = await host.begin(self)
        claims = 0
        try:
            async with begun.session(replies) as (resources, sinks):
                results = await gather_all(*(check_one(begun, reply, resources, sinks, first=number == 0)
                                             for number, reply in enumerate(replies)))  # one failing ends all
            claims = sum(len(result.claims) for result in results)
            return results
        finally:
            begun.admission.charge(claims)
            begun.admission.release()

    async def check_response(self, text: str, host: Host, *, sinks: Sequence[EventSink] = (),
                             given: Sequence[Document] | None = None) -> ResponseVerdict:
        """The one call for a long answer checked claim by claim with the full method and no deadline: begun,
        admitted, scoped and hidden as a reply's check is, under check-response's policy
        (guard_engine/response_check.py), and given as a ``ResponseVerdict`` (guard_engine/response_view.py).
        ``given``: the passages that came with the answer, as :func:`~factdebate.run.claim.run_claim` takes them."""
        if given is not None:
            with given_evidence(given):
                return await self.check_response(text, host, sinks=sinks)
        begun = await host.begin(self)
        claims = 0
        try:
            async with host.session(begun.settings) as (resources, session_sinks):
                with cache_scope(caller_scope(host.caller)):
                    try:
                        result = await check_response_text(text, begun.settings, resources, question=begun.question,
                                                           sinks=[*session_sinks, *sinks] or None)
                    except FactDebateError as exc:
                        raise failed(exc) from None
            claims = len(result.claims)
            return hidden_verdict(response_verdict(result))
        finally:
            begun.admission.charge(claims)
            begun.admission.release()


@dataclass
class Reply:
    """One reply to check: its text, what of it passes unchecked, and whether it holds a tool call."""

    text: str
    passed: list[str] = field(default_factory=list)
    called: bool = False
    message: bool = False  # a model's message: without text it is a tool call passing or a degraded check

    @classmethod
    def of_message(cls, message: Any) -> Reply:
        """An assistant message as the reply to check, worded one way for every door."""
        message = message if isinstance(message, dict) else {}
        passed: list[str] = []
        calls = message.get("tool_calls") or []
        if calls:
            names = [str((call.get("function") or {}).get("name", "?")) for call in calls if isinstance(call, dict)]
            passed.append(f"{len(calls)} tool call(s) in the reply, not checked: {', '.join(names)[:300]}")
        if message.get("function_call"):
            passed.append("a function call in the reply, not checked")
        content = message.get("content")
        if isinstance(content, list):
            kinds = sorted({str(p.get("type")) for p in content if isinstance(p, dict) and p.get("type") != "text"})
            if kinds:
                passed.append(f"non-text content in the reply, not checked: {', '.join(kinds)}")
        if message.get("audio"):
            passed.append("audio in the reply, not checked")
        if message.get("refusal"):
            passed.append("the model's refusal message, not checked")
        return cls(text_of(content), passed, called=bool(calls or message.get("function_call")), message=True)


class Admission(Protocol):
    """A check let in, as its host admits it (the service's holds a run slot and the claims' tokens): ``charge``
    with the claims it checked, ``release`` when over (idempotent). ``overloaded``: why the host had no room,
    its replies then passed unchecked (guard_engine/overload.py)."""

    @property
    def overloaded(self) -> str | None: ...

    def charge(self, claims: int) -> None: ...

    def release(self) -> None: ...


class Open:
    """Every check let in, nothing held: the admission of a host without limits (a Python caller's)."""

    overloaded: str | None = None

    def charge(self, claims: int) -> None:
        del claims

    def release(self) -> None:
        pass


class Host:
    """Where a check runs; the service's and the MCP server's override it (server/guard/host.py)."""

    caller: str | None = None  # who asks: the model cache and a conversation's state are never shared past it

    async def settings(self, options: GuardOptions) -> Settings:
        """The caller's settings for ``options``, after the host's own checks of the input."""
        raise NotImplementedError  # abstract: every host says how it resolves settings

    def admit(self, settings: Settings) -> Admission:
        return Open()

    def session(self, settings: Settings) -> AbstractAsyncContextManager[tuple[Resources, list[EventSink]]]:
        """The resources one call's checks use, open while they run, with the session's own sinks."""
        raise NotImplementedError  # abstract: every host opens its own resources

    def sinks(self) -> tuple[list[EventSink], Any]:
        """(the sinks of one check, what the host keeps of its calls)."""
        return [], None

    def reviser(self, resolved: ResolvedGuardOptions) -> Reviser | None:
        """What revises an answer under ``rewrite``: the host's :meth:`author` asked (guard_engine/policy.py's
        ``asking``)."""
        author = self.author() if resolved.policy == "rewrite" else None
        return None if author is None else asking(author)

    def author(self) -> Chat | None:
        """The model that wrote the reply, asked to revise it (``rewrite``); None: a rewrite flags."""
        return None

    async def keep(self, result: GuardResult, calls: Any, first: bool, conversation_id: str | None) -> GuardResult:
        """Keep a finished (hidden) result; ``first``: the request's first, kept under its id."""
        return result

    async def begin(self, call: CheckCall) -> Begun:
        """``call``'s options, settings and admission, in that order, so that a refused request paid only for its
        reading (the chat proxy, plain and streamed, begins before it asks its upstream; the one call begins
        itself)."""
        long = len(call.messages) > LONG_CONVERSATION  # its per-message reading in a worker thread, not on the loop
        options = (await asyncio.to_thread(collector_paused, with_conversation, call.options, call.messages) if long
                   else with_conversation(call.options, call.messages))
        settings = await self.settings(options)
        resolved = (await asyncio.to_thread(collector_paused, options.resolve, settings) if long
                    else options.resolve(settings))
        question = call.question or person_question(list(call.messages)) or None
        admission = self.admit(settings)
        return Begun(self, settings, options, resolved, question, admission, list(call.messages),
                     self.reviser(resolved))


class LocalHost(Host):
    """A Python caller's check: its settings, resources, reviser and sinks; nothing admitted or kept."""

    def __init__(self, settings: Settings,
                 session: Callable[[Settings], AbstractAsyncContextManager[tuple[Resources, list[EventSink]]]], *,
                 reviser: Reviser | None = None) -> None:
        self._settings, self._session, self._reviser = settings, session, reviser

    async def settings(self, options: GuardOptions) -> Settings:
        return self._settings

    def session(self, settings: Settings) -> AbstractAsyncContextManager[tuple[Resources, list[EventSink]]]:
        return self._session(settings)

    def reviser(self, resolved: ResolvedGuardOptions) -> Reviser | None:
        return self._reviser


def kept_chars(settings: Settings) -> int:
    """How much of a streamed answer is kept: twice what the check reads (``guard.max_message_chars``)."""
    return 2 * settings.guard.max_message_chars


@dataclass
class Begun:
    """A check set up and admitted (:meth:`Host.begin`): what its parts read, and how its result ends."""

    host: Host
    settings: Settings
    options: GuardOptions
    resolved: ResolvedGuardOptions
    question: str | None
    admission: Admission
    messages: list[Any] = field(default_factory=list)  # the conversation before the reply, carried to the check
    reviser: Reviser | None = None  # the host's, for rewrite

    @property
    def conversation_id(self) -> str | None:
        return self.options.conversation_id

    @property
    def kept_chars(self) -> int:
        """How much of the reply a stream keeps (:func:`kept_chars`)."""
        return kept_chars(self.settings)

    def not_counted(self) -> contextlib.AbstractContextManager[None]:
        """The time spent inside is not the check's (a door's wait for its upstream's answer): clock.py."""
        return not_counted()

    def overloaded_result(self, text: str, passed: list[str] | None = None) -> GuardResult:
        """``text`` passed unchecked, as the host had no room for its check (:attr:`Admission.overloaded` says
        why): guard_engine/overload.py."""
        assert self.admission.overloaded is not None
        return overloaded_result(text, self.resolved, self.admission.overloaded, passed)

    def session(self, replies: Sequence[Reply]) -> AbstractAsyncContextManager[tuple[Resources | None,
                                                                                   list[EventSink]]]:
        """The host's resources for checking ``replies``, open while they are checked, with the session's own
        sinks: opened only for a reply with something to check (not a tool call alone) and a check the host had
        room for; otherwise none."""
        if self.admission.overloaded is None and any(reply.text.strip() or not reply.message for reply in replies):
            return self.host.session(self.settings)
        return contextlib.nullcontext((None, []))

    async def check(self, reply: Reply, resources: Resources | None,
                    sinks: Sequence[EventSink] = ()) -> GuardResult:
        """One reply's check within this admission (``resources`` from :meth:`session`), its result as the check
        wrote it: :meth:`finish` hides and keeps it. A reply without text passes as it came (its tool calls
        said), one the host had no room for passes unchecked; a failed check raises without the operator's
        address in its message."""
        if reply.message and not reply.text.strip():
            return no_text_result(self.resolved, reply.passed, called=reply.called)
        if self.admission.overloaded is not None:
            return self.overloaded_result(reply.text, reply.passed)
        assert resources is not None
        try:
            with watched("guard_check", tier=self.resolved.tier, policy=self.resolved.policy):  # traces (observe.py)
                result = await check_text(reply.text, self.settings, resources, options=self.resolved,
                                          question=self.question, sinks=list(sinks) or None,
                                          reviser=self.reviser, caller=self.host.caller, messages=self.messages)
        except FactDebateError as exc:
            raise failed(exc) from None
        if reply.passed:
            result = result.model_copy(update={"passed_through": [*result.passed_through, *reply.passed]})
        return result

    async def finish(self, result: GuardResult, calls: Any, first: bool) -> GuardResult:
        """A result as the caller gets it: hidden, then kept by the host."""
        return await self.host.keep(hidden_result(result), calls, first, self.conversation_id)


_PAUSED = threading.Lock()  # held by the one reading that paused the collector; the others read beside it


def collector_paused(work: Callable[..., T], *args: Any) -> T:
    """``work(*args)`` with the garbage collector held off: reading a long conversation makes many young
    objects, and collector passes among them hold the interpreter lock (and every other request) for tenths
    of a second. Only the first reading to come pauses it, and only when it was running."""
    if not _PAUSED.acquire(blocking=False):
        return work(*args)
    was = gc.isenabled()
    gc.disable()
    try:
        return work(*args)
    finally:
        if was:
            gc.enable()
        _PAUSED.release()


def failed(exc: FactDebateError) -> FactDebateError:
    """A check's failure as a caller reads it: its message without an operator's address."""
    message = str(exc)
    if (shown := hide_endpoints(message)) != message:
        log.warning("a guard check failed: %s", message)
        exc.args = (shown,)
    return exc


async def check_one(begun: Begun, reply: Reply, resources: Resources | None, session_sinks: list[EventSink], *,
                    first: bool = True) -> GuardResult:
    """One reply's check within an admitted call, hidden and kept."""
    sinks, calls = begun.host.sinks()
    return await begun.finish(await begun.check(reply, resources, [*session_sinks, *sinks]), calls, first)


def hidden_verdict(verdict: ResponseVerdict) -> ResponseVerdict:
    """A check-response verdict as a caller reads it: what failed, not where the operator's server is."""
    checks = []
    for check in verdict.claims:
        if check.error and (shown := hide_endpoints(check.error)) != check.error:
            log.warning("a response check's claim %d failed: %s", check.index, check.error)
            check = check.model_copy(update={"error": shown})
        checks.append(check)
    return verdict.model_copy(update={"claims": checks})


def hidden_claim(claim: GuardClaim) -> GuardClaim:
    """A claim as a caller reads it: what failed, not where the operator's server is (the log keeps it)."""
    if not claim.reason or hide_endpoints(claim.reason) == claim.reason:
        return claim
    log.warning("a guard check's claim %d failed: %s", claim.index, claim.reason)
    return claim.model_copy(update={"reason": hide_endpoints(claim.reason)})


def hidden_result(result: GuardResult) -> GuardResult:
    """The result as a caller reads it, from any door: no endpoint's address in what went wrong."""
    reason = result.degraded_reason
    if reason and hide_endpoints(reason) != reason:
        log.warning("a guard check was degraded: %s", reason)
        reason = hide_endpoints(reason)
    return result.model_copy(update={"degraded_reason": reason, "claims": [hidden_claim(c) for c in result.claims],
                                     "passed_through": [hide_endpoints(p) for p in result.passed_through]})
