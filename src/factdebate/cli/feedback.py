"""``check-response --feedback FILE``: the refuted claims of a response, written as a note to hand back to the
agent that wrote it (docs/methods/response-level.md, "A check that ends a loop").

Each refuted claim is listed with its sentence, the guard's correction where one is grounded
(guard_engine/correct.py), and up to two quotes; a passage addressed to a model is never quoted. Only refuted
claims are written: a response without one gives an empty file."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from factdebate.core.runtime import RunRecorder, recording
from factdebate.core.types import ClaimCheck, Label, ResponseVerdict, Usage, add_model_usage
from factdebate.guard_engine.citations import cited_texts
from factdebate.guard_engine.correct import correct
from factdebate.guard_engine.evidence import claim_evidence
from factdebate.guard_engine.tiers import documents_read
from factdebate.guard_engine.types import ClaimEvidence
from factdebate.llm.model import LLM
from factdebate.response_level.spans import sentences
from factdebate.util.errors import InputError

QUOTES = 2  # quotes shown a claim: enough to ground a fix, short enough for a prompt
QUOTE_CHARS = 300


@dataclass
class Fix:
    """One refuted claim as the note gives it."""

    claim: str
    sentence: str | None
    correction: str | None = None
    quotes: list[ClaimEvidence] = field(default_factory=list)


def refuted(verdict: ResponseVerdict) -> list[ClaimCheck]:
    return [check for check in verdict.claims if check.label == Label.REFUTES and not check.error]


def evidence_of(check: ClaimCheck) -> list[ClaimEvidence]:
    """The passages the claim's check read (cited first), each with its sentence closest to the claim."""
    if check.verdict is None:
        return []
    read = documents_read(check.verdict)
    cited = cited_texts(check.verdict, read)
    ordered = [d for d in read if d.text in cited] + [d for d in read if d.text not in cited]
    return [e for e in claim_evidence(check.claim, ordered, most=QUOTES + 1, cited=cited) if e.injection is None]


def _sentence(response: str, check: ClaimCheck) -> str | None:
    """The sentence of ``response`` the claim was read from, when its place is known."""
    if check.span is None:
        return None
    for start, end in sentences(response):
        if start <= check.span.start < end:
            return response[start:end].strip()
    return response[check.span.start:check.span.end].strip() or None


async def fixes(verdict: ResponseVerdict, llm: LLM | None) -> list[Fix]:
    """Every refuted claim of ``verdict`` with its quotes and, with ``llm``, a grounded correction."""
    out: list[Fix] = []
    for check in refuted(verdict):
        evidence = evidence_of(check)
        fix = Fix(claim=check.claim, sentence=_sentence(verdict.response, check), quotes=evidence[:QUOTES])
        if llm is not None and evidence:
            made, _ = await correct(check.claim, evidence[0], llm)
            fix.correction = made.text if made is not None else None
        out.append(fix)
    return out


async def counted_fixes(verdict: ResponseVerdict, llm: LLM | None) -> list[Fix]:
    """:func:`fixes`, with the corrections' model calls added to ``verdict``'s usage (role ``corrector``)."""
    recorder = RunRecorder()
    with recording(recorder):
        found = await fixes(verdict, llm)
    for role, usage in recorder.usage_by_role.items():  # made after the check: its seconds add to the wall
        verdict.usage_by_role.setdefault(role, Usage()).add(usage)
        verdict.usage.add(usage)
    add_model_usage(verdict.usage_by_model, recorder.usage_by_model)
    return found


def _quote(evidence: ClaimEvidence) -> str:
    text = " ".join(evidence.quote.split())
    text = text if len(text) <= QUOTE_CHARS else text[:QUOTE_CHARS - 1].rstrip() + "…"
    where = ", ".join(part for part in (evidence.title, evidence.url) if part)
    return f'"{text}"' + (f" ({where})" if where else "")


def note(found: Sequence[Fix]) -> str:
    """The text handed back to the agent; empty when nothing was refuted."""
    if not found:
        return ""
    lines = [f"A fact check found {len(found)} claim(s) in your answer false. Correct each one and keep the rest "
             "of the answer as it is.", ""]
    for number, fix in enumerate(found, start=1):
        lines.append(f'{number}. False: "{fix.claim}"')
        if fix.sentence and fix.sentence != fix.claim:
            lines.append(f'   In the sentence: "{fix.sentence}"')
        if fix.correction:
            lines.append(f"   Correction: {fix.correction}")
        lines += [f"   Evidence: {_quote(e)}" for e in fix.quotes]
    return "\n".join(lines) + "\n"


def clear(path: Path) -> None:
    """Empty the feedback file before the check, so a failed check never leaves the last run's note."""
    write(path, "")


def write(path: Path, text: str) -> None:
    try:
        path.write_text(text, encoding="utf-8")
    except OSError as exc:
        raise InputError(f"--feedback {path}: cannot write it ({exc.strerror or exc})") from None
