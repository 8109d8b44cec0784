"""``mad``: multi-agent debate after Liang et al. (EMNLP 2024), "tit for tat" without tools.

Each round the affirmative side argues, the negative side challenges it, and a moderator says whether one
side is clearly more convincing; if so the debate stops with the verdict that side supports. After
``baselines.mad_rounds`` rounds without a preference, a judge reads the whole debate and decides. Choices
are listed in docs/methods/mad.md.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from factdebate.methods.base import Resources, register
from factdebate.methods.baseline_utils import finish
from factdebate.methods.common import labelled_answer
from factdebate.parsing import parse_label
from factdebate.prompts import render
from factdebate.runtime import emit
from factdebate.scoring.ask import ask_parsed_full
from factdebate.types import JudgeDecision, Label, Round, Turn, Verdict

# "Preference: yes or no" is the prompt's own answer format echoed back, not a decision.
_PREFERENCE = re.compile(r"preference\s*:?\s*\**\s*(yes|no)\b(?!\s*(?:or|/)\s*(?:yes|no)\b)", re.I)


# The moderator's re-ask on backends with grammars (llama.cpp) is held to the answer format; small models
# otherwise copy "Preference: yes or no" from the prompt and never decide.
MODERATION_GRAMMAR = (
    'root ::= "Preference: " ("no\\nReason: " reason | "yes\\nReason: " reason "\\n" label)\n'
    'reason ::= [^\\n]{1,200}\n'
    'label ::= "SUPPORTS" | "REFUTES" | "NOT ENOUGH INFO"\n'
)
# The same format as JSON, for servers that take schemas but no grammars (the verdict is ignored after "no").
MODERATION_JSON = ({
    "type": "object",
    "properties": {"preference": {"type": "string", "enum": ["yes", "no"]}, "reason": {"type": "string"},
                   "verdict": {"type": "string", "enum": [label.value for label in Label]}},
    "required": ["preference", "reason", "verdict"], "additionalProperties": False,
}, "Preference: {preference}\nReason: {reason}\n{verdict}")


@dataclass(frozen=True)
class Moderation:
    preference: bool
    label: Label | None


def parse_moderation(text: str) -> Moderation | None:
    """``Preference: yes`` with a verdict on a later line, or ``Preference: no``. A "yes" without a readable
    verdict is not a usable decision, so it is reported as unparsed (and re-asked)."""
    match = _PREFERENCE.search(text)
    if match is None:
        return None
    if match.group(1).lower() == "no":
        return Moderation(False, None)
    label = parse_label(text[match.end():])
    return Moderation(True, label) if label is not None else None


def history_text(rounds: list[Round]) -> str:
    parts: list[str] = []
    for rnd in rounds:
        parts.append(f"Round {rnd.round}:")
        for turn in rnd.turns:
            if turn.agent != "moderator":
                parts.append(f"- {turn.agent} side: " + " ".join(turn.response.split()))
    return "\n".join(parts)


@register("mad", "MAD (Liang et al.): affirmative vs negative debaters, a moderator each round with early "
                 "stop, a judge at the end; no tools")
class MAD:
    name = "mad"

    async def run(self, claim: str, resources: Resources) -> Verdict:
        temperature = resources.settings.llm.temperature
        rounds: list[Round] = []
        unparsed = 0
        negative_said = ""
        for r in range(1, resources.settings.baselines.mad_rounds + 1):
            # Sequential by design: each side answers the other's latest argument.
            affirmative = await labelled_answer(
                resources.debater, render("mad_affirmative", claim=claim, opponent=negative_said),
                agent="affirmative", round=r, temperature=temperature)
            negative = await labelled_answer(
                resources.debater, render("mad_negative", claim=claim, opponent=affirmative.response),
                agent="negative", round=r, temperature=temperature)
            negative_said = negative.response
            unparsed += (affirmative.label is None) + (negative.label is None)
            moderated = await ask_parsed_full(
                resources.judge, render("mad_moderator", claim=claim, round=r, affirmative=affirmative.response,
                                        negative=negative.response),
                parse_moderation, "the reply needs a line 'Preference: yes' or 'Preference: no', and after "
                "'yes' a final line with the verdict", agent="moderator", round=r, max_tokens=160,
                reask_grammar=MODERATION_GRAMMAR, reask_json=MODERATION_JSON)
            moderation, raw = moderated.value, moderated.raw
            if moderation is None:
                unparsed += 1
                emit("parse_failure", what="moderation", agent="moderator", round=r, reply=raw[:200])
            turns = [
                Turn(agent="affirmative", tool="none", response=affirmative.response, label=affirmative.label,
                     parse_retries=affirmative.retries,
                     label_constrained=affirmative.constrained),
                Turn(agent="negative", tool="none", response=negative.response, label=negative.label,
                     parse_retries=negative.retries,
                     label_constrained=negative.constrained),
                Turn(agent="moderator", tool="none", response=raw.strip(),
                     label=moderation.label if moderation else None,
                     label_constrained=moderated.constrained if moderation and moderation.label else None),
            ]
            rounds.append(Round(round=r, turns=turns))
            preferred = moderation is not None and moderation.preference
            emit("round", round=r, labels=[t.label for t in turns[:2]], moderator_preference=preferred)
            if moderation is not None and moderation.preference:
                return finish(claim, self.name, moderation.label, "consensus", rounds, unparsed_turns=unparsed)
        prompt = render("mad_judge", claim=claim, history=history_text(rounds))
        answer = await labelled_answer(resources.judge, prompt, agent="judge", round=len(rounds) + 1,
                                       temperature=temperature)
        judge = JudgeDecision(response=answer.response, label=answer.label, parse_retries=answer.retries,
                             label_constrained=answer.constrained)
        return finish(claim, self.name, answer.label, "judge", rounds, judge, unparsed_turns=unparsed)
