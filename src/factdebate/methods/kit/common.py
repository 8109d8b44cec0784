"""Pieces several methods share: a labelled answer with one constrained re-ask, evidence trimming,
tool calls with accounting and a traced span."""

from __future__ import annotations

import time
from dataclasses import dataclass

from factdebate.core.events import ParseProblem, ToolCall, doc_refs
from factdebate.core.parsing import parse_label
from factdebate.core.runtime import current_run, emit, span
from factdebate.core.types import Document, Label
from factdebate.llm.base import GenParams, Message
from factdebate.llm.model import LLM
from factdebate.methods.kit.formats import verdict_params
from factdebate.prompts import Prompt, render
from factdebate.tools.base import Tool

LABEL_CHOICES = tuple(label.value for label in Label)


@dataclass
class LabelledAnswer:
    response: str
    label: Label | None
    retries: int
    # The label came from an answer the backend held to a label format (None: no label at all).
    constrained: bool | None = None


async def labelled_answer(llm: LLM, prompt: Prompt, *, agent: str, round: int, max_tokens: int = 384,
                          temperature: float = 0.0, one_call: bool | None = None) -> LabelledAnswer:
    """Ask for reasoning ending in a label. With ``one_call`` the answer is held, where the backend can,
    to reasoning plus a final "Verdict:" line, so it carries a label by construction. If no label can be
    read, re-ask once for the label alone (constrained to the three labels where the backend supports
    it); if that fails too, the label is ``None`` and the caller must treat the answer as unparsed."""
    messages: list[Message] = [{"role": "user", "content": prompt.text}]
    one_call = llm.one_call_verdict if one_call is None else one_call
    params = verdict_params(temperature, max_tokens) if one_call else \
        GenParams(temperature=temperature, max_tokens=max_tokens)
    reply = await llm.complete(messages, params, agent=agent, round=round, prompt=prompt.name)
    label = parse_label(reply.text)
    if label is not None:
        return LabelledAnswer(reply.text, label, 0, reply.constrained)
    reask = render("label_reask")
    messages = [*messages, {"role": "assistant", "content": reply.text},
                {"role": "user", "content": reask.text}]
    again = await llm.complete(messages, GenParams(temperature=0.0, max_tokens=12, choices=LABEL_CHOICES),
                               agent=agent, round=round, prompt=reask.name)
    label = parse_label(again.text)
    emit(ParseProblem(event="parse_failure" if label is None else "parse_recovered", what="label", agent=agent,
                      round=round, reply=reply.text[-200:], reask_reply=again.text[:100],
                      constrained=again.constrained))
    return LabelledAnswer(reply.text, label, 1, again.constrained if label is not None else None)


def trim(documents: list[Document], max_chars: int) -> list[Document]:
    return [d if len(d.text) <= max_chars else d.model_copy(update={"text": d.text[:max_chars] + "…"})
            for d in documents]


async def search_tool(tool: Tool, query: str, k: int, *, agent: str = "", round: int = 0) -> list[Document]:
    """One accounted search; what the engine itself traces (``web_search``) nests in its span."""
    started = time.perf_counter()
    with span(f"{tool.name}: {query[:60]}", "tool", agent=agent, round=round):
        documents = await tool.search(query, k)
        run = current_run()
        if run is not None:
            usage = run.role_usage("tools")
            usage.tool_calls += 1
            usage.seconds += time.perf_counter() - started
            run.emit(ToolCall(tool=tool.name, agent=agent, round=round, query=query, k=k,
                              results=doc_refs(documents), seconds=round_(time.perf_counter() - started)))
    return documents


def round_(value: float, digits: int = 4) -> float:
    return round(value, digits)
