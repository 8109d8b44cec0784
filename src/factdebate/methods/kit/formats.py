"""Answer formats that backends can hold a model to: each is a GBNF grammar plus, where a JSON object can
say the same, a schema and a template turning that object back into the text the parsers read."""

from __future__ import annotations

from factdebate.core.types import Label
from factdebate.llm.base import GenParams

_LABELS = " | ".join(f'"{label.value}"' for label in Label)
# Reasoning is at most five sentences on one line, then the verdict line. Sentences, not a character
# count, bound it: llama.cpp expands ``x{m,n}`` into n nested rules, and grammar checks then slow down
# with every character written.
VERDICT_GRAMMAR = (
    'root ::= reason "\\nVerdict: " label\n'
    'reason ::= sentence sentence? sentence? sentence? sentence?\n'
    'sentence ::= [^\\n.!?]+ [.!?]+\n'
    f'label ::= {_LABELS}\n'
)
VERDICT_SCHEMA = {
    "type": "object",
    "properties": {"reasoning": {"type": "string"},
                   "verdict": {"type": "string", "enum": [label.value for label in Label]}},
    "required": ["reasoning", "verdict"],
    "additionalProperties": False,
}
VERDICT_TEMPLATE = "{reasoning}\nVerdict: {verdict}"


def verdict_params(temperature: float, max_tokens: int) -> GenParams:
    """Reasoning then a "Verdict:" line, in one generation. A few tokens are added for the verdict line."""
    return GenParams(temperature=temperature, max_tokens=max_tokens + 12, grammar=VERDICT_GRAMMAR,
                     json_schema=VERDICT_SCHEMA, json_template=VERDICT_TEMPLATE)


QUERY_GRAMMAR = 'root ::= "[" [^\\[\\]\\n]+ "]"\n'
QUERY_SCHEMA = {"type": "object", "properties": {"query": {"type": "string"}}, "required": ["query"],
                "additionalProperties": False}
QUERY_TEMPLATE = "[{query}]"
