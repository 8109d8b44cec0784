"""What the client gets once a reply is checked (``GuardResult.text`` and ``action_taken``).

- ``annotate``: the reply unchanged; the verdicts travel beside it.
- ``flag``: the reply with a footnote list of its refuted claims (with their correction) and the claims
  that could not be checked, when there are any.
- ``rewrite``: the reviser (the face's: the upstream model asked to revise its own answer) gets the refuted
  claims with their evidence and corrections; its answer is what the client gets, the original is kept in
  the result. Without a reviser, or when revising fails, the reply is flagged instead and the footnote says
  why: it is never passed on as if it had been revised.
- ``block``: a refusal naming what was refuted.

Independently, ``on_unchecked: block`` refuses a reply with anything unchecked (or a degraded check, whose
text is unchecked as a whole); ``pass`` lets it through, with the unchecked claims said in the result. A
reply with no text to check that is not a tool call either (``content: 12345``, only image parts, nothing) is
such a degraded check (:func:`no_text_result`).
"""

from __future__ import annotations

from factdebate.core.errors import FactDebateError
from factdebate.core.types import Label
from factdebate.guard.types import ActionTaken, GuardClaim, GuardResult, ResolvedGuardOptions, Reviser

NO_TEXT = "the reply holds no text to check (its content was empty, missing or not text) and makes no tool call"


def refuted(claims: list[GuardClaim]) -> list[GuardClaim]:
    return [c for c in claims if c.status == "checked" and c.label == Label.REFUTES]


def unchecked(claims: list[GuardClaim]) -> list[GuardClaim]:
    return [c for c in claims if c.status != "checked"]


def _quoted(claim: GuardClaim) -> str:
    return f'"{claim.claim}"'


def footnotes(result: GuardResult, note: str | None = None) -> str:
    lines = []
    for claim in refuted(result.claims):
        line = f"- {_quoted(claim)} is contradicted by the evidence"
        if claim.evidence:
            first = claim.evidence[0]
            marked = "; the passage holds an instruction to the model, read as data only" if first.injection else ""
            line += f" ({first.title}: \"{first.quote}\"{marked})"
        if claim.correction is not None:
            line += f". Correction: {claim.correction.text}"
        lines.append(line)
    for claim in unchecked(result.claims):
        lines.append(f"- {_quoted(claim)} could not be checked ({claim.reason or claim.status})")
    if result.degraded:
        lines.append(f"- The answer could not be checked: {result.degraded_reason}")
    if note:
        lines.append(f"- {note}")
    return "\n\n---\nFact check:\n" + "\n".join(lines) if lines else ""


def refusal(result: GuardResult) -> str:
    wrong = refuted(result.claims)
    parts = []
    if wrong:
        parts.append("a fact check found that it says what the evidence contradicts: "
                     + "; ".join(_quoted(c) for c in wrong))
    if result.on_unchecked == "block":
        missing = unchecked(result.claims)
        if result.degraded:
            parts.append(f"it could not be checked ({result.degraded_reason})")
        elif missing:
            parts.append("parts of it could not be checked in time: " + "; ".join(_quoted(c) for c in missing))
    return "This answer was withheld: " + ", and ".join(parts) + "."


def must_block(result: GuardResult) -> bool:
    if result.policy == "block" and refuted(result.claims):
        return True
    return result.on_unchecked == "block" and (result.degraded or bool(unchecked(result.claims)))


def apply_policy_unrevised(result: GuardResult) -> GuardResult:
    """:func:`apply_policy` for a result nothing is revised in (no refuted claim, or no reviser asked): what
    a reply with no text to check gets, decided without waiting on anything."""
    text, action = result.original_text, _plain(result)
    if must_block(result):
        text, action = refusal(result), "blocked"
    elif result.policy == "flag":
        extra = footnotes(result)
        text, action = (text + extra, "flagged") if extra else (text, action)
    return result.model_copy(update={"text": text, "action_taken": action})


async def apply_policy(result: GuardResult, reviser: Reviser | None) -> GuardResult:
    """``result`` with ``text`` and ``action_taken`` set from its policy (``original_text`` untouched)."""
    if must_block(result) or not (result.policy == "rewrite" and refuted(result.claims)):
        return apply_policy_unrevised(result)
    text = result.original_text
    if reviser is None:
        text, action = text + footnotes(result, "The answer could not be revised: no reviser."), "flagged"
    else:
        try:
            revised = (await reviser(result.original_text, refuted(result.claims))).strip()
        except (FactDebateError, OSError, ValueError) as exc:
            revised, why = "", f"{type(exc).__name__}: {exc}"
        else:
            why = "the reviser returned no text"
        if revised:
            text, action = revised, "rewritten"
        else:
            text, action = text + footnotes(result, f"The answer could not be revised ({why})."), "flagged"
    return result.model_copy(update={"text": text, "action_taken": action})


def no_text_result(options: ResolvedGuardOptions, passed: list[str], *, called: bool) -> GuardResult:
    """The result of a reply with no text to check, with the policy applied. A tool (or function) call alone
    (``called``) is a turn with nothing to check: passed through, said in ``passed_through``. Anything else
    without text (``content: 12345``, a choice that is not an object, only image or audio parts, null or
    empty content) is a reply the guard could not read: ``degraded``, said, and ``on_unchecked: block``
    refuses it, as it refuses any text that could not be checked."""
    result = GuardResult(passed_through=passed, policy=options.policy, on_unchecked=options.on_unchecked,
                         tier=options.tier, deadline_s=options.deadline_s, degraded=not called,
                         degraded_reason=None if called else NO_TEXT)
    return apply_policy_unrevised(result)


def _plain(result: GuardResult) -> ActionTaken:
    """annotate (or a policy with nothing to act on): the verdicts are beside the unchanged reply."""
    return "annotated" if result.claims or result.degraded else "none"
