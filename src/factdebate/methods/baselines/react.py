"""``react``: one agent with the RAG tool in a thought → action → observation loop (Yao et al., 2023).

Each step is a thought and ``search[query]`` or ``finish[VERDICT]``, until ``finish`` or ``max_steps`` (then a
forced answer); the verdict's one turn holds the loop as ``steps`` (docs/methods/react.md)."""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

from pydantic import Field

from factdebate.core.deviations import Deviation
from factdebate.core.events import StepTaken, doc_refs
from factdebate.core.fields import offered
from factdebate.core.parsing import parse_label
from factdebate.core.runtime import count_reply, emit, span
from factdebate.core.types import Document, Label, Round, Step, Turn, Verdict
from factdebate.llm.ask import ask, format_reask
from factdebate.llm.base import GenParams
from factdebate.methods.base import CallProbe, Method, MethodSettings, register
from factdebate.methods.kit.common import labelled_answer, search_tool, trim
from factdebate.methods.kit.fields import LABEL_WORDS, check_query, free_field, words
from factdebate.methods.kit.formats import ALL_LABELS, label_rule, offered_labels
from factdebate.methods.kit.paper_setup import toolmad_backbone, top_k
from factdebate.methods.kit.query_text import clean_query
from factdebate.methods.kit.sources import rag_corpus_deviation
from factdebate.methods.kit.turns import answered, end_round, finish, turn_started
from factdebate.methods.resources import Resources
from factdebate.methods.view import declare_view
from factdebate.prompts import render
from factdebate.tools.base import Tool

_ACTION = re.compile(r"action\s*:?\s*\**\s*(search|finish)\s*\[([^\[\]]*)\]", re.I)
_PLACEHOLDER = re.compile(r"^<[^<>]*>$")
_THOUGHT = re.compile(r"thought\s*:\s*(.*?)(?=\n\s*action\s*:|\Z)", re.I | re.S)
AGENT = "react"
OBSERVATION_CHARS = 500
# The re-ask of a step without a valid action is held to the step format on backends with grammars
# (llama.cpp): small models otherwise echo the prompt's placeholders forever and never search.
def step_grammar(labels: tuple[str, ...]) -> str:
    return ('root ::= "Thought: " thought "\\nAction: " action\n'
            'thought ::= [^\\n<>]{1,200}\n'
            'action ::= "search[" query "]" | "finish[" label "]"\n'
            'query ::= [^\\n<>\\[\\]]{2,100}\n' + label_rule(labels))


STEP_GRAMMAR = step_grammar(ALL_LABELS)
STEP_TOKENS = 176  # the grammar's longest step is 326 characters: over 1.8 characters a token

if TYPE_CHECKING:
    from factdebate.methods.settings_protocol import RunSettings
# The same step as JSON for servers without grammars; parse_action still checks a finish names a verdict.
STEP_JSON = ({
    "type": "object",
    "properties": {"thought": {"type": "string"}, "action": {"type": "string", "enum": ["search", "finish"]},
                   "argument": {"type": "string"}},
    "required": ["thought", "action", "argument"], "additionalProperties": False,
}, "Thought: {thought}\nAction: {action}[{argument}]")


def step_params() -> GenParams:
    """Every step held to the step format where the backend can; its re-ask differs by temperature."""
    schema, template = STEP_JSON
    return GenParams(temperature=0.0, max_tokens=STEP_TOKENS, grammar=step_grammar(offered_labels()),
                     json_schema=schema, json_template=template)


class ReActSettings(MethodSettings):
    max_steps: int = Field(
        title="Most steps", default=5, ge=1, le=20, json_schema_extra=offered(group="rounds", main=True),
        description="Thought/action/observation steps before a forced answer.")
    repeat_skip: bool = Field(
        title="Skip a repeated search", default=True, json_schema_extra=offered(group="rounds"),
        description="A search for the same query as an earlier step is not run again: the agent is told it already "
                    "has that observation (off: every action runs, as in ReAct).")


@dataclass(frozen=True)
class Action:
    kind: str  # search | finish
    argument: str
    label: Label | None = None
    written: str | None = None  # a search's query as the model wrote it, where cleaning changed it


