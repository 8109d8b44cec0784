"""What a policy does to a whole (not streamed) OpenAI chat answer: which choices are checked and what of them
passes unchecked, the policy's text in each choice, how a blocked choice ends, the result beside ``choices``,
and the headers that mark it. A streamed answer's are openai_chat/chunks.py's; LiteLLM's answer is
server/guard/litellm.py's."""

from __future__ import annotations

from typing import Any

from factdebate.engine import GuardResult, Label, Reply
from factdebate.server.guard.result_view import CHANGED, json_refusal, result_view

# What the policy did to the first choice and how many of its claims were refuted: for a client that reads headers
# and not the ``factdebate`` object, above all one that asked for JSON, whose text flag leaves as it came.
ACTION_HEADER = "X-Factdebate-Action"
REFUTED_HEADER = "X-Factdebate-Refuted"


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
    by a filter, or ``stop``, an ordinary answer). A refused JSON answer's content is a JSON error object and
    its words are in ``refusal`` too (:func:`json_refusal`)."""
    if result.action_taken in CHANGED and result.text != result.original_text:
        message["content"] = _policy_content(message.get("content"), result)
    if (refusal := json_refusal(result)) is not None:
        message["refusal"] = refusal
    if result.action_taken == "blocked":
        message.pop("tool_calls", None)
        message.pop("function_call", None)
        choice["finish_reason"] = block_finish


def _policy_content(content: Any, result: GuardResult) -> Any:
    """The content the policy leaves in a message: its text; a flagged reply of content parts keeps them, the
    footnote one more text part after them (an image the reply holds is not dropped for the footnote's sake)."""
    if result.action_taken == "flagged" and isinstance(content, list) and result.text.startswith(result.original_text):
        return [*content, {"type": "text", "text": result.text[len(result.original_text):]}]
    return result.text


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


def answer_headers(result: GuardResult) -> dict[str, str]:
    """The headers that mark a whole answer by its first choice's ``result`` (the one beside ``choices``): its
    ``action_taken`` and how many of its claims the check refuted."""
    wrong = sum(1 for claim in result.claims if claim.status == "checked" and claim.label == Label.REFUTES)
    return {ACTION_HEADER: result.action_taken, REFUTED_HEADER: str(wrong)}
