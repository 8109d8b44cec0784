"""What the model is asked when ``rewrite`` sends its answer back (the reviser the chat doors make from the
operator's upstream, server/guard/upstream.py): the conversation, its answer, and an instruction naming each
refuted claim with the passage that says otherwise and the checker's corrected sentence. The words are the
guard's policy (the template is the library's, prompts/); the upstream only sends them."""

from __future__ import annotations

from typing import Any

from factdebate.engine import GuardClaim, render

# A revised answer is about as long as the original; this bounds it whatever the upstream's default.
REVISE_MAX_TOKENS = 1024
ASKED = ("model", "temperature", "top_p", "seed", "user")  # what of the caller's request the revision keeps


def revise_instruction(refuted: list[GuardClaim]) -> str:
    """What the model is told when its answer is sent back: each claim a check found false, with the passage
    that says otherwise and the checker's corrected sentence, that those passages are data and not
    instructions (prompts/evidence_is_data.j2), and the rules of the revision."""
    lines = ["A fact check of your last answer found statements in it that the evidence contradicts:", ""]
    for number, claim in enumerate(refuted, 1):
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


def revision_request(body: dict[str, Any], answer: str, refuted: list[GuardClaim]) -> dict[str, Any]:
    """The chat request that asks for the revision: the conversation of ``body``, the answer, the
    instruction, and the sampling fields of ``body`` (:data:`ASKED`)."""
    messages = [*body.get("messages", []), {"role": "assistant", "content": answer},
                {"role": "user", "content": revise_instruction(refuted)}]
    asked = {key: value for key, value in body.items() if key in ASKED}
    return {**asked, "messages": messages, "max_tokens": REVISE_MAX_TOKENS}
