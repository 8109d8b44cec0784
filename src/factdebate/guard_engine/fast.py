"""The ``fast`` tier: one model call decides a claim over the given and retrieved passages.

The reply is one JSON object (held to its schema where the backend constrains output): a label, the
passage it rests on, and the deciding words copied from it. It is not re-asked (the tier is one call): a
reply that cannot be read leaves the claim undecided at this tier, counted as a lost reply, and the claim
goes up a tier or stays unchecked; it is never read as a label.

A reply that copies the prompt's example (:data:`EXAMPLE`: its quote, which no passage holds) is no
verdict either: SmolLM2 behind llama-cpp-python's server wrote the example word for word in 11 of 11
replies, and its REFUTES flagged "The capital of France is Paris.". A label whose quote no named passage holds
is kept, but cites nothing: the passage it names is not called the one it rests on. What a label must then
show to stand is decided after the reply is read (guard_engine/tiers.fast_outcome): with the stance step
(guard_engine/stance.py, the default) the quote is copied from the passages and its stance decided there;
without it, a REFUTES whose quote the passage it names does not hold, or says nothing of what the claim states,
is no verdict (:func:`unfounded`), since a flag says the reply is wrong and must show where. A SUPPORTS of a
claim whose number no passage shown writes is no verdict either way (:func:`unseen_numbers`).
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from decimal import Decimal

from factdebate.core.runtime import count_reply
from factdebate.core.types import THREE_LABELS, Document, Label
from factdebate.guard_engine.citations import folded as _folded
from factdebate.guard_engine.evidence import Query, ranked
from factdebate.llm.base import GenParams
from factdebate.llm.json_reply import enclosed
from factdebate.methods.kit.common import book_tool_call, search_tool
from factdebate.methods.resources import Resources
from factdebate.prompts import render
from factdebate.response_level.grounding import names, numbers, predicate_words, stem
from factdebate.response_level.lemmas import lemmas
from factdebate.tools.given import GivenEvidenceTool, current_evidence
from factdebate.util.errors import FactDebateError

AGENT = "guard-fast"
LABELS = [label.value for label in THREE_LABELS]  # the guard is never a four-label task
SCHEMA = {"type": "object", "additionalProperties": False, "required": ["label", "passage", "quote"],
          "properties": {"label": {"type": "string", "enum": LABELS},
                         "passage": {"type": "integer", "minimum": 0, "maximum": 40},
                         "quote": {"type": "string", "maxLength": 400}}}


# The example the prompt shows (guard_fast.j2), about places that do not exist, so that no passage of a real
# check holds its quote: a reply that repeats it has read no passage.
EXAMPLE_QUOTE = "The Quorvel Bridge stands in Tarnwick."
EXAMPLE = json.dumps({"label": "REFUTES", "passage": 2, "quote": EXAMPLE_QUOTE})


# Why a REFUTES that quotes nothing the named passage holds leaves the claim unchecked: on real chatbot answers
# the offline checker's REFUTES of that kind rested on passages about something else (benchmarks/real_answers.py;
# benchmarks/decisions/refutes_needs_a_quote.md), and a flag tells the reader the answer is wrong.
UNFOUNDED = ("the checker answered REFUTES without quoting words of the passage it named, and a claim is "
             "flagged only on a passage that says otherwise")


# A held quote that says nothing of what the claim states is no ground for a flag either (the same decision file).
OFF_TOPIC = ("the checker answered REFUTES quoting words that say nothing of what the claim states, and a claim is "
             "flagged only on a passage that says otherwise")
NOT_FOUNDED = (UNFOUNDED, OFF_TOPIC)  # read, but no verdict: not a lost reply, not asked again


def bears_on(claim: str, quote: str, passage: str = "") -> bool:
    """Whether ``quote`` (of ``passage``, its title and text) speaks to what ``claim`` states. The passage is
    about what the claim is about: where the claim has names, the passage writes one of them as a name, or half
    of the claim's other words ("Sydney is the capital of Australia." and a passage on Australia; "The chemical
    symbol for gold is Ag." and one on gold's chemical symbol; not "Developing a Migration Plan: creating a
    roadmap ..." and a passage on urban planning). And the quote speaks to what the claim says: it writes one of
    the claim's words past its names and function words (grounding.predicate_words: as written, a lemma, or a
    stem shared with a word of about its length), or a number where the claim does. A claim stated by its
    names alone ("The Eiffel Tower is located in Rome.") has nothing but names to share: any quote about its
    subject may speak to it."""
    written = {w.casefold() for w in re.findall(r"[^\W_]+", quote)}
    predicate = predicate_words(claim)
    if not about(claim, f"{passage} {quote}"):
        return False  # "AndThen takes a callback function ..." is not refuted by "The exponential function ..."
    if not predicate and not numbers(claim):
        return True
    if numbers(claim) and _numbers_as_written(quote, claim):
        return True
    return any(same_word(word, other) or _same_measure(word, other) for word in predicate for other in written)


# Words that state one measure, whichever way they compare: a quote that writes "longer" speaks to a claim that
# says "shorter", "twice as tall" to "three times the height" (a refutation in other words).
_MEASURES = tuple(frozenset(group.split()) for group in (
    "tall taller tallest short shorter shortest high higher highest low lower lowest height",
    "long longer longest short shorter shortest length",
    "big bigger biggest large larger largest small smaller smallest size area",
    "old older oldest young younger youngest age",
    "heavy heavier heaviest light lighter lightest weight",
    "fast faster fastest slow slower slowest speed",
    "deep deeper deepest shallow shallower shallowest depth",
    "wide wider widest narrow narrower narrowest width",
    "hot hotter hottest cold colder coldest warm warmer cool cooler temperature",
    "early earlier earliest late later latest",
))


def _same_measure(word: str, other: str) -> bool:
    return any(word in group and other in group for group in _MEASURES)


def about(claim: str, passage: str) -> bool:
    """Whether ``passage`` (its title and text) is about what ``claim`` is about: where the claim has names, the
    passage writes one of them as a name, or half of the claim's other words (:func:`bears_on`)."""
    named = names(claim)
    if not named or any(same_word(name, other) for name in named for other in names(passage)):
        return True
    predicate = predicate_words(claim)
    written = {w.casefold() for w in re.findall(r"[^\W_]+", passage)}
    return bool(predicate) and 2 * sum(any(same_word(w, other) for other in written) for w in predicate) >= len(
        predicate)


