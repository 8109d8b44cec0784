"""factdebate: check claims by letting LLM agents debate with evidence they retrieve themselves."""

from __future__ import annotations

from factdebate.types import Document, JudgeDecision, Label, Round, Turn, Usage, Verdict

__all__ = ["Document", "JudgeDecision", "Label", "Round", "Turn", "Usage", "Verdict"]
__version__ = "0.1.0"
