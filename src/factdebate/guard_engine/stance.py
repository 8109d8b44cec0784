"""The stance step: a fast-tier label counts only where a passage the checker was shown says so.

The fast tier's call (guard_engine/fast.py, or the window's, guard_engine/window_call.py) answers a label and
the words it rests on. A reader is told "checked" on that label, so the words must be a passage's and must
state the claim (or, for a flag, contradict it). The checker's own quote cannot be relied on for that: on
Factcheck-Bench's stance pairs the offline checker answered SUPPORTS on most pairs whatever their stance, and
rarely copied a passage's words (benchmarks/decisions/stance_step.md). So here the quote is copied by code and
the stance is asked of it alone:

1. the sentences of the passage the checker named (of every passage shown, where it named none), ranked by the
   encoder the retrieval uses against the claim as written: the best one is the quote, or of the few best the
   first that speaks to what the claim states (:func:`closest_sentences`, :data:`QUOTE_SENTENCES`,
   :data:`CANDIDATES`);
2. one call constrained to three words decides whether the quote ``states`` the claim, ``contradicts`` it, or
   ``neither`` (:func:`ask_stance`, prompt ``guard_stance``).

A SUPPORTS stands only on ``states`` and a REFUTES only on ``contradicts``; any other answer leaves the claim
unchecked at this tier with the reason (:func:`settled`), and it goes up a tier where one is allowed. A model
that runs in this process answers ``states`` near the base rate (the offline model: right on 11 of 33), so its
``states`` stands only where the quote also writes the claim (:func:`writes_claim`), and its ``contradicts``
only where the quote writes another number, name or negation in the claim's place (:func:`writes_against`):
what the reader is shown then says it in words they can see. Of the closest sentences, one that writes the claim
is the quote of such a model's SUPPORTS. An answer that cannot be read is counted as a lost reply and read as no
stance, never as a label. NOT ENOUGH INFO is not asked about: it claims nothing a reader is told was checked.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

from factdebate.core.runtime import count_reply
from factdebate.core.types import Document, Label
from factdebate.embeddings import TextEncoder
from factdebate.guard_engine.fast import OFF_TOPIC, FastVerdict, bears_on, same_word
from factdebate.llm.base import GenParams
from factdebate.llm.model import LLM
from factdebate.prompts import render
from factdebate.response_level.grounding import names, numbers, predicate_words
from factdebate.response_level.spans import sentences

AGENT = "guard-stance"
_WORD = re.compile(r"[^\W_]+")
STANCES = ("states", "contradicts", "neither")
# The stance each label needs of its quote.
NEEDED = {Label.SUPPORTS: "states", Label.REFUTES: "contradicts"}
# Sentences of one passage taken as the quote: the closest alone, so that what the reader is shown is the one
# sentence the stance was decided on (the call is shown the passage's title with it, which names the subject a
# sentence opening "It" is about).
QUOTE_SENTENCES = 1
# A sentence longer than this is cut: the call reads the quote, not a page.
SENTENCE_CHARS = 400
# Sentences ranked a claim, all passages together: enough for a few passages of a page's lead each.
MOST_SENTENCES = 200
# The closest sentences among which one that speaks to the claim (fast.bears_on) is preferred as the quote.
CANDIDATES = 3


def _shown(document: Document) -> str:
    return f"{document.title}: {document.text}"


@dataclass(frozen=True)
class Quote:
    """Words copied from one passage shown to the checker: ``index`` is its place among them."""

    index: int
    document: Document
    text: str


def passage_sentences(document: Document) -> list[str]:
    """The sentences of ``document``'s text, each cut at :data:`SENTENCE_CHARS`."""
    text = document.text
    return [text[a:b][:SENTENCE_CHARS] for a, b in sentences(text) if text[a:b].strip()] or (
        [text[:SENTENCE_CHARS]] if text.strip() else [])


