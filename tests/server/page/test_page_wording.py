"""The page's sentences and alignment, run under Node as the ES modules the page imports (skipped without
Node): why a verdict or a round came out as it did (why.js), where a claim the extractor reworded sits in the
answer (response/locate.js), a retry's line (who in words, why with one full stop, the seconds counted down)
and a trace row's count of steps."""

from __future__ import annotations

import json
from typing import Any

from tests.readiness import run
from tests.server.page.test_page_scripts import NODE, STATIC, pytestmark, run_module  # noqa: F401

THRESHOLDS = {"faithfulness": 0.7, "answer_relevance": 0.8}


def turn(agent: str, label: str | None, **scores: float | None) -> dict[str, Any]:
    return {"agent": agent, "label": label, "scores": scores}


def why(verdict: dict[str, Any]) -> str:
    return run_module("why.js", "m.verdictSentence(data.v, data.t)", {"v": verdict, "t": THRESHOLDS})


def round_sentence(consensus: bool, answers: list[dict[str, Any]]) -> str:
    return run_module("why.js", "m.roundSentence(data)", {"round": "Round 2 of 3", "consensus": consensus,
                                                            "answers": answers, "thresholds": THRESHOLDS})


def test_agreeing_agents_held_back_by_a_score_are_told_apart_from_a_split() -> None:
    agreed = [turn("rag", "REFUTES", faithfulness=0.9, answer_relevance=0.62),
              turn("search", "REFUTES", faithfulness=0.8, answer_relevance=0.85)]
    assert round_sentence(False, agreed) == \
        "Round 2 of 3: both said REFUTES, but rag's answer relevance 0.62 was under 0.8, so no consensus"
    split = [turn("rag", "SUPPORTS"), turn("search", "REFUTES")]
    assert round_sentence(False, split) == "Round 2 of 3: rag said SUPPORTS, search REFUTES, no consensus"
    assert round_sentence(True, split[:1] * 2) == "Round 2 of 3: both said SUPPORTS, agreed"
    # Agreeing answers without scores (a vote's) never sought consensus: nothing "failed".
    assert round_sentence(False, [turn("v1", "SUPPORTS"), turn("v2", "SUPPORTS")]) == "Round 2 of 3: both said SUPPORTS"
    # A lone answer is no consensus of anything: it is said as it is.
    assert round_sentence(False, [turn("cot", "SUPPORTS")]) == "Round 2 of 3: cot said SUPPORTS"


def test_a_judges_verdict_says_why_the_agents_did_not_settle_it() -> None:
    rounds = [{"round": 1, "turns": [turn("rag", "SUPPORTS"), turn("search", "REFUTES")]},
              {"round": 2, "turns": [turn("rag", "REFUTES", faithfulness=0.4, answer_relevance=0.9),
                                     turn("search", "REFUTES", faithfulness=None, answer_relevance=0.9)]}]
    verdict = {"label": "REFUTES", "decided_by": "judge", "rounds": rounds}
    assert why(verdict) == ("Both said REFUTES in the last round, but rag's faithfulness 0.40 was under 0.7 and "
                            "search's faithfulness could not be computed, so the judge decided: REFUTES.")
    rounds[1]["turns"][1]["label"] = "SUPPORTS"
    assert why(verdict) == ("The agents did not agree within 2 rounds (last round: rag said REFUTES, search "
                            "SUPPORTS), so the judge decided: REFUTES.")


def test_votes_and_panels_are_counted_in_words_with_the_formula_left_to_fold() -> None:
    voters = [turn(f"v{i}", "SUPPORTS" if i < 17 else "REFUTES" if i < 25 else None) for i in range(29)]
    assert why({"label": "SUPPORTS", "decided_by": "vote", "rounds": [{"round": 1, "turns": voters}]}) == \
        "17 of 29 voters said SUPPORTS (8 REFUTES, 4 no label): the most frequent label wins."
    judges = [{"vote": "SUPPORTS"}, {"vote": "REFUTES"}, {"vote": None}]
    tie = {"label": "REFUTES", "decided_by": "panel", "rounds": [{"round": 1, "turns": []}], "judges": judges,
           "consensus": 0.0, "explanation": "round 1 (affirmative trust): panel: W_A 0.00, W_N 0.00, W_T 0.00 -> tie"}
    assert why(tie) == ("The 3 referees of round 1 voted 1 SUPPORTS, 1 REFUTES, 1 no readable vote; "
                        "every referee's confidence was 0, so every weighted total was 0: a tie (agreement 0.00), "
                        "and the claim gets the tie label REFUTES.")
    won = {**tie, "label": "SUPPORTS", "judges": judges[:1] * 3, "consensus": 0.9, "explanation": ""}
    assert why(won) == ("The 3 referees of round 1 voted 3 SUPPORTS; weighted by confidence (agreement 0.90), "
                        "SUPPORTS wins.")
    assert why({"label": "SUPPORTS", "decided_by": "single", "rounds": []}) is None  # its wording says it all


