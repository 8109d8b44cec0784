"""The fast tier's one call per reply window (guard_engine/window_call.py, ``guard.window_call``, on by default): a
reply's claims, their fast verdicts and a refuted claim's correction asked together, a claim whose item is
unusable asked alone, a stream asked per window of completed sentences, and the same verdicts either way: over
a reply of six claims, plain and streamed, and over the conformance suite's fault scenarios, with doubles that
answer both ways."""

from __future__ import annotations

import asyncio
import json
import re
from typing import Any

import pytest

from factdebate.guard_engine import GuardOptions, GuardResult, StreamingCheck
from factdebate.guard_engine.policy import WITHHELD
from factdebate.llm.scripted import ScriptedBackend
from factdebate.settings.model import Settings
from tests.guard.conformance.conversations import WORLD, Conversation, WorldChecker
from tests.guard.conformance.scenarios import SCENARIOS, Checker, Scenario
from tests.guard.support import PARIS_DOC, run_check, script
from tests.helpers import StaticTool, resources_for

SIX = ("Paris is the capital of France. The Eiffel Tower is in Rome. The Louvre is in Paris. "
       "The Seine flows through Paris. Notre-Dame is in Paris. The Arc de Triomphe is in Paris.")
SIX_CLAIMS = [s.strip() + "." for s in SIX.split(".") if s.strip()]
FAST: dict[str, Any] = {"tier": "fast", "max_tier": "fast"}
APART: dict[str, Any] = {"window_call": False}


def _verdicts(result: GuardResult) -> list[tuple[str, str, str | None]]:
    return [(c.claim, c.status, c.label.value if c.label else None) for c in result.claims]


def _shown(claims: list[str]) -> Any:
    """The doubles' extraction: of ``claims``, those whose sentence the prompt shows (a stream's window shows
    some of them), as a capable model reads them."""
    base = script(claims=claims)

    def respond(call: Any, messages: Any, params: Any) -> str:
        if call.prompt.split(":")[0] in ("claims_extract", "guard_window"):
            body = messages[0]["content"].split("\nText:\n" if call.prompt.startswith("claims") else "\nAnswer:\n")
            shown = [c for c in claims if c in body[-1]]
            return str(script(claims=shown)(call, messages, params))
        return str(base(call, messages, params))

    return respond


async def _streamed(respond: Any, text: str, *, latency: float = 0.0, pause_after: str | None = None,
                    guard: dict[str, Any] | None = None, **options: Any) -> tuple[GuardResult, ScriptedBackend]:
    """``text`` streamed word by word through a StreamingCheck; ``pause_after``: a word after which the stream
    waits until the check's call about it is in flight and the others are fed while it runs."""
    tools = {"rag": StaticTool("rag", [PARIS_DOC]), "search": StaticTool("local", [PARIS_DOC])}
    resources, backend, _ = resources_for(respond, method="single", tools=tools, guard=guard or {})
    assert isinstance(backend, ScriptedBackend) and isinstance(resources.settings, Settings)
    backend.latency = latency
    async with resources:
        check = StreamingCheck(resources.settings, resources, options=GuardOptions(**options))
        words = re.findall(r"\S+\s*", text)
        for word in words:
            check.feed(word)
            if pause_after is not None and word.strip() == pause_after:
                for _ in range(3000):  # 30 s at most
                    if backend.calls:
                        break
                    await asyncio.sleep(0.01)
        result = await check.finish()
    return result, backend


