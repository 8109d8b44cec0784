"""Where a run differs from the paper its method comes from.

A method lists its deviations for given settings (``Method.paper_deviations``); the claim runner stamps them
on every verdict, the evaluation harness writes them into ``run.json`` and the summary, and the terminal
prints one line each. A deviation is a fact about the settings a run used, never a guess about its outcome:
the same settings always give the same list, so a reader can compare two runs by it. One is a fact about the
claim's own searches instead, and is recorded per verdict: ``rag_full_text``, a RAG search of the built-in corpus
made on its full-text index while its vectors were still being built (tools/retrieval_record.py).
"""

from __future__ import annotations

from pydantic import BaseModel, Field


class Deviation(BaseModel):
    """One way a run departs from what its paper did."""

    key: str = Field(description="Stable identifier (e.g. 'tools_homogeneous'), for filtering and comparing runs.")
    paper: str = Field(description="What the paper does.")
    here: str = Field(description="What this run does instead.")
    restore: str = Field(default="", description="How to run the paper's way, when that is possible here "
                                                 "(a flag or setting), else empty.")

    def line(self) -> str:
        """One line for a terminal or a summary."""
        return f"{self.here} (paper: {self.paper})" + (f"; paper's way: {self.restore}" if self.restore else "")


def keys(deviations: list[Deviation]) -> list[str]:
    return [deviation.key for deviation in deviations]
