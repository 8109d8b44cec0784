"""A correction for a refuted claim: one sentence, grounded in the passage that refutes it, and shown only
when that passage's quote supports it.

One model call writes the sentence, unless the window call wrote it with the verdict. It must then pass two
tests: every name and number it adds to the claim (what the correction changes) is one the quote writes (the
words it keeps name the subject, which a short quote need not repeat), and the fast tier's checker, given the
quote alone, finds it SUPPORTED. Otherwise there is no correction rather than an unsupported one, and the
claim's ``correction_note`` says why."""

from __future__ import annotations

import json
import re

from factdebate.core.runtime import count_reply
from factdebate.core.types import Document, Label
from factdebate.guard_engine.evidence import shares_words
from factdebate.guard_engine.fast import EXAMPLE as FAST_EXAMPLE
from factdebate.guard_engine.fast import SCHEMA as VERIFY_SCHEMA
from factdebate.guard_engine.fast import UNFOUNDED, read_reply
from factdebate.guard_engine.types import ClaimEvidence, Correction
from factdebate.llm.base import GenParams
from factdebate.llm.json_reply import enclosed
from factdebate.llm.model import LLM
from factdebate.prompts import render
from factdebate.response_level.grounding import among, content_words, forms, names, numbers, stem

AGENT = "guard-corrector"
SCHEMA = {"type": "object", "additionalProperties": False, "required": ["sentence"],
          "properties": {"sentence": {"type": "string", "minLength": 1, "maxLength": 500}}}
_WORD = re.compile(r"[^\W_]+")
# The prompt's example (guard_correct.j2) names no real place: a reply that repeats it has not read the quote.
EXAMPLE_SENTENCE = "The Old Mill Bridge crosses the river at Kessington."
EXAMPLE = json.dumps({"sentence": EXAMPLE_SENTENCE})


def _words(text: str) -> str:
    return " ".join(w.casefold() for w in _WORD.findall(text))


def read_sentence(text: str) -> str | None:
    try:
        value = enclosed(text, "{")
    except json.JSONDecodeError:
        return None
    sentence = value.get("sentence") if isinstance(value, dict) else None
    return " ".join(sentence.split()) if isinstance(sentence, str) and sentence.strip() else None


def restates(sentence: str, claim: str) -> bool:
    """Whether ``sentence`` says what ``claim`` says: the same numbers and names, and no content word the claim
    does not write (by lemma or stem). "The Aztec Empire was established in the 14th century." offered as the
    correction of itself changes nothing."""
    if numbers(sentence) != numbers(claim):
        return False
    own, other = content_words(sentence) | names(sentence), content_words(claim) | names(claim)
    mine, theirs = forms(own), forms(other)
    return all(among(word, theirs) for word in own) and all(among(word, mine) for word in other)


def unsupported_words(sentence: str, claim: str, quote: str) -> list[str]:
    """The names and numbers ``sentence`` adds to ``claim`` that ``quote`` does not write (a word is found by
    its stem too, so "towers" meets "tower"; "French" does not meet "France")."""
    written = _WORD.findall(quote)
    quoted = {w.casefold() for w in written} | {stem(w) for w in written}
    missing = [n for n in sorted(names(sentence) - names(claim)) if n not in quoted and stem(n) not in quoted]
    return missing + sorted(numbers(sentence) - numbers(claim) - numbers(quote), key=int)


async def supported_by_quote(sentence: str, evidence: ClaimEvidence, llm: LLM) -> tuple[bool, str]:
    """(supported, why not): the checker decides ``sentence`` over the quote alone (the fast tier's prompt)."""
    passage = Document(id="quote", title=evidence.title or "passage", text=evidence.quote)
    prompt = render("guard_fast", claim=sentence, documents=[passage], example=FAST_EXAMPLE)
    count_reply("guard_correction_check", "asked")
    reply = await llm.complete([{"role": "user", "content": prompt.text}],
                               GenParams(temperature=0.0, max_tokens=300, json_schema=VERIFY_SCHEMA),
                               agent=AGENT, prompt=f"{prompt.name}:correction")  # told apart in the trace
    label, _, _, problem = read_reply(reply.text, [passage])
    if label is None and problem == UNFOUNDED:
        return False, "the checker found it REFUTES by its quote"
    if label is None:
        count_reply("guard_correction_check", "lost")
        return False, f"the checker's reply on it could not be read ({problem})"
    if label != Label.SUPPORTS:
        return False, f"the checker found it {label.value} by its quote"
    return True, ""


async def correct(claim: str, evidence: ClaimEvidence, llm: LLM,
                  proposed: str | None = None) -> tuple[Correction | None, str | None]:
    """(the corrected sentence for ``claim`` from ``evidence``'s quote, or None; why none, or None).
    ``proposed``: the window call's sentence, checked as the corrector's would be, without asking it."""
    if not evidence.quote.strip():
        return None, "no correction: the refuting passage gave no quote to ground one in"
    count_reply("guard_correction", "asked")
    if proposed is not None:
        sentence: str | None = proposed
    else:
        prompt = render("guard_correct", claim=claim, title=evidence.title or "passage", quote=evidence.quote,
                        example=EXAMPLE)
        reply = await llm.complete([{"role": "user", "content": prompt.text}],
                                   GenParams(temperature=0.0, max_tokens=200, json_schema=SCHEMA),
                                   agent=AGENT, prompt=prompt.name)
        sentence = read_sentence(reply.text)
    if sentence is None:
        count_reply("guard_correction", "lost")
        return None, "no correction: the corrector's reply could not be read"
    dropped = f'the correction "{sentence}" was not shown: '
    if _words(sentence) == _words(EXAMPLE_SENTENCE):
        count_reply("guard_correction", "lost")  # the prompt's example, not a reading of the quote
        return None, dropped + "it copies the prompt's example"
    if restates(sentence, claim):
        count_reply("guard_correction", "lost")  # a correction that says what it corrects corrects nothing
        return None, dropped + "it repeats the refuted claim"
    if not shares_words(sentence, evidence.quote):
        count_reply("guard_correction", "lost")
        return None, dropped + "it shares no word with its quote"
    if missing := unsupported_words(sentence, claim, evidence.quote):
        count_reply("guard_correction", "lost")
        return None, dropped + f"its quote does not say {', '.join(missing)}"
    supported, why = await supported_by_quote(sentence, evidence, llm)
    if not supported:
        count_reply("guard_correction", "lost")
        return None, dropped + why
    return Correction(text=sentence, quote_source=evidence.quote), None