async def test_six_claims_at_the_fast_tier_are_one_call_and_the_correction_s_check() -> None:
    apart, _ = await run_check(script(claims=SIX_CLAIMS), SIX, guard=APART, **FAST)
    together, backend = await run_check(script(claims=SIX_CLAIMS), SIX, **FAST)
    # apart: an extraction, six verdicts, a correction and its check over its quote; each of the six labels'
    # stance besides, and the correction's on its quote (guard_engine/stance.py, guard_engine/correct.py)
    assert apart.usage.model_calls == 9 + 6 + 1
    assert together.usage.model_calls == 2 + 6 + 1
    assert _asked(backend) == ["guard_window", "guard_fast:correction"]
    assert _verdicts(together) == _verdicts(apart)
    assert [c.label.value for c in together.claims if c.label] == ["SUPPORTS", "REFUTES"] + ["SUPPORTS"] * 4
    assert [e.quote for c in together.claims for e in c.evidence[:1]] == \
        [e.quote for c in apart.claims for e in c.evidence[:1]]
    assert together.claims[1].correction is not None and apart.claims[1].correction is not None
    assert together.claims[1].correction.text == apart.claims[1].correction.text == "The Eiffel Tower is in Paris."


async def test_six_claims_streamed_are_at_most_three_calls_with_the_plain_verdicts() -> None:
    plain, _ = await run_check(_shown(SIX_CLAIMS), SIX, **FAST)
    streamed, backend = await _streamed(_shown(SIX_CLAIMS), SIX, **FAST)
    assert streamed.usage.model_calls <= 3 + 6 + 1, _asked(backend)  # each label's stance, the correction's
    assert _verdicts(streamed) == _verdicts(plain)
    assert streamed.claims[1].correction is not None
    assert streamed.claims[1].correction.text == "The Eiffel Tower is in Paris."


async def test_the_sentences_completed_while_a_window_s_call_runs_go_in_the_next_window() -> None:
    streamed, backend = await _streamed(_shown(SIX_CLAIMS), SIX, latency=0.2, pause_after="Rome.", **FAST)
    windows = [messages[0]["content"].split("\nAnswer:\n")[-1] for info, messages in backend.calls
               if info.prompt == "guard_window"]
    # the first two sentences (a window's fewest while the answer streams), then the rest, completed while its
    # call ran (the last one at the answer's end)
    assert [[c for c in SIX_CLAIMS if c in w] for w in windows] == [SIX_CLAIMS[:2], SIX_CLAIMS[2:]]
    plain, _ = await run_check(_shown(SIX_CLAIMS), SIX, **FAST)
    assert _verdicts(streamed) == _verdicts(plain)


async def test_a_checker_faster_than_the_stream_is_asked_once_every_two_sentences() -> None:
    """Each sentence completes after the previous window's call is answered: the windows still hold two
    sentences each, not one."""
    tools = {"rag": StaticTool("rag", [PARIS_DOC]), "search": StaticTool("local", [PARIS_DOC])}
    resources, backend, _ = resources_for(_shown(SIX_CLAIMS), method="single", tools=tools)
    assert isinstance(backend, ScriptedBackend) and isinstance(resources.settings, Settings)
    async with resources:
        check = StreamingCheck(resources.settings, resources, options=GuardOptions(**FAST))
        for sentence in re.findall(r"[^.]+\.\s*", SIX):
            check.feed(sentence)
            for _ in range(3000):  # the window asked so far is answered before the next sentence comes (30 s at most)
                if check._window is None or check._window.done():
                    break
                await asyncio.sleep(0.01)
        result = await check.finish()
    windows = [messages[0]["content"].split("\nAnswer:\n")[-1] for info, messages in backend.calls
               if info.prompt == "guard_window"]
    assert [[c for c in SIX_CLAIMS if c in w] for w in windows] == [SIX_CLAIMS[:2], SIX_CLAIMS[2:4], SIX_CLAIMS[4:]]
    plain, _ = await run_check(_shown(SIX_CLAIMS), SIX, **FAST)
    assert _verdicts(result) == _verdicts(plain)


async def test_without_the_window_call_a_stream_asks_per_part() -> None:
    streamed, backend = await _streamed(_shown(SIX_CLAIMS), SIX, guard=APART, **FAST)
    asked = _asked(backend)
    assert asked.count("claims_extract") == 6 and asked.count("guard_fast") == 6
    plain, _ = await run_check(_shown(SIX_CLAIMS), SIX, **FAST)
    assert _verdicts(streamed) == _verdicts(plain)


