"""benchmarks/toolmad_control_flow.py on three claims: factdebate's Tool-MAD and the replay of
the authors' round structure, asked by one scripted model, make the same calls in every round, search and note
the same agents, and end with the same decider and label; with the code-settled options turned off (a score at
its threshold passing, no note) the comparison sees the difference."""

from __future__ import annotations

from benchmarks.toolmad_control_flow import CLAIMS, compare

PICKED = [s for s in CLAIMS if s.id in ("disagree", "low-then-pass", "at-threshold")]


async def test_the_authors_round_structure_and_ours_agree_on_every_claim() -> None:
    rows = await compare(PICKED)
    assert [r["claim"] for r in rows] == ["disagree", "low-then-pass", "at-threshold"]
    for row in rows:
        assert all(row["same"].values()), row
    by = {r["claim"]: r["factdebate"] for r in rows}
    assert (by["disagree"]["decider"], by["disagree"]["rounds"], by["disagree"]["judge_calls"]) == ("judge", 3, 1)
    assert by["low-then-pass"]["notes"] == [[], ["rag"]] and by["at-threshold"]["notes"] == [[], ["search"]]
    # Round 1: each agent's query-selection call, its answer, two faithfulness calls and one relevance call.
    assert by["at-threshold"]["calls"][0] == {"query": 2, "answer": 2, "faithfulness": 4, "relevance": 2}


async def test_the_comparison_sees_the_options_the_code_settles() -> None:
    [row] = await compare([s for s in PICKED if s.id == "at-threshold"],
                          {"threshold_pass": "at_least", "score_note": False})
    assert row["authors"]["rounds"] == 2 and row["factdebate"]["rounds"] == 1  # 0.7 passes under >=
    assert not row["same"]["rounds"] and not row["same"]["notes"]
