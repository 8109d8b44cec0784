"""The page's paired view of two results files (static/paired.js), run under Node as the module the page
imports (skipped without Node): the same hand-worked figures as tests/eval/compare/test_compare.py."""

from __future__ import annotations

import pytest

from tests.server.page.test_page_scripts import NODE, run_module

pytestmark = pytest.mark.skipif(NODE is None, reason="no Node.js to run the page's scripts")
S, R = "SUPPORTS", "REFUTES"
GOLD = [S] * 5 + [R] * 5
A = [S, S, S, S, R, R, R, R, S, None]
B = [S, R, R, S, R, R, "error", S, S, R]


def rows(answers: list[str | None]) -> list[dict[str, object]]:
    out: list[dict[str, object]] = []
    for i, (gold, answer) in enumerate(zip(GOLD, answers, strict=True)):
        row: dict[str, object] = {"id": f"s{i}", "gold": gold, "claim": f"Claim {i}"}
        row.update({"error": "timed out", "predicted": None} if answer == "error" else {"predicted": answer})
        out.append(row)
    return out


def test_pairs_match_the_hand_computation() -> None:
    expression = """(() => {
      const a = m.pairedRun("a", data.a), b = m.pairedRun("b", data.b);
      const ids = m.sharedIds([a, b]);
      const oa = ids.map(id => a.outcomes.get(id)), ob = ids.map(id => b.outcomes.get(id));
      const delta = oa.map((o, k) => Number(o.correct) - Number(ob[k].correct));
      return {n: ids.length, right: [oa.filter(o => o.correct).length, ob.filter(o => o.correct).length],
              onlyA: delta.filter(d => d === 1).length, onlyB: delta.filter(d => d === -1).length,
              answers: [oa[9].answer, ob[6].answer],
              p: m.mcnemarExact(4, 1), kappa: m.cohenKappa(oa.map(o => o.answer), ob.map(o => o.answer)),
              big: m.mcnemarExact(0, 2000), flat: m.pairedInterval([1, 1, 1]), same: m.pairedInterval([0, 0]),
              again: m.pairedInterval(delta, 1000, 0).join() === m.pairedInterval(delta, 1000, 0).join(),
              undefinedKappa: m.cohenKappa(["S", "S"], ["S", "S"])};
    })()"""
    got = run_module("paired.js", expression, {"a": rows(A), "b": rows(B)})
    assert got["n"] == 10 and got["right"] == [7, 4] and (got["onlyA"], got["onlyB"]) == (4, 1)
    assert got["answers"] == ["UNPARSED", "ERROR"]
    assert got["p"] == pytest.approx(12 / 32) and got["kappa"] == pytest.approx(1 / 6)
    assert got["big"] == 0.0  # 2 * 2^-2000: no overflow, no NaN
    assert got["flat"] == [1, 1] and got["same"] == [0, 0] and got["again"] is True
    assert got["undefinedKappa"] is None
