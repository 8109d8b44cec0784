"""Policies, corrections, bounds, and what one conversation shares."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest
from pydantic import ValidationError

from factdebate.core.errors import EndpointUnavailableError
from factdebate.guard_engine import GuardClaim, GuardOptions
from factdebate.guard_engine.policy import footnotes
from factdebate.llm.near_chance import CLAIMS as CLAIMS_WORD
from factdebate.llm.near_chance import model_warnings
from factdebate.settings.load import load_settings
from factdebate.util.errors import InputError
from tests.guard.support import CLAIMS, REPLY, run_check, script

FAST = {"tier": "fast", "max_tier": "fast"}


async def test_annotate_leaves_the_reply_and_a_refuted_claim_gets_a_grounded_correction() -> None:
    result, _ = await run_check(script(), guard=FAST, policy="annotate")
    refuted = result.claims[1]
    assert refuted.correction is not None and refuted.correction.text == "The Eiffel Tower is in Paris."
    assert refuted.correction.quote_source == "The Eiffel Tower is a tower in Paris."
    assert refuted.evidence[0].url == "https://example.org/eiffel"
    assert result.claims[0].correction is None  # supported: nothing to correct
    assert result.text == REPLY and result.action_taken == "annotated" and result.policy == "annotate"


async def test_the_default_policy_is_flag_a_footnote_in_the_text() -> None:
    result, _ = await run_check(script(), guard=FAST)
    assert result.policy == "flag" and result.action_taken == "flagged" and result.text.startswith(REPLY)
    assert result.text[len(REPLY):].startswith("\n\n---\nFact check:\n- \"The Eiffel Tower is in Rome.\"")


@pytest.mark.parametrize(("model", "line"), [
    ("llama-cpp:qwen2.5-coder-1.5b", "- This flag comes from a small model that runs offline (Qwen2.5-Coder-1.5B), "
                                     "and about 1 in 6 of its flags was right on public fact-check passages: read it "
                                     "as a sentence to look at beside its quote, not as a finding."),
    ("llama-cpp:builtin", "- This flag comes from the embedded model (SmolLM2-135M), which answers near chance: "
                          "read it as a test of the pipeline, not as a finding.")])
async def test_a_flag_of_a_model_running_here_says_under_it_what_such_a_flag_is_worth(model: str, line: str) -> None:
    """The reader of the text sees no ``warnings``: under the flags the footnote says it, in the same words for one
    flag or several; a script's or a served model's flags get no such line, nor does a footnote without a flag."""
    checked, _ = await run_check(script(), guard=FAST)  # (its checker is scripted, under the embedded model's name)
    result = checked.model_copy(update={"warnings": []})
    flagged = result.model_copy(update={"warnings": model_warnings([model], CLAIMS_WORD)})
    footnote = footnotes(flagged).splitlines()
    assert footnote[footnote.index("Fact check:") + 2] == line
    two = flagged.model_copy(update={"claims": [c.model_copy(update={"label": "REFUTES"}) for c in result.claims]})
    assert line.replace("- This flag comes", "- These flags come").replace("read it", "read each") in footnotes(two)
    for other in ("scripted:agree", "openai:gpt-4o-mini"):
        plain = result.model_copy(update={"warnings": model_warnings([other], CLAIMS_WORD)})
        assert footnotes(plain) == footnotes(result) and "flag comes" not in footnotes(plain)
    supported = flagged.model_copy(update={"claims": [c.model_copy(update={"label": "SUPPORTS"})
                                                      for c in result.claims]})
    assert "flag" not in footnotes(supported)


async def test_a_correction_sharing_nothing_with_the_quote_is_dropped() -> None:
    result, _ = await run_check(script(correction="Bananas grow on plants."), guard=FAST)
    assert result.claims[1].correction is None and result.claims[1].label == "REFUTES"


async def test_flag_appends_the_refuted_and_unchecked_claims() -> None:
    result, _ = await run_check(script(), guard=FAST, policy="flag")
    assert result.action_taken == "flagged" and result.text.startswith(REPLY)
    footnote = result.text[len(REPLY):]
    assert CLAIMS[1] in footnote and "Correction: The Eiffel Tower is in Paris." in footnote
    assert CLAIMS[0] not in footnote


async def test_block_refuses_naming_what_was_refuted() -> None:
    result, _ = await run_check(script(), guard=FAST, policy="block")
    assert result.action_taken == "blocked" and CLAIMS[1] in result.text and "withheld" in result.text
    assert result.original_text == REPLY


async def test_block_passes_a_reply_with_nothing_refuted() -> None:
    # Nothing false in the reply itself: a sentence no claim covers is checked too.
    text = REPLY.replace(" The Eiffel Tower is in Rome.", "")
    result, _ = await run_check(script(claims=[CLAIMS[0]]), text, guard=FAST, policy="block")
    assert result.action_taken == "annotated" and result.text == text


async def test_rewrite_hands_the_refuted_claims_to_the_reviser() -> None:
    seen: list[tuple[str, list[GuardClaim]]] = []

    async def reviser(text: str, claims: list[GuardClaim]) -> str:
        seen.append((text, claims))
        return "Paris is the capital of France. The Eiffel Tower is in Paris."

    result, _ = await run_check(script(), guard=FAST, policy="rewrite", reviser=reviser)
    assert result.action_taken == "rewritten" and result.text.endswith("The Eiffel Tower is in Paris.")
    assert result.original_text == REPLY
    (text, claims), = seen
    assert text == REPLY and [c.claim for c in claims] == [CLAIMS[1]] and claims[0].correction is not None


async def test_rewrite_that_fails_flags_instead_and_says_why() -> None:
    async def broken(text: str, claims: list[GuardClaim]) -> str:
        raise ValueError("upstream said no")

    result, _ = await run_check(script(), guard=FAST, policy="rewrite", reviser=broken)
    assert result.action_taken == "flagged"
    assert "could not be revised" in result.text and "upstream said no" in result.text


async def test_a_reviser_that_cannot_be_reached_reads_as_a_service_not_available() -> None:
    # the reader of the answer is not told the server's address or the attempts; the record's reason keeps them
    async def unreachable(text: str, claims: list[GuardClaim]) -> str:
        raise EndpointUnavailableError("http://upstream.internal:9000/v1", 4, "HTTP 503: Service Unavailable")

    result, _ = await run_check(script(), guard=FAST, policy="rewrite", reviser=unreachable)
    assert result.action_taken == "flagged" and result.text.startswith(REPLY)
    assert "- The answer could not be revised (a service it needs is not available right now)." in result.text
    for technical in ("http", "upstream.internal", "attempt", "503"):
        assert technical not in result.text, (technical, result.text)
    assert "could not reach http://upstream.internal:9000/v1 after 4 attempt(s)" in (result.action_reason or "")


def _settings(**guard: object) -> object:
    return load_settings(overrides={"guard": guard}, environ={})


def test_a_caller_may_lower_the_deadline_never_raise_it_past_the_cap() -> None:
    settings = _settings(deadline_s=10, max_deadline_s=30)
    assert GuardOptions().resolve(settings).deadline_s == 10  # type: ignore[arg-type]
    assert GuardOptions(deadline_s=2).resolve(settings).deadline_s == 2  # type: ignore[arg-type]
    assert GuardOptions(deadline_s=500).resolve(settings).deadline_s == 30  # type: ignore[arg-type]


def test_a_tier_above_the_operators_cap_is_refused() -> None:
    settings = _settings(tier="fast", max_tier="standard")
    with pytest.raises(InputError, match=r"guard\.max_tier"):
        GuardOptions(tier="deep").resolve(settings)  # type: ignore[arg-type]


@pytest.mark.parametrize("options", [
    {"deadline_s": 0}, {"deadline_s": -1}, {"deadline_s": math.inf}, {"deadline_s": math.nan}, {"tier": "ultra"},
    {"policy": "ignore"}, {"evidence_mode": "all"}, {"on_unchecked": "maybe"}, {"conversation_id": "a b/c"},
    {"conversation_id": "x" * 200}, {"upstream": "http://evil.example/v1"}, {"evidence": [{"text": ""}]},
    {"evidence": [{"text": "ok", "extra": 1}]}, {"evidence": [{"text": "bad \x00 byte"}]},
    {"evidence": [{"text": "x" * 300_000}]}, {"method": "a" * 100},
])
def test_every_option_is_checked(options: dict[str, object]) -> None:
    with pytest.raises(ValidationError):
        GuardOptions.model_validate(options)


def test_evidence_beyond_the_operators_bounds_is_refused_not_cut() -> None:
    settings = _settings(max_evidence_items=2, max_evidence_chars=1000)
    with pytest.raises(InputError, match="max_evidence_items"):
        GuardOptions(evidence=[{"text": "a"}] * 3).resolve(settings)  # type: ignore[arg-type, list-item]
    with pytest.raises(InputError, match="max_evidence_chars"):
        GuardOptions(evidence=[{"text": "a" * 1200}]).resolve(settings)  # type: ignore[arg-type, list-item]
    with pytest.raises(InputError, match="needs evidence"):
        GuardOptions(evidence_mode="given").resolve(settings)  # type: ignore[arg-type]


async def test_an_unclean_reply_is_degraded_not_checked_and_said() -> None:
    result, backend = await run_check(script(), "bad \x00 reply", guard={**FAST, "max_message_chars": 100},
                                      on_unchecked="block")
    assert result.degraded and "control character" in (result.degraded_reason or "") and backend.calls == []
    assert result.action_taken == "blocked" and result.label is None


async def test_a_reply_too_long_is_checked_to_its_last_sentence_within_the_limit_the_rest_unchecked() -> None:
    """One behaviour on every door (the streamed one's in tests/guard/test_stream.py)."""
    text = "x" * 200  # no sentence ends within the limit: nothing of it is checked
    result, backend = await run_check(script(), text, guard={**FAST, "max_message_chars": 100}, on_unchecked="block")
    assert not result.degraded and backend.calls == []
    [rest] = result.claims
    assert rest.status == "unchecked" and "guard.max_message_chars (100 characters)" in (rest.reason or "")
    assert rest.span is not None and (rest.span.start, rest.span.end) == (0, 200)
    assert result.action_taken == "blocked" and result.label != "SUPPORTS"


async def test_a_conversation_shares_verdicts_for_one_caller_only() -> None:
    first, _backend = await run_check(script(), guard=FAST, conversation_id="conv-1", caller="key-a")
    again, backend_again = await run_check(script(), guard=FAST, conversation_id="conv-1", caller="key-a")
    assert [c.label for c in again.claims] == [c.label for c in first.claims]
    # settled before: the window's call still reads the reply (its claims), no verdict is asked again
    assert not any(info.prompt.startswith(("guard_fast", "guard_correct")) for info, _ in backend_again.calls)
    _other, backend_other = await run_check(script(), guard=FAST, conversation_id="conv-1", caller="key-b")
    # another key: nothing shared, the correction asked and checked again
    assert [info.prompt for info, _ in backend_other.calls if info.prompt != "guard_stance"] == [
        "guard_window", "guard_fast:correction"]


async def test_a_fast_reply_that_names_no_passage_keeps_no_quote_and_checks_nothing() -> None:
    fast = lambda claim: json.dumps({"label": "SUPPORTS", "passage": 7, "quote": "made up"})  # noqa: E731
    result, _ = await run_check(script(fast=fast), guard={**FAST, "stance_step": False})
    claim = result.claims[1]
    assert (claim.status, claim.label) == ("unchecked", None)
    assert not any("made up" in e.quote for e in claim.evidence)
    # with the stance step, the quote is copied from a passage whatever the checker wrote
    result, _ = await run_check(script(fast=fast), guard=FAST)
    assert not any("made up" in e.quote for c in result.claims for e in c.evidence)


async def test_a_fast_refutes_that_names_no_passage_is_unchecked_and_says_why() -> None:
    fast = lambda claim: json.dumps({"label": "REFUTES", "passage": 7, "quote": "made up"})  # noqa: E731
    # Without the stance step, which copies a quote of its own and decides on it (tests/guard/test_stance.py).
    result, _ = await run_check(script(fast=fast), guard={**FAST, "stance_step": False})
    claim = result.claims[1]
    assert claim.status == "unchecked" and claim.label is None and result.label != "REFUTES"
    assert claim.reason is not None and "without quoting words of the passage it named" in claim.reason


async def test_the_model_cache_is_shared_by_one_api_key_never_between_keys(tmp_path: Path) -> None:
    from factdebate.guard_engine import check_text
    from factdebate.llm.scripted import ScriptedBackend
    from factdebate.run.build import build_resources
    from tests.guard.support import PARIS_DOC
    from tests.helpers import BagOfWordsEncoder, StaticTool

    settings = load_settings(overrides={"method": "single", "guard": FAST, "llm": {"cache": True}}, environ={})
    backend = ScriptedBackend(script())
    tool = StaticTool("local", [PARIS_DOC])
    resources = build_resources(settings, backends={"debater": backend}, tool_factory=lambda kind: tool,
                                encoder_factory=BagOfWordsEncoder, cache_path=tmp_path / "cache.sqlite")
    asked = []
    async with resources:
        for caller in ("key-a", "key-a", "key-b"):
            before = len(backend.calls)
            await check_text(REPLY, settings, resources, options=GuardOptions(), caller=caller)
            asked.append(len(backend.calls) - before)
    assert asked[0] > 0 and asked[1] == 0 and asked[2] == asked[0]


async def test_the_rest_past_the_limit_counts_as_one_sentence_and_is_not_split() -> None:
    # A reply of megabytes past guard.max_message_chars was split into sentences whole to be counted, holding the
    # event loop for seconds; the rest is one unchecked claim, and one sentence of the count.
    checked = "Paris is the capital of France. The Eiffel Tower is in Rome. Hello there, have a look at it. "
    text = checked + "It rains. " * 5000
    result, _ = await run_check(script(), text, guard={**FAST, "max_message_chars": 100})
    assert result.sentences == 4 and result.sentences_checked == 2
    assert result.claims[-1].status == "unchecked" and "max_message_chars" in (result.claims[-1].reason or "")
