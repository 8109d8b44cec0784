"""The one rule every model-written field is read by (queries, topics, relations, triplet names, thoughts,
reasons, a ballot's ``why``): a field that says nothing is no answer.

Small models behind OpenAI-shaped servers fill a format without answering it (issue 39): the query
"true", the prompt's own ``<query>``, a topic "Geography" copied from the prompt's example, the thought
"Your reasoning" in every step. Each of those was searched, or kept as a memory key, as if it were an
answer. A field is refused here when

- it copies one of the prompt's placeholders or examples (word for word, without case or punctuation),
  or has no letter or digit at all ("...", "<>");
- it is a query (``query=True``) made only of verdict and side labels ("true", "SUPPORTS", "negative");
- it is meant to name what the claim says (``sources`` given: queries, and the subjects and objects that
  key MERMAID's memory) and shares no content word with them.

Free-form fields (thoughts, reasons, topics, relations, a ballot's ``why``) are not held to the claim's
words: "the evidence settles it" is a fair thought, and "Geography" a fair topic of a claim about Paris.

A refused field makes the reply unreadable (:class:`~factdebate.llm.ask.Unreadable`, naming the field and
why), so ``llm.ask`` re-asks it once with that problem and, if the re-ask says nothing either, records it
as lost under the reply's kind, as for any unreadable reply. Each prompt's placeholders are declared in
:data:`PLACEHOLDERS`; ``tests/methods/kit/test_fields.py`` checks every declaration against its prompt and
feeds each field its own placeholder.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence

from factdebate.llm.ask import Unreadable

_WORD = re.compile(r"\w+")
FUNCTION_WORDS = frozenset({
    "the", "and", "for", "was", "were", "are", "not", "but", "with", "from", "that", "this", "into", "its", "his",
    "her", "their", "has", "have", "had", "been", "who", "what", "which", "when", "where", "how", "why", "than",
    "then", "also"
})
# Words that decide or take a side but name nothing to search for.
LABEL_WORDS = frozenset({
    "true", "false", "yes", "no", "supports", "support", "supported", "refutes", "refute", "refuted", "not",
    "enough", "info", "information", "nei", "affirmative", "negative", "tie", "factual", "hallucinated",
    "hallucination", "correct", "incorrect", "verdict", "unknown", "none", "null", "n", "a",  # "n/a"
})

# The placeholders and examples each prompt shows, by prompt and field (``what`` a model can copy).
PLACEHOLDERS: dict[str, dict[str, tuple[str, ...]]] = {
    "dpd_queries": {"support": ("<query>", "query"), "refute": ("<query>", "query")},
    "dpd_judge": {"why": ("<one short sentence>", "one short sentence")},
    "mermaid_decompose": {"subject": ("...",), "relation": ("...",), "object": ("...",),
                          "topic": ("...", "one to three words of your own")},
    "mermaid_step": {"thought": ("your reasoning",), "reason": ("why this tool",),
                     "query": ("the claim's key words", "the tool's arguments")},
    "mermaid_force": {"thought": ("your reasoning",)},
    "factool_queries": {"query": ("first query", "second query")},  # and its re-ask
    "factool_verify": {"reasoning": ("why, in one to three sentences", "...")},  # "...": its re-ask's
    "query_select": {"query": ("search query of a few words", "population of Norway")},  # and query_reask
    "react_step": {"thought": ("<your reasoning>", "your reasoning"), "query": ("<query>", "query")},
    "mad_moderator": {"reason": ("one sentence",)},
}


def words(text: str) -> list[str]:
    return _WORD.findall(text.lower())


def content(text: str) -> set[str]:
    """The words that can name something: three letters or more, or any number, and no function word."""
    return {w for w in words(text) if (len(w) >= 3 or w.isdigit()) and w not in FUNCTION_WORDS}


def _same(a: str, b: str) -> bool:
    return words(a) == words(b)


def field_problem(value: str, name: str, placeholders: Sequence[str] = (), *, query: bool = False,
                  sources: Iterable[str] = ()) -> str | None:
    """Why ``value``, the model's ``name`` field, says nothing (see the module docstring); None if it says
    something. ``sources``: the texts a field that names the claim's content must share a word with."""
    said = words(value)
    if not said:
        return f'its "{name}" is empty or a placeholder ("{value.strip()}"); write your own'
    copied = next((p for p in placeholders if words(p) and _same(value, p)), None)
    if copied is not None:
        return f'its "{name}" only copies "{copied}" from the instructions; write your own'
    if query and set(said) <= LABEL_WORDS:
        return f'its "{name}" "{value.strip()}" is a verdict label, not a search; search for what the claim says'
    pool = [s for s in sources if s]
    if pool and not content(value) & set().union(*(content(s) for s in pool)):
        return f'its "{name}" "{value.strip()}" shares no word with the claim; use the claim\'s own names'
    return None


def check_field(value: str, prompt: str, name: str, *, query: bool = False, sources: Iterable[str] = ()) -> None:
    """:func:`field_problem` with ``prompt``'s declared placeholders for ``name``; raises
    :class:`~factdebate.llm.ask.Unreadable` with the problem."""
    problem = field_problem(value, name, PLACEHOLDERS.get(prompt, {}).get(name, ()), query=query,
                            sources=sources)
    if problem is not None:
        raise Unreadable(problem)

