"""The one rule every model-written field is read by (queries, topics, thoughts, reasons, a ballot's ``why``):
a field that says nothing is no answer.

Small models fill a format without answering it: the query "true", the prompt's own ``<query>``, the thought
"Your reasoning" in every step. A field is refused when it copies a placeholder or example of the prompt
(:data:`PLACEHOLDERS`), has no letter or digit, is a query of labels only, shares no content word with the
claim where it should name it (``sources``), is a run of single letters, or only repeats the prompt's
instructions. Queries are held to more (:func:`query_problem`); a long one is cut to its key words
(:func:`searchable`). Free-form fields are not held to the claim's words. A refused field makes the reply
unreadable (:class:`~factdebate.llm.ask.Unreadable`), so it is re-asked once and else recorded as lost."""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from functools import lru_cache

from factdebate.core.runtime import count_reply
from factdebate.llm.ask import Unreadable
from factdebate.prompts import template_path

_WORD = re.compile(r"\w+")
# Jinja's expressions, statements and comments: replaced by "_", a word no field is made of, so that a run
# of the template's words never spans what a rendering puts between them.
_JINJA = re.compile(r"\{\{.*?\}\}|\{%.*?%\}|\{#.*?#\}", re.S)
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


# A query that speaks of "the claim" or states a verdict as a clause ("... is true") comments rather than searches.
# A verdict word among key words is left alone: "<claim> false" finds fact checks on the web.
CLAIM_WORDS = frozenset({"claim", "claims", "claimed"})
# Words that only judge truth (not "supported" or "confirmed": "the bridge is supported by cables" is a search).
VERDICT_WORDS = frozenset({
    "true", "false", "untrue", "verified", "unverified", "debunked", "correct", "incorrect", "accurate", "inaccurate",
    "wrong",
})
COPULAS = frozenset({"is", "was", "are", "were", "be", "been", "being", "isn", "wasn", "aren"})

# Words a search query never needs: it addresses no one and announces nothing ("You can find evidence about
# it here", "Let me search for ..."). A claim's own words are not held to this (a quote may say "I").
FILLER_WORDS = frozenset({"you", "your", "i", "me", "my", "we", "let", "here", "please", "sure", "hope", "helps"})
QUERY_MAX_WORDS = 24  # a search is a few words; a query longer than the claim plus a few is a sentence
ANSWER_RUN = 6  # words in a row a query may share with the agent's own earlier answer (not with the claim)
INSTRUCTION_RUN = 4  # words a field must have before it can be called a copy of the instructions
# Words in a row an answer must copy from its rendered instructions before it can be called their echo: more
# than a fair answer shares with them ("the evidence shows the claim is true", 7), fewer than a copied line of
# them ("SUPPORTS if the evidence shows the claim is true", 9).
ECHO_RUN = 8


def words(text: str) -> list[str]:
    return _WORD.findall(text.lower())


def content(text: str) -> set[str]:
    """The words that can name something: three letters or more, or any number, and no function word."""
    return {w for w in words(text) if (len(w) >= 3 or w.isdigit()) and w not in FUNCTION_WORDS}


def _same(a: str, b: str) -> bool:
    return words(a) == words(b)


def _inside(run: Sequence[str], text: Sequence[str]) -> bool:
    """``run`` occurs in ``text`` as consecutive words."""
    n = len(run)
    return n > 0 and any(list(text[i:i + n]) == list(run) for i in range(len(text) - n + 1))


def _shared_run(a: Sequence[str], b: Sequence[str], length: int,
                outside: Sequence[str] = ()) -> tuple[str, ...] | None:
    """The first run of ``length`` words of ``a`` that ``b`` also has in a row and ``outside`` has not, if any."""
    grams = {tuple(b[i:i + length]) for i in range(len(b) - length + 1)}
    return next((tuple(a[i:i + length]) for i in range(len(a) - length + 1)
                 if tuple(a[i:i + length]) in grams and not _inside(a[i:i + length], outside)), None)


