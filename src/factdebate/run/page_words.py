"""The library's words a web page shows beside any verdict, gathered for the service's ``GET /v1/views`` and
``GET /v1/methods``: the labels' other spellings (a results file's gold column), how an answer's label was
decided (response_level/aggregate.py's rules), the titles of the options' sections (core/fields.py), and the
embedded model's caution for a claim's verdict and a response's (llm/near_chance.py, with the page's advice:
its operator chooses the model)."""

from __future__ import annotations

from dataclasses import dataclass

from factdebate.core.fields import GROUPS
from factdebate.core.types import LABEL_ALIASES
from factdebate.llm import near_chance
from factdebate.llm.near_chance import CLAIM, CLAIMS, PAGE_ADVICE, near_chance_note
from factdebate.response_level.aggregate import RULES


@dataclass(frozen=True)
class PageWords:
    label_aliases: dict[str, str]  # another spelling -> the label it reads as
    response_rules: dict[str, str]  # a response verdict's ``decided_by`` -> how it reads
    groups: dict[str, str]  # an options section's key -> its title, in the order the form shows them
    embedded_models: list[str]  # the models whose verdicts carry the caution
    claim_caution: str  # beside a claim's verdict one of them answered
    response_caution: str  # beside a response's


def page_words() -> PageWords:
    models = list(near_chance.EMBEDDED_MODELS)  # read when asked: a test stands a script in for the model
    return PageWords(
        label_aliases={alias: label.value for alias, label in LABEL_ALIASES.items()}, response_rules=dict(RULES),
        groups=dict(GROUPS), embedded_models=models,
        claim_caution=near_chance_note(models, CLAIM, advice=PAGE_ADVICE, embedded=models) or "",
        response_caution=near_chance_note(models, CLAIMS, advice=PAGE_ADVICE, embedded=models) or "")
