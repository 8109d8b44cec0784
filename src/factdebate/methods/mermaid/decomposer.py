"""MERMAID's decomposer: one call that turns the claim into knowledge triplets and a topic (the paper's
D_c = (G_c, k_c)); its subjects and objects are the entities that key the evidence memory.

The reply is held to a JSON schema where the backend can; one re-ask, then the executor works from the claim."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from factdebate.core.runtime import emit
from factdebate.llm.ask import Reask, ask, part_chars
from factdebate.llm.base import GenParams
from factdebate.llm.json_reply import first_object
from factdebate.llm.model import LLM
from factdebate.methods.kit.fields import check_field
from factdebate.methods.mermaid.events import Decomposed
from factdebate.prompts import render

AGENT = "decomposer"
PROMPT = "mermaid_decompose"
MAX_TRIPLETS = 4  # small models otherwise repeat triplets until the token cap
MAX_FIELD_CHARS = 200
REASK = Reask(template="mermaid_reask")  # MERMAID's re-ask, for the executor's steps too
_FIELDS = ("subject", "relation", "object", "attributes")
DECOMPOSE_TOKENS = 512
# Each field is bounded so that four triplets and the topic close within DECOMPOSE_TOKENS where the schema is
# held (unbounded strings fit no cap); the braces, keys and quotes take about 290 characters.
FIELD_CHARS = part_chars(DECOMPOSE_TOKENS, MAX_TRIPLETS * len(_FIELDS) + 1, 300)
SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "triplets": {"type": "array", "minItems": 1, "maxItems": MAX_TRIPLETS, "items": {
            "type": "object",
            "properties": {name: {"type": "string", "maxLength": FIELD_CHARS} for name in _FIELDS},
            "required": list(_FIELDS), "additionalProperties": False}},
        "topic": {"type": "string", "maxLength": FIELD_CHARS},
    },
    "required": ["triplets", "topic"], "additionalProperties": False,
}


@dataclass
class Decomposition:
    triplets: list[dict[str, str]] = field(default_factory=list)
    topic: str = ""
    parsed: bool = True
    raw: str = ""
    retries: int = 0

    @property
    def entities(self) -> list[str]:
        """Subjects, then objects, each once (case-insensitively), in the order they appear."""
        seen: dict[str, str] = {}
        for key in ("subject", "object"):
            for triplet in self.triplets:
                name = " ".join(triplet.get(key, "").split())
                if name and name.casefold() not in seen:
                    seen[name.casefold()] = name
        return list(seen.values())

    def background(self) -> str:
        """How the executor's prompt shows it (empty: nothing to show)."""
        if not self.parsed or not self.triplets:
            return ""
        lines = [f"- ({t['subject']}; {t['relation']}; {t['object']}"
                 + (f"; {t['attributes']}" if t.get("attributes") else "") + ")" for t in self.triplets]
        return "\n".join(lines + ([f"Topic: {self.topic}"] if self.topic else []))

    def as_json(self) -> str:
        return json.dumps({"triplets": self.triplets, "topic": self.topic}, ensure_ascii=False)


def parse_decomposition(text: str, claim: str = "") -> Decomposition | None:
    """A decomposition with at least one triplet naming a subject or an object, else ``None``; an empty field,
    or a subject or object sharing no word with ``claim``, is :class:`~factdebate.llm.ask.Unreadable`."""
    data = first_object(text)
    if data is None or not isinstance(data.get("triplets"), list):
        return None
    triplets = []
    for item in data["triplets"][:MAX_TRIPLETS]:
        if not isinstance(item, dict):
            continue
        triplet = {name: _text(item.get(name)) for name in _FIELDS}
        if triplet["subject"] or triplet["object"]:
            for name in ("subject", "relation", "object"):
                if triplet[name]:
                    check_field(triplet[name], PROMPT, name, sources=(claim,) if name != "relation" else ())
            triplets.append(triplet)
    if not triplets:
        return None
    topic = data.get("topic")
    topic_text = "; ".join(_text(t) for t in topic) if isinstance(topic, list) else _text(topic)
    if topic_text:
        check_field(topic_text, PROMPT, "topic")
    return Decomposition(triplets, topic_text, raw=text)


def _text(value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, list | dict):
        value = json.dumps(value, ensure_ascii=False)
    return " ".join(str(value).split())[:MAX_FIELD_CHARS]


async def decompose(llm: LLM, claim: str) -> Decomposition:
    asked = await ask(llm, render(PROMPT, claim=claim), lambda text: parse_decomposition(text, claim),
                      what="decomposition",
                      params=GenParams(temperature=0.0, max_tokens=DECOMPOSE_TOKENS, json_schema=SCHEMA),
                      problem="it was not a JSON object with a non-empty \"triplets\" list and a \"topic\"",
                      reask=REASK, agent=AGENT)
    found = asked.value
    if found is None:
        emit(Decomposed(agent=AGENT, parsed=False))
        return Decomposition(parsed=False, raw=asked.raw, retries=asked.retries)
    found.retries = asked.retries
    emit(Decomposed(agent=AGENT, triplets=found.triplets, topic=found.topic, entities=found.entities))
    return found