def letter_run(said: Sequence[str]) -> bool:
    """Two words or more, every one a single letter (", S, C, D, E", "A B"): no sentence and no name."""
    return len(said) >= 2 and all(len(w) == 1 and w.isalpha() for w in said)


@lru_cache(maxsize=64)
def instruction_words(prompt: str) -> tuple[str, ...]:
    """The fixed words of ``prompt``'s template (without Jinja's expressions); empty for an unknown one."""
    try:
        source = template_path(prompt).read_text(encoding="utf-8")
    except FileNotFoundError:
        return ()
    return tuple(words(_JINJA.sub(" _ ", source)))


def instruction_echo(text: str, fixed: str) -> str | None:
    """The words ``text`` copies from a prompt's fixed words, when a run of :data:`ECHO_RUN` opens it or runs of
    :data:`INSTRUCTION_RUN` make half of it; None otherwise."""
    said, source = words(text), words(fixed)
    if len(said) < ECHO_RUN or len(source) < ECHO_RUN:
        return None
    grams = {tuple(source[i:i + INSTRUCTION_RUN]) for i in range(len(source) - INSTRUCTION_RUN + 1)}
    copied = [False] * len(said)
    for i in range(len(said) - INSTRUCTION_RUN + 1):
        if tuple(said[i:i + INSTRUCTION_RUN]) in grams:
            copied[i:i + INSTRUCTION_RUN] = [True] * INSTRUCTION_RUN
    runs: list[tuple[int, int]] = []  # (start, length) of each copied stretch
    for i, was in enumerate(copied):
        if was and (i == 0 or not copied[i - 1]):
            runs.append((i, 0))
        if was:
            runs[-1] = (runs[-1][0], runs[-1][1] + 1)
    start, longest = max(runs, key=lambda run: run[1], default=(0, 0))
    if longest < ECHO_RUN:
        return None
    opens = runs[0][0] == 0 and runs[0][1] >= ECHO_RUN
    if not opens and 2 * sum(copied) < len(said):
        return None
    start, longest = runs[0] if opens else (start, longest)
    return " ".join(said[start:start + longest])


def field_problem(value: str, name: str, placeholders: Sequence[str] = (), *, query: bool = False,
                  sources: Iterable[str] = (), instructions: Sequence[str] = ()) -> str | None:
    """Why ``value``, the model's ``name`` field, says nothing (see the module docstring); None if it says something."""
    said = words(value)
    if not said:
        return f'its "{name}" is empty or a placeholder ("{value.strip()}"); write your own'
    copied = next((p for p in placeholders if words(p) and _same(value, p)), None)
    if copied is not None:
        return f'its "{name}" only copies "{copied}" from the instructions; write your own'
    if letter_run(said):
        return f'its "{name}" "{value.strip()[:60]}" is a run of single letters, not words; write your own'
    if len(said) >= INSTRUCTION_RUN and _inside(said, instructions):
        return f'its "{name}" only repeats the instructions ("{value.strip()[:80]}"); write your own'
    if query and set(said) <= LABEL_WORDS:
        return f'its "{name}" "{value.strip()}" is a verdict label, not a search; search for what the claim says'
    pool = [s for s in sources if s]
    if pool and not content(value) & set().union(*(content(s) for s in pool)):
        return f'its "{name}" "{value.strip()}" shares no word with the claim; use the claim\'s own names'
    return None


