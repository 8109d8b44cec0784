"""A correction for a refuted claim: one sentence, grounded in the passage that refutes it, and shown only
when that passage's quote supports it.

One model call writes the sentence, unless the window call wrote it with the verdict. It must then change
something (:func:`restates`) and pass two tests: every name and number it adds to the claim (what the correction
changes) is one the quote writes (the words it keeps name the subject, which a short quote need not repeat), and
the fast tier's checker, given the quote alone, finds it SUPPORTED, with the stance step's ``states`` on that
quote where the stance step is on (guard_engine/stance.py), as a SUPPORTS of a claim needs. Otherwise there is no
correction rather than an unsupported one, and the claim's ``correction_note`` says why."""

from __future__ import annotations

import json
import re
from decimal import Decimal

from factdebate.core.runtime import count_reply
from factdebate.core.types import Document, Label
from factdebate.guard_engine.evidence import shares_words
from factdebate.guard_engine.fast import EXAMPLE as FAST_EXAMPLE
from factdebate.guard_engine.fast import SCHEMA as VERIFY_SCHEMA
from factdebate.guard_engine.fast import UNFOUNDED, read_reply
from factdebate.guard_engine.stance import Quote, ask_stance, in_process, writes_claim
from factdebate.guard_engine.types import ClaimEvidence, Correction
from factdebate.llm.base import GenParams
from factdebate.llm.json_reply import enclosed
from factdebate.llm.model import LLM
from factdebate.prompts import render
from factdebate.response_level.grounding import among, forms, names, numbers, stem

AGENT = "guard-corrector"
SCHEMA = {"type": "object", "additionalProperties": False, "required": ["sentence"],
          "properties": {"sentence": {"type": "string", "minLength": 1, "maxLength": 500}}}
_WORD = re.compile(r"[^\W_]+")
# The prompt's example (guard_correct.j2) names no real place: a reply that repeats it has not read the quote.
EXAMPLE_SENTENCE = "The Old Mill Bridge crosses the river at Kessington."
EXAMPLE = json.dumps({"sentence": EXAMPLE_SENTENCE})
# Words that state no value of their own: a correction that swaps one for another ("during" for "in") changes
# nothing.
_GLUE = frozenset((
    "the", "a", "an", "of", "in", "on", "at", "to", "by", "for", "from", "with", "into", "during", "within",
    "throughout", "as", "and", "is", "was", "are", "were", "be", "been", "being", "has", "had", "have", "it",
    "its", "this", "that", "which", "who", "there"))
# A correction that negates what the claim says changes it ("... is not visible from space").
_NEGATIONS = frozenset(("not", "no", "never", "none", "neither", "nor", "nothing", "nowhere", "cannot", "without"))
_NOT = re.compile(r"n['\u2019]t\b", re.IGNORECASE)
# Ordinal words, read as the numbers they write ("fourteenth" as 14, "twenty-first" as 21).
_ORDINALS = {w: n for n, w in enumerate((
    "", "first", "second", "third", "fourth", "fifth", "sixth", "seventh", "eighth", "ninth", "tenth", "eleventh",
    "twelfth", "thirteenth", "fourteenth", "fifteenth", "sixteenth", "seventeenth", "eighteenth", "nineteenth"))
    if w}
_TENS = {w: 10 * n for n, w in enumerate(("", "", "twent", "thirt", "fort", "fift", "sixt", "sevent", "eight",
                                          "ninet")) if w}
_ORDINALS.update({f"{w}ieth": n for w, n in _TENS.items()} | {"hundredth": 100, "thousandth": 1000})
_ORDINAL = re.compile(rf"\b(?:({'|'.join(w + 'y' for w in _TENS)})[- ])?({'|'.join(_ORDINALS)})\b", re.IGNORECASE)


def _cardinal(match: re.Match[str]) -> str:
    tens = _TENS[match.group(1).casefold()[:-1]] if match.group(1) else 0
    return str(tens + _ORDINALS[match.group(2).casefold()])


def _words(text: str) -> str:
    return " ".join(w.casefold() for w in _WORD.findall(text))


