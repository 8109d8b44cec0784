"""What the client gets once a reply is checked (``GuardResult.text`` and ``action_taken``).

- ``annotate``: the reply unchanged; the verdicts travel beside it.
- ``flag``: the reply with footnotes on its refuted claims (with their correction) and the unchecked ones
  (those past the claim cap in one line: :func:`cap_line`). Under flags that a model running in this process
  decided (the embedded or the offline model), one more line says how little such a flag is worth.
- ``rewrite``: the upstream model revises its answer from the refuted claims, their evidence and corrections;
  the revision goes out only if a check at the tier that refuted them finds nothing refuted or unchecked.
  Otherwise the reply gets ``guard.rewrite_fallback`` (``flag`` or ``block``), ``action_reason`` saying why.
- ``hold``: each sentence that states a refuted claim replaced by :data:`WITHHELD`, plus ``flag``'s footnotes;
  a refuted claim placed in no sentence withholds the whole reply. Streamed, a sentence goes out once its
  claims are decided at the first tier (guard_engine/hold.py); one refuted only later is footnoted.
- ``block``: a refusal naming what was refuted.

An answer the caller asked for as JSON (``answer_format: json``, a chat request's ``response_format``) stays
JSON: ``flag`` leaves its text as it came and marks it in ``action_taken`` alone (a footnote would leave it no
JSON), ``hold`` refuses one that states a refuted claim whole, as ``block`` does (a sentence cut out of it would
leave it no JSON; shown whole, the refuted claim would reach the reader), ``rewrite`` sends no revision that is
not JSON of the answer's shape (:func:`same_shape`), and a refusal is a JSON object,
``{"error": {"type": "answer_withheld", "message": <the refusal>}}`` (:func:`refused_text`).

``guard.on_not_enough_info`` footnotes NOT ENOUGH INFO claims as unconfirmed (``flag``), leaves them to the
verdicts (``pass``) or refuses the reply (``block``). ``on_unchecked: block`` refuses a reply with anything
unchecked or a degraded check, such as a reply with no text that is no tool call (:func:`no_text_result`)."""

from __future__ import annotations

import json
import re
from bisect import bisect_right
from collections.abc import Awaitable, Callable, Sequence
from typing import Literal

from factdebate.core.types import Label
from factdebate.guard_engine.coverage import BEYOND_CAP, cap_of
from factdebate.guard_engine.gate import gate
from factdebate.guard_engine.types import TIERS, ActionTaken, GuardClaim, GuardResult, ResolvedGuardOptions, Reviser
from factdebate.llm.near_chance import flag_caution
from factdebate.prompts import render
from factdebate.response_level.placing import names_only
from factdebate.response_level.spans import sentences
from factdebate.util.errors import FactDebateError

NO_TEXT = "the reply holds no text to check (its content was empty, missing or not text) and makes no tool call"
# A revision checked again: the revised text and the claims it was to correct -> that text's check.
Recheck = Callable[[str, list[GuardClaim]], Awaitable[GuardResult]]
Fallback = Literal["flag", "block"]
# What a policy does to a streamed reply (guard_engine/stream_policy.py's GuardedStream).
StreamMode = Literal["pass", "footnote", "hold_back", "whole"]
WITHHELD = "[Withheld: a fact check found this sentence contradicted by the evidence; see the fact check below.]"
# What the reader is told when the checker failed: the reason itself (addresses, attempts) is the operator's.
CHECKER_UNAVAILABLE = "the fact checker is not available right now"
_TECHNICAL = re.compile(r"https?://|\battempt\(s\)|\brefused\b|\bis down\b|could not reach|did not answer|"
                        r"\bHTTP \d{3}\b|connect|timed? ?out|errno|the operator's (host|endpoint)", re.IGNORECASE)


def for_reader(reason: str, unavailable: str = CHECKER_UNAVAILABLE) -> str:
    """``reason`` as the reply's reader gets it: one about a server becomes ``unavailable``."""
    return unavailable if _TECHNICAL.search(reason) else reason


