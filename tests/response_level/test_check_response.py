"""Response-level checking with scripted models: claims are extracted (JSON), each is verified with a
registered method, one false claim makes the response false, and unreadable extractor output is re-asked
once and then recorded, never replaced by invented claims."""

from __future__ import annotations

import json
from typing import Any

import pytest

from factdebate.core.events import parse_event
from factdebate.core.types import Label
from factdebate.guard_engine.response_check import run_response
from factdebate.llm.base import GenParams, Message
from factdebate.llm.calls import CallInfo
from factdebate.llm.scripted_library import protocol_responder
from factdebate.response_level import response_label
from factdebate.response_level.extract import parse_string_list
from tests.helpers import resources_for

RESPONSE = ("Paris is the capital of France. The Eiffel Tower is in Rome. "
            "I think Paris is lovely in spring.")
CLAIMS = ["Paris is the capital of France.", "The Eiffel Tower is in Rome."]


def script(claims: list[str] | None = None, *, extractor: list[str] | None = None,
           filtered: str | None = None) -> Any:
    """Extractor replies come from ``extractor`` in order (default: the claims as JSON); claims containing
    "Rome" are refuted, the rest supported; any other prompt follows the agreeing protocol."""
    replies = list(extractor or [])
    agree = protocol_responder(False)

    def respond(call: CallInfo, messages: list[Message], params: GenParams) -> str:
        prompt = call.prompt
        if prompt in ("claims_extract", "claims_extract:reask"):
            return replies.pop(0) if replies else json.dumps({"claims": claims or CLAIMS})
        if prompt in ("subjective_filter", "subjective_filter:reask"):
            return filtered if filtered is not None else json.dumps({"sentences": ["Paris is in France."]})
        text = messages[0]["content"]
        if prompt in ("single", "cot", "label_reask"):
            return "REFUTES" if "Rome" in text else "SUPPORTS"
        if prompt == "debate_answer":
            label = "REFUTES" if "Rome" in text.split("Claim:", 1)[-1].split("\n")[0] else "SUPPORTS"
            return f"Document [1] says so.\n{label}"
        if prompt == "judge":
            return "REFUTES" if "Rome" in text else "SUPPORTS"
        return agree(call, messages, params)

    return respond


async def check(respond: Any, method: str = "single", response: str = RESPONSE, **kwargs: Any) -> Any:
    resources, backend, _ = resources_for(respond, method=method, **kwargs.pop("sections", {}))
    events: list[dict[str, Any]] = []
    async with resources:
        verdict = await run_response(response, resources.settings, resources, sinks=[events.append], **kwargs)
    return verdict, backend, events


@pytest.mark.parametrize("method", ["single", "cot", "tool-mad"])
async def test_one_false_claim_makes_the_response_false(method: str) -> None:
    verdict, _, events = await check(script(), method=method)
    assert [c.claim for c in verdict.claims] == CLAIMS
    assert [c.label for c in verdict.claims] == [Label.SUPPORTS, Label.REFUTES]
    assert verdict.label == Label.REFUTES and verdict.factual is False and verdict.decided_by == "any-false"
    assert all(c.verdict is not None and c.verdict.method == method for c in verdict.claims)
    # The usage adds the extractor's call to every claim's.
    assert verdict.usage.llm_calls == 1 + sum(c.verdict.usage.llm_calls for c in verdict.claims if c.verdict)
    assert "extractor" in verdict.usage_by_role
    kinds = [e["event"] for e in events]
    assert kinds[0] == "response_started" and kinds[-1] == "response_verdict"
    assert kinds.count("run_started") == 2 and "claims_extracted" in kinds
    for event in events:
        parse_event(event)  # every event is one the trace format documents
    spans = {e["span_id"]: e for e in events if e["event"] == "span_begin" and e["kind"] == "subclaim"}
    nested = [e for e in events if e["event"] == "run_started"]
    assert {e["span_id"] for e in nested} == set(spans)  # each claim's run sits in its sub-claim span


async def test_all_true_claims_make_the_response_true() -> None:
    verdict, _, _ = await check(script(["Paris is the capital of France.", "Berlin is in Germany."]),
                                response="Paris is the capital of France. Berlin is in Germany.")
    assert verdict.label == Label.SUPPORTS and verdict.factual is True and verdict.decided_by == "all-true"


async def test_a_false_sentence_the_extractor_left_out_is_still_checked() -> None:
    """The extractor wrote only the true claim: the text's uncovered sentence is checked as it stands."""
    verdict, _, _ = await check(script(["Paris is the capital of France."]))
    assert [c.claim for c in verdict.claims] == CLAIMS  # the opinion is no fact to add
    assert verdict.label == Label.REFUTES and verdict.decided_by == "any-false"


async def test_an_empty_claim_list_is_a_reading_and_the_sentences_are_checked() -> None:
    """A backend that does not hold the schema's one-claim minimum answers {"claims": []}: read as is, not
    re-asked nor lost (a guard stream's later part was left unchecked this way, while the whole reply had its
    false sentence refuted); the text's own factual sentences are checked."""
    respond, schemas = script(extractor=['{"claims": []}']), []

    def recorded(call: CallInfo, messages: list[Message], params: GenParams) -> str:
        if call.prompt == "claims_extract":
            schemas.append(params.json_schema)
        return str(respond(call, messages, params))

    verdict, backend, _ = await check(recorded)
    assert verdict.extraction.parsed and verdict.extraction.parse_retries == 0
    assert "claims_extract:reask" not in [c.prompt for c, _ in backend.calls]
    assert [c.claim for c in verdict.claims] == CLAIMS
    assert verdict.label == Label.REFUTES and verdict.decided_by == "any-false"
    # The schema still asks a backend that holds it for one claim at least.
    assert [s["properties"]["claims"]["minItems"] for s in schemas if s] == [1]