async def closest_sentences(claim: str, documents: list[Document], encoder: TextEncoder,
                            prefer: Callable[[str, str, str], bool] | None = None) -> Quote | None:
    """The quote for ``claim``: the :data:`QUOTE_SENTENCES` sentences of one passage of ``documents`` most like it
    (the passage of the closest), in the passage's order; None when no passage has a sentence. Of the
    :data:`CANDIDATES` closest, one ``prefer`` holds of (claim, sentence, passage title) comes first."""
    found = [(n, i, s) for n, d in enumerate(documents) for i, s in enumerate(passage_sentences(d))]
    found = found[:MOST_SENTENCES]
    if not found:
        return None
    import numpy as np  # here: the guard's modules load before any check needs numbers

    vectors = await encoder.aencode([claim, *(s for _, _, s in found)])
    norms = np.linalg.norm(vectors, axis=1, keepdims=True)
    norms[norms == 0] = 1.0
    unit = vectors / norms
    scores = unit[1:] @ unit[0]
    order = [int(i) for i in np.argsort(-scores, kind="stable")]
    # Of the few closest, the first that speaks to what the claim states ("It opened in 1889." for "The Eiffel
    # Tower opened in 1920.", where "The Eiffel Tower is a tower in Paris." shares more of its words).
    speaks = [i for i in order[:CANDIDATES] if bears_on(claim, found[i][2], _shown(documents[found[i][0]]))]
    if prefer is not None:
        # The sentence an in-process model's label needs ("She was awarded the Nobel Prize in Literature in
        # 1993." over a closer sentence of the same article that does not write the prize), where one is close.
        speaks = [i for i in order[:CANDIDATES] if prefer(claim, found[i][2], documents[found[i][0]].title)] + speaks
    if speaks:
        order = [speaks[0], *(i for i in order if i != speaks[0])]
    best = found[order[0]][0]
    picked = [found[i] for i in order if found[i][0] == best][:QUOTE_SENTENCES]
    picked.sort(key=lambda item: item[1])
    return Quote(best, documents[best], " ".join(s.strip() for _, _, s in picked))


@dataclass(frozen=True)
class StanceReply:
    """The stance call's constrained answer (None: unreadable) and, where the backend reads them, the model's
    probability of each stance at the answer's first step."""

    answer: str | None
    probs: dict[str, float] | None = None


# The least probability of its stance at which a model's answer counts, per model whose probabilities were
# measured on labelled pairs (benchmarks/stance_step.py: chosen on one draw, measured on another; the choice
# is in benchmarks/decisions/stance_step.md). A model not listed, or a backend that reads no probabilities, is
# taken at its constrained answer.
THRESHOLDS: dict[str, dict[str, float]] = {}


async def stance_reply(claim: str, quote: Quote, llm: LLM) -> StanceReply:
    """The stance call on ``claim`` and ``quote``, as the model answered it (an unreadable answer is counted as
    a lost reply)."""
    prompt = render("guard_stance", claim=claim, title=quote.document.title, quote=quote.text)
    count_reply("guard_stance", "asked")
    reply = await llm.complete([{"role": "user", "content": prompt.text}],
                               GenParams(temperature=0.0, max_tokens=8, choices=STANCES, choice_scores=True),
                               agent=AGENT, prompt=prompt.name)
    answer = reply.text.strip().strip('."\'').casefold()
    if answer not in STANCES:
        count_reply("guard_stance", "lost")
        return StanceReply(None, reply.choice_probs)
    return StanceReply(answer, reply.choice_probs)


def decided(reply: StanceReply, thresholds: dict[str, float] | None) -> str | None:
    """The stance ``reply`` decides: with ``thresholds`` and probabilities, ``states`` or ``contradicts`` only at
    its threshold or above (the likelier first where both reach theirs), else ``neither``; without them, the
    answer as written."""
    if thresholds is None or reply.probs is None:
        return reply.answer
    probs = reply.probs
    reached = [s for s in ("states", "contradicts") if s in thresholds and probs.get(s, 0.0) >= thresholds[s]]
    return max(reached, key=lambda s: probs.get(s, 0.0)) if reached else "neither"