def _numbers_as_written(quote: str, claim: str) -> set[str]:
    """The numbers of ``quote``, in digits only where the claim writes digits ("one-to-one" is no count to set
    against "105(3)")."""
    if re.search(r"\d", claim):
        return numbers(" ".join(re.findall(r"\d[\d,.]*", quote)))
    return numbers(quote)


def same_word(word: str, other: str) -> bool:
    if word == other or not lemmas(word).isdisjoint(lemmas(other)):
        return True
    # a shared stem joins two forms of one word; a short stem of a long word joins words that only begin alike
    return stem(word) == stem(other) and min(len(word), len(other)) >= 0.75 * max(len(word), len(other))


# Why a SUPPORTS that quotes no passage about the claim leaves it unchecked: "checked" tells the reader a passage
# states the claim, so it must show the words (benchmarks/stance_pairs.py: on Factcheck-Bench's stance pairs the
# offline checker answered SUPPORTS on most pairs whatever their stance, mostly without a quote it could show).
UNQUOTED = ("the checker answered SUPPORTS without quoting words of a passage about the claim, and a claim is "
            "checked only on a passage that states it")


def unquoted_support(claim: str, verdict: FastVerdict) -> str:
    """Why a SUPPORTS of ``claim`` is no verdict ("" when it stands): it cites no passage by words copied from it,
    or its quote and the passage's title are not about what the claim is about (:func:`about`)."""
    if not verdict.cited or not verdict.quote or not verdict.documents:
        return UNQUOTED
    return "" if about(claim, f"{verdict.documents[0].title}: {verdict.quote}") else UNQUOTED