def locate_all(text: str, claims: list[str]) -> list[Any]:
    expression = ("data.claims.map(c => m.locate(data.text, c, []) ? ['exact'] : "
                  "((s) => s ? [data.text.slice(s.start, s.end)] : null)(m.align(data.text, c, [])))")
    return run_module("response/locate.js", expression, {"text": text, "claims": claims})


def test_a_reworded_claim_is_aligned_to_its_sentence() -> None:
    text = "The Eiffel Tower is a landmark in Paris. It stands in Berlin! Cats sleep a lot."
    assert locate_all(text, ["The Eiffel Tower is a landmark in Paris.", "The Eiffel Tower stands in Berlin.",
                             "Dogs bark at night.", "Cats sleep most of the day."]) == \
        [["exact"], ["It stands in Berlin!"], None, ["Cats sleep a lot."]]


def test_an_answer_written_as_a_json_action_reads_as_words() -> None:
    replies = ['{"thought": "The tower is in Paris.", "action": "finish", "answer": "SUPPORTS"}',
               "Plain words.\nSUPPORTS", '{"tool": "search"}', "{not json"]
    assert run_module("answer-text.js", "data.map(m.readable)", replies) == [
        "SUPPORTS\nThe tower is in Paris.", "Plain words.\nSUPPORTS", '{"tool": "search"}', "{not json"]


RETRY = {"agent": "rag", "role": "scorer", "prompt": "faithfulness_statements", "attempt": 2,
         "error": "APIConnectionError: Connection error.", "delay": 4.0}


def test_a_retry_speaks_words_and_counts_down() -> None:
    lines = run_module("progress.js", "[4, 2.2, 0.4, 0].map(s => m.retryText(data, s))", RETRY)
    why = "The model did not answer rag: APIConnectionError: Connection error."
    assert lines == [[why, " Try 3 in 4 s…"], [why, " Try 3 in 3 s…"], [why, " Try 3 in 1 s…"], [why, " Try 3 now…"]]
    assert "faithfulness_statements" not in str(lines) and ".." not in str(lines)
    assert run_module("progress.js", "m.caller(data)", {"role": "judge", "prompt": "judge:reask"}) == "the judge"


def test_a_trace_row_counts_its_steps_as_its_replay_does() -> None:
    """A MERMAID trace with one step: its row in the results table says "after 1 step", as the replay does
    (it said "after 0 steps": the row had no rounds to count them in)."""
    events = [{"event": "run_started", "run": "a", "claim": "A", "method": "mermaid", "t": 1},
              {"event": "step", "run": "a", "agent": "executor", "round": 1, "index": 1, "t": 2},
              {"event": "run_finished", "run": "a", "label": "SUPPORTS", "decided_by": "executor", "t": 3}]
    view = {"decisions": {"executor": "the executor's answer after {steps}"}}
    # views.js reads the page's saved state when imported: a store that holds nothing stands in for it.
    script = ("globalThis.localStorage = {getItem: () => null, setItem() {}, removeItem() {}};\n"
              f"const replay = await import({json.dumps((STATIC / 'replay.js').as_uri())});\n"
              f"const views = await import({json.dumps((STATIC / 'views.js').as_uri())});\n"
              f"const data = {json.dumps({'view': view, 'events': events})};\n"
              "process.stdout.write(JSON.stringify(views.describe(data.view, replay.runs(data.events)[0])));\n")
    done = run([str(NODE), "--input-type=module", "-e", script], what="node on views.js")
    assert done.returncode == 0, done.stderr
    said = json.loads(done.stdout)
    assert said == "the executor's answer after 1 step"
