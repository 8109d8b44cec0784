"""What a policy does to a whole (not streamed) OpenAI chat answer, and to LiteLLM's guardrail answer: the wire
formats of the guard's plain doors (the policy is the library's; this module and the routes read,
call and write). Which choices are checked and what of them passes unchecked, the policy's text in each choice, how a
blocked choice ends, which of a result's fields an answer carries, and LiteLLM's action for a set of results.
A streamed answer's are server/guard/chat_chunks.py's."""

from __future__ import annotations

from typing import Any

from factdebate.facade.checking import GuardResult, Reply

# The fields of a result a reply carries; the texts before and after the policy stay in the kept check.
REPLY_EXCLUDE = {"original_text", "text"}
CHANGED = ("flagged", "held", "rewritten", "blocked")  # actions whose text replaces the answer's


def result_view(result: GuardResult) -> dict[str, Any]:
    """A result as an answer carries it beside its text (the chat answer's and stream's ``factdebate`` object,
    LiteLLM's): everything but the two texts."""
    return result.model_dump(mode="json", exclude=REPLY_EXCLUDE)


def answer_replies(answer: dict[str, Any], asked: int) -> list[Reply]:
    """The replies to check in an upstream's chat answer, its ``choices`` cut to the ``asked`` (``n``) in
    place: choices the upstream wrote beyond them are left out, never passed on unchecked, and said in the
    first reply's ``passed``. An answer without choices is one reply without text (degraded, said)."""
    written = answer.get("choices") or []
    answer["choices"] = choices = written[:asked]
    replies = [Reply.of_message(choice.get("message") if isinstance(choice, dict) else None)
               for choice in (choices or [{}])]
    if len(written) > asked:
        replies[0].passed.append(f"choices {asked + 1} to {len(written)}: the upstream model wrote more answers "
                                 f"than asked for (n = {asked}); they were left out, unchecked")
    return replies


def apply_to_message(message: dict[str, Any], choice: dict[str, Any], result: GuardResult,
                     block_finish: str = "content_filter") -> None:
    """The policy's text in the first choice; a blocked reply loses its tool calls too and ends as
    ``block_finish`` (``guard.block_finish_reason``: ``content_filter``, OpenAI's word for an answer withheld
    by a filter, or ``stop``, an ordinary answer)."""
    if result.action_taken in CHANGED:
        message["content"] = result.text
    if result.action_taken == "blocked":
        message.pop("tool_calls", None)
        message.pop("function_call", None)
        choice["finish_reason"] = block_finish


def apply_to_answer(answer: dict[str, Any], results: list[GuardResult], block_finish: str) -> None:
    """Each result's policy in its choice of ``answer`` (cut by :func:`answer_replies`), and the first result
    beside ``choices``. A choice (or message) that is not an object holds nothing the check could read, so
    nothing of it is passed on: it gets the policy's text alone. With several choices, each carries its own
    ``factdebate`` object."""
    choices = answer["choices"]
    for number, result in enumerate(results[:len(choices)]):
        choice = choices[number]
        if not isinstance(choice, dict):
            choices[number] = choice = {"index": number, "finish_reason": "stop"}
        if not isinstance(choice.get("message"), dict):
            choice["message"] = {"role": "assistant", "content": result.text or None}
        apply_to_message(choice["message"], choice, result, block_finish)
        if len(choices) > 1:
            choice["factdebate"] = result_view(result)
    answer["factdebate"] = result_view(results[0])


def litellm_answer(results: list[GuardResult]) -> dict[str, Any]:
    """LiteLLM's generic guardrail answer for its texts' results: ``BLOCKED`` with the refusal as the reason,
    ``GUARDRAIL_INTERVENED`` with the texts the policy left, or ``NONE``; the verdicts beside it."""
    checked = [result_view(r) for r in results]
    blocked = next((r for r in results if r.action_taken == "blocked"), None)
    if blocked is not None:
        return {"action": "BLOCKED", "blocked_reason": blocked.text, "factdebate": checked}
    if any(r.action_taken in CHANGED for r in results):
        return {"action": "GUARDRAIL_INTERVENED", "texts": [r.text for r in results], "factdebate": checked}
    return {"action": "NONE", "factdebate": checked}