async def test_hold_shows_a_line_of_a_window_only_once_its_claims_are_decided() -> None:
    """Under hold a window of several parts releases each part with the refuted sentence withheld: the true
    sentences reach the reader, the false one never does."""
    result, backend = await _streamed(_shown(SIX_CLAIMS), SIX, latency=0.05, pause_after="France.",
                                      policy="hold", **FAST)
    assert sum(info.prompt == "guard_window" for info, _ in backend.calls) == 2
    assert result.text.startswith(SIX.replace("The Eiffel Tower is in Rome.", WITHHELD))


async def test_a_claim_whose_item_is_unusable_is_asked_alone() -> None:
    def fast(claim: str) -> str:  # the verdicts' double cannot say one claim's label
        return "no idea" if "Rome" in claim else json.dumps(
            {"label": "SUPPORTS", "passage": 1, "quote": "The Eiffel Tower is a tower in Paris."})

    events: list[dict[str, Any]] = []
    result, backend = await run_check(script(fast=fast), events=events, **FAST)
    asked = _asked(backend)
    assert asked == ["guard_window", "guard_fast"]  # the Rome claim alone, as the fast tier asks any claim
    assert [c.status for c in result.claims] == ["checked", "unchecked"]
    reasked = [e["attributes"] for e in events if e["event"] == "span_begin" and e["kind"] == "guard_window_reask"]
    assert [(a["claim"], a["why"]) for a in reasked] == [("The Eiffel Tower is in Rome.", "its item could not be "
                                                          "read: no label among SUPPORTS, REFUTES, NOT ENOUGH INFO")]


async def test_a_refuted_claim_without_a_correction_in_its_item_gets_the_corrector_s_call() -> None:
    base = script()

    def respond(call: Any, messages: Any, params: Any) -> str:
        answer = str(base(call, messages, params))
        if call.prompt != "guard_window":
            return answer
        value = json.loads(answer)
        for item in value["claims"]:
            item["correction"] = ""
        return json.dumps(value)

    result, backend = await run_check(respond, **FAST)
    assert _asked(backend) == ["guard_window", "guard_correct", "guard_fast:correction"]
    assert result.claims[1].correction is not None
    assert result.claims[1].correction.text == "The Eiffel Tower is in Paris."


async def test_a_proposed_correction_its_quote_does_not_support_is_not_shown() -> None:
    result, backend = await run_check(script(correction="The Eiffel Tower is in Madrid."), **FAST)
    assert _asked(backend) == ["guard_window"]  # held to its quote: no check asked
    refuted = result.claims[1]
    assert refuted.label is not None and refuted.label.value == "REFUTES"
    assert refuted.correction is None
    assert refuted.correction_note is not None and "madrid" in refuted.correction_note.lower()


async def test_an_unreadable_window_answer_falls_back_to_the_extraction() -> None:
    base = script()

    def respond(call: Any, messages: Any, params: Any) -> str:
        return "Sure!" if call.prompt == "guard_window" else base(call, messages, params)

    result, backend = await run_check(respond, **FAST)
    asked = _asked(backend)
    assert asked[:2] == ["guard_window", "claims_extract"]
    assert [c.label.value for c in result.claims if c.label] == ["SUPPORTS", "REFUTES"]


async def test_a_claim_that_climbs_is_asked_at_the_next_tier() -> None:
    result, backend = await run_check(script(), tier="fast", max_tier="standard", method="single")
    asked = _asked(backend)
    assert asked[0] == "guard_window" and "claims_extract" not in asked and "guard_fast" not in asked
    assert result.claims[1].tier == "standard" and result.claims[1].label is not None


