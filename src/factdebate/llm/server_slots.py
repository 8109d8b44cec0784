"""How many requests a model server on this machine says it serves at once, so that ``llm.max_in_flight`` left
unset follows the server rather than a guess from its address (llm/in_flight.py).

Unset, the limit for a server on loopback is 1, so a vLLM or a ``llama-server -np 4`` would get one request at
a time too. So a local server is asked once per process: vLLM and SGLang (``owned_by``) batch whatever they
are sent and get a remote server's limit (64); any other but llama-cpp-python is asked ``GET /props``'
``total_slots``; no usable answer leaves the default. What the operator sets always wins, unasked."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit, urlunsplit

ASK_TIMEOUT_S = 3.0  # seconds for /props: a server on this machine answers it at once, or is busy or hung
PROPS_BYTES = 256 * 1024  # llama-server's /props: its settings and chat template, a few KiB to tens of KiB
BATCHING = {"vllm": "vLLM", "sglang": "SGLang"}  # owned_by -> the server's name, for what is said of it
ONE_AT_A_TIME = {"me": "llama-cpp-python"}  # its server serves one request at a time: nothing more to ask
MOST = 64  # never more than a remote server's default (llm/in_flight.REMOTE_LIMIT), whatever a server says


@dataclass(frozen=True)
class Slots:
    """What a server said of the requests it serves at once, and where it said it (shown to the operator)."""

    count: int
    said_by: str


def props_url(endpoint: str) -> str:
    """llama-server's ``/props``: at the server's root, so a base URL's ``/v1`` is left off."""
    parts = urlsplit(endpoint.rstrip("/"))
    path = parts.path.removesuffix("/v1")
    return urlunsplit((parts.scheme, parts.netloc, f"{path}/props", "", ""))


def from_owner(owner: str) -> Slots | None:
    owner = owner.strip().lower()
    if owner in BATCHING:
        return Slots(MOST, f"{BATCHING[owner]} batches requests")
    if owner in ONE_AT_A_TIME:
        return Slots(1, f"{ONE_AT_A_TIME[owner]} serves one request at a time")
    return None


def from_props(body: Any) -> Slots | None:
    """``total_slots`` from a ``/props`` answer, a whole number of at least 1 held to :data:`MOST`."""
    count = body.get("total_slots") if isinstance(body, dict) else None
    if type(count) is not int or count < 1:
        return None
    return Slots(min(count, MOST), f"its /props: total_slots {count}")


def from_props_reply(status: int, text: str) -> Slots | None:
    if status != 200:
        return None
    try:
        return from_props(json.loads(text))
    except ValueError:
        return None


async def ask(endpoint: str, owner: str, key: str | None) -> Slots | None:
    """What the server at ``endpoint`` says, None when nothing usable; ``OSError`` when it does not answer."""
    said = from_owner(owner)
    if said is not None:  # its model list said it all: no /props to ask
        return said
    from factdebate.util.http_client import fetch

    headers = {"Authorization": f"Bearer {key}"} if key else {}
    status, body = await fetch(props_url(endpoint), headers, limit=PROPS_BYTES, seconds=ASK_TIMEOUT_S,
                               what="its /props")
    return from_props_reply(status, body.decode("utf-8", "replace"))
