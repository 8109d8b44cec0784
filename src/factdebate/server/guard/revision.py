"""The request that asks the operator's upstream for a revision under ``rewrite`` (server/guard/upstream.py): the
conversation, then the messages the library adds (its answer, and the instruction naming each refuted claim with
the passage that says otherwise and the checker's corrected sentence: guard_engine/policy.py), with the caller's
sampling fields and ``response_format``. The words are the library's; the upstream only sends them."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

# What a rewrite asks of the upstream (the library's ``Host.author``): the messages the library adds -> the revision.
Revise = Callable[[list[dict[str, str]]], Awaitable[str]]
# A revised answer is about as long as the original; this bounds it whatever the upstream's default.
REVISE_MAX_TOKENS = 1024
# What of the caller's request the revision keeps: its sampling, and response_format, so that the upstream writes
# the revision of a JSON answer to the caller's schema as it wrote the answer (structured outputs).
ASKED = ("model", "temperature", "top_p", "seed", "user", "response_format")


def revision_request(body: dict[str, Any], added: list[dict[str, str]]) -> dict[str, Any]:
    """The chat request that asks for the revision: the conversation of ``body``, the messages the library
    ``added`` (the answer, the instruction), and the sampling fields and ``response_format`` of ``body``
    (:data:`ASKED`)."""
    messages = [*body.get("messages", []), *added]
    asked = {key: value for key, value in body.items() if key in ASKED}
    return {**asked, "messages": messages, "max_tokens": REVISE_MAX_TOKENS}
