"""How a method's verdict is drawn, declared by the method (``Method.view``), so that neither the terminal nor
the web page names a method.

A view names the layout (``debate``, ``teams`` or ``timeline``) and the words it needs: role names, decision
wordings, sides, a referee's dimensions, and parts drawn from the method's own events. Decision wordings are
templates (``{round}``, ``{rounds}``, ``{steps}``, ``{consensus}``) filled by :func:`describe`."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal

from pydantic import BaseModel, Field

if TYPE_CHECKING:
    from factdebate.core.types import Verdict

Layout = Literal["debate", "teams", "timeline"]

# How the shared ways of deciding read; a method adds its own (DPD's "panel") or rewords one.
DECISIONS: dict[str, str] = {
    "consensus": "consensus of the agents in round {round}",
    "judge": "the judge, after {rounds} without consensus",
    "moderator": "the moderator in round {round}",
    "single": "a single answer",
    "vote": "a majority vote",
    "two-labels": "NOT ENOUGH INFO, answered REFUTES in a two-label task (not verified as factual)",
    "unparsed": "nothing readable: no label",
}
# What an agent named after its tool is called ("rag", "search-2", "none").
AGENTS: dict[str, str] = {"rag": "RAG agent", "search": "Search agent", "none": "Agent without tools"}


class RoleView(BaseModel):
    title: str
    statement: bool = Field(default=False, description="Its turns are statements, not answers with a label of "
                            "their own (DPD's team members): no label is shown for them.")
    part: str | None = Field(default=None, description="Its turn's response is the JSON of this part's event "
                             "(MERMAID's decomposer): a saved verdict draws it as that part.")


class PartView(BaseModel):
    """A part the timeline layout draws from one of the method's own trace events, above the steps."""

    event: str  # the event kind it is drawn from
    title: str
    rows: str | None = Field(default=None, description="The event's field holding a list of objects, drawn "
                             "as a table.")
    columns: list[str] = Field(default_factory=list, description="The columns of that table (object keys).")
    lines: dict[str, str] = Field(default_factory=dict, description="Fields drawn one per line, field -> "
                                  "label, when present.")
    note: str = Field(default="note", description="The event's field holding a sentence that says why the part "
                      "is empty or what went wrong.")


@dataclass(frozen=True)
class PageWords:
    """The library's words a web page shows beside any verdict (:meth:`MethodView.page_words`)."""

    label_aliases: dict[str, str]  # another spelling -> the label it reads as
    response_rules: dict[str, str]  # a response verdict's ``decided_by`` -> how it reads
    groups: dict[str, str]  # an options section's key -> its title, in the order the form shows them
    embedded_models: list[str]  # the models whose verdicts carry the caution
    claim_caution: str  # beside a claim's verdict one of them answered
    response_caution: str  # beside a response's


class MethodView(BaseModel):
    layout: Layout = "debate"
    roles: dict[str, RoleView] = Field(default_factory=dict)
    agents: dict[str, str] = Field(default_factory=lambda: dict(AGENTS))
    decisions: dict[str, str] = Field(default_factory=lambda: dict(DECISIONS))
    sides: dict[str, str] = Field(default_factory=dict, description="Team -> title (teams layout).")
    ballot: dict[str, str] = Field(default_factory=dict, description="Dimension a referee scores each side on: "
                                   "key in Judgement.scores ('<side>.<key>') -> its name.")
    votes: dict[str, str] = Field(default_factory=dict, description="A referee's vote (a label) -> the side it "
                                  "stands for.")
    parts: list[PartView] = Field(default_factory=list)
    rounds: bool = Field(default=True, description="Its verdicts have rounds worth naming (MERMAID's one "
                         "trajectory does not).")
    calls_by_step: bool = Field(default=False, description="Its model calls are numbered by the agent's step, "
                                "not by round (ReAct, MERMAID's executor): the page puts each under its step.")

    @staticmethod
    def page_words() -> PageWords:
        """The words a page shows beside any verdict, whatever its method: the labels' other spellings (a results
        file's gold column), how an answer's label was decided (response_level/aggregate.py's rules), the titles
        of the options' sections (core/fields.py), and the embedded model's caution for a claim's verdict and a
        response's (llm/near_chance.py, with the page's advice: its operator chooses the model)."""
        from factdebate.core.fields import GROUPS
        from factdebate.core.types import LABEL_ALIASES
        from factdebate.llm import near_chance
        from factdebate.llm.near_chance import CLAIM, CLAIMS, PAGE_ADVICE, near_chance_note
        from factdebate.response_level.aggregate import RULES

        models = list(near_chance.EMBEDDED_MODELS)  # read when asked: a test stands a script in for the model
        return PageWords(
            label_aliases={alias: label.value for alias, label in LABEL_ALIASES.items()}, response_rules=dict(RULES),
            groups=dict(GROUPS), embedded_models=models,
            claim_caution=near_chance_note(models, CLAIM, advice=PAGE_ADVICE, embedded=models) or "",
            response_caution=near_chance_note(models, CLAIMS, advice=PAGE_ADVICE, embedded=models) or "")

    def role(self, name: str) -> RoleView | None:
        return self.roles.get(name)

    def statement(self, role: str) -> bool:
        found = self.roles.get(role)
        return found is not None and found.statement


def declare_view(*, decisions: dict[str, str] | None = None, **declared: Any) -> MethodView:
    """A method's view: its ``decisions`` are added to the shared ones rather than replacing them."""
    return MethodView.model_validate({**declared, "decisions": {**DECISIONS, **(decisions or {})}})


_PLACEHOLDER = re.compile(r"\{(round|rounds|steps|consensus)\}")


def describe(view_: MethodView, verdict: Verdict) -> str:
    """How the verdict was reached, in the method's words ("the judge, after 2 rounds without consensus")."""
    template = view_.decisions.get(verdict.decided_by, verdict.decided_by)
    rounds = len(verdict.rounds)
    steps = sum(len(t.steps) for r in verdict.rounds for t in r.turns)
    values = {"round": str(verdict.rounds[-1].round if verdict.rounds else 0),
              "rounds": f"{rounds} round{'' if rounds == 1 else 's'}",
              "steps": f"{steps} step{'' if steps == 1 else 's'}",
              "consensus": "n/a" if verdict.consensus is None else f"{verdict.consensus:.2f}"}
    return _PLACEHOLDER.sub(lambda m: values[m.group(1)], template)
