"""Evidence that talks to the model: a small, pattern-based detector of instructions addressed to an AI.

:func:`instruction_to_model` finds phrases aimed at the reader of a passage ("Ignore previous instructions",
"answer SUPPORTS", "system prompt", "Dear AI", chat-format markers such as ``[INST]``); the guard marks the
passage's evidence with them (``injection``), and every prompt that shows evidence says it is data, not
instructions. The rule only marks: a pattern can match an article *about* prompt injection, and a verdict is
never decided by a regular expression."""

from __future__ import annotations

import re

_AI = r"(?:AI|assistant|chatbot|language\s+model|LLM|fact[- ]?checker|GPT)s?"
_ANSWER = r"(?:answer|reply|respond|output|label|classify|conclude|judge|rate)"
_LABEL = r"(?-i:SUPPORTS|REFUTES|NOT\s+ENOUGH\s+INFO)"  # factdebate's labels, in capitals only

PATTERNS: tuple[re.Pattern[str], ...] = tuple(re.compile(p, re.IGNORECASE) for p in (
    # "Ignore previous instructions", "disregard all the rules above", "forget your prompt"
    r"\b(?:ignore|disregard|forget|override|bypass)\s+(?:(?:the|of|these|those|any)\s+)*"
    r"(?:all|previous|prior|above|earlier|preceding|foregoing|original|system|your)\s+(?:(?:the|of|previous|prior|"
    r"above|earlier|other)\s+)*(?:instructions?|prompts?|rules|directions|guidelines|commands)\b",
    r"\b(?:new|updated|real|actual|hidden|secret)\s+instructions?\s*:",
    # "You must answer", "you are instructed to reply"
    r"\byou\s+(?:must|should|shall|have\s+to|need\s+to|are\s+(?:required|instructed|told)\s+to)\s+"
    r"(?:now\s+|only\s+|always\s+)?" + _ANSWER + r"\b",
    # "answer SUPPORTS", "reply with 'REFUTES'", "label it NOT ENOUGH INFO"
    r"\b" + _ANSWER + r"(?:\s+(?:it|this|the\s+claim|with|only|that))*\s+[\"'“‘]?" + _LABEL + r"\b",
    r"\b(?:system|developer)\s+prompt\b|\bdeveloper\s+message\b",
    # addressing the model: "Dear AI", "note to the assistant", "Assistant: ignore ..."
    r"\b(?:dear|hey|hello|attention|note\s+to(?:\s+the)?|to\s+any)\s+" + _AI + r"\b",
    r"\b" + _AI + r"\s*[:,]\s*(?:you\s+(?:must|should|will|are)|ignore|disregard|forget|answer|reply|respond|"
    r"output|always|never|do\s+not|don't)\b",
    r"\b(?:do\s+not|don't|never)\s+(?:tell|inform|mention\s+(?:this\s+)?to|reveal\s+(?:this\s+)?to)\s+the\s+user\b",
    # chat-format markers no article holds
    r"<\|?\s*(?:im_start|im_end|system|endoftext)\s*\|?>|\[/?INST\]|<</?SYS>>",
))
MAX_PHRASE_CHARS = 120


def instruction_to_model(text: str) -> str | None:
    """The first phrase of ``text`` that reads as an instruction to the model (folded, cut), or None."""
    found = [m for m in (p.search(text) for p in PATTERNS) if m is not None]
    if not found:
        return None
    first = min(found, key=lambda m: m.start())
    return " ".join(first.group().split())[:MAX_PHRASE_CHARS]
