"""Test doubles: a scripted debate, a static tool and a bag-of-words encoder with hand-checkable cosines."""

from __future__ import annotations

import hashlib
import re
from collections.abc import Callable
from typing import Any

import numpy as np

from factdebate.core.types import Document
from factdebate.embeddings.minilm import Embedder
from factdebate.llm.base import GenParams, Message
from factdebate.llm.calls import CallInfo
from factdebate.llm.scripted import ScriptedBackend
from factdebate.methods.resources import Resources, RunScope
from factdebate.run.build import build_resources
from factdebate.settings.load import load_settings
from factdebate.settings.model import Settings

_WORD = re.compile(r"[a-z0-9]+")


class BagOfWordsEncoder:
    """Each word hashes to one of 512 dimensions: identical word sets have cosine 1, disjoint ones 0."""

    async def aencode(self, texts: list[str]) -> np.ndarray:
        out = np.zeros((len(texts), 512), dtype=np.float32)
        for row, text in enumerate(texts):
            for word in set(_WORD.findall(text.lower())):
                out[row, int(hashlib.md5(word.encode()).hexdigest(), 16) % 512] = 1.0
        return out


class HashingEmbedder(Embedder):
    """A stand-in for MiniLM where a test needs vectors, not the model: each word hashes to one of 384
    dimensions, unit rows, so a passage's own words find it. Loads nothing; picklable for Ray workers."""

    kind = "test-hash"

    def encode(self, texts: list[str], batch_size: int = 64) -> np.ndarray:
        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        for row, text in enumerate(texts):
            for word in set(_WORD.findall(text.lower())):
                out[row, int(hashlib.md5(word.encode()).hexdigest(), 16) % self.dim] = 1.0
            out[row] /= max(float(np.linalg.norm(out[row])), 1e-9)
        return out


class StaticTool:
    def __init__(self, name: str, docs: list[Document] | None = None) -> None:
        self.name = name
        self.docs = docs if docs is not None else [
            Document(id=f"{name}-1", title=f"{name} doc", text="Paris is the capital of France.",
                     source=f"https://example.org/{name}")]
        self.queries: list[str] = []

    async def search(self, query: str, k: int) -> list[Document]:
        self.queries.append(query)
        return self.docs[:k]


Script = Callable[[CallInfo, list[Message], GenParams], str]


def debate_script(labels: dict[tuple[str, int], str], *, supported: bool = True, relevant: bool = True,
                  queries: dict[tuple[str, int], str] | None = None, judge: str = "Judge says.\nREFUTES",
                  overrides: Callable[[CallInfo, list[Message]], str | None] | None = None) -> Script:
    """Debater ``(agent, round)`` answers end with the given label text; scorers say every statement is
    supported (or not) and generate questions equal to the claim (or unrelated ones)."""

    def respond(call: CallInfo, messages: list[Message], params: GenParams) -> str:
        if overrides is not None:
            custom = overrides(call, messages)
            if custom is not None:
                return custom
        prompt = call.prompt.split(":")[0]
        text = messages[0]["content"]
        if prompt == "debate_answer":
            return f"Reasoning of {call.agent} in round {call.round}.\n{labels[(call.agent, call.round)]}"
        if prompt == "query_select":
            chosen = (queries or {}).get((call.agent, call.round))
            if chosen:
                return f"[{chosen}]"
            kept = re.search(r"previous query: (.*)", text) or re.search(r"Claim: (.*)", text)  # round 1: the claim
            return "[" + kept.group(1) + "]"  # type: ignore[union-attr]
        if prompt == "judge":
            return judge
        if prompt == "label_reask":
            return "still no idea"
        if prompt == "faithfulness_statements":
            return "1. First statement.\n2. Second statement."
        if prompt == "faithfulness_verdicts":
            word = "yes" if supported else "no"
            return f"1: {word}\n2: {word}"
        if prompt == "relevance_questions":
            if not relevant:
                return "1. unrelated banana question\n2. zebra\n3. quantum"
            return "\n".join(f"{i}. {CLAIM}" for i in (1, 2, 3))
        raise AssertionError(f"unexpected prompt {call.prompt}")

    return respond


CLAIM = "Paris is the capital of France"


def resources_for(script: Script, *, method: str = "tool-mad", tools: dict[str, Any] | None = None,
                  latency: float = 0.0, run: RunScope | None = None,
                  **sections: Any) -> tuple[Resources, ScriptedBackend, dict[str, Any]]:
    """The one test builder: every role on one scripted backend, static tools, the bag-of-words encoder.
    ``sections`` are nested settings overrides, e.g. ``methods={"mad": {"rounds": 2}}``; ``run``: the
    evaluation or batch they serve."""
    # Speculative rounds are off unless a test asks for them: tests count the calls and searches each round
    # makes, and a speculative round makes some that are then discarded (tests/methods/kit/test_speculation.py).
    methods = {name: {"speculate": False} for name in ("tool-mad", "mad")}
    for name, values in (sections.pop("methods", None) or {}).items():
        methods[name] = {**methods.get(name, {}), **values}
    settings: Settings = load_settings(
        overrides={"method": method, "llm": {"cache": False}, "methods": methods, **sections}, environ={})
    backend = ScriptedBackend(script, latency=latency)
    tools = tools if tools is not None else {"rag": StaticTool("rag"), "search": StaticTool("local")}
    resources = build_resources(settings, backends={"debater": backend}, tool_factory=lambda kind: tools[kind],
                                encoder_factory=BagOfWordsEncoder, run=run)
    return resources, backend, tools


RETRIEVAL_KEYS = ("k", "max_doc_chars")  # shared by every method that retrieves: settings.retrieval


def make_resources(script: Script, *, tools: dict[str, Any] | None = None, latency: float = 0.0,
                   **values: Any) -> tuple[Resources, ScriptedBackend, dict[str, Any]]:
    """Tool-MAD with ``values``: ``methods.tool-mad`` fields (``rounds=1``), or ``k``/``max_doc_chars``
    (``retrieval``)."""
    retrieval = {key: values.pop(key) for key in RETRIEVAL_KEYS if key in values}
    return resources_for(script, tools=tools, latency=latency, methods={"tool-mad": values}, retrieval=retrieval)
