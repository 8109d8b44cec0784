"""``parrot``: the same prompt asked ``answers`` times by independent agents; the last answer counts.

Everything the package learns about a method comes from this folder: the settings model (flags, API and
service options, the web form), the prompt (``prompts/parrot.j2``), the event it adds to the trace, the
scripted backend's reply to its prompt, its page view and how its call bounds are checked."""

from __future__ import annotations

from typing import TYPE_CHECKING, Literal

from pydantic import Field

from factdebate.core.events import BaseEvent
from factdebate.core.fields import offered
from factdebate.core.runtime import emit
from factdebate.core.types import Label, Round, Verdict
from factdebate.llm.scripted_library import Asked, ScriptedReply
from factdebate.methods.base import CallProbe, Method, MethodSettings
from factdebate.methods.kit.turns import answer_turn, end_round, finish
from factdebate.methods.resources import Resources
from factdebate.methods.view import MethodView
from factdebate.prompts import render

if TYPE_CHECKING:
    from factdebate.methods.settings_protocol import RunSettings


class ParrotSettings(MethodSettings):
    answers: int = Field(
        title="Number of answers", default=1, ge=1, le=5, json_schema_extra=offered(group="rounds", main=True),
        description="Independent answers; the last one counts.")
    voice: Literal["plain", "loud"] = Field(
        title="Speaking voice", default="plain", json_schema_extra=offered(group="agents", main=True),
        description="How the parrot speaks.")


class ParrotTally(BaseEvent):
    """The parrot's own event: every answer's label, and whether they all agree."""

    event: Literal["parrot_tally"] = "parrot_tally"
    labels: list[Label | None] = Field(default_factory=list)
    agreed: bool = False

    def summary(self) -> str:
        said = ", ".join(label.value if label else "unreadable" for label in self.labels)
        return f"parrot: {said} ({'agreed' if self.agreed else 'split'})"


def scripted_reply(asked: Asked) -> str:
    """``scripted:agree``: every answer SUPPORTS; ``scripted:disagree``: all but the first REFUTE."""
    dissent = asked.disagree and not asked.call.agent.endswith("-1")
    return f"I have heard that {asked.claim.rstrip('.')}.\n{'REFUTES' if dissent else 'SUPPORTS'}"


REPLIES: dict[str, ScriptedReply] = {"parrot": scripted_reply}  # by prompt name


class Parrot(Method[ParrotSettings]):
    name = "parrot"
    description = "EXAMPLE (factdebate docs methods/parrot): one prompt asked N times; the last answer counts"
    settings_model = ParrotSettings
    view = MethodView()  # the generic columns of turns (the default, said here as an example)
    events = (ParrotTally,)
    scripted_replies = REPLIES
    call_probe = CallProbe()  # its only re-ask is the shared label re-ask

    def call_bounds(self, settings: RunSettings) -> tuple[int, int]:
        answers = self.cfg(settings).answers
        return answers, 2 * answers  # each answer may be re-asked for its label

    async def run(self, claim: str, resources: Resources) -> Verdict:
        cfg = self.cfg(resources.settings)
        turns = [await answer_turn(resources.debater, render("parrot", claim=claim, voice=cfg.voice, attempt=i,
                                                             answers=cfg.answers),
                                   agent=f"parrot-{i}", role=cfg.voice, round=1)
                 for i in range(1, cfg.answers + 1)]
        labels = [turn.label for turn in turns]
        emit(ParrotTally(labels=labels, agreed=len(set(labels)) == 1))
        rnd = Round(round=1, turns=turns)
        end_round(rnd, consensus=False, final=True)
        return finish(claim, self.name, turns[-1].label, "parrot", [rnd])
