"""The note a debater reads after a round that ended in agreement while one of its own scores fell short.

The authors' code, not the papers, has the agent's next prompt say which of its scores was low; here each agent
is told of its own scores alone, tested as the stop test does. A score that could not be computed is not low."""

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
    """A score clears its threshold: strictly above it (Algorithm 1's ``S > St``), or at it too with
    ``threshold_pass: at_least``."""
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
