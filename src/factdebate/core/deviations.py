"""Where a run differs from the paper its method comes from.

A method lists its deviations for given settings (``Method.paper_deviations``), stamped on every verdict and
written into ``run.json``: a fact about the settings, so the same settings give the same list. One is about the
claim's own searches, recorded per verdict: ``rag_full_text`` (tools/retrieval_record.py)."""

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