def query_problem(value: str, prompt: str, *, claim: str, sources: Iterable[str] = (),
                  earlier: Iterable[str] = (), name: str = "query") -> str | None:
    """Why ``value``, a search query, is no query, or None: :func:`field_problem`, :data:`FILLER_WORDS`,
    :func:`commentary`, or :data:`ANSWER_RUN` words from the agent's ``earlier`` answers."""
    problem = field_problem(value, name, PLACEHOLDERS.get(prompt, {}).get(name, ()), query=True,
                            sources=(claim, *sources), instructions=_without(instruction_words(prompt), claim))
    if problem is not None:
        return problem.replace(f'its "{name}"', "the query")
    value = searchable(value, claim)
    said, stated = words(value), words(claim)
    if extra := sorted((set(said) - set(stated)) & FILLER_WORDS):
        return (f'the query "{value.strip()[:80]}" talks to the reader ("{extra[0]}"), it is not a search; '
                "write only the words to search for")
    for answer in earlier:
        run = _shared_run(said, words(answer), ANSWER_RUN, outside=stated)
        if run is not None:
            return (f'the query copies an earlier answer of the debate ("{" ".join(run)}"); search for what '
                    "the claim says, not for what was written about it")
    if comment := commentary(value, claim):
        return (f'the query "{value.strip()[:80]}" comments on the claim ("{comment}") instead of naming what to '
                "look up; write only the words to search for")
    return None


def searchable(value: str, claim: str) -> str:
    """``value`` as searched: as written when short enough, else its content words in order, each once, to
    that length."""
    limit = max(QUERY_MAX_WORDS, len(words(claim)) + 6)
    if len(words(value)) <= limit:
        return value
    kept = content(value)
    keys = list(dict.fromkeys(w for w in _WORD.findall(value) if w.lower() in kept))
    return " ".join(keys[:limit])


def commentary(value: str, claim: str) -> str:
    """What in ``value`` comments on the claim, or "": a :data:`CLAIM_WORDS` word, or a verdict as a clause
    ("is not true"), that ``claim`` itself lacks."""
    said, stated = words(value), set(words(claim))
    named = next((w for w in said if w in CLAIM_WORDS and w not in stated), "")
    if named or value.strip().endswith("?"):
        return named
    for i, word in enumerate(said):
        if word in VERDICT_WORDS and word not in stated:
            before = said[max(0, i - 2):i]
            if before[-1:] and (before[-1] in COPULAS or (before[-1] == "not" and before[:1] and before[0] in COPULAS)):
                return " ".join([*before[-2 if before[-1] == "not" else -1:], word])
    return ""


def _without(instructions: Sequence[str], claim: str) -> tuple[str, ...]:
    """The instructions, or none when the claim's words are among them (a claim that happens to say what
    the prompt says is still a fair query)."""
    stated = words(claim)
    return () if stated and _inside(stated, instructions) else tuple(instructions)


def check_query(value: str, prompt: str, *, claim: str, sources: Iterable[str] = (),
                earlier: Iterable[str] = (), name: str = "query") -> str:
    """The query to search (:func:`searchable`: a sentence cut to its key words); raises
    :class:`~factdebate.llm.ask.Unreadable` with :func:`query_problem`'s problem."""
    problem = query_problem(value, prompt, claim=claim, sources=sources, earlier=earlier, name=name)
    if problem is not None:
        raise Unreadable(problem)
    return searchable(value, claim)


def free_field(value: str, prompt: str, name: str) -> str:
    """A free field that only gives reasons: ``value``, or "" when it says nothing, counted as ``echoed``
    under ``prompt``; the reply is still read for its decision."""
    problem = field_problem(value, name, PLACEHOLDERS.get(prompt, {}).get(name, ()),
                            instructions=instruction_words(prompt))
    if problem is None:
        return value
    count_reply(prompt, "echoed")
    return ""


def check_field(value: str, prompt: str, name: str, *, query: bool = False, sources: Iterable[str] = ()) -> None:
    """:func:`field_problem` with ``prompt``'s declared placeholders for ``name`` and its template's fixed
    words; raises :class:`~factdebate.llm.ask.Unreadable` with the problem."""
    problem = field_problem(value, name, PLACEHOLDERS.get(prompt, {}).get(name, ()), query=query,
                            sources=sources, instructions=instruction_words(prompt))
    if problem is not None:
        raise Unreadable(problem)

