"""``fd.verify_many``: several claims from Python, in their order, with progress after each and a results file
that makes a later call check only what it does not hold yet (a failed check is retried); and every mistake a
caller makes with it is a ``FactDebateError``."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import factdebate as fd
from factdebate.llm.base import GenParams, Message
from factdebate.llm.calls import CallInfo
from factdebate.llm.scripted import ScriptedBackend

CLAIMS = ["The Eiffel Tower is in Rome.", "Honey never spoils."]


def _agree(info: CallInfo, messages: list[Message], params: GenParams) -> str:
    return "It holds.\nSUPPORTS"


def test_a_batch_reports_each_claim_and_a_second_call_resumes_it(tmp_path: Path) -> None:
    results = tmp_path / "results.jsonl"
    model = ScriptedBackend(_agree, name="scripted:counted")
    seen: list[fd.BatchProgress] = []
    verdicts = fd.verify_many([*CLAIMS, CLAIMS[0]], results=results, method="single", cache=False,
                              backends={"debater": model}, on_progress=seen.append)
    assert [v.claim for v in verdicts] == [*CLAIMS, CLAIMS[0]]  # the claims' order; a repeat is checked once
    assert [v.label for v in verdicts] == [fd.Label.SUPPORTS] * 3
    assert [(p.done, p.total, p.verdict.claim) for p in seen] == [(1, 2, CLAIMS[0]), (2, 2, CLAIMS[1])]
    assert len(model.calls) == 2 and len(results.read_text(encoding="utf-8").splitlines()) == 2

    seen.clear()
    more = fd.verify_many([*CLAIMS, "Water boils at 100 degrees."], results=results, method="single", cache=False,
                          backends={"debater": model}, on_progress=seen.append)
    assert len(model.calls) == 3  # only the new claim ran
    assert [(p.done, p.total) for p in seen] == [(3, 3)]
    assert [v.label for v in more] == [fd.Label.SUPPORTS] * 3


def test_a_claim_that_fails_is_a_verdict_with_its_error_and_is_retried(tmp_path: Path) -> None:
    results = tmp_path / "results.jsonl"
    first = fd.verify_many(["   ", CLAIMS[1]], results=results, method="single", llm="scripted:agree", cache=False)
    assert first[0].label is None and first[0].decided_by == "error" and "empty" in (first[0].error or "")
    assert first[1].label == fd.Label.SUPPORTS
    model = ScriptedBackend(_agree, name="scripted:counted")
    fd.verify_many(["   ", CLAIMS[1]], results=results, method="single", llm="scripted:agree", cache=False,
                   backends={"debater": model})  # the same settings, its calls counted
    records = [json.loads(line) for line in results.read_text(encoding="utf-8").splitlines()]
    assert len(records) == 2 and len(model.calls) == 0  # the empty claim was tried again (and failed again)


@pytest.mark.parametrize(("call", "says"), [
    (lambda p: fd.verify_many("The Eiffel Tower is in Rome.", method="single"), "list or tuple of claims"),  # type: ignore[arg-type]
    (lambda p: fd.verify_many([3], method="single"), "claim 1 of the batch is not a string"),  # type: ignore[list-item]
    (lambda p: fd.verify_many(CLAIMS, results=p, method="single"), "is a directory"),
    (lambda p: fd.verify_many(CLAIMS, trace=p / "no" / "t.jsonl", method="single"), "no such folder"),
    (lambda p: fd.verify(CLAIMS[0], trace=p, method="single"), "is a directory"),
    (lambda p: fd.guard(CLAIMS[0], policy="nope"), "invalid guard option: policy"),  # type: ignore[arg-type]
])
def test_a_callers_mistake_is_a_factdebate_error(tmp_path: Path, call: object, says: str) -> None:
    with pytest.raises(fd.FactDebateError, match=says):
        call(tmp_path)  # type: ignore[operator]


def test_a_data_folder_that_cannot_be_made_is_a_factdebate_error(tmp_path: Path,
                                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "a-file").write_text("", encoding="utf-8")
    monkeypatch.setenv("FACTDEBATE_DATA_DIR", str(tmp_path / "a-file" / "data"))
    with pytest.raises(fd.FactDebateError, match="FACTDEBATE_DATA_DIR") as caught:
        fd.verify(CLAIMS[0], method="tool-mad", llm="scripted:agree")
    assert isinstance(caught.value, fd.DataDirError) and isinstance(caught.value, OSError)
