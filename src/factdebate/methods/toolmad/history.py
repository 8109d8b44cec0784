"""How Tool-MAD's judge reads the debate: per round and agent the query, the evidence and the answer, and
each agent's mean scores."""

from __future__ import annotations

from factdebate.core.types import Round


def _mean_or_none(values: list[float | None]) -> float | None:
    present = [v for v in values if v is not None]
    return sum(present) / len(present) if present else None


def _fmt(value: float | None) -> str:
    return "n/a" if value is None else f"{value:.2f}"


def score_summary(index: int, rounds: list[Round], variant: str) -> str:
    turns = [rnd.turns[index] for rnd in rounds]
    if variant == "consistency":
        return f"consistency {_fmt(_mean_or_none([t.consistency for t in turns]))}"
    faith = _mean_or_none([t.faithfulness for t in turns])
    relevance = _mean_or_none([t.answer_relevance for t in turns])
    return f"faithfulness {_fmt(faith)}, answer relevance {_fmt(relevance)}"


def format_history(rounds: list[Round], descriptions: list[str], evidence_chars: int) -> str:
    """The debate as the judge reads it: per round and agent, the query, the evidence and the answer."""
    parts: list[str] = []
    for rnd in rounds:
        parts.append(f"Round {rnd.round}:")
        for desc, turn in zip(descriptions, rnd.turns, strict=True):
            parts.append(f"- {desc}" + (f", query [{turn.query}]" if turn.query else ""))
            for doc in turn.evidence:
                snippet = doc.text[:evidence_chars].replace("\n", " ")
                parts.append(f"  evidence: {doc.title}" + (f": {snippet}" if snippet else ""))
            parts.append("  answer: " + turn.response.strip().replace("\n", " "))
    return "\n".join(parts)