def stream_mode(policy: str, on_unchecked: str, on_not_enough_info: str = "flag",
                answer_format: str = "text") -> StreamMode:
    """How a reply under ``policy`` streams: text shown cannot be taken back. A JSON answer under ``hold`` waits
    whole: it is refused whole if it states a refuted claim."""
    if policy in ("rewrite", "block") or on_unchecked == "block" or on_not_enough_info == "block" \
            or (policy == "hold" and answer_format == "json"):
        return "whole"
    return "hold_back" if policy == "hold" else "footnote" if policy == "flag" else "pass"


def withhold(text: str, wrong: Sequence[GuardClaim], pieces: Sequence[tuple[int, int]],
             start: int = 0) -> tuple[str, int]:
    """``text`` (the reply from offset ``start`` on) with each sentence of ``pieces`` holding a claim of ``wrong``
    withheld, and how many were: each sentence it is placed in or drawn from (:func:`withheld_in`); a claim placed
    in none withholds all of ``text``."""
    marked: set[int] = set()
    for claim in wrong:
        hit = [n for n, (a, b) in enumerate(pieces) if withheld_in(claim, a, b, text[a - start:b - start])]
        if not hit:
            body = text.strip()
            if not body:
                return text, 0
            lead = text[:len(text) - len(text.lstrip())]
            return lead + WITHHELD + text[len(text.rstrip()):], 1
        marked.update(hit)
    out, at = [], start
    for n in sorted(marked):
        a, b = pieces[n]
        out += [text[at - start:a - start], WITHHELD]
        at = b
    out.append(text[at - start:])
    return "".join(out), len(marked)


def withheld_in(claim: GuardClaim, start: int, end: int, sentence: str) -> bool:
    """Whether the refuted ``claim`` withholds ``sentence`` (at ``start``:``end`` of the reply): the sentence it is
    placed in, and each other it was drawn from (:meth:`GuardClaim.places`: the row below a transposed table's
    header, a sentence's other line) that gives more of it than its subject (placing.names_only: a header row
    "| | Eiffel Tower |" states nothing false, and streamed it may be shown before the row is read)."""
    if claim.span is not None and claim.span.start < end and claim.span.end > start:
        return True
    return any(p.start < end and p.end > start for p in claim.places()) and not names_only(claim.claim, sentence)


def refuted(claims: list[GuardClaim]) -> list[GuardClaim]:
    return [c for c in claims if c.status == "checked" and c.label == Label.REFUTES]


def unchecked(claims: list[GuardClaim]) -> list[GuardClaim]:
    return [c for c in claims if c.status != "checked"]


def unconfirmed(claims: list[GuardClaim]) -> list[GuardClaim]:
    return [c for c in claims if c.status == "checked" and c.label == Label.NOT_ENOUGH_INFO]


def _quoted(claim: GuardClaim) -> str:
    return f'"{claim.claim}"'


def beyond_cap(claim: GuardClaim) -> bool:
    """Whether ``claim`` is a sentence past the claim cap, unchecked (guard_engine/coverage.py)."""
    return claim.status != "checked" and (claim.reason or "").startswith(BEYOND_CAP)


def past_cap(claims: Sequence[GuardClaim]) -> list[GuardClaim]:
    return [c for c in claims if beyond_cap(c)]


# What the reader sees of the sentences past the claim cap: one line, however many there are (a 20-item list cut
# at 8 gave 12 footnotes, longer than the answer), naming a few by their opening words and the rest by number.
# Each stays an unchecked claim of its own in the result.
_OPENING_WORDS = 5
_QUOTED = 3  # sentences quoted by their opening: the first two and the last when there are more
_RUNS = 4  # runs of sentence numbers written out ("9–12, 15, 17–20"); past them, "…"


def _opening(claim: GuardClaim) -> str:
    words = claim.claim.split()
    return '"' + " ".join(words[:_OPENING_WORDS]) + ("\u2026" if len(words) > _OPENING_WORDS else "") + '"'


