"""MERMAID's executor step: one JSON object, a thought plus an action (``{"name", "reason", "input"}``) or an
answer (True/False, NOT ENOUGH INFO where the dataset has it). :func:`ask_step` asks for one, with one re-ask."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from factdebate.core.types import Label, Step
from factdebate.llm.ask import ask, part_chars
from factdebate.llm.base import GenParams
from factdebate.llm.json_reply import first_object
from factdebate.llm.model import LLM
from factdebate.methods.kit.fields import check_query, free_field, query_problem
from factdebate.methods.mermaid.decomposer import REASK
from factdebate.methods.mermaid.toolbox import model_input_schema
from factdebate.prompts import Prompt
from factdebate.tools.toolset import ToolSchema

AGENT = "executor"

NEI = "NOT ENOUGH INFO"
_ANSWERS = {"true": Label.SUPPORTS, "false": Label.REFUTES, "supports": Label.SUPPORTS,
            "supported": Label.SUPPORTS, "refutes": Label.REFUTES, "refuted": Label.REFUTES}
_NEI = {"not enough info", "not enough information", "nei", "not enough evidence"}


def answers(three_way: bool) -> list[str]:
    return ["True", "False", NEI] if three_way else ["True", "False"]


def answers_text(three_way: bool) -> str:
    return " or ".join(f'"{a}"' for a in answers(three_way))


def parse_answer(value: Any, three_way: bool) -> Label | None:
    if isinstance(value, bool):
        return Label.SUPPORTS if value else Label.REFUTES
    if not isinstance(value, str):
        return None
    text = " ".join(value.strip().strip(".").lower().split())
    if text in _ANSWERS:
        return _ANSWERS[text]
    if three_way and text in _NEI:
        return Label.NOT_ENOUGH_INFO
    return None


@dataclass
class StepReply:
    thought: str
    label: Label | None = None  # an answer
    tool: str = ""  # an action
    reason: str = ""
    input: Any = None
    extra: dict[str, Any] = field(default_factory=dict)

    @property
    def is_answer(self) -> bool:
        return self.label is not None


def parse_step(text: str, three_way: bool, *, answer_only: bool = False, claim: str = "",
               prompt: str = "mermaid_step") -> StepReply | None:
    """The step the reply holds, or ``None``; a search that is no query is :class:`~factdebate.llm.ask.Unreadable`,
    an echoed thought or reason dropped and counted."""
    data = first_object(text)
    if data is None:
        return None
    thought = " ".join(str(data.get("thought") or "").split())[:1000]
    if thought:  # "Your reasoning" is dropped and counted; the step's answer or action is still read
        thought = free_field(thought, prompt, "thought")
    if data.get("answer") is not None:
        label = parse_answer(data["answer"], three_way)
        return StepReply(thought, label=label) if label is not None else None
    action = data.get("action")
    if isinstance(action, str):  # {"action": "name", "input": ...}: the same step, flatter
        action = {"name": action, "input": data.get("input"), "reason": data.get("reason", "")}
    if not isinstance(action, dict) or not isinstance(action.get("name"), str) or not action["name"].strip():
        return None
    name = action["name"].strip()
    if name.lower() in ("answer", "finish", "final_answer"):  # the paper's special Answer action
        label = parse_answer(action.get("input"), three_way)
        return StepReply(thought, label=label) if label is not None else None
    if answer_only:
        return None
    reason = " ".join(str(action.get("reason") or "").split())[:300]
    if reason:
        reason = free_field(reason, prompt, "reason")
    arguments = action.get("input")
    query = arguments.get("query") if isinstance(arguments, dict) else arguments
    if isinstance(query, str):
        searched = check_query(query, prompt, claim=claim)
        if searched != query:  # a sentence cut to its key words
            arguments = {**arguments, "query": searched} if isinstance(arguments, dict) else searched
    return StepReply(thought, tool=name, reason=reason, input=arguments)


def fallback_step(raw: str, claim: str, earlier: list[Step]) -> StepReply | None:
    """What a step whose search query was refused runs instead: the same tool with the turn's last good query,
    or the claim; None when the reply was unreadable for another reason. The loss stays counted."""
    data = first_object(raw)
    action = data.get("action") if data is not None else None
    if isinstance(action, str) and data is not None:
        action = {"name": action, "input": data.get("input")}
    if not isinstance(action, dict) or not isinstance(action.get("name"), str) or not action["name"].strip():
        return None
    name, arguments = action["name"].strip(), action.get("input")
    query = arguments.get("query") if isinstance(arguments, dict) else arguments
    if not isinstance(query, str) or query_problem(query, "mermaid_step", claim=claim) is None:
        return None
    last = next((s.arguments["query"] for s in reversed(earlier) if s.tool == name
                 and isinstance(s.arguments.get("query"), str) and s.arguments["query"]), None)
    searched = last or claim
    return StepReply("", tool=name, input={**arguments, "query": searched} if isinstance(arguments, dict) else searched)


STEP_TOKENS = 300
THOUGHT_CHARS = 240  # a step's thought where its cap leaves room


def _bounded(schema: dict[str, Any], chars: int) -> dict[str, Any]:
    """``schema`` (a tool's arguments) with each string held to ``chars``."""
    return {**schema, "properties": {key: {**value, "maxLength": chars} if value.get("type") == "string" else value
                                     for key, value in schema["properties"].items()}}


def step_schema(tools: list[ToolSchema], three_way: bool) -> dict[str, Any]:
    """The reply held to: an answer, or an action naming a tool with its required arguments; free strings are
    bounded so the longest step closes within STEP_TOKENS."""
    answer = {"type": "object", "properties": {"thought": {"type": "string", "maxLength": THOUGHT_CHARS},
                                               "answer": {"type": "string", "enum": answers(three_way)}},
              "required": ["thought", "answer"], "additionalProperties": False}
    variants: list[dict[str, Any]] = [answer]
    for tool in tools:
        given = model_input_schema(tool)
        fixed = 80 + len(tool.name) + sum(len(key) + 12 for key in given["properties"])
        chars = min(THOUGHT_CHARS, part_chars(STEP_TOKENS, 2 + len(given["properties"]), fixed))
        variants.append({"type": "object", "properties": {
            "thought": {"type": "string", "maxLength": chars},
            "action": {"type": "object", "properties": {"name": {"type": "string", "enum": [tool.name]},
                                                        "reason": {"type": "string", "maxLength": chars},
                                                        "input": _bounded(given, chars)},
                       "required": ["name", "reason", "input"], "additionalProperties": False}},
            "required": ["thought", "action"], "additionalProperties": False})
    return {"anyOf": variants} if len(variants) > 1 else answer


def answer_schema(three_way: bool) -> dict[str, Any]:
    return step_schema([], three_way)


async def ask_step(llm: LLM, prompt: Prompt, schema: dict[str, Any], three_way: bool, number: int, *,
                   answer_only: bool, claim: str = "") -> tuple[StepReply | None, str, int]:
    """One step (or the forced answer), re-asked once when unreadable; it then keeps the first reply's text."""
    problem = ("it was not a JSON object with a \"thought\" and an \"answer\" of "
               if answer_only else "it was not a JSON object with a \"thought\" and either an \"action\" "
               "{\"name\", \"reason\", \"input\"} or an \"answer\" of ") + answers_text(three_way)
    asked = await ask(llm, prompt, lambda text: parse_step(text, three_way, answer_only=answer_only, claim=claim,
                                                           prompt=prompt.name),
                      what="mermaid_answer" if answer_only else "mermaid_step",
                      params=GenParams(temperature=0.0, max_tokens=STEP_TOKENS, json_schema=schema), problem=problem,
                      reask=REASK, agent=AGENT, round=number)
    return asked.value, asked.raw if asked.value is not None else asked.first, asked.retries
