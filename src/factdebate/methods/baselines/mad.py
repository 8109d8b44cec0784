"""``mad``: multi-agent debate after Liang et al. (EMNLP 2024), "tit for tat" without tools.

Each round the affirmative argues, the negative challenges, and a moderator may end the debate with the side
it prefers; after ``rounds`` without a preference a judge decides (docs/methods/mad.md)."""

from __future__ import annotations

import asyncio
import re
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from pydantic import Field

from factdebate.core.deviations import Deviation
from factdebate.core.fields import offered
from factdebate.core.parsing import parse_label
from factdebate.core.runtime import span
from factdebate.core.types import Judgement, Label, Round, Turn, Verdict
from factdebate.llm.ask import ask, format_reask
from factdebate.llm.base import GenParams
from factdebate.methods.base import CallProbe, Method, MethodSettings, register
from factdebate.methods.kit.fields import free_field
from factdebate.methods.kit.formats import ALL_LABELS, label_rule, offered_labels
from factdebate.methods.kit.paper_setup import toolmad_backbone
from factdebate.methods.kit.speculation import play_rounds, speculation_wanted
from factdebate.methods.kit.turns import answer_turn, end_round, finish, judge, judged
from factdebate.methods.resources import Resources
from factdebate.prompts import render

# "Preference: yes or no" is the prompt's own answer format echoed back, not a decision.
_PREFERENCE = re.compile(r"preference\s*:?\s*\**\s*(yes|no)\b(?!\s*(?:or|/)\s*(?:yes|no)\b)", re.I)


# The moderator's re-ask on backends with grammars (llama.cpp) is held to the answer format; small models
# otherwise copy "Preference: yes or no" from the prompt and never decide. The reason starts by naming a
# side: held to its format, a small served model still copied the placeholder "Reason: one sentence".
def moderation_grammar(labels: tuple[str, ...]) -> str:
    return ('root ::= "Preference: " ("no\\nReason: " reason | "yes\\nReason: " reason "\\n" label)\n'
            'reason ::= ("The affirmative" | "The negative" | "Neither" | "Both") [^\\n]{1,180}\n'
            + label_rule(labels))


# The same format as JSON, for servers that take schemas but no grammars (the verdict is ignored after "no").
def moderation_json(labels: tuple[str, ...]) -> tuple[dict[str, Any], str]:
    return ({"type": "object",
             "properties": {"preference": {"type": "string", "enum": ["yes", "no"]}, "reason": {"type": "string"},
                            "verdict": {"type": "string", "enum": list(labels)}},
             "required": ["preference", "reason", "verdict"], "additionalProperties": False},
            "Preference: {preference}\nReason: {reason}\n{verdict}")


def moderation_params(labels: tuple[str, ...]) -> GenParams:
    """The moderator's first ask, held to the grammar's form (reason first, then the verdict) where it can."""
    schema, template = moderation_json(labels)
    return GenParams(temperature=0.0, max_tokens=160, grammar=moderation_grammar(labels), json_schema=schema,
                     json_template=template)


MODERATION_GRAMMAR = moderation_grammar(ALL_LABELS)

if TYPE_CHECKING:
    from factdebate.methods.settings_protocol import RunSettings

_REASON = re.compile(r"reason\s*:[ \t]*([^\n]*)", re.I)


@dataclass(frozen=True)
class Moderation:
    preference: bool
    label: Label | None


def parse_moderation(text: str) -> Moderation | None:
    """``Preference: yes`` with a verdict on a later line, or ``Preference: no``; a "yes" without one is unparsed."""
    match = _PREFERENCE.search(text)
    if match is None:
        return None
    if (reason := _REASON.search(text[match.end():])) is not None:  # a copied "one sentence" is no reason:
        free_field(reason.group(1), "mad_moderator", "reason")  # dropped and counted; the decision is read
    if match.group(1).lower() == "no":
        return Moderation(False, None)
    label = parse_label(text[match.end():])
    return Moderation(True, label) if label is not None else None


class MADSettings(MethodSettings):
    rounds: int = Field(
        title="Debate rounds", default=3, ge=1, le=10, json_schema_extra=offered(group="rounds", main=True),
        description="MAD debate rounds before the judge.")
    speculate: bool | None = Field(
        title="Start rounds ahead", default=None, json_schema_extra=offered(operator_only=True, group="rounds"),
        description="Start round r+1's affirmative while round r is moderated (same verdicts, less time). Unset: on "
                    "for served models, off for the in-process one.")  # discarded calls cost: the operator's choice