def _numbered(text: str, claims: Sequence[GuardClaim]) -> str:
    """Where ``claims`` stand among the sentences of ``text`` (the reply), numbered from 1 as the reply's sentence
    counts are: "9–20", "3, 9–12"; "" where none is placed."""
    ends = [end for _, end in sentences(text)]
    # A claim's sentence is the first whose end lies past the claim's start.
    found = {bisect_right(ends, c.span.start) + 1 for c in claims if c.span is not None}
    runs: list[list[int]] = []
    for n in sorted(n for n in found if n <= len(ends)):
        if runs and n == runs[-1][1] + 1:
            runs[-1][1] = n
        else:
            runs.append([n, n])
    said = [str(a) if a == b else f"{a}\u2013{b}" for a, b in runs[:_RUNS]]
    return ", ".join(said + ["\u2026"] * (len(runs) > _RUNS))


def _cap_head(cut: Sequence[GuardClaim]) -> str:
    """"12 sentences past the claim cap" of the sentences ``cut``."""
    return f"{len(cut)} sentence{'' if len(cut) == 1 else 's'} past the claim cap"


def _cap_where(result: GuardResult, cut: Sequence[GuardClaim]) -> str:
    """"sentences 9–20" of the sentences ``cut`` of ``result``'s reply; "" where none is placed."""
    where = _numbered(result.original_text, cut)
    return f"sentence{'' if len(cut) == 1 else 's'} {where}" if where else ""


def cap_line(result: GuardResult, cut: Sequence[GuardClaim]) -> str:
    """The footnote of the sentences ``cut`` past the claim cap: their count, the cap, where they stand and the
    opening words of the first two and the last ("12 sentences past the claim cap were not checked (at most 8
    claims are taken from one reply): sentences 9–20 ("Jupiter is the largest planet…", "Saturn has rings of ice…", …,
    "Eris is a dwarf planet…")"; a numbered item's opening keeps its number)."""
    most = next((n for c in cut if (n := cap_of(c.reason)) is not None), None)
    line = f"{_cap_head(cut)} {'was' if len(cut) == 1 else 'were'} not checked"
    if most is not None:
        line += f" (at most {most} claims are taken from one reply)"
    shown = list(cut) if len(cut) <= _QUOTED else [*cut[:_QUOTED - 1], cut[-1]]
    quoted = [_opening(c) for c in shown]
    if len(cut) > _QUOTED:
        quoted.insert(_QUOTED - 1, "\u2026")
    openings = ", ".join(quoted)
    return f"{line}: " + (f"{where} ({openings})" if (where := _cap_where(result, cut)) else openings)


def footnotes(result: GuardResult, note: str | None = None) -> str:
    lines = []
    wrong = refuted(result.claims)
    for claim in wrong:
        line = f"- {_quoted(claim)} is contradicted by the evidence"
        # Only a passage the verdict rests on is quoted: at the debate tiers one read but not cited is no evidence.
        if (first := next((e for e in claim.evidence if e.cited), None)) is not None:
            marked = "; the passage holds an instruction to the model, read as data only" if first.injection else ""
            line += f" ({first.title}: \"{first.quote}\"{marked})"
        if claim.correction is not None:
            line += f". Correction: {claim.correction.text}"
        lines.append(line)
    if wrong and (caution := flag_caution(result.warnings, len(wrong))) is not None:
        lines.append(f"- {caution}")
    cut = past_cap(result.claims)
    for claim in unchecked(result.claims):
        if not beyond_cap(claim):
            lines.append(f"- {_quoted(claim)} could not be checked ({for_reader(claim.reason or claim.status)})")
    if cut:
        lines.append(f"- {cap_line(result, cut)}")
    if result.on_not_enough_info != "pass":  # visible, never passed as if confirmed
        for claim in unconfirmed(result.claims):
            lines.append(f"- {_quoted(claim)} could not be confirmed: the evidence neither supports nor "
                         "contradicts it")
    if result.degraded:
        lines.append(f"- The answer could not be checked: {for_reader(str(result.degraded_reason))}")
    if note:
        lines.append(f"- {note}")
    return "\n\n---\nFact check:\n" + "\n".join(lines) if lines else ""


