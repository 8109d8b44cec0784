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
API says when to slow down with a 429). Each model's ``llm.concurrency`` (16 by default for HTTP, per set
of resources) still applies under it, so a CLI run against a remote server is as before; the service,
whose resource sets used to add up without bound, now stays within 64 per server."""

from __future__ import annotations

import asyncio
import contextlib
import ipaddress
import weakref
from contextlib import AbstractAsyncContextManager
from urllib.parse import urlsplit

LOCAL_LIMIT = 1
REMOTE_LIMIT = 64

_slots: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, dict[str, asyncio.Semaphore]] = (
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
    return LOCAL_LIMIT if is_loopback(endpoint) else REMOTE_LIMIT


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
