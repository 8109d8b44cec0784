"""DPD's own trace event, registered with the method (``DPD.events``): the judge panel's tally per round."""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from factdebate.core.events import BaseEvent


class PanelDecided(BaseEvent):
    """A judge panel's weighted tally (DPD): the totals per outcome, the winner and the consensus."""

    event: Literal["panel"] = "panel"
    round: int
    totals: dict[str, float] = Field(default_factory=dict)  # affirmative, negative, tie
    outcome: str | None = None  # affirmative | negative | tie; None: no judge could be read
    consensus: float | None = None
    judges: int = 0
    unparsed: int = 0
    stop: bool = False  # the debate ends with this decision

    def summary(self) -> str:
        totals = self.totals
        return (f"panel: W_A {totals.get('affirmative', 0):.2f}, W_N {totals.get('negative', 0):.2f}, "
                f"W_T {totals.get('tie', 0):.2f} -> {self.outcome or 'no readable ballot'}"
                + (f", consensus {self.consensus:.2f}" if self.consensus is not None else "")
                + (" (stop)" if self.stop else ""))