async def test_the_setting_off_asks_the_extraction_and_each_claim_apart() -> None:
    result, backend = await run_check(script(), guard=APART, **FAST)
    asked = _asked(backend)
    assert asked[0] == "claims_extract" and "guard_window" not in asked
    assert asked.count("guard_fast") == 2 and "guard_correct" in asked
    assert [c.label.value for c in result.claims if c.label] == ["SUPPORTS", "REFUTES"]


def _comparable(scenario: Scenario) -> bool:
    """The scenarios a whole reply's check can run alone: no upstream fault, no deadline deciding."""
    return not scenario.proxy_only and not scenario.timing and not scenario.faults.slow and scenario.n == 1


@pytest.mark.parametrize("scenario", [s for s in SCENARIOS if _comparable(s)], ids=lambda s: s.name)
async def test_the_conformance_scenarios_get_the_same_verdicts_either_way(scenario: Scenario) -> None:
    options = {k: v for k, v in scenario.options.items() if k in ("policy", "on_unchecked", "on_not_enough_info")}
    results = []
    for enabled in (False, True):
        checker = Checker()
        checker.faults = scenario.faults
        result, _ = await run_check(None, scenario.reply, backend=checker, guard={"window_call": enabled},
                                    **FAST, **options)
        results.append((_verdicts(result), result.label, result.degraded, result.text,
                        [c.correction.text if c.correction else None for c in result.claims]))
    assert results[0] == results[1]


@pytest.mark.parametrize("convo", WORLD, ids=lambda c: c.name)
async def test_the_conversation_world_gets_the_same_verdicts_either_way(convo: Conversation) -> None:
    """The hand-written conversational world (short answers, pronouns, lists, framing...), each reply and its
    true twin checked whole in its conversation, with the extraction and verdicts asked apart and together."""
    for reply in (convo.false, convo.true):
        results = []
        for enabled in (False, True):
            result, _ = await run_check(None, reply, backend=WorldChecker(), guard={"window_call": enabled},
                                        messages=convo.before, evidence=convo.evidence(), evidence_mode="given",
                                        policy="flag", **FAST)
            results.append((_verdicts(result), result.label, result.degraded, result.text))
        assert results[0] == results[1], reply
        assert results[1][1] == ("REFUTES" if reply == convo.false else "SUPPORTS"), (reply, results[1])


def test_a_checker_on_this_machine_reads_each_passage_cut_to_the_sentences_about_the_window() -> None:
    """An in-process or loopback checker pays for every prompt token: each passage is cut to about 600
    characters, the sentences sharing most words with the window kept in the passage's order."""
    from factdebate.guard_engine.window_call import LOCAL_PASSAGE_CHARS, excerpt

    filler = "Local markets sell bread, cheese and wine every morning of the week in the old town. " * 8
    passage = filler + "The Eiffel Tower was completed in 1889 for the World's Fair. " + filler
    wanted = {"eiffel", "tower", "finished", "1899"}
    cut = excerpt(passage, wanted, LOCAL_PASSAGE_CHARS)
    assert len(cut) <= LOCAL_PASSAGE_CHARS and "The Eiffel Tower was completed in 1889" in cut
    assert cut.index("Local markets") < cut.index("Eiffel")  # the passage's own order
    assert excerpt("A short passage.", wanted, LOCAL_PASSAGE_CHARS) == "A short passage."


def _shown_titles(backend: ScriptedBackend) -> list[tuple[str, list[str]]]:
    """Each prompt the checker was asked that shows passages (but the stance step's), with the titles of the
    passages it shows, in its order: what the model read."""
    out = []
    for info, messages in backend.calls:
        text = str(messages[0]["content"])
        if info.prompt.startswith("guard_stance") or "\nPassages:\n" not in text:
            continue
        section = text[text.find("\nPassages:\n"):]
        out.append((info.prompt, re.findall(r"^\[\d+\] ([^:\n]*):", section, re.M)))
    return out


