"""Answer formats that backends can hold a model to: each is a GBNF grammar plus, where a JSON object can
say the same, a schema and a template turning that object back into the text the parsers read."""

from __future__ import annotations

from collections.abc import Sequence

from factdebate.core.claim_context import binary_task, four_label_task
from factdebate.core.parsing import parse_query
from factdebate.core.types import THREE_LABELS, Label
from factdebate.llm.ask import Unreadable, part_chars
from factdebate.llm.base import GenParams
from factdebate.methods.kit.fields import check_query
from factdebate.methods.kit.query_text import CleanQuery, clean_query

ALL_LABELS = tuple(label.value for label in THREE_LABELS)
FOUR_LABELS = (*ALL_LABELS, Label.CONFLICTING.value)
TWO_LABELS = (Label.SUPPORTS.value, Label.REFUTES.value)


def offered_labels() -> tuple[str, ...]:
    """The labels an answer format holds a model to: the claim's task's two, three or four."""
    if binary_task():
        return TWO_LABELS
    return FOUR_LABELS if four_label_task() else ALL_LABELS


def label_rule(labels: tuple[str, ...]) -> str:
    """The GBNF rule ``label`` for ``labels``."""
    return "label ::= " + " | ".join(f'"{label}"' for label in labels) + "\n"


# Reasoning is at most five sentences on one line, then the verdict line. Each sentence is bounded so that
# the whole closes within the call's cap: with ``[^.!?]+`` sentences no cap held the longest
# answer. llama.cpp expands ``x{1,n}`` into n nested rules; measured on SmolLM2 in process, the same 109
# tokens took 6.1 s held to 150-character sentences against 5.0 s unbounded (load 10, one thread).
SENTENCES = 5
SENTENCE_CHARS = 150  # where the cap allows more; 5 such sentences and a verdict fit 396 tokens
SENTENCE_END = 3  # "." "?!" "..." closes a sentence
LINE_CHARS = 200  # a line of points (lines_grammar), where the cap allows more


def sentences_rule(count: int, max_tokens: int, tail: int) -> str:
    """GBNF ``reason``: one to ``count`` sentences on one line, each short enough to close within ``max_tokens``."""
    chars = min(SENTENCE_CHARS, part_chars(max_tokens, count, tail) - SENTENCE_END)
    return ("reason ::= sentence" + " sentence?" * (count - 1) + "\n"
            f"sentence ::= [^\\n.!?]{{1,{max(1, chars)}}} [.!?] [.!?]? [.!?]?\n")


def paragraph_grammar(max_tokens: int, sentences: int) -> str:
    """GBNF for one to ``sentences`` sentences on one line that closes within ``max_tokens``."""
    return "root ::= reason\n" + sentences_rule(sentences, max_tokens, 0)


def lines_grammar(max_tokens: int, lines: int) -> str:
    """GBNF for one to ``lines`` lines, each as long as lets the whole close within ``max_tokens``."""
    chars = min(LINE_CHARS, part_chars(max_tokens, lines, lines - 1))  # less the newlines between the lines
    return "root ::= line" + ' ("\\n" line)?' * (lines - 1) + f"\nline ::= [^\\n]{{1,{chars}}}\n"


def verdict_grammar(labels: tuple[str, ...], max_tokens: int = 396) -> str:
    tail = len("\nVerdict: ") + max(len(label) for label in labels)
    return ('root ::= reason "\\nVerdict: " label\n' + sentences_rule(SENTENCES, max_tokens, tail) +
            label_rule(labels))


def verdict_schema(labels: tuple[str, ...]) -> dict[str, object]:
    return {"type": "object",
            "properties": {"reasoning": {"type": "string"}, "verdict": {"type": "string", "enum": list(labels)}},
            "required": ["reasoning", "verdict"], "additionalProperties": False}


VERDICT_GRAMMAR = verdict_grammar(ALL_LABELS)
VERDICT_TEMPLATE = "{reasoning}\nVerdict: {verdict}"


def verdict_params(temperature: float, max_tokens: int, *, reasoning: bool = True) -> GenParams:
    """Reasoning then a "Verdict:" line in one generation, held to the task's labels; without ``reasoning``
    the label alone (reasoning does not fit the 48 tokens such a call is given)."""
    labels = offered_labels()
    if not reasoning:
        return GenParams(temperature=temperature, max_tokens=max_tokens + 12, grammar="root ::= label\n" +
                         label_rule(labels), choices=labels)
    return GenParams(temperature=temperature, max_tokens=max_tokens + 12,
                     grammar=verdict_grammar(labels, max_tokens + 12), json_schema=verdict_schema(labels),
                     json_template=VERDICT_TEMPLATE)


# A query is bounded (100 characters, about 30 tokens) so that it closes within QUERY_TOKENS.
QUERY_GRAMMAR = 'root ::= "[" [^\\[\\]\\x00-\\x1F]{2,100} "]"\n'
QUERY_SCHEMA = {"type": "object", "properties": {"query": {"type": "string", "minLength": 2, "maxLength": 100}},
                "required": ["query"], "additionalProperties": False}
QUERY_TOKENS = 64
QUERY_TEMPLATE = "[{query}]"
# The query_select prompt shows no example query (SmolLM2 copied the one it had, "[capital of Australia]", in
# 8 of 12 rewrites); what a model can still copy is the instruction's own wording, which is no query.
QUERY_ECHOES = ("search query of a few words", "an opening and a closing square bracket")


def grounded_query(text: str, claim: str, *sources: str, earlier: Sequence[str] = ()) -> CleanQuery:
    """The bracketed query of ``text``, cleaned; one that is empty or no query (kit/fields.query_problem) is
    :class:`~factdebate.llm.ask.Unreadable`."""
    found = parse_query(text)
    query = clean_query(found) if found is not None else None
    if query is None or not query.text:
        raise Unreadable("the query was not inside square brackets")
    searched = check_query(query.text, "query_select", claim=claim, sources=sources, earlier=earlier)
    return query if searched == query.text else CleanQuery(searched, query.written or query.text)
