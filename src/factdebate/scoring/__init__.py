"""Answer scores for Tool-MAD: faithfulness and answer relevance (the "stability score") and the earlier
draft's consistency score. A score that cannot be computed is ``None`` with a reason, never a silent 0."""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass
class ScoreResult:
    value: float | None
    error: str | None = None
    details: dict[str, object] = field(default_factory=dict)
