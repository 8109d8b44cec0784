"""A scripted OpenAI-compatible chat model for the guard's tests and benchmark: the stand-in upstream
(factdebate/server/guard/stand_in.py), which answers ``POST /v1/chat/completions`` with a fixed answer, whole or
streamed word by word, after a fixed latency, and records what it was sent (headers included)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from fastapi import FastAPI

from factdebate.guard_engine.types import GuardClaim
from factdebate.server.guard.stand_in import StandIn, stand_in_app, tokens

__all__ = ["ANSWER", "REVISED", "REVISE_MARK", "Upstream", "scripted_checker_app", "tokens", "upstream_app",
           "words_of"]

ANSWER = ("Hi! Great question. Paris is the capital of France. The Eiffel Tower is in Rome. "
          "I think Paris is lovely in spring.")
REVISED = "Paris is the capital of France. The Eiffel Tower is in Paris."
REVISE_MARK = "A fact check of your last answer"


@dataclass
class Upstream(StandIn):
    """The stand-in upstream (factdebate/server/guard/stand_in.py) with the tests' answer, which answers the
    rewrite policy's request to revise with ``revise``."""

    answer: str = ANSWER
    revise: Callable[[list[dict[str, Any]]], str] = lambda messages: REVISED

    def revision_for(self, messages: list[dict[str, Any]]) -> str | None:
        last = messages[-1]
        if last.get("role") == "user" and REVISE_MARK in str(last.get("content")):
            return self.revise(messages)
        return None


upstream_app = stand_in_app


def words_of(claim: GuardClaim | dict[str, Any], answer: str) -> str:
    """The slice of ``answer`` a claim's span names."""
    span = claim.span if isinstance(claim, GuardClaim) else claim["span"]
    assert span is not None, "the claim was not placed (span null)"
    start, end = (span.start, span.end) if not isinstance(span, dict) else (span["start"], span["end"])
    return answer[start:end]


def main() -> None:
    """The scripted model as a server of its own (benchmarks/guard.py --processes)."""
    import argparse

    import uvicorn

    parser = argparse.ArgumentParser(description="a scripted OpenAI-compatible chat model")
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--answer", default=ANSWER)
    parser.add_argument("--latency", type=float, default=0.0)
    parser.add_argument("--token-delay", type=float, default=0.0)
    args = parser.parse_args()
    upstream = Upstream(answer=args.answer, latency=args.latency, token_delay=args.token_delay)
    uvicorn.run(upstream_app(upstream), host="127.0.0.1", port=args.port, log_level="warning")


if __name__ == "__main__":
    main()


def scripted_checker_app(tmp_path: Any, keys: list[str], **fields: Any) -> FastAPI:
    """The service with scripted checker models (two claims: Paris, true; the Eiffel Tower in Rome, false), its
    state in ``tmp_path``, no rate limit; ``fields`` override the service config. Imported here, not at the top:
    benchmarks/guard.py runs this module as a server of its own, without the tests' packages."""
    from factdebate.llm.scripted import ScriptedBackend
    from factdebate.server.app import create_app
    from tests.guard.support import script
    from tests.server.conftest import PLAIN, offline_build

    backend = ScriptedBackend(script(claims=["Paris is the capital of France.", "The Eiffel Tower is in Rome."]))
    return create_app(**{"api_keys": keys, "defaults": PLAIN, "db_path": tmp_path / "service.sqlite",
                         "build": lambda settings: offline_build(settings, backend),
                         "rate_limit_per_minute": 0, **fields})