LANDMARKS = [{"title": t, "text": f"The {t} is a famous landmark visited by millions."}
             for t in ("Berlin Wall", "Big Ben", "Golden Gate Bridge", "Sydney Opera House", "Colosseum")]
TOWER = {"title": "Eiffel Tower", "text": "The Eiffel Tower is a wrought-iron lattice tower in Paris, France."}


async def test_a_short_answer_s_passages_are_ranked_with_the_question_it_answers() -> None:
    # "No, it isn't." names nothing: ranked by its own words the checker was shown the Berlin Wall, Big Ben and
    # the Golden Gate Bridge; with the question it answers, the passage on the tower comes first.
    respond = script(claims=["The Eiffel Tower is not in Paris."])
    _, backend = await run_check(respond, "No, it isn't.", question="Is the Eiffel Tower in Paris?",
                                 evidence=[*LANDMARKS, TOWER], evidence_mode="given", guard={"window_call": True},
                                 tier="fast", max_tier="fast")
    shown = _shown_titles(backend)
    assert [prompt for prompt, _ in shown] == ["guard_window"]
    assert shown[0][1][0] == "Eiffel Tower"  # and the landmarks only after it, if at all


def test_what_a_sentence_is_about_is_its_heading_the_subject_before_it_and_the_question() -> None:
    from factdebate.guard_engine.window_call import SO_FAR, queries_for

    def about(text: str, question: str | None = None, context: str | None = None) -> list[str]:
        units = [(m.start(), m.end()) for m in re.finditer(r"[^\n.]+\.|\|[^\n]*\|", text)]
        return [q.about for q in queries_for(text, units, question, context)]

    assert about("No, it isn't.", "Is the Eiffel Tower in Paris?") == ["Is the Eiffel Tower in Paris?"]
    # a sentence that names its own subject is ranked by its words (and the question, when there is one)
    assert about("The Louvre is a museum in Paris.") == [""]
    # "It" in a later window of a stream: the subject is the reply's before it
    assert about("It opened in 1889.", None, "The Louvre holds the Mona Lisa. The Eiffel Tower stands in Paris.") \
        == ["Eiffel Tower Paris"]
    # ... after the conversation, as the extractor reads both
    context = f"Person: Tell me about Rome.{SO_FAR}The Eiffel Tower stands in Paris."
    assert about("It opened in 1889.", "And Paris?", context) == ["Eiffel Tower Paris And Paris?"]
    # ... or, first in the reply, the conversation's
    assert about("It opened in 1889.", None, "Person: Paris?\nAssistant: The Eiffel Tower is there.") == \
        ["Eiffel Tower"]
    # a table's row under its heading, which names what the row is about
    table = "## Eiffel Tower\n| Height | 330 m |\n| Opened | 1889 |"
    assert about(table) == ["Eiffel Tower", "Eiffel Tower"]
    # ... or, without one, the sentence before the table: a row names its own subject, not the next row's
    assert about("The tower is tall.\n| Height | 330 m |\n| Opened | 1889 |", None, "The Eiffel Tower is in Paris.") \
        == ["Eiffel Tower Paris", "Eiffel Tower Paris", "Eiffel Tower Paris"]


async def test_a_pronoun_in_a_later_stream_window_reads_passages_about_the_subject_before_it() -> None:
    """The window of "It opened in 1889." alone: by its words, three passages on other things opened in 1889 come
    before the tower's; with the subject the reply named before it, the tower's comes first."""
    others = [{"title": t, "text": f"The {t} opened in 1889."} for t in ("Moulin Rouge", "Kansas Museum", "Athenaeum")]
    tower = {"title": "Eiffel Tower", "text": "The Eiffel Tower opened in 1889 on the Champ de Mars."}
    text = "The Louvre holds the Mona Lisa. The Eiffel Tower stands on the Champ de Mars. It opened in 1889."
    claims = ["The Louvre holds the Mona Lisa.", "The Eiffel Tower stands on the Champ de Mars."]
    _, backend = await _streamed(_shown(claims), text, latency=0.2, pause_after="Mars.", evidence=[*others, tower],
                                 evidence_mode="given", **FAST)
    windows = [titles for prompt, titles in _shown_titles(backend) if prompt == "guard_window"]
    assert len(windows) == 2 and windows[1][0] == "Eiffel Tower", windows


