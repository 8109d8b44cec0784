"""How a MERMAID verdict is drawn (``Mermaid.view``): the decomposition and the memory's recall, the executor's
steps as one timeline, then what the memory stored."""

from __future__ import annotations

from factdebate.methods.view import PartView, RoleView, declare_view

VIEW = declare_view(
    layout="timeline",
    rounds=False,
    calls_by_step=True,
    roles={"decomposer": RoleView(title="Decomposer", statement=True, part="decomposition"),
           "executor": RoleView(title="Executor")},
    decisions={"executor": "the executor's answer after {steps}",
               "forced": "the executor's forced answer after {steps} (it ran out of steps)"},
    parts=[
        PartView(event="decomposition", title="Decomposition", rows="triplets",
                 columns=["subject", "relation", "object", "attributes"],
                 lines={"topic": "Topic", "entities": "Memory keys"}),
        PartView(event="memory_recall", title="Memory recalled", rows="hits",
                 columns=["stored_entity", "tool", "source", "text"]),
        PartView(event="memory_write", title="Memory written", rows="records",
                 columns=["entity", "tool", "source", "text"], lines={"added": "New records"}),
    ],
)