def refusal(result: GuardResult) -> str:
    wrong = refuted(result.claims)
    parts = []
    if wrong:
        parts.append("a fact check found that it says what the evidence contradicts: "
                     + "; ".join(_quoted(c) for c in wrong))
    if result.on_not_enough_info == "block" and (open_ := unconfirmed(result.claims)):
        parts.append("the evidence could not confirm: " + "; ".join(_quoted(c) for c in open_))
    if result.on_unchecked == "block":
        missing, cut = unchecked(result.claims), past_cap(result.claims)
        if result.degraded:
            parts.append(f"it could not be checked ({for_reader(str(result.degraded_reason))})")
        elif missing:
            # not only the deadline: the claim cap, the grounding filter, guard.max_message_chars (their reasons);
            # the sentences past the claim cap are named together, by count and number, as in the footnote
            said = [_quoted(c) for c in missing if not beyond_cap(c)]
            if cut:
                said.append(_cap_head(cut) + (f" ({where})" if (where := _cap_where(result, cut)) else ""))
            parts.append("parts of it could not be checked: " + "; ".join(said))
    text = "This answer was withheld: " + ", and ".join(parts)
    # A quoted claim ends with its own full stop inside the quotes: no second one after them.
    return text if text.endswith(('."', '!"', '?"')) else text + "."


def must_block(result: GuardResult) -> bool:
    if result.policy == "block" and refuted(result.claims):
        return True
    if result.on_not_enough_info == "block" and unconfirmed(result.claims):
        return True
    return result.on_unchecked == "block" and (result.degraded or bool(unchecked(result.claims)))


def held(result: GuardResult, shown: str, withheld: int) -> tuple[str, ActionTaken]:
    """The text and action of a ``hold`` reply whose text (what was, or is to be, shown) is ``shown``."""
    extra = footnotes(result)
    action: ActionTaken = "held" if withheld else "flagged" if extra else _plain(result)
    return shown + extra, action


ANSWER_WITHHELD = "answer_withheld"  # the type of a JSON answer's refusal (refused_text)
HOLD_REFUSES_JSON = ("hold refuses a JSON answer that states a refuted claim whole: a sentence withheld from it "
                     "would leave it no JSON")


def json_answer(result: GuardResult) -> bool:
    """Whether ``result``'s answer was asked for as JSON: no policy may leave it text that is not JSON."""
    return result.answer_format == "json"


def refused_text(result: GuardResult) -> str:
    """The text that replaces a refused reply: :func:`refusal`; for a JSON answer, the refusal as the message of a
    JSON error object, which the client's parse reads where the refusal's words would fail it."""
    said = refusal(result)
    if not json_answer(result):
        return said
    return json.dumps({"error": {"type": ANSWER_WITHHELD, "message": said}}, ensure_ascii=False)


def apply_policy_unrevised(result: GuardResult) -> GuardResult:
    """:func:`apply_policy` for a result nothing is revised in, decided without waiting on anything."""
    text, action = result.original_text, _plain(result)
    reason = result.action_reason
    if must_block(result):
        text, action = refused_text(result), "blocked"
    elif json_answer(result) and result.policy == "hold" and refuted(result.claims):
        text, action, reason = refused_text(result), "blocked", HOLD_REFUSES_JSON
    elif json_answer(result) and result.policy in ("flag", "hold"):
        # the mark without the text: the footnote would leave the answer no JSON; the verdicts say what it lists
        action = "flagged" if footnotes(result) else action
    elif result.policy == "hold":
        pieces = [(piece.start, piece.end) for piece in gate(text)] if refuted(result.claims) else []
        kept, count = withhold(text, refuted(result.claims), pieces)
        text, action = held(result, kept, count)
    elif result.policy == "flag":
        extra = footnotes(result)
        text, action = (text + extra, "flagged") if extra else (text, action)
    return result.model_copy(update={"text": text, "action_taken": action, "action_reason": reason})


