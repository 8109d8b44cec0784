"""How a DPD verdict is drawn (``DPD.view``): two teams of role statements per round, the shared analyst, and
each referee's scores, vote, confidence and weight."""

from __future__ import annotations

from factdebate.methods.dpd.panel import DIMENSIONS, OUTCOME_LABEL
from factdebate.methods.view import RoleView, declare_view

# The dimensions' letters as the ballot stores them (Judgement.scores "affirmative.E"), named for people.
BALLOT = {"E": "Evidence credibility", "C": "Logical consistency", "N": "Language neutrality",
          "P": "Overall persuasiveness"}
assert set(BALLOT) == set(DIMENSIONS)  # the ballot's letters and the view's must not drift apart

VIEW = declare_view(
    layout="teams",
    roles={"gatherer": RoleView(title="Gatherer", statement=True),
           "analyst": RoleView(title="Analyst", statement=True),
           "rebutter": RoleView(title="Rebutter", statement=True),
           "summarizer": RoleView(title="Summarizer", statement=True),
           "judge": RoleView(title="Referee")},
    decisions={"panel": "the referees' confidence-weighted vote · consensus {consensus}",
               "panel-tie": "a tie in the referees' vote · consensus {consensus}"},
    sides={"affirmative": "Affirmative team — the claim is factual",
           "negative": "Negative team — the claim is hallucinated"},
    ballot=BALLOT,
    votes={label.value: outcome for outcome, label in OUTCOME_LABEL.items()},
)