async def ask_stance(claim: str, quote: Quote, llm: LLM) -> str | None:
    """Whether ``quote`` states ``claim``, contradicts it or neither (:data:`STANCES`), decided by the model's
    measured thresholds where it has them (:data:`THRESHOLDS`); None when the answer cannot be read."""
    return decided(await stance_reply(claim, quote, llm), THRESHOLDS.get(llm.name))


def in_process(llm: LLM) -> bool:
    """Whether ``llm`` runs in this process (llama.cpp): the shipped models, whose stance was measured near the
    base rate, and any GGUF a user loads here, small enough for a CPU."""
    return llm.name.startswith("llama-cpp:")


# Words that turn what a sentence states: a negation, and the function words of rank the grounding filter
# leaves out of a claim's predicate.
_NEGATIONS = frozenset(("not", "no", "never", "none", "nor", "neither", "without", "cannot"))
_SAYING = frozenset(("first", "only", "last"))


def _words(text: str) -> set[str]:
    return {w.casefold() for w in _WORD.findall(text.replace("n't", " not"))}


def _negated(text: str) -> bool:
    return not _words(text).isdisjoint(_NEGATIONS)


def writes_claim(claim: str, quote: str, title: str = "") -> bool:
    """Whether ``quote`` writes ``claim``: every name of the claim in the quote or its passage's title (the
    subject of a sentence opening "It"), every number of the claim in the quote, and, of a claim with two words
    or more past its names and function words, more than half of them in the quote (as written, a lemma, or a
    stem shared with a word of about its length); a negation in both or in neither, and the claim's "first",
    "only" or "last" in the quote (function words to the grounding filter, but they change what a sentence
    states).

    Measured on Factcheck-Bench's 3,305 stance pairs (benchmarks/word_rules.py, where any sentence of a passage
    may be the one copied): it lets through 26 % of completely supporting passages, 8 % of partly supporting ones,
    12 % of refuting ones and 4 % of irrelevant ones. Beside the offline model's ``states`` on 120 pairs of the
    stance benchmark's draws, a SUPPORTS stood on 9 of 14 right, against 23 of 70 without it
    (benchmarks/decisions/stance_step.md): fewer claims checked, far more of them stated by their quote."""
    shown = _words(f"{quote} {title}")
    written = _words(quote)
    if not all(any(same_word(name, word) for word in shown) for name in names(claim)):
        return False
    if not numbers(claim) <= numbers(quote):
        return False
    if _negated(claim) != _negated(quote) or not _words(claim) & _SAYING <= written:
        return False  # "The Aztec Empire existed first." is not written by a sentence without "first"
    predicate = predicate_words(claim)
    if len(predicate) < 2:
        return True
    return 2 * sum(any(same_word(word, other) for other in written) for word in predicate) > len(predicate)


def writes_against(claim: str, quote: str, title: str = "") -> bool:
    """Whether ``quote`` writes something in place of what ``claim`` states: it writes more than half of the
    claim's words past its names and function words (the same relation), and either every name of the claim (in
    the quote or its passage's title) with another number where the claim's is missing ("It opened in 1889."
    against "The Eiffel Tower opened in 1920."), or a negation where the claim has none or the other way round,
    or every name of the claim but one, with a name the claim does not write ("Canberra" where the claim says
    "Sydney").

    Measured on Factcheck-Bench's 3,305 stance pairs (benchmarks/word_rules.py, any sentence of a passage the
    copied one): it holds of 24 % of refuting passages, 11 % of completely supporting ones, 7 % of partly
    supporting ones and 6 % of irrelevant ones. Beside the offline model's ``contradicts`` on the 120 pairs of
    the stance benchmark's draws, a REFUTES stood on 3 of 4 right, against 19 of 50 without it
    (benchmarks/decisions/stance_step.md)."""
    shown = _words(f"{quote} {title}")
    written = _words(quote)
    named = names(claim)
    missing = [name for name in named if not any(same_word(name, word) for word in shown)]
    predicate = predicate_words(claim)
    shared = sum(any(same_word(word, other) for other in written) for word in predicate)
    if predicate and 2 * shared < len(predicate):
        return False
    claimed, quoted = numbers(claim), numbers(quote)
    if not claimed <= quoted and quoted - claimed:
        return not missing
    if _negated(claim) != _negated(quote) and not missing and shared:
        return True
    return len(missing) == 1 and len(named) >= 2 and bool(names(quote) - named)