def read_step(text: str, claim: str = "") -> Action | None:
    """:func:`parse_action` held to kit/fields.py: a search that is no query is
    :class:`~factdebate.llm.ask.Unreadable`; an echoed thought is counted and the action still read."""
    action = parse_action(text)
    if action is None:
        return None
    if (thought := thought_of(text)) and _THOUGHT.search(text):
        free_field(thought, "react_step", "thought")  # an echoed thought is counted; the action is read
    if action.kind == "search":
        searched = check_query(action.argument, "react_step", claim=claim)
        if searched != action.argument:
            return replace(action, argument=searched, written=action.written or action.argument)
    return action


def parse_action(text: str) -> Action | None:
    """The first valid action of the reply, before any model-written "Observation:"; the prompt's own
    placeholders are not actions."""
    text = re.split(r"\n\s*observation\s*:", text, maxsplit=1, flags=re.I)[0]
    for match in _ACTION.finditer(text):
        kind, written = match.group(1).lower(), match.group(2).strip()
        argument = written.strip("\"'")
        if not argument or _PLACEHOLDER.match(argument):
            continue
        if kind == "search" and (label := _label_only(argument)) is not None:
            # "search[SUPPORTS]": the model has decided; a label is no search, so it is the step's answer.
            return Action("finish", argument, label)
        if kind == "search":
            query = clean_query(written)  # "1. capital of France" searches "capital of France"
            if query.text:  # one that cleaning empties is no query, as an empty one
                return Action("search", query.text, written=query.written)
            continue
        label = parse_label(argument)
        if label is not None:
            return Action("finish", argument, label)
    return None


def fallback_search(raw: str, claim: str, steps: list[Step], tool: str) -> Action | None:
    """What a step whose search query was refused searches: the turn's last good query, or the claim; None
    for a reply with no search. The loss stays counted."""
    refused = parse_action(raw)
    if refused is None or refused.kind != "search":
        return None
    last = next((s.arguments.get("query") for s in reversed(steps) if s.tool == tool and s.arguments.get("query")),
                None)
    return Action("search", str(last or claim))


def _label_only(argument: str) -> Label | None:
    """The label ``argument`` names when it names nothing else ("SUPPORTS", "not enough info")."""
    said = words(argument)
    return parse_label(argument) if said and set(said) <= LABEL_WORDS else None


def same_query(query: str) -> str:
    """A query as compared with earlier ones: case, punctuation and spacing aside."""
    return " ".join(words(query))


def repeated_search(action: Action, raw: str, earlier: int, tool: str) -> Step:
    """The step of a search step ``earlier`` already ran: not run again, counted as ``repeated``."""
    count_reply("react_action", "repeated")
    return Step(thought=thought_of(raw), tool=tool, arguments={"query": action.argument},
                observation=render("repeated_action", step=earlier).text, repeats=earlier)


def thought_of(text: str) -> str:
    match = _THOUGHT.search(text)
    return " ".join((match.group(1) if match else text.split("Action")[0]).split())[:600]


def observation(documents: list[Document]) -> str:
    if not documents:
        return "nothing found"
    # The transcript grows every step: each passage is cut short here (the turn keeps the longer text).
    return " ".join(f"[{i}] {d.title}: {' '.join(d.text.split())[:OBSERVATION_CHARS]}"
                    for i, d in enumerate(documents, start=1))


def action_text(step: Step) -> str:
    """How the prompt shows a step's action."""
    if step.tool == "finish":
        return f"finish[{step.arguments.get('label', '')}]"
    return f"search[{step.arguments.get('query', '')}]" if step.tool else "(none)"


