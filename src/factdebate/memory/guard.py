"""The no-leak rule: memory holds retrieved evidence only, never a label or a verdict.

Otherwise an evaluation would pass answers between claims; the checks run on every update."""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from typing import Any

from factdebate.util.errors import InputError

# Fields that carry an answer, not evidence; an update that names one is refused outright.
ANSWER_FIELDS = frozenset({"label", "gold", "gold_label", "verdict", "answer", "prediction", "predicted",
                           "decided_by", "reasons", "rationale"})
# Steps of a trajectory that are not retrieval (the answer, the forced answer, the judge...).
NON_EVIDENCE_TOOLS = frozenset({"answer", "final_answer", "forced_answer", "force_answer", "verdict", "judge",
                                "label", "decomposer", "memory"})
_LABEL_TEXTS = frozenset({"supports", "supported", "refutes", "refuted", "not enough info", "nei", "true",
                          "false", "yes", "no", "mixed", "half true", "mostly true", "mostly false",
                          "pants on fire", "conflicting evidence cherrypicking", "unverifiable"})
_VERDICT_LINE = re.compile(
    r"^\W*(final\s+|gold\s+|predicted\s+)?(answer|verdict|label|prediction)\s*[:=]", re.IGNORECASE)


class MemoryLeakError(InputError):
    """An update tried to store a label or a verdict as evidence."""


def check_fields(item: Mapping[str, Any]) -> None:
    found = sorted(ANSWER_FIELDS & {str(k).lower() for k in item})
    if found:
        raise MemoryLeakError(f"evidence memory stores evidence only; refusing the field(s) {', '.join(found)}")


def leak_reason(text: str, tool: str) -> str | None:
    """Why ``text`` (from ``tool``) must not be stored (a label, or no retrieval tool); ``None`` for evidence."""
    if tool.strip().lower() in NON_EVIDENCE_TOOLS:
        return f"'{tool}' is not a retrieval tool: its output is an answer, not evidence"
    bare = " ".join(re.sub(r"[^\w\s]", " ", text.casefold()).split())
    if bare in _LABEL_TEXTS:
        return f"the evidence text is a bare label ({text.strip()[:40]!r}); labels are never stored"
    if _VERDICT_LINE.match(text):
        return "the evidence text states an answer, verdict or label; only evidence is stored"
    stripped = text.strip()
    if stripped.startswith("{"):
        try:
            parsed = json.loads(stripped)
        except ValueError:
            return None
        except RecursionError:  # a page nested past the parser: whether it names an answer cannot be read
            return "the evidence text nests JSON too deeply to be checked for an answer; it is not stored"
        if isinstance(parsed, dict):
            found = sorted(ANSWER_FIELDS & {str(k).lower() for k in parsed})
            if found:
                return f"evidence memory stores evidence only; refusing the field(s) {', '.join(found)}"
    return None


def check_evidence(text: str, tool: str) -> None:
    """Raise :class:`MemoryLeakError` when ``text`` is (or announces) a label, or ``tool`` is not retrieval."""
    reason = leak_reason(text, tool)
    if reason is not None:
        raise MemoryLeakError(reason)
