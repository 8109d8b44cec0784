"""Check-response's input checks (the response and its question), as every door reads them before the
check (:mod:`factdebate.guard_engine.response_check` runs them again)."""

from __future__ import annotations

from factdebate.core.textsafe import checked_input
from factdebate.settings.model import Settings


def validate_response(response: str, settings: Settings) -> str:
    return checked_input(response, what="response", empty="give the text to check",
                         limit=settings.response.max_response_chars, setting="response.max_response_chars")


def validate_question(question: str | None, settings: Settings) -> str | None:
    """The question a response answers, checked as the response is; a blank question is none."""
    if question is None or (isinstance(question, str) and not question.strip()):
        return None
    return checked_input(question, what="question", empty="", limit=settings.response.max_question_chars,
                         setting="response.max_question_chars")


def validate_answer(response: str, question: str | None, settings: Settings) -> tuple[str, str | None]:
    """An answer to check and the question it answers, each checked (:func:`validate_response`,
    :func:`validate_question`)."""
    return validate_response(response, settings), validate_question(question, settings)