def history_text(rounds: list[Round]) -> str:
    parts: list[str] = []
    for rnd in rounds:
        parts.append(f"Round {rnd.round}:")
        for turn in rnd.turns:
            parts.append(f"- {turn.agent} side: " + " ".join(turn.response.split()))
    return "\n".join(parts)


@register
class MAD(Method[MADSettings]):
    name = "mad"
    description = ("MAD (Liang et al.): affirmative vs negative debaters, a moderator each round with early "
                   "stop, a judge at the end; no tools")
    settings_model = MADSettings
    roles = ("debater", "judge")  # the judge's model also moderates
    call_probe = CallProbe(reasks={"mad_moderator": "Preference: no\nReason: both sides are weak."},
                           dissenters=("negative",))

    def most_rounds(self, settings: RunSettings) -> int | None:
        return self.cfg(settings).rounds

    def call_bounds(self, settings: RunSettings) -> tuple[int, int]:
        # Each answer and each moderation may be re-asked once; so may the judge's.
        return 3, 6 * self.cfg(settings).rounds + 2

    def paper_deviations(self, settings: RunSettings) -> list[Deviation]:
        return toolmad_backbone(settings)  # the Tool-MAD paper ran MAD on its backbones

    async def run(self, claim: str, resources: Resources) -> Verdict:
        temperature = resources.settings.llm.temperature
        cfg = self.cfg(resources.settings)
        rounds: list[Round] = []

        async def play(r: int, negative_said: str | None, said: asyncio.Future[str],
                       confirmed: asyncio.Event) -> Round:
            with span(f"round {r}", "round", round=r):
                # Sequential by design: each side answers the other's latest argument.
                affirmative = await answer_turn(
                    resources.debater, render("mad_affirmative", claim=claim, opponent=negative_said or ""),
                    agent="affirmative", team="affirmative", round=r, temperature=temperature)
                await confirmed.wait()  # a speculative round goes no further than its first answer
                negative = await answer_turn(
                    resources.debater, render("mad_negative", claim=claim, opponent=affirmative.response),
                    agent="negative", team="negative", round=r, temperature=temperature)
                said.set_result(negative.response)  # all the next round needs: it may start now
                moderation = await self._moderate(claim, r, affirmative, negative, resources)
            return Round(round=r, turns=[affirmative, negative], judges=[moderation])

        def settle(r: int, rnd: Round) -> bool:
            rounds.append(rnd)
            moderation = rnd.judges[0]
            decided = moderation.parsed and moderation.vote is not None
            end_round(rnd, consensus=decided, final=decided or r == cfg.rounds)
            return decided

        speculate = speculation_wanted(cfg.speculate, cfg.rounds, resources.settings,
                                       resources.debater.backend.max_parallel, resources.debater.max_in_flight)
        if await play_rounds(cfg.rounds, play, settle, speculate=speculate):
            return finish(claim, self.name, rounds[-1].judges[0].vote, "moderator", rounds)
        prompt = render("mad_judge", claim=claim, history=history_text(rounds))
        decision = await judge(resources.judge, prompt, round=len(rounds) + 1, temperature=temperature)
        return finish(claim, self.name, decision.vote, "judge", rounds, [decision])

    @staticmethod
    async def _moderate(claim: str, r: int, affirmative: Turn, negative: Turn,
                        resources: Resources) -> Judgement:
        labels = offered_labels()
        moderated = await ask(
            resources.judge, render("mad_moderator", claim=claim, round=r, affirmative=affirmative.response,
                                    negative=negative.response),
            parse_moderation, what="moderation", params=moderation_params(labels),
            problem="the reply needs a line 'Preference: yes' or 'Preference: no', and after 'yes' a final "
            "line with the verdict", reask=format_reask(160, moderation_grammar(labels), moderation_json(labels)),
            agent="moderator", round=r)
        moderation, raw = moderated.value, moderated.raw
        judgement = Judgement(agent="moderator", role="moderator", response=raw.strip(),
                              vote=moderation.label if moderation and moderation.preference else None,
                              parsed=moderation is not None,
                              label_constrained=moderated.constrained if moderation and moderation.label else None)
        judged(judgement, r)
        return judgement