def read_sentence(text: str) -> str | None:
    try:
        value = enclosed(text, "{")
    except json.JSONDecodeError:
        return None
    sentence = value.get("sentence") if isinstance(value, dict) else None
    return " ".join(sentence.split()) if isinstance(sentence, str) and sentence.strip() else None


def _values(text: str) -> set[str]:
    """The numbers ``text`` writes, in digits, in words or as an ordinal ("14th", "fourteenth": 14)."""
    return numbers(_ORDINAL.sub(_cardinal, text))


def _negated(text: str) -> bool:
    return any(w in _NEGATIONS for w in _words(text).split()) or _NOT.search(text) is not None


def _wording(text: str) -> set[str]:
    """The words of ``text`` that say what it states, numbers aside (:func:`_values` compares them)."""
    return {w for w in _words(_ORDINAL.sub(_cardinal, text)).split()
            if w not in _GLUE and w not in _NEGATIONS and not w[0].isdigit() and not numbers(w)}


def restates(sentence: str, claim: str) -> bool:
    """Whether ``sentence`` says what ``claim`` says, word for word or in value: the same numbers (digits, words
    or ordinals), both negated or neither, and no other word, name or lemma that one has and the other lacks,
    articles and prepositions aside. "The Aztec Empire was established in the 14th century." offered as the
    correction of itself, or "... established during the fourteenth century.", changes nothing."""
    if _values(sentence) != _values(claim) or _negated(sentence) != _negated(claim):
        return False
    own, other = _wording(sentence), _wording(claim)
    mine, theirs = forms(own), forms(other)
    return all(among(word, theirs) for word in own) and all(among(word, mine) for word in other)


def unsupported_words(sentence: str, claim: str, quote: str) -> list[str]:
    """The names and numbers ``sentence`` adds to ``claim`` that ``quote`` does not write (a word is found by
    its stem too, so "towers" meets "tower"; "French" does not meet "France")."""
    written = _WORD.findall(quote)
    quoted = {w.casefold() for w in written} | {stem(w) for w in written}
    missing = [n for n in sorted(names(sentence) - names(claim)) if n not in quoted and stem(n) not in quoted]
    return missing + sorted(numbers(sentence) - numbers(claim) - numbers(quote), key=Decimal)


async def supported_by_quote(sentence: str, evidence: ClaimEvidence, llm: LLM, *,
                             stance_step: bool = True) -> tuple[bool, str]:
    """(supported, why not): the checker decides ``sentence`` over the quote alone (the fast tier's prompt);
    with ``stance_step`` its SUPPORTS stands only where the stance step finds that the quote ``states`` it (and,
    for a model in this process, that the quote writes it), as a claim's SUPPORTS does (guard_engine/stance.py)."""
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
    if stance_step and (stance := await ask_stance(sentence, Quote(0, passage, evidence.quote), llm)) != "states":
        said = "could not be read" if stance is None else f"answered {stance}"
        return False, f"the checker found it SUPPORTED, but the stance step on its quote {said}, not states"
    if stance_step and in_process(llm) and not writes_claim(sentence, evidence.quote, passage.title):
        # as a claim's SUPPORTS from a model whose stance was measured near chance (stance.writes_claim)
        return False, ("the checker found it SUPPORTED and the stance step answered states, but its quote does not "
                       "write its names, numbers and most of its words")
    return True, ""


async def correct(claim: str, evidence: ClaimEvidence, llm: LLM, proposed: str | None = None, *,
                  stance_step: bool = True) -> tuple[Correction | None, str | None]:
    """(the corrected sentence for ``claim`` from ``evidence``'s quote, or None; why none, or None).
    ``proposed``: the window call's sentence, checked as the corrector's would be, without asking it;
    ``stance_step``: ``guard.stance_step``, whether the quote must state it (:func:`supported_by_quote`)."""
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
    supported, why = await supported_by_quote(sentence, evidence, llm, stance_step=stance_step)
    if not supported:
        count_reply("guard_correction", "lost")
        return None, dropped + why
    return Correction(text=sentence, quote_source=evidence.quote), None