async def test_a_claim_the_window_s_answer_leaves_out_is_asked_alone_with_its_passages() -> None:
    """The window's answer has no item for the second claim: it is asked alone, once, shown the passages ranked
    for it and what its sentence is about (the tower named before it), and the trace says which claim and why."""
    from factdebate.guard_engine.window_call import NO_ITEM

    text = "The Eiffel Tower is in Paris. The tower was finished in 1889."
    base = script(claims=["The Eiffel Tower is in Paris.", "The tower was finished in 1889."])

    def respond(call: Any, messages: Any, params: Any) -> str:
        answer = str(base(call, messages, params))
        if call.prompt != "guard_window":
            return answer
        value = json.loads(answer)
        value["claims"] = [item for item in value["claims"] if "1889" not in item["claim"]]
        return json.dumps(value)

    others = [{"title": t, "text": f"The {t} was finished in 1889."} for t in ("bridge", "dam", "canal")]
    tower = {"title": "Eiffel Tower", "text": "The Eiffel Tower in Paris was finished in 1889 after two years."}
    events: list[dict[str, Any]] = []
    result, backend = await run_check(respond, text, evidence=[*others, tower], evidence_mode="given",
                                      events=events, **FAST)
    shown = _shown_titles(backend)
    assert [prompt for prompt, _ in shown] == ["guard_window", "guard_fast"]
    asked = [m[0]["content"] for info, m in backend.calls if info.prompt == "guard_fast"]
    assert "The tower was finished in 1889." in asked[0]
    assert shown[1][1][0] == "Eiffel Tower"  # by its words alone, the bridge, the dam and the canal
    assert [(c.claim, c.status) for c in result.claims] == [
        ("The Eiffel Tower is in Paris.", "checked"), ("The tower was finished in 1889.", "checked")]
    reasked = [e["attributes"] for e in events if e["event"] == "span_begin" and e["kind"] == "guard_window_reask"]
    assert reasked == [{"claim": "The tower was finished in 1889.", "why": NO_ITEM,
                        "about": "Eiffel Tower Paris"}]


def _asked(backend: ScriptedBackend) -> list[str]:
    """The prompts ``backend`` was asked, in order, but the stance step's (one a label: test_stance.py)."""
    return [info.prompt for info, _ in backend.calls if not info.prompt.startswith("guard_stance")]


async def test_a_claim_opening_with_it_keeps_the_window_s_verdict_under_the_reply_s_subject() -> None:
    """The extractor writes the second sentence's claim as "It was finished in 1889."; the claim is checked as
    "The Eiffel Tower was finished in 1889." (the reply's subject in place of "It"). It is the same statement, so
    the window's verdict for it stands: no claim is asked alone (offline, that second call is about 30 s)."""
    text = "The Eiffel Tower stands in Paris. It was finished in 1889."
    events: list[dict[str, Any]] = []
    result, backend = await run_check(script(claims=["The Eiffel Tower stands in Paris.", "It was finished in 1889."]),
                                      text, events=events, **FAST)
    assert _asked(backend) == ["guard_window"]
    assert [(c.claim, c.status, c.label.value if c.label else None) for c in result.claims] == [
        ("The Eiffel Tower stands in Paris.", "checked", "SUPPORTS"),
        ("The Eiffel Tower was finished in 1889.", "checked", "SUPPORTS")]
    assert not [e for e in events if e["event"] == "span_begin" and e["kind"] == "guard_window_reask"]