async def test_unparseable_extraction_is_reasked_then_recorded() -> None:
    verdict, backend, events = await check(script(extractor=["no JSON here", "still not JSON"]))
    assert verdict.extraction.parsed is False and verdict.extraction.claims == []
    assert verdict.extraction.raw == "still not JSON" and verdict.extraction.parse_retries == 1
    assert verdict.label is None and verdict.decided_by == "unparsed" and verdict.claims == []
    assert [c.prompt for c, _ in backend.calls] == ["claims_extract", "claims_extract:reask"]
    failure = [e for e in events if e["event"] == "parse_failure"]
    assert failure and failure[0]["what"] == "claims"


async def test_a_readable_reask_recovers() -> None:
    verdict, _, events = await check(script(extractor=['{"claims": "one"}']))
    assert verdict.extraction.parsed and verdict.extraction.parse_retries == 1
    assert verdict.extraction.claims == CLAIMS
    assert any(e["event"] == "parse_recovered" for e in events)


async def test_subjective_content_is_removed_first() -> None:
    respond = script(["Paris is in France."])
    verdict, backend, _ = await check(respond, sections={"response": {"drop_subjective": True}})
    assert verdict.extraction.subjective_removed is True
    assert verdict.extraction.checked_text == "Paris is in France."
    prompts = [c.prompt for c, _ in backend.calls]
    assert prompts[:2] == ["subjective_filter", "claims_extract"]
    extract_prompt = backend.calls[1][1][0]["content"]
    assert "lovely" not in extract_prompt and "Paris is in France." in extract_prompt


async def test_unreadable_subjective_filter_falls_back_to_the_whole_response() -> None:
    respond = script(filtered="nothing readable")
    verdict, _, _ = await check(respond, sections={"response": {"drop_subjective": True}})
    assert verdict.extraction.subjective_removed is False
    # The whole of what the check-worthiness gate passed (the "I think ... lovely" opinion is gated out first).
    assert verdict.extraction.checked_text == "Paris is the capital of France. The Eiffel Tower is in Rome."


async def test_given_claims_skip_extraction_and_keep_gold() -> None:
    verdict, backend, _ = await check(script(), given_claims=CLAIMS, gold_labels=["SUPPORTS", "SUPPORTS"])
    assert verdict.extraction.source == "given"
    assert "claims_extract" not in [c.prompt for c, _ in backend.calls]
    assert [c.gold for c in verdict.claims] == ["SUPPORTS", "SUPPORTS"]


def test_the_aggregation_rule() -> None:
    S, R, N = Label.SUPPORTS, Label.REFUTES, Label.NOT_ENOUGH_INFO
    assert response_label([S, None, R]) == (R, "any-false")  # nothing the unlabelled claim says changes it
    assert response_label([S, None]) == (None, "unparsed")  # the unlabelled claim might be false
    assert response_label([S, N]) == (N, "unverified")
    assert response_label([]) == (N, "no-claims")
    assert response_label([S], extracted=False) == (None, "unparsed")


def test_list_parser() -> None:
    assert parse_string_list('Sure! {"claims": ["a", " a ", "b"]}', "claims") == (["a", "b"], "")
    assert parse_string_list('["x"]', "claims") == (["x"], "")
    assert parse_string_list('{"claims": [1]}', "claims")[0] is None
    assert parse_string_list("none", "claims")[0] is None


async def test_the_response_verdict_validates_against_its_published_schema() -> None:
    import jsonschema

    from factdebate.core.types import ResponseVerdict

    verdict, _, _ = await check(script(), method="cot")
    jsonschema.validate(json.loads(verdict.model_dump_json()), ResponseVerdict.model_json_schema())
    assert verdict.schema_version == 2 and verdict.kind == "response"


async def test_claims_that_name_nothing_of_the_text_are_dropped_and_listed() -> None:
    """A small model copies the extraction prompt's worked example ("Mount Fuji ...") or invents: a claim
    sharing no content word with the text (or the exchange it continues) is not checked, and is listed."""
    echoed = [*CLAIMS, "Mount Fuji is the tallest mountain in Japan.", "I don't have many regrets."]
    verdict, _, events = await check(script(echoed))
    extraction = verdict.extraction
    assert extraction.claims == CLAIMS and len(verdict.claims) == 2
    assert extraction.ungrounded == ["Mount Fuji is the tallest mountain in Japan.", "I don't have many regrets."]
    extracted = next(parse_event(e) for e in events if e["event"] == "claims_extracted")
    assert extracted.ungrounded == extraction.ungrounded  # type: ignore[attr-defined]
    # A name resolved from the exchange the text continues is the text's own.
    verdict, _, _ = await check(script(["Gustave Eiffel designed the tower."]), response="He designed it.",
                                context="[Human]: Who designed the Eiffel Tower? [Assistant]: Gustave Eiffel.")
    assert verdict.extraction.claims == ["Gustave Eiffel designed the tower."] and not verdict.extraction.ungrounded