async def apply_policy(result: GuardResult, reviser: Reviser | None, recheck: Recheck | None = None,
                       fallback: Fallback = "flag") -> GuardResult:
    """``result`` with ``text`` and ``action_taken`` set from its policy, as the module docstring says."""
    if must_block(result) or not (result.policy == "rewrite" and refuted(result.claims)):
        return apply_policy_unrevised(result)
    if reviser is None:
        return not_revised(result, fallback, "no reviser", note="The answer could not be revised: no reviser.")
    try:
        revised = (await reviser(result.original_text, refuted(result.claims))).strip()
    except (FactDebateError, OSError, ValueError) as exc:
        return not_revised(result, fallback, f"{type(exc).__name__}: {exc}")
    if not revised:
        return not_revised(result, fallback, "the reviser returned no text")
    if json_answer(result) and (problem := json_revision_problem(result.original_text, revised)) is not None:
        return not_revised(result, fallback, problem)
    if recheck is None:
        return not_revised(result, fallback, "the revision could not be checked again: no check was given for it")
    try:
        again = await recheck(revised, refuted(result.claims))
    except (FactDebateError, OSError, ValueError) as exc:
        return not_revised(result, fallback, f"the revision's check failed: {type(exc).__name__}: {exc}")
    problem = revision_problem(again)
    if problem is not None:
        return not_revised(result, fallback, problem, revision=again)
    return result.model_copy(update={"text": revised, "action_taken": "rewritten", "revision_claims": again.claims})


def revise_instruction(claims: list[GuardClaim]) -> str:
    """What the model is told when its answer is sent back: each claim a check found false, with the passage
    that says otherwise and the checker's corrected sentence, that those passages are data and not
    instructions (prompts/evidence_is_data.j2), and the rules of the revision."""
    lines = ["A fact check of your last answer found statements in it that the evidence contradicts:", ""]
    for number, claim in enumerate(claims, 1):
        lines.append(f"{number}. You wrote: \"{claim.claim}\"")
        for item in claim.evidence[:2]:
            where = f" ({item.url})" if item.url else ""
            lines.append(f"   Evidence from {item.title or 'a source'}{where}: \"{item.quote}\"")
        if claim.correction is not None:
            lines.append(f"   A corrected statement: \"{claim.correction.text}\"")
    # The quotes are from passages anyone may have written: the same rule as every checking prompt's.
    lines += ["", render("evidence_is_data").text,
              "", "Write your answer again for the same reader. Correct or remove each statement listed above "
              "so that it agrees with the evidence; keep everything else as it was, in the same language, tone "
              "and format. Reply with the revised answer only, without mentioning this check."]
    return "\n".join(lines)


def asking(chat: Callable[[list[dict[str, str]]], Awaitable[str]]) -> Reviser:
    """The reviser that asks the model which wrote the answer (a host's ``author``): its answer, then
    :func:`revise_instruction`."""

    async def revise(answer: str, claims: list[GuardClaim]) -> str:
        return await chat([{"role": "assistant", "content": answer},
                           {"role": "user", "content": revise_instruction(claims)}])

    return revise


def revision_problem(again: GuardResult) -> str | None:
    """Why a revision may not be sent (it states something refuted, or was not checked whole), or None."""
    if wrong := refuted(again.claims):
        return "the revision still states what the evidence contradicts: " + "; ".join(_quoted(c) for c in wrong)
    if again.degraded:
        return f"the revision could not be checked ({again.degraded_reason})"
    if missing := unchecked(again.claims):
        return "parts of the revision could not be checked: " + "; ".join(
            f"{_quoted(c)} ({c.reason or c.status})" for c in missing)
    return None