# Why an in-process model's SUPPORTS does not stand on a quote that does not write its claim.
UNWRITTEN = ("the checker answered SUPPORTS and the stance step answered states, but the passage sentence closest "
             "to the claim does not write its names, numbers and most of its words, and an in-process model's stance "
             "alone is no ground for 'checked' (the offline model's was measured near chance)")


# Why an in-process model's REFUTES does not stand on a quote that writes nothing against its claim.
UNCONTRADICTED = ("the checker answered REFUTES and the stance step answered contradicts, but the passage sentence "
                  "closest to the claim writes no other number, name or negation in place of what it states, and an "
                  "in-process model's stance alone is no ground for a flag (the offline model's was measured near "
                  "chance)")


def not_said(label: Label, stance: str | None) -> str:
    """Why ``label`` does not stand when the stance step answered ``stance``."""
    if stance is None:
        return (f"the checker answered {label.value}, and the stance step's answer on the passage sentences "
                "closest to the claim could not be read")
    needed = NEEDED[label]
    what = "checked only on a passage that states it" if label == Label.SUPPORTS else \
        "flagged only on a passage that says otherwise"
    return (f"the checker answered {label.value}, but the passage sentences closest to the claim "
            f"{'do not ' + ('state' if needed == 'states' else 'contradict') + ' it'} (the stance step answered "
            f"{stance}), and a claim is {what}")


async def settled(claim: str, verdict: FastVerdict, llm: LLM, encoder: TextEncoder) -> FastVerdict:
    """``verdict`` of ``claim`` where the stance step finds its quote says so: the quote copied from the passages
    it read, that passage first and cited; else no verdict, with the reason (:func:`not_said`)."""
    label = verdict.label
    if label not in NEEDED:
        return verdict
    # The passage the checker named, where it named one (its choice among passages is kept; its own words are
    # not): else every passage it read.
    docs = verdict.documents
    needs = (writes_claim if label == Label.SUPPORTS else writes_against) if in_process(llm) else None
    # Of the closest sentences, one that writes the claim is asked about first: on the stance benchmark's 120
    # pairs that kept one more right SUPPORTS and no wrong one. Preferring one that writes against a claim made
    # three more wrong flags there, so a REFUTES is asked about the closest sentence as it is.
    prefer = writes_claim if needs is writes_claim else None
    quote = await closest_sentences(claim, docs[:1] if verdict.cited else docs, encoder, prefer=prefer)
    if quote is None:
        return FastVerdict(None, verdict.documents, problem=f"the checker answered {label.value} with no passage "
                           "to quote, and a claim is checked only on a passage that says so")
    stance = await ask_stance(claim, quote, llm)
    if stance != NEEDED[label]:
        return FastVerdict(None, verdict.documents, problem=not_said(label, stance))
    if needs is not None and not needs(claim, quote.text, quote.document.title):
        return FastVerdict(None, verdict.documents, problem=UNWRITTEN if label == Label.SUPPORTS else UNCONTRADICTED)
    if label == Label.REFUTES and not bears_on(claim, quote.text, _shown(quote.document)):
        # Kept beside the step where measured to help: on Factcheck-Bench's stance pairs, no sentence of the
        # passage speaks to the claim in 28 % of the irrelevant pairs and 6 % of the refuting ones.
        return FastVerdict(None, verdict.documents, problem=OFF_TOPIC)
    return FastVerdict(label, [docs[quote.index], *docs[:quote.index], *docs[quote.index + 1:]], quote=quote.text,
                       cited=True)
