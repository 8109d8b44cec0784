"""``react``: one agent with the RAG tool in a thought → action → observation loop (Yao et al., 2023).

Each step the model writes a thought and either ``search[query]`` or ``finish[VERDICT]``. The loop stops at
``finish`` or after ``baselines.react_max_steps`` steps; then a forced final answer is asked from the whole
transcript. Choices are listed in docs/methods/react.md.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from factdebate.methods.base import Resources, register
from factdebate.methods.baseline_utils import finish
from factdebate.methods.common import labelled_answer, search_tool, trim
from factdebate.parsing import parse_label
from factdebate.prompts import render
from factdebate.runtime import emit
from factdebate.scoring.ask import ask_parsed_full
from factdebate.types import Document, Label, Round, Turn, Verdict

_ACTION = re.compile(r"action\s*:?\s*\**\s*(search|finish)\s*\[([^\[\]]*)\]", re.I)
_PLACEHOLDER = re.compile(r"^<[^<>]*>$")
_THOUGHT = re.compile(r"thought\s*:\s*(.*?)(?=\n\s*action\s*:|\Z)", re.I | re.S)
AGENT = "react"
OBSERVATION_CHARS = 500
# The re-ask of a step without a valid action is held to the step format on backends with grammars
# (llama.cpp): small models otherwise echo the prompt's placeholders forever and never search.
STEP_GRAMMAR = (
    'root ::= "Thought: " thought "\\nAction: " action\n'
    'thought ::= [^\\n]{1,200}\n'
    'action ::= "search[" query "]" | "finish[" label "]"\n'
    'query ::= [^\\n<>\\[\\]]{2,100}\n'
    'label ::= "SUPPORTS" | "REFUTES" | "NOT ENOUGH INFO"\n'
)
# The same step as JSON for servers without grammars; parse_action still checks a finish names a verdict.
STEP_JSON = ({
    "type": "object",
    "properties": {"thought": {"type": "string"}, "action": {"type": "string", "enum": ["search", "finish"]},
                   "argument": {"type": "string"}},
    "required": ["thought", "action", "argument"], "additionalProperties": False,
}, "Thought: {thought}\nAction: {action}[{argument}]")


@dataclass
class Step:
    thought: str
    action: str
    observation: str


@dataclass(frozen=True)
class Action:
    kind: str  # search | finish
    argument: str
    label: Label | None = None


def parse_action(text: str) -> Action | None:
    """The first valid action of the reply; anything after a model-written "Observation:" is the model
    imagining results and is ignored. ``finish`` must name a verdict, ``search`` a real query: the
    prompt's own placeholders (``search[<query>]``, ``finish[<VERDICT>]``), which small models echo back,
    are not actions."""
    text = re.split(r"\n\s*observation\s*:", text, maxsplit=1, flags=re.I)[0]
    for match in _ACTION.finditer(text):
        kind, argument = match.group(1).lower(), match.group(2).strip().strip("\"'")
        if not argument or _PLACEHOLDER.match(argument):
            continue
        if kind == "search":
            return Action("search", argument)
        label = parse_label(argument)
        if label is not None:
            return Action("finish", argument, label)
    return None


def thought_of(text: str) -> str:
    match = _THOUGHT.search(text)
    return " ".join((match.group(1) if match else text.split("Action")[0]).split())[:600]


def observation(documents: list[Document]) -> str:
    if not documents:
        return "nothing found"
    # The transcript grows every step: each passage is cut short here (the turn keeps the longer text).
    return " ".join(f"[{i}] {d.title}: {' '.join(d.text.split())[:OBSERVATION_CHARS]}"
                    for i, d in enumerate(documents, start=1))


@register("react", "Single ReAct agent: thought/action/observation loop over the RAG tool, step cap, "
                   "forced final answer")
class ReAct:
    name = "react"

    async def run(self, claim: str, resources: Resources) -> Verdict:
        settings = resources.settings
        tool = resources.tool("rag")
        max_steps = settings.baselines.react_max_steps
        steps: list[Step] = []
        rounds: list[Round] = []
        failures = 0  # steps whose reply had no valid action, even after the re-ask
        for number in range(1, max_steps + 1):
            prompt = render("react_step", claim=claim, steps=steps, remaining=max_steps - number + 1)
            parsed = await ask_parsed_full(resources.debater, prompt, parse_action,
                                           "the reply had no line like 'Action: search[...]' or "
                                           "'Action: finish[SUPPORTS]'", agent=AGENT, round=number,
                                           max_tokens=160, reask_grammar=STEP_GRAMMAR,
                                           reask_json=STEP_JSON)
            action, raw = parsed.value, parsed.raw
            turn = Turn(agent=AGENT, tool=tool.name, response=raw.strip())
            rounds.append(Round(round=number, turns=[turn]))
            if action is None:
                failures += 1
                emit("parse_failure", what="react_action", agent=AGENT, round=number, reply=raw[:200])
                steps.append(Step(thought_of(raw), "(none)", "no valid action was given"))
                continue
            if action.kind == "finish":
                turn.label, turn.label_constrained = action.label, parsed.constrained
                return finish(claim, self.name, action.label, "single", rounds, unparsed_turns=failures)
            documents = trim(await search_tool(tool, action.argument, settings.toolmad.k, agent=AGENT,
                                               round=number), settings.toolmad.max_doc_chars)
            turn.query, turn.evidence = action.argument, documents
            steps.append(Step(thought_of(raw), f"search[{action.argument}]", observation(documents)))
        # Step cap reached without finish[...]: ask for the verdict from everything observed.
        prompt = render("react_final", claim=claim, steps=steps)
        answer = await labelled_answer(resources.debater, prompt, agent=AGENT, round=max_steps + 1,
                                       temperature=settings.llm.temperature)
        final = Turn(agent=AGENT, tool="none", response=answer.response, label=answer.label,
                     parse_retries=answer.retries, label_constrained=answer.constrained)
        rounds.append(Round(round=max_steps + 1, turns=[final]))
        return finish(claim, self.name, answer.label, "single", rounds,
                      unparsed_turns=failures + (answer.label is None))