def not_revised(result: GuardResult, fallback: Fallback, why: str, *, note: str | None = None,
                revision: GuardResult | None = None) -> GuardResult:
    """A rewrite that sends no revision: the original with the footnote (``flag``) or a refusal (``block``)."""
    claims = revision.claims if revision is not None else []
    if fallback == "block":
        return result.model_copy(update={"text": refused_text(result), "action_taken": "blocked",
                                         "revision_claims": claims,
                                         "action_reason": f"rewrite fell back to block: {why}"})
    # the reviser (the upstream model) or the check of its revision: either server may be the one that failed
    why_read = for_reader(why, "a service it needs is not available right now")
    text = result.original_text + footnotes(result, note or f"The answer could not be revised ({why_read}).")
    if json_answer(result):
        text = result.original_text  # flagged in action_taken alone, as under flag: a footnote is no JSON
    return result.model_copy(update={"text": text, "action_taken": "flagged", "revision_claims": claims,
                                     "action_reason": f"rewrite fell back to flag: {why}"})


def recheck_options(options: ResolvedGuardOptions, claims: list[GuardClaim]) -> ResolvedGuardOptions:
    """The options a revision is checked again with: annotated only, at the highest tier that refuted it."""
    tiers = [c.tier for c in claims if c.tier is not None] or [options.tier]
    tier = max(tiers, key=TIERS.index)
    return options.model_copy(update={"tier": tier, "max_tier": tier, "policy": "annotate", "on_unchecked": "pass"})


def no_text_result(options: ResolvedGuardOptions, passed: list[str], *, called: bool) -> GuardResult:
    """The result of a reply with no text to check: a tool call alone (``called``) is passed through; anything
    else (``content: 12345``, only images, empty) is ``degraded``."""
    result = GuardResult(passed_through=passed, policy=options.policy, on_unchecked=options.on_unchecked,
                         answer_format=options.answer_format,
                         tier=options.tier, deadline_s=options.deadline_s, degraded=not called,
                         degraded_reason=None if called else NO_TEXT)
    return apply_policy_unrevised(result)


_NOT_JSON = object()


def _parsed(text: str) -> object:
    """``text`` parsed as JSON, or :data:`_NOT_JSON`."""
    try:
        return json.loads(text)
    except (ValueError, RecursionError):  # RecursionError: nested past the parser, no JSON a client could read
        return _NOT_JSON


def json_revision_problem(original: str, revised: str) -> str | None:
    """Why the revision of a JSON answer may not be sent (it is not JSON, or not of the answer's shape), or None.
    The caller's schema is the upstream's to hold; the answer as the upstream wrote it met it, and a revision of the
    same shape (:func:`same_shape`) meets all of it but the rules on the values themselves."""
    value = _parsed(revised)
    if value is _NOT_JSON:
        return "the revision is not JSON, which the answer was asked to be"
    before = _parsed(original)
    try:
        kept = before is _NOT_JSON or same_shape(before, value)
    except RecursionError:  # nested deeper than the comparison goes: not sent, as nothing vouches for it
        kept = False
    if not kept:
        return ("the revision does not keep the answer's shape (its keys and the kinds of their values), which "
                "the caller's parse or schema expects")
    return None


def _kind(value: object) -> str:
    """A JSON value's kind: ``object``, ``array``, ``string``, ``number`` (an int and a float alike),
    ``boolean`` or ``null``."""
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int | float):
        return "number"
    if isinstance(value, dict):
        return "object"
    if isinstance(value, list):
        return "array"
    return "string" if isinstance(value, str) else "null"


def same_shape(before: object, after: object) -> bool:
    """Whether ``after`` is a JSON value of ``before``'s shape: an object with the same keys, each value of its
    shape; an array whose items are each of the shape of one of ``before``'s (an item may be added or removed: a
    list of facts loses the false one); any other value of the same kind."""
    if _kind(before) != _kind(after):
        return False
    if isinstance(before, dict) and isinstance(after, dict):
        return before.keys() == after.keys() and all(same_shape(before[k], after[k]) for k in before)
    if isinstance(before, list) and isinstance(after, list) and before:
        return all(any(same_shape(was, item) for was in before) for item in after)
    return True


def _plain(result: GuardResult) -> ActionTaken:
    """annotate (or a policy with nothing to act on): the verdicts are beside the unchanged reply."""
    return "annotated" if result.claims or result.degraded else "none"
