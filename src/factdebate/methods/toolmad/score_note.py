"""The note a debater reads after a round that ended in agreement while one of its own scores fell short.

The papers do not mention it; the authors' code settles it: the next debate prompt of that agent says which
of its scores was low and why that matters. Here each agent is told about its own scores alone, whatever the
other agents' scores were (the code skips the search agent's note when the RAG agent's scores are low too,
which reads as a slip, not a design). The scores are the round's own, tested as the stop test tests them
(``threshold_pass``); a score that could not be computed is not called low.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from factdebate.core.types import Turn

if TYPE_CHECKING:
    from factdebate.methods.toolmad.settings import ToolMADSettings

WHY = {"faithfulness": "part of what you wrote was not backed by the documents you retrieved",
       "answer relevance": "your answer strayed from the claim"}


def agreed(turns: list[Turn]) -> bool:
    """Every agent gave the same readable label."""
    labels = {turn.label for turn in turns}
    return None not in labels and len(labels) == 1


def passes(score: float, threshold: float, cfg: ToolMADSettings) -> bool:
    """A score clears its threshold: strictly above it by default (Algorithm 1's ``S > St``; the authors'
    code fails a score at or under it), or at it too with ``threshold_pass: at_least``. Here, beside the note
    that reads it, so the debate imports this module and not the other way round."""
    return score >= threshold if cfg.threshold_pass == "at_least" else score > threshold


def note_applies(cfg: ToolMADSettings) -> bool:
    return cfg.score_note and cfg.scoring and cfg.scoring_variant == "stability"


def low_scores(turn: Turn, has_tool: bool, cfg: ToolMADSettings) -> list[dict[str, str]]:
    """The scores of ``turn`` that did not clear their thresholds, each with its value, what it needed and why
    it matters; empty when none fell short."""
    need = "at least" if cfg.threshold_pass == "at_least" else "above"
    checked = [("answer relevance", turn.answer_relevance, cfg.relevance_threshold)]
    if has_tool:
        checked.insert(0, ("faithfulness", turn.faithfulness, cfg.faithfulness_threshold))
    return [{"score": name, "value": f"{value:.2f}", "needed": f"{need} {threshold:g}", "why": WHY[name]}
            for name, value, threshold in checked if value is not None and not passes(value, threshold, cfg)]


def score_note(previous: list[Turn] | None, index: int, has_tool: bool, cfg: ToolMADSettings) -> list[dict[str, str]]:
    """What agent ``index`` is told in its next prompt: its low scores, when the previous round ended in
    agreement; nothing otherwise (or with ``score_note`` off)."""
    if previous is None or not note_applies(cfg) or not agreed(previous):
        return []
    return low_scores(previous[index], has_tool, cfg)
