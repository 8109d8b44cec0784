"""The verdict schema: every method's output validates against the published JSON Schema, and results
written before schema 2 (one judge, score fields, vote/MAD/ReAct's bent shapes) still load."""

from __future__ import annotations

import json
import subprocess
import sys

import jsonschema
import pytest

from factdebate.core.schema import upgrade
from factdebate.core.types import SCHEMA_VERSION, Label, Verdict
from factdebate.run.claim import run_claim
from tests.eval.support import truthful
from tests.helpers import CLAIM, resources_for
from tests.methods.test_call_bounds import probed, reask_everything
from tests.paths import FIXTURES


@pytest.mark.parametrize("method", probed())
@pytest.mark.parametrize("script", [truthful, reask_everything])
async def test_every_method_output_validates_against_the_schema(method: str, script: object) -> None:
    resources, _, _ = resources_for(script, method=method, methods={"vote": {"samples": 3}})  # type: ignore[arg-type]
    verdict = await run_claim(CLAIM, resources.settings, resources)
    jsonschema.validate(json.loads(verdict.model_dump_json()), Verdict.model_json_schema())
    assert verdict.schema_version == SCHEMA_VERSION
    assert (verdict.label is None) == (verdict.decided_by == "unparsed")


def test_the_schema_command_prints_it() -> None:
    out = subprocess.run([sys.executable, "-m", "factdebate.cli.main", "schema"], capture_output=True, text=True,
                         check=True).stdout
    assert json.loads(out) == Verdict.model_json_schema()


TURN_V1 = {"agent": "rag", "tool": "rag", "query": "q", "evidence": [], "response": "r\nSUPPORTS",
           "label": "SUPPORTS", "parse_retries": 0, "faithfulness": 0.9, "answer_relevance": None,
           "consistency": None, "score_errors": ["answer_relevance: no questions"]}


def test_a_tool_mad_record_of_schema_1_loads() -> None:
    old = {"claim": "c", "method": "tool-mad", "label": None, "decided_by": "judge", "gold": "SUPPORTS",
           "rounds": [{"round": 1, "turns": [TURN_V1]}], "judge": {"response": "hmm", "label": None}}
    verdict = Verdict.read(old)
    turn = verdict.rounds[0].turns[0]
    assert turn.scores == {"faithfulness": 0.9, "answer_relevance": None} and turn.faithfulness == 0.9
    assert verdict.judge is not None and verdict.judge.vote is None and not verdict.judge.parsed
    assert verdict.decided_by == "judge"  # as recorded: a reader does not rewrite history


def test_vote_mad_and_react_records_of_schema_1_lose_their_bent_shapes() -> None:
    vote = Verdict.read({"claim": "c", "method": "vote", "label": "SUPPORTS", "decided_by": "consensus",
                         "rounds": [{"round": 1, "turns": []}],
                         "judge": {"response": "votes: SUPPORTS 2", "label": "SUPPORTS"}})
    assert vote.judges == [] and vote.explanation == "votes: SUPPORTS 2" and vote.decided_by == "vote"
    moderator = {"agent": "moderator", "tool": "none", "response": "Preference: yes\nREFUTES", "label": "REFUTES"}
    mad = Verdict.read({"claim": "c", "method": "mad", "label": "REFUTES", "decided_by": "consensus",
                        "rounds": [{"round": 1, "turns": [{**TURN_V1, "agent": "affirmative"}, moderator]}]})
    assert [t.agent for t in mad.rounds[0].turns] == ["affirmative"] and mad.decided_by == "moderator"
    assert mad.rounds[0].judges[0].vote is Label.REFUTES and mad.rounds[0].judges[0].role == "moderator"
    steps = [{"agent": "react", "tool": "rag", "query": "capital", "response": "Thought: x\nAction: search[capital]",
              "evidence": [{"id": "d", "title": "t", "text": "x"}]},
             {"agent": "react", "tool": "rag", "response": "Action: finish[SUPPORTS]", "label": "SUPPORTS"}]
    react = Verdict.read({"claim": "c", "method": "react", "label": "SUPPORTS", "decided_by": "single",
                          "rounds": [{"round": i + 1, "turns": [t]} for i, t in enumerate(steps)]})
    (turn,) = react.rounds[0].turns
    assert len(react.rounds) == 1 and turn.steps[0].arguments == {"query": "capital"} and turn.label is Label.SUPPORTS


def test_current_records_pass_through_unchanged() -> None:
    record = {"schema_version": SCHEMA_VERSION, "claim": "c", "method": "cot", "label": None,
              "decided_by": "unparsed"}
    assert upgrade(record) is record


def test_a_factool_turn_keeps_its_claim_and_one_written_before_that_field_loads() -> None:
    turn = {"agent": "claim-1", "role": "verifier", "tool": "search", "query": "q", "response": "r",
            "label": "SUPPORTS"}
    old = {"schema_version": SCHEMA_VERSION, "claim": "A. B.", "method": "factool", "label": "SUPPORTS",
           "decided_by": "all-true", "rounds": [{"round": 1, "turns": [turn]}]}
    assert Verdict.read(old).rounds[0].turns[0].claim is None
    new = Verdict.read({**old, "rounds": [{"round": 1, "turns": [{**turn, "claim": "A."}]}]})
    dumped = json.loads(new.model_dump_json())
    assert dumped["rounds"][0]["turns"][0]["claim"] == "A."
    jsonschema.validate(dumped, Verdict.model_json_schema())
    # Left out while None: other methods' records are as they were.
    assert "claim" not in json.loads(Verdict.read(old).model_dump_json())["rounds"][0]["turns"][0]


FIXTURE = FIXTURES / "schema1_results.jsonl"  # written by the code before schema 2


def test_a_results_file_of_schema_1_from_every_method_loads() -> None:
    rows = [json.loads(line) for line in FIXTURE.read_text().splitlines()]
    # The methods that existed before schema 2 (later ones never wrote schema 1).
    schema_1_methods = {"cot", "mad", "madke", "react", "single", "tool-mad", "vote"}
    assert {r["method"] for r in rows} == schema_1_methods and all("schema_version" not in r for r in rows)
    verdicts = {r["id"]: Verdict.read(r) for r in rows}
    for row in rows:
        jsonschema.validate(upgrade(row) | {"config": {}}, Verdict.model_json_schema())
        assert verdicts[row["id"]].label == (Label(row["label"]) if row["label"] else None)
    react = verdicts["react-disagree"]
    assert len(react.rounds) == 1 and react.rounds[0].turns[0].steps
    assert verdicts["mad-agree"].decided_by == "moderator" and verdicts["mad-agree"].rounds[0].judges
    assert verdicts["vote-agree"].explanation.startswith("votes:") and not verdicts["vote-agree"].judges
    assert verdicts["tool-mad-disagree"].judge is not None
