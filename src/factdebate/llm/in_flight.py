"""How many requests may be in flight to one model server at once, for the whole process.

A local server (llama.cpp, llama-cpp-python, Ollama on a laptop) often serves one request at a time and
queues the rest; a queued request's timeout runs while it waits, so a method that fans out (DPD's
summarizer samples and referees, several claims at once) timed out on requests the server had not even
started. The limit makes them wait here instead, where the wait counts against no timeout, and it is one
limit per endpoint (base URL) shared by every role, agent, claim and set of resources of the process, since
they all meet at the same server. Each event loop has its own (a semaphore belongs to one loop; the CLI
and the service run one).

``llm.max_in_flight`` sets it; unset, it is 1 for a server on this machine (loopback), which any local
server survives, and 64 for any other (a hosted API, a vLLM box: they serve many at once, and a hosted
API says when to slow down with a 429). A server on this machine that says how many it serves at once
(vLLM, SGLang, ``llama-server -np N``: llm/server_slots.py) gets that instead, learned once per process
(:func:`learn`, before its first request). Each model's ``llm.concurrency`` (16 by default for HTTP, per set
of resources) still applies under it, so a CLI run against a remote server is as before; the service,
whose resource sets used to add up without bound, now stays within 64 per server."""

from __future__ import annotations

import asyncio
import contextlib
import ipaddress
import logging
import weakref
from collections.abc import Awaitable, Callable
from contextlib import AbstractAsyncContextManager
from urllib.parse import urlsplit

from factdebate.llm.server_slots import Slots

log = logging.getLogger(__name__)

LOCAL_LIMIT = 1
REMOTE_LIMIT = 64
ASK_WITHIN_S = 5.0  # asking a server what it serves at once (its model list, then /props) takes no longer

_slots: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, dict[str, asyncio.Semaphore]] = (
    weakref.WeakKeyDictionary())
# What each server on this machine said of itself (None: asked, and it said nothing usable), for the process:
# a count holds on every loop, and a server is asked once.
_learned: dict[str, Slots | None] = {}
_asking: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, dict[str, asyncio.Future[None]]] = (
    weakref.WeakKeyDictionary())


def is_loopback(endpoint: str) -> bool:
    host = (urlsplit(endpoint).hostname or "").lower()
    if host == "localhost" or host.endswith(".localhost"):
        return True
    try:
        address = ipaddress.ip_address(host)
    except ValueError:
        return False
    return address.is_loopback or address.is_unspecified


def default_limit(endpoint: str) -> int:
    if not is_loopback(endpoint):
        return REMOTE_LIMIT
    said = _learned.get(_key(endpoint))
    return said.count if said is not None else LOCAL_LIMIT


def _key(endpoint: str) -> str:
    return endpoint.rstrip("/")


def learned(endpoint: str) -> Slots | None:
    """What the server at ``endpoint`` said of the requests it serves at once, if it was asked and said."""
    return _learned.get(_key(endpoint))


def remember(endpoint: str, said: Slots | None) -> None:
    """Keep what the server said (the start-up probe, run/model_servers.py, asks before any model is called)."""
    if is_loopback(endpoint):
        _learned[_key(endpoint)] = said


def wants_asking(endpoint: str, setting: int | None) -> bool:
    """Whether a model's first request should ask its server first: the operator set no limit, the server is on
    this machine, and it has not been asked in this process."""
    return not setting and bool(endpoint) and is_loopback(endpoint) and _key(endpoint) not in _learned


async def learn(endpoint: str, ask: Callable[[], Awaitable[Slots | None]]) -> None:
    """Ask the server once per process (the calls that start together wait for the one asking). An answer
    that says nothing usable is kept as such; a server that did not answer (not started yet, or hung past
    :data:`ASK_WITHIN_S`) is asked again by the next model's first call. Meanwhile the default stands."""
    key = _key(endpoint)
    if key in _learned:
        return
    per_loop = _asking.setdefault(asyncio.get_running_loop(), {})
    asking = per_loop.get(key)
    if asking is None:
        asking = per_loop[key] = asyncio.ensure_future(_ask(key, ask))
        asking.add_done_callback(lambda _: per_loop.pop(key, None))
    await asyncio.shield(asking)  # one caller cancelled does not cancel the others' answer


async def _ask(key: str, ask: Callable[[], Awaitable[Slots | None]]) -> None:
    try:
        async with asyncio.timeout(ASK_WITHIN_S):  # a server that hangs on its model list holds no call for long
            said = await ask()
    except Exception as exc:  # asking is a courtesy: a failure leaves the address's default, asked again later
        log.debug("asking a model server's slots failed: %s", type(exc).__name__)
        return
    _learned.setdefault(key, said)


def limit_for(endpoint: str, setting: int | None) -> int | None:
    """The limit for ``endpoint``; ``None`` for an in-process backend (no endpoint: it has its own)."""
    if not endpoint:
        return None
    return setting or default_limit(endpoint)


def slot(endpoint: str, limit: int | None) -> AbstractAsyncContextManager[object]:
    """What a request to ``endpoint`` holds while in flight. The first limit asked for an endpoint on this
    loop is the one kept (a process has one ``llm.max_in_flight``)."""
    if limit is None:
        return contextlib.nullcontext()
    per_loop = _slots.setdefault(asyncio.get_running_loop(), {})
    semaphore = per_loop.get(endpoint)
    if semaphore is None:
        semaphore = per_loop[endpoint] = asyncio.Semaphore(limit)
    return semaphore
