"""The queries a retrieval evaluation sends: the claim verbatim, or the query Tool-MAD's round 1 sends.

``tool-mad`` asks the debater model as a run does, once per claim and agent: the search agent's query is
measured on ``bm25``, the RAG agent's on ``dense``. MERMAID's fusion search is measured on the claim only."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import TYPE_CHECKING

from factdebate.util.errors import InputError

if TYPE_CHECKING:
    from factdebate.eval.datasets import Sample
    from factdebate.methods.resources import Resources

QUERY_SOURCES = ("claim", "tool-mad")
AGENT_OF = {"bm25": "search", "dense": "rag"}  # which Tool-MAD debater sends a search kind's query


def check_queries(value: str, kinds: list[str]) -> str:
    if value not in QUERY_SOURCES:
        raise InputError(f"--queries {value!r}: one of {', '.join(QUERY_SOURCES)}")
    if value == "tool-mad" and "fusion" in kinds:
        raise InputError("--queries tool-mad measures Tool-MAD's searches (bm25, dense): MERMAID's fusion search "
                         "is queried with its model's tool-call arguments, which no first round fixes; drop fusion "
                         "from --search, or measure it with --queries claim")
    return value


async def toolmad_round_one(samples: list[Sample], resources: Resources, kinds: list[str], *,
                            concurrency: int = 4,
                            progress: Callable[[int, int], None] | None = None) -> list[dict[str, str]]:
    """Per sample: search kind -> the query its Tool-MAD debater sends in round 1."""
    from factdebate.methods.toolmad.method import ToolMAD, build_agents

    method = ToolMAD()
    wanted = [AGENT_OF[k] for k in kinds if k in AGENT_OF]
    agents = {agent.kind: agent for agent in build_agents(wanted, resources)}
    gate = asyncio.Semaphore(max(1, concurrency))
    done = [0]

    async def one(sample: Sample) -> dict[str, str]:
        async with gate:
            queries: dict[str, str] = {}
            for kind in kinds:
                agent = agents[AGENT_OF[kind]]
                query, _changed, _written = await method._query(agent, sample.claim, 1, None, [], resources)
                queries[kind] = query or sample.claim
            done[0] += 1
            if progress is not None:
                progress(done[0], len(samples))
            return queries

    return list(await asyncio.gather(*(one(s) for s in samples)))