async def test_a_claim_numbered_to_the_wrong_sentence_covers_the_it_sentence_it_restates() -> None:
    """The offline model's window answer for the proxy quick start's reply, as it wrote it: "The Eiffel Tower
    stands in Paris." numbered sentence 1, though it restates sentence 2 ("It stands in Paris.") with the reply's
    subject in place of "It". The claim goes on sentence 2, and sentence 2 is not reported again as a claim whose
    "It" could not be resolved (the reader saw that line under a sentence the check had supported)."""
    answer = {"claims": [
        {"claim": "The Eiffel Tower was finished in 1899.", "sentences": [1], "label": "SUPPORTS", "passage": 0,
         "quote": "", "correction": ""},
        {"claim": "The Eiffel Tower stands in Paris.", "sentences": [1], "label": "SUPPORTS", "passage": 1,
         "quote": "The Eiffel Tower is a tower in Paris.", "correction": ""}]}
    base = script()

    def respond(call: Any, messages: Any, params: Any) -> str:
        return json.dumps(answer) if call.prompt.startswith("guard_window") else str(base(call, messages, params))

    text = "The Eiffel Tower was finished in 1899. It stands in Paris."
    result, _ = await run_check(respond, text, policy="flag", question="Tell me about the Eiffel Tower.", **FAST)
    assert [(c.claim, text[c.span.start:c.span.end] if c.span else None) for c in result.claims] == [
        ("The Eiffel Tower was finished in 1899.", "The Eiffel Tower was finished in 1899."),
        ("The Eiffel Tower stands in Paris.", "It stands in Paris.")]
    assert result.claims[1].status == "checked"
    assert "It stands in Paris." not in result.text.split("Fact check:")[1]  # the footnotes the reader sees


async def test_a_checker_on_this_machine_is_asked_for_labels_without_passage_numbers_or_quotes(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """A checker on this machine with the stance step on (the offline default) writes each claim's label and
    correction only: the stance step copies the quote from the passages shown and decides it, so a passage number
    and a quote are tokens (about a tenth of a second each offline) that nothing reads. Its SUPPORTS is checked on
    the passage sentence the stance step copied."""
    from factdebate.guard_engine import window_call

    monkeypatch.setattr(window_call, "checker_runs_here", lambda settings: True)
    lean = {"claims": [{"claim": "The Eiffel Tower stands in Paris.", "sentences": [1], "label": "SUPPORTS",
                        "correction": ""}]}
    asked: list[tuple[str, Any]] = []
    base = script()

    def respond(call: Any, messages: Any, params: Any) -> str:
        if call.prompt.startswith("guard_window"):
            asked.append((messages[0]["content"], params.json_schema))
            return json.dumps(lean)
        return str(base(call, messages, params))

    result, _ = await run_check(respond, "The Eiffel Tower stands in Paris.", **FAST)
    prompt, schema = asked[0]
    fields = schema["properties"]["claims"]["items"]["properties"]
    assert set(fields) == {"claim", "sentences", "label", "correction"}
    assert '"quote"' not in prompt and "copy from it" not in prompt
    claim = result.claims[0]
    assert (claim.status, claim.label.value if claim.label else None) == ("checked", "SUPPORTS")
    assert claim.evidence[0].quote == "The Eiffel Tower is a tower in Paris."  # copied by the stance step


def test_a_window_answer_s_numbers_are_held_to_those_shown() -> None:
    """llama.cpp's grammar of a JSON schema ignores an integer's minimum and maximum (the offline model numbered a
    claim of a two-sentence answer 3): the numbers are an enumeration."""
    from factdebate.guard_engine.window_call import window_schema

    item = window_schema(4, 2, 200, 3)["properties"]["claims"]["items"]["properties"]
    assert item["sentences"]["items"]["enum"] == [1, 2]
    assert item["passage"]["enum"] == [0, 1, 2, 3]