# Numbers a claim names without stating them as its value: a bound ("before 1940", "over 300 metres"), a decade
# or a century ("the late 1800s", "the 14th century"), and any number of a negated claim ("did not sink in 1915"):
# a passage that supports the claim need not write them. A bound's scale word is the bound's ("over 2 million").
_BOUND = re.compile(r"\b(?:before|after|until|till|by|since|over|under|more than|less than|fewer than|at least|"
                    r"at most|nearly|almost|about|around|approximately|roughly|up to|within)\s+(?:the\s+)?(?:year\s+)?"
                    r"\d[\d,.]*(?:\s+(?:hundred|thousand|million|billion|trillion)\b)?", re.I)
_PERIOD = re.compile(r"\b\d{1,3}0'?s\b|\b\d{1,2}(?:st|nd|rd|th)[\s-]+century\b", re.I)
_NEGATED = re.compile(r"\b(?:not|never|no longer)\b|n't\b", re.I)


def stated_numbers(claim: str) -> set[str]:
    """The numbers ``claim`` states as values, which a passage must write for a SUPPORTS (:data:`_BOUND`)."""
    if _NEGATED.search(claim):
        return set()
    return numbers(_PERIOD.sub(" ", _BOUND.sub(" ", claim)))


def unseen_numbers(claim: str, documents: list[Document]) -> str:
    """Why a SUPPORTS of ``claim`` is no verdict: the numbers it writes that no passage shown about what it is
    about (:func:`about`) writes, said as the reason ("" when every one is written). The checker cannot have read
    them, so its SUPPORTS is its own memory: offline, "The Eiffel Tower was finished in 1899." was SUPPORTS over
    passages that write 1887 and 1889 only, and again over a passage on a war that writes 1899."""
    texts = [f"{d.title}: {d.text}" for d in documents]
    shown = set().union(*(numbers(t) for t in texts if about(claim, t))) if texts else set()
    unseen = sorted(stated_numbers(claim) - shown, key=Decimal)  # values: "2.5" sorts before "10"
    if not unseen:
        return ""
    return (f"the checker answered SUPPORTS, but no passage it was shown about the claim's subject writes "
            f"{', '.join(unseen)}: a number is supported only by a passage that states it")


def unfounded(claim: str, verdict: FastVerdict) -> str:
    """Why a REFUTES of ``claim`` may not flag without the stance step ("" when it may): its quote is not words of
    the passage it names (:data:`UNFOUNDED`), or says nothing of what the claim states (:data:`OFF_TOPIC`)."""
    if not verdict.cited or not verdict.quote or not verdict.documents:
        return UNFOUNDED
    passage = verdict.documents[0]
    return "" if bears_on(claim, verdict.quote, f"{passage.title}: {passage.text}") else OFF_TOPIC


def _words(text: str) -> str:
    return " ".join("".join(c if c.isalnum() else " " for c in text.lower()).split())


@dataclass
class FastVerdict:
    label: Label | None  # None: the reply could not be read
    documents: list[Document]  # what the model read, the deciding passage first
    quote: str = ""
    problem: str = ""
    cited: bool = False  # the checker named a passage: the first of ``documents``


def read_reply(text: str, documents: list[Document], claim: str | None = None
               ) -> tuple[Label | None, int, str, str]:
    """(label, passage index or -1, quote, problem); label None when the reply is unreadable or copies the
    prompt's example; index -1 (nothing cited) when the quote is not in the passage it names."""
    try:
        value = enclosed(text, "{")
    except json.JSONDecodeError as exc:
        return None, -1, "", f"not a JSON object ({exc.msg})"
    return read_value(value, documents, claim)