@register
class ReAct(Method[ReActSettings]):
    name = "react"
    description = ("Single ReAct agent: thought/action/observation loop over the RAG tool, step cap, forced "
                   "final answer")
    settings_model = ReActSettings
    # One agent's loop: its model calls are numbered by step, and its one round is not worth naming.
    view = declare_view(rounds=False, calls_by_step=True)
    call_probe = CallProbe(reasks={"react_step": "Thought: look again.\nAction: search[capital]"})

    def tools(self, settings: RunSettings) -> set[str]:
        return {"rag"}

    def call_bounds(self, settings: RunSettings) -> tuple[int, int]:
        return 1, 2 * self.cfg(settings).max_steps + 2  # every step and the forced answer may be re-asked

    def paper_deviations(self, settings: RunSettings) -> list[Deviation]:
        # The Tool-MAD paper's single agent: its backbones, the RAG module with three documents per query.
        skip = [Deviation(key="repeat_skip", paper="every action the agent writes is run (ReAct), a search for the "
                          "same query again included",
                          here="a search for the same query as an earlier step (once normalised) is neither run "
                               "nor counted as a tool call: its step tells the agent it already has that "
                               "observation, and the loop goes on",
                          restore="--no-react-repeat-skip")] if self.cfg(settings).repeat_skip else []
        return (toolmad_backbone(settings, ("debater",)) + top_k(settings)
                + rag_corpus_deviation(("rag",), settings, paper="the RAG module searches a Milvus vector index "
                                       "of Wikipedia") + skip)

    async def run(self, claim: str, resources: Resources) -> Verdict:
        settings, cfg = resources.settings, self.cfg(resources.settings)
        tool = resources.tool("rag")
        max_steps = cfg.max_steps
        turn = Turn(agent=AGENT, tool=tool.name)
        rnd = Round(round=1, turns=[turn])
        failures = 0  # steps whose reply had no valid action, even after the re-ask
        searched: dict[str, int] = {}  # each query searched, normalised, and the step that searched it
        with span("round 1", "round", round=1):
            turn_started(turn, 1)
            for number in range(1, max_steps + 1):
                prompt = render("react_step", claim=claim, steps=[_shown(s) for s in turn.steps],
                                remaining=max_steps - number + 1)
                parsed = await ask(resources.debater, prompt, lambda text: read_step(text, claim),
                                   what="react_action",
                                   params=step_params(),
                                   problem="the reply had no line like 'Action: search[...]' or "
                                   "'Action: finish[SUPPORTS]'",
                                   reask=format_reask(STEP_TOKENS, step_grammar(offered_labels()), STEP_JSON),
                                   agent=AGENT, round=number)
                action, raw = parsed.value, parsed.raw
                failures += action is None  # counted lost by ``llm.ask``, whatever is searched instead
                if action is None:
                    action = fallback_search(raw, claim, turn.steps, tool.name)
                if action is not None and action.kind == "search" and cfg.repeat_skip and (
                        earlier := searched.get(same_query(action.argument))) is not None:
                    step = repeated_search(action, raw, earlier, tool.name)
                else:
                    step = await self._act(action, raw, number, tool, resources)
                    if step.tool == tool.name:
                        searched.setdefault(same_query(action.argument if action else ""), number)
                turn.steps.append(step)
                emit(StepTaken(agent=AGENT, round=1, index=number, thought=step.thought, tool=step.tool,
                               arguments=step.arguments, observation=step.observation[:300],
                               evidence=doc_refs(step.evidence)))
                if action is not None and action.kind == "finish":
                    turn.response, turn.label, turn.label_constrained = raw.strip(), action.label, parsed.constrained
                    break
            else:
                # Step cap reached without finish[...]: ask for the verdict from everything observed.
                prompt = render("react_final", claim=claim, steps=[_shown(s) for s in turn.steps])
                answer = await labelled_answer(resources.debater, prompt, agent=AGENT, round=max_steps + 1,
                                               temperature=settings.llm.temperature)
                turn.response, turn.label, turn.parse_retries = answer.response, answer.label, answer.retries
                turn.label_constrained = answer.constrained
                failures += answer.label is None
            turn.query = next((s.arguments.get("query") for s in turn.steps if s.tool == tool.name), None)
            turn.evidence = [d for s in turn.steps for d in s.evidence]
            answered(turn, 1)
        end_round(rnd, consensus=False, final=True)
        return finish(claim, self.name, turn.label, "single", [rnd], unparsed_turns=failures)

    @staticmethod
    async def _act(action: Action | None, raw: str, number: int, tool: Tool, resources: Resources) -> Step:
        if action is None:  # recorded by ``llm.ask``
            return Step(thought=thought_of(raw), tool="", observation="no valid action was given")
        if action.kind == "finish":
            label = action.label.value if action.label else ""
            return Step(thought=thought_of(raw), tool="finish", arguments={"label": label})
        retrieval = resources.settings.retrieval
        documents = trim(await search_tool(tool, action.argument, retrieval.k, agent=AGENT, round=number,
                                           written=action.written), retrieval.max_doc_chars)
        return Step(thought=thought_of(raw), tool=tool.name, arguments={"query": action.argument},
                    observation=observation(documents), evidence=documents)


@dataclass
class _Shown:
    thought: str
    action: str
    observation: str


def _shown(step: Step) -> _Shown:
    """A step as the prompt template reads it."""
    return _Shown(step.thought, action_text(step), step.observation)
