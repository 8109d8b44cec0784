"""The one rule every model-written field is read by (queries, topics, relations, triplet names, thoughts,
reasons, a ballot's ``why``): a field that says nothing is no answer.

Small models behind OpenAI-shaped servers fill a format without answering it: the query
"true", the prompt's own ``<query>``, a topic "Geography" copied from the prompt's example, the thought
"Your reasoning" in every step. Each of those was searched, or kept as a memory key, as if it were an
answer. A field is refused here when

- it copies one of the prompt's placeholders or examples (word for word, without case or punctuation),
  or has no letter or digit at all ("...", "<>");
- it is a query (``query=True``) made only of verdict and side labels ("true", "SUPPORTS", "negative");
- it is meant to name what the claim says (``sources`` given: queries, and the subjects and objects that
  key MERMAID's memory) and shares no content word with them;
- it is a run of single letters (", S, C, D, E": a small model enumerating the alphabet), or only repeats
  the prompt's own instructions (``instructions``: the template's fixed words, :func:`instruction_words`).

Queries are held to more (:func:`query_problem`): they are searched, so a query that copies the
agent's own earlier answer ("Tweet: "The claim is a lie…""), speaks to someone ("You can find evidence
about it here") or comments on the claim is no query, whichever method wrote it. A query longer than a search
is still one: it is cut to its key words (:func:`searchable`), not refused and lost.

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


# A query that comments on the claim rather than naming what it is about: one that speaks of "the claim" (a word
# the claim itself lacks), or states a verdict as a clause ("... has been verified to be false", "... is true").
# Such a sentence is no search ("The Eiffel Tower is located in Rome, the claim has been verified to be false.").
# A verdict word among key words is left alone: a side looking for a rebuttal may search "<claim> false", which
# finds fact checks on the web; and a question may ask whether something is true.
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
    """The first ``length`` consecutive words of ``a`` that ``b`` also has in a row and ``outside`` has not,
    if any. Every run is looked at, not only the first shared one: an answer that starts with the claim's
    own words ("The Eiffel Tower is located in Paris, France. The claim has been verified ...") is still
    a copy after them (as SmolLM2 wrote in benchmarks/served.py's runs)."""
    grams = {tuple(b[i:i + length]) for i in range(len(b) - length + 1)}
    return next((tuple(a[i:i + length]) for i in range(len(a) - length + 1)
                 if tuple(a[i:i + length]) in grams and not _inside(a[i:i + length], outside)), None)


def letter_run(said: Sequence[str]) -> bool:
    """Two words or more, every one a single letter (", S, C, D, E", "A B"): no sentence and no name."""
    return len(said) >= 2 and all(len(w) == 1 and w.isalpha() for w in said)


@lru_cache(maxsize=64)
def instruction_words(prompt: str) -> tuple[str, ...]:
    """The fixed words of ``prompt``'s template (what every rendering of it says, Jinja's expressions and
    statements left out): a field made of them repeats the instructions. Empty for an unknown template."""
    try:
        source = template_path(prompt).read_text(encoding="utf-8")
    except FileNotFoundError:
        return ()
    return tuple(words(_JINJA.sub(" _ ", source)))


def instruction_echo(text: str, fixed: str) -> str | None:
    """The words ``text`` copies from a prompt's rendered instructions (``fixed``: ``Prompt.fixed``, the
    prompt without the values it was given), when the copy is the reply rather than a phrase in it: a run of
    :data:`ECHO_RUN` words or more that opens ``text`` (the model went on writing its prompt: "SUPPORTS if
    the evidence shows the claim is true, not false, and not contradictory."), or that, with the other runs
    of :data:`INSTRUCTION_RUN` words or more it copies, makes at least half of it. None otherwise."""
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
    """Why ``value``, the model's ``name`` field, says nothing (see the module docstring); None if it says
    something. ``sources``: the texts a field that names the claim's content must share a word with;
    ``instructions``: the prompt's fixed words (:func:`instruction_words`)."""
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
    """Why ``value``, a search query ``prompt``'s reply wrote, is no query, or None: every method's queries
    are read by this one test (Tool-MAD, MERMAID, DPD, ReAct, FacTool). On top of :func:`field_problem`
    (a placeholder, the instructions, a label, no word of ``claim`` or ``sources``): not a sentence longer
    than a search, no word that speaks to someone (:data:`FILLER_WORDS`, unless the claim has it), no comment
    on the claim or its truth (:func:`commentary`), and no run of :data:`ANSWER_RUN` words from one of
    ``earlier`` (the agent's own answers) that the claim lacks."""
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
    """``value`` as searched: as written when it is no longer than a search (the claim plus a few words, or
    :data:`QUERY_MAX_WORDS`), else its key words: the content words (:func:`content`) in the order written,
    each once, to that length. A small model often writes its query as a sentence that names the right
    things; the sentence's names are the search."""
    limit = max(QUERY_MAX_WORDS, len(words(claim)) + 6)
    if len(words(value)) <= limit:
        return value
    kept = content(value)
    keys = list(dict.fromkeys(w for w in _WORD.findall(value) if w.lower() in kept))
    return " ".join(keys[:limit])


def commentary(value: str, claim: str) -> str:
    """What in ``value`` comments on the claim, or "": a word naming the claim (:data:`CLAIM_WORDS`) that
    ``claim`` itself lacks, or, outside a question, a verdict stated as a clause (a form of "be", perhaps with
    "not", then one of :data:`VERDICT_WORDS`: "been verified", "is not true") whose verdict word ``claim``
    lacks."""
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
    """A free field that only gives reasons (a thought, a reason, a ballot's "why"): ``value``, or "" when it
    says nothing by :func:`field_problem` — then the reply is still read for its decision (a label, a vote,
    an action), and the dropped field is counted as ``echoed`` under ``prompt`` (otherwise MERMAID would
    throw away forced answers carrying "True" for the thought "Your reasoning")."""
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

