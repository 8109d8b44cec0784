"""Pieces several methods share: a labelled answer with one constrained re-ask, evidence trimming,
and tool calls with their accounting (:func:`book_tool_call`, the only place that counts them)."""

from __future__ import annotations

import re
import time
from collections.abc import Callable
from dataclasses import dataclass

from factdebate.core.events import ToolCall, doc_refs
from factdebate.core.parsing import parse_label
from factdebate.core.runtime import count_reply, current_run, span
from factdebate.core.types import Document, Label
from factdebate.llm.ask import Reask, Unreadable, ask
from factdebate.llm.base import GenParams
from factdebate.llm.model import LLM
from factdebate.methods.kit.fields import free_field, instruction_echo
from factdebate.methods.kit.formats import ALL_LABELS, FOUR_LABELS, TWO_LABELS, offered_labels, verdict_params
from factdebate.prompts import Prompt
from factdebate.tools.base import Tool
from factdebate.util.observe import watched

LABEL_CHOICES = ALL_LABELS
# The label alone, held to the task's labels where the backend can (its own prompt name in usage).
LABEL_REASK = Reask(template="label_reask", name="label_reask",
                    params=GenParams(temperature=0.0, max_tokens=12, choices=LABEL_CHOICES))
LABEL_REASK_TWO = Reask(template="label_reask", name="label_reask",
                        params=GenParams(temperature=0.0, max_tokens=12, choices=TWO_LABELS))
LABEL_REASK_FOUR = Reask(template="label_reask", name="label_reask",
                         params=GenParams(temperature=0.0, max_tokens=16, choices=FOUR_LABELS))


def label_reask() -> Reask:
    """The label re-ask held to the task's labels (``offered_labels``: two, three or AVeriTeC's four)."""
    return {TWO_LABELS: LABEL_REASK_TWO, FOUR_LABELS: LABEL_REASK_FOUR}.get(offered_labels(), LABEL_REASK)


@dataclass
class LabelledAnswer:
    response: str
    label: Label | None
    retries: int
    # The label came from an answer the backend held to a label format (None: no label at all).
    constrained: bool | None = None


_VERDICT_LINE = re.compile(r"\n?[^\n]*verdict\s*:[^\n]*$", re.I)
# The whole answer asked again (the shared re-ask, the first ask's parameters sampled warmer), not its label
# alone: a label asked for after an echo would stand on reasoning that says nothing.
ANSWER_REASK = Reask()


def _reasoning(text: str) -> str:
    return _VERDICT_LINE.sub("", text).strip()


def read_answer(prompt: Prompt) -> Callable[[str], Label | None]:
    """The label of an answer to ``prompt``, or None; one whose reasoning repeats the prompt's instructions is
    counted as ``echoed`` and :class:`~factdebate.llm.ask.Unreadable`."""

    def read(text: str) -> Label | None:
        copied = instruction_echo(_reasoning(text), prompt.fixed) if prompt.fixed else None
        if copied is not None:
            count_reply(prompt.name, "echoed")
            raise Unreadable(f'it repeats the instructions ("{copied}") instead of following them',
                             reask=ANSWER_REASK)
        return parse_label(text)

    return read


async def labelled_answer(llm: LLM, prompt: Prompt, *, agent: str, round: int, max_tokens: int = 384,
                          temperature: float = 0.0, one_call: bool | None = None,
                          reasoning: bool = True) -> LabelledAnswer:
    """Ask for reasoning ending in a label (``one_call``: held to a "Verdict:" line); with none, re-ask once
    for the label alone, else ``None``. An answer repeating its instructions is asked for again whole."""
    one_call = llm.one_call_verdict if one_call is None else one_call
    params = verdict_params(temperature, max_tokens, reasoning=reasoning) if one_call else \
        GenParams(temperature=temperature, max_tokens=max_tokens)
    asked = await ask(llm, prompt, read_answer(prompt), what="label", params=params,
                      reask=label_reask(), agent=agent,
                      round=round)
    response = asked.raw if asked.replaced and asked.value is not None else asked.first
    # Reasoning made only of a few of the template's words (shorter than an echo) is counted as echoed; the
    # label it ends in is still read.
    if asked.value is not None and (asked.problem is None or asked.replaced) and (said := _reasoning(response)):
        free_field(said, prompt.name, "reasoning")
    return LabelledAnswer(response, asked.value, asked.retries,
                          asked.constrained if asked.value is not None else None)


def trim(documents: list[Document], max_chars: int) -> list[Document]:
    return [d if len(d.text) <= max_chars else d.model_copy(update={"text": d.text[:max_chars] + "…"})
            for d in documents]


async def search_tool(tool: Tool, query: str, k: int, *, agent: str = "", round: int = 0,
                      written: str | None = None) -> list[Document]:
    """One accounted search; ``written``: the model's own text where ``query`` is its cleaned form."""
    started = time.perf_counter()
    with span(f"{tool.name}: {query[:60]}", "tool", agent=agent, round=round):
        with watched("search", tool=tool.name):  # the service's metrics and traces (util/observe.py)
            documents = await tool.search(query, k)
        book_tool_call(tool.name, query, k, documents, time.perf_counter() - started, agent=agent, round=round,
                       written=written)
    return documents


def book_tool_call(tool: str, query: str, k: int, documents: list[Document], seconds: float, *, agent: str,
                   round: int, error: str | None = None, written: str | None = None) -> None:
    """The one place an agent's tool call is counted (the ``tools`` role's usage and its ``tool_call`` event,
    inside the call's ``tool`` span)."""
    run = current_run()
    if run is None:
        return
    usage = run.role_usage("tools")
    usage.tool_calls += 1
    usage.seconds += seconds
    run.emit(ToolCall(tool=tool, agent=agent, round=round, query=query, query_written=written, k=k,
                      results=doc_refs(documents), seconds=round_(seconds), error=error))


def round_(value: float, digits: int = 4) -> float:
    return round(value, digits)