def read_value(value: object, documents: list[Document], claim: str | None = None
               ) -> tuple[Label | None, int, str, str]:
    """:func:`read_reply` of a reply already read as JSON (one object, or one claim's item of the window's
    answer, guard_engine/window_call.py). Whether a REFUTES may flag is decided after (:func:`unfounded`, or
    the stance step)."""
    if not isinstance(value, dict):
        return None, -1, "", "not a JSON object"
    label = str(value.get("label", "")).strip().upper()
    if label not in LABELS:
        return None, -1, "", f"no label among {', '.join(LABELS)}"
    passage = value.get("passage")
    index = passage - 1 if isinstance(passage, int) and 1 <= passage <= len(documents) else -1
    quote = str(value.get("quote") or "").strip()
    # Held by the passage as the prompt shows it: a model may copy its title with the words
    shown = f"{documents[index].title}: {documents[index].text}" if index >= 0 else ""
    held = bool(_words(quote)) and _folded(quote) in _folded(shown)
    if quote and not held and _words(quote) == _words(EXAMPLE_QUOTE):
        return None, -1, "", "it copied the prompt's example instead of reading the passages"
    if quote and not held:
        return Label(label), -1, "", ""  # a quote no named passage holds is not evidence, nor its passage cited
    return Label(label), index, quote if held else "", ""


async def gather(claim: str, resources: Resources, mode: str, about: str = "") -> list[Document]:
    """The given passages most similar to the claim, then (unless ``given``) the search engine's results;
    ``about``: the subject the claim's sentence leaves unsaid and the question it answers, which rank the
    passages beside the claim's own words (guard_engine/evidence.py's ``Query``)."""
    k = resources.settings.retrieval.k
    given = current_evidence() or []
    query = Query(claim, about)
    docs = (await ranked([query], given, k, resources.encoder))[0] if given and mode != "retrieved" else []
    seen = {d.text for d in docs}
    return docs + [d for d in await searched(query.search, resources, mode) if d.text not in seen]


async def searched(query: str, resources: Resources, mode: str) -> list[Document]:
    """The search engine's results for ``query`` (none with ``given`` evidence only, or when the search fails:
    the trace says why)."""
    if mode == "given":
        return []
    k = resources.settings.retrieval.k
    try:
        tool = resources.tool("search")
        if isinstance(tool, GivenEvidenceTool) and tool.inner is not None:
            tool = tool.inner  # the given passages are ranked apart: the engine alone
        return await search_tool(tool, query, k, agent=AGENT)
    except FactDebateError as exc:
        book_tool_call("search", query, k, [], 0.0, agent=AGENT, round=0, error=str(exc))
        return []


async def decide_fast(claim: str, resources: Resources, mode: str, about: str = "") -> FastVerdict:
    shown = shown_passages(await gather(claim, resources, mode, about), resources)
    prompt = render("guard_fast", claim=claim, documents=shown, example=EXAMPLE)
    count_reply("guard_fast", "asked")
    reply = await resources.llm("debater").complete(
        [{"role": "user", "content": prompt.text}], GenParams(temperature=0.0, max_tokens=300, json_schema=SCHEMA),
        agent=AGENT, prompt=prompt.name)
    label, index, quote, problem = read_reply(reply.text, shown, claim)
    if label is None and problem not in NOT_FOUNDED:  # an unfounded REFUTES was read: not a lost reply
        count_reply("guard_fast", "lost")
    return verdict_of(label, index, quote, problem, shown)


def shown_passages(documents: list[Document], resources: Resources) -> list[Document]:
    """The passages as the checker is shown them: each cut at ``retrieval.max_doc_chars``."""
    max_chars = resources.settings.retrieval.max_doc_chars
    return [d.model_copy(update={"text": d.text[:max_chars]}) for d in documents]


def verdict_of(label: Label | None, index: int, quote: str, problem: str, shown: list[Document]) -> FastVerdict:
    """The verdict :func:`read_value` read, the passage it cites (``index``) put first."""
    if label is None:
        return FastVerdict(None, shown, problem=problem)
    ordered = [shown[index], *shown[:index], *shown[index + 1:]] if index >= 0 else shown
    return FastVerdict(label, ordered, quote=quote, cited=index >= 0)
