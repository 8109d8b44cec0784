"""Why, on every claim and every method, and honest evidence: every method's verdict
on the page gives one sentence of the deciding answer's own reasoning and, where that answer cited a passage,
the line it rests on; a response's claim rows say why too. The passages cited stand apart from those only
read (folded), each once; a ReAct agent's repeated observations are folded and named, not listed again.
The embedded model's near-chance caution (item 5) stands beside any label it gave, in the terminal's words.
Walked in Debian's Chromium against a live service with scripted models; the wording of the reason and of
the decisions (MAD without scores, DPD's tie at zero confidence, FacTool's rules) under Node."""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterator
from functools import partial
from typing import Any

import pytest

from factdebate.cli.render import embedded_model_note
from factdebate.core.types import Document
from factdebate.llm import near_chance
from factdebate.llm.base import GenParams, Message
from factdebate.llm.calls import CallInfo
from factdebate.llm.scripted import ScriptedBackend
from factdebate.llm.scripted_library import protocol_responder
from factdebate.methods import Method, Resources
from factdebate.run.build import build_resources
from factdebate.server.app import create_app
from factdebate.server.catalogue import page_views
from factdebate.settings.model import Settings
from tests.helpers import BagOfWordsEncoder, StaticTool
from tests.server.conftest import KEY, PLAIN, LiveServer
from tests.server.page.test_browser import pytestmark, sign_in, verify_claim_with, watched_page  # noqa: F401
from tests.server.page.test_page_scripts import NODE, run_module

CLAIM = "The Eiffel Tower was completed in 1889."
ONE_ANSWER = {"cot", "react", "single", "mermaid", "selfcheck", "wecheck", "halueval-fewshot"}
LABEL = re.compile(r"^(SUPPORTS|REFUTES|NOT ENOUGH INFO)$")
EIFFEL = Document(id="r1", title="Eiffel Tower", text="The tower was built for the 1889 World's Fair. "
                  "The tower was completed in 1889.", source="https://en.wikipedia.org/wiki/Eiffel_Tower")
BURJ = Document(id="r2", title="Burj Khalifa", text="The Burj Khalifa in Dubai is the tallest building.",
                source="https://en.wikipedia.org/wiki/Burj_Khalifa")
PARIS = Document(id="s1", title="Paris landmarks", text="The Eiffel Tower opened in 1889.",
                 source="https://example.org/paris")


def reasons_backend() -> ScriptedBackend:
    """The scripted protocol, with a reason before every bare label (citing passage [1] when the prompt
    numbers passages), and a ReAct agent that searches the same words three times, then finishes."""
    agree = protocol_responder(disagree=False)

    def respond(call: CallInfo, messages: list[Message], params: GenParams) -> str:
        text = messages[0]["content"]
        if call.prompt.startswith("react_step"):
            if text.count("\nObservation: ") < 3:
                return "Thought: I need the year the tower was finished.\nAction: search[Eiffel Tower completed]"
            return "Thought: The passages say the tower was completed in 1889.\nAction: finish[SUPPORTS]"
        reply = agree(call, messages, params)
        if not LABEL.match(reply.strip()):
            return reply
        if "[1]" in text:
            return f"Passage [1] says the tower was completed in 1889, as claimed.\n{reply}"
        return f"The claim matches what is widely known about the tower.\n{reply}"

    return ScriptedBackend(respond, name="scripted:reasons", record=False)


def build(settings: Settings, backend: ScriptedBackend) -> Resources:
    """Static tools: the RAG agent reads a passage about the claim and one about something else."""
    tools = {"rag": StaticTool("rag", [EIFFEL, BURJ]), "search": StaticTool("search", [PARIS])}
    return build_resources(settings, backends={"debater": backend, "judge": backend, "scorer": backend},
                           tool_factory=lambda kind: tools[kind], encoder_factory=BagOfWordsEncoder)


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveServer]:
    folder = tmp_path_factory.mktemp("db")
    # MERMAID's search server reads a small slice of the built-in corpus, and its memory starts empty.
    defaults = {**PLAIN, "agents": ["rag", "search"], "rounds": 2, "vote_samples": 3, "dpd_min_rounds": 0,
                "dpd_max_rounds": 1, "react_max_steps": 5, "mermaid_servers": ["search"],
                "memory_path": str(folder / "memory.sqlite"), "mermaid_memory_semantic": False}
    app = create_app(api_keys=[KEY], defaults=defaults, db_path=folder / "service.sqlite",
                     build=partial(build, backend=reasons_backend()))
    with pytest.MonkeyPatch.context() as patch, LiveServer(app) as live:
        patch.setenv("FACTDEBATE_RETRIEVAL__BUILTIN_DOCS", "40")
        yield live


def verify(page: Any, method: str) -> None:
    verify_claim_with(page, CLAIM, method, 90_000)


def test_every_method_says_why_in_its_deciding_answers_words(chromium: Any, server: LiveServer) -> None:
    page, errors = watched_page(chromium, viewport={"width": 1280, "height": 900})
    sign_in(page, server.url)
    page.wait_for_selector("#method option[value=tool-mad]", state="attached")
    quoted = []
    for method in Method.registered():  # the registry's, so a method added later is walked too
        verify(page, method)
        box = page.locator("#live .verdict-box")
        reason = box.locator(".verdict-reason .reason-text")
        assert reason.count() == 1, method
        words = reason.inner_text()
        # A sentence in words: whose answer, and what it wrote (or that it gave no reason).
        assert re.search(r" (wrote: “.+”|answered .+ without giving a reason\.)$", words), (method, words)
        assert "_" not in words and "claim-1" not in words, (method, words)
        if method in ONE_ANSWER:  # A "why" sentence on these too
            assert box.locator(".verdict-why").count() == 1, method
        cited = box.locator(".deciding-evidence > .passages .passage")
        if cited.count():  # evidence was cited: the line it rests on is quoted, from a cited passage
            quote = box.locator(".reason-quote .passage-text").inner_text()
            assert quote, method
            texts = [cited.nth(i).locator(".passage-text").inner_text() for i in range(cited.count())]
            assert any(quote.strip("…") in t or t.strip("…") in quote for t in texts), (method, quote, texts)
            quoted.append(method)
        # Passages read but not cited are folded apart, never listed twice.
        sources = box.locator(".deciding-evidence .passage-source").all_text_contents()
        assert len(sources) == len(set(sources)), (method, sources)
    # Debaters and voters answer with "Passage [1] says...": their verdicts rest on a quoted line.
    assert {"tool-mad", "vote", "madke"} <= set(quoted), quoted
    assert errors == []


def test_cited_apart_from_read_and_a_react_agent_repeats_nothing(chromium: Any, server: LiveServer) -> None:
    page, errors = watched_page(chromium, viewport={"width": 1280, "height": 900})
    sign_in(page, server.url)
    page.wait_for_selector("#method option[value=tool-mad]", state="attached")

    # Tool-MAD: the RAG agent read the Eiffel Tower and the Burj Khalifa and cited [1]: only the first is cited.
    verify(page, "tool-mad")
    evidence = page.locator("#live .verdict-box .deciding-evidence")
    assert (evidence.locator(":scope > .kicker").text_content() or "").startswith("cited by rag")
    cited = evidence.locator(":scope > .passages .passage-source").all_inner_texts()
    assert any("Eiffel Tower" in c for c in cited) and not any("Burj" in c for c in cited), cited
    read = evidence.locator("details.also-read")
    assert read.get_attribute("open") is None  # folded
    assert "Burj Khalifa" in (read.text_content() or "")
    assert "completed in 1889" in page.inner_text("#live .verdict-box .reason-quote")

    # ReAct: three searches of the same words; the repeats are not run again (the agent is told so, and the
    # page shows that note once, then names it); the passages are listed once.
    verify(page, "react")
    steps = page.locator("#live .steps .step")
    assert steps.count() == 4, steps.all_inner_texts()
    folds = page.locator("#live .steps .step details.step-observation")
    assert folds.count() == 3
    assert all(folds.nth(i).get_attribute("open") is None for i in range(3))
    summaries = [folds.nth(i).locator("summary").inner_text() for i in range(3)]
    assert summaries[1].startswith("observation: Not run again: this is the action of step 1"), summaries
    assert summaries[2] == "observation: the same as step 2", summaries
    listed = page.locator("#live .agent-col .evidence .docs > li").count()
    assert listed == 2, listed  # Eiffel Tower and Burj Khalifa, not each once per search
    reason = page.inner_text("#live .verdict-reason .reason-text")
    assert reason.endswith("wrote: “The passages say the tower was completed in 1889.”"), reason
    assert errors == []


def test_a_responses_claims_each_say_why(chromium: Any, server: LiveServer) -> None:
    page, errors = watched_page(chromium, viewport={"width": 1360, "height": 1000})
    sign_in(page, server.url)
    page.wait_for_selector("#method option[value=tool-mad]", state="attached")
    page.select_option("#method", "tool-mad")
    page.click("button.tab[data-mode=response]")
    page.fill("#response-text", "The Eiffel Tower was completed in 1889. It stands in Paris.")
    page.click("#submit")
    page.wait_for_selector("#response-live .response-verdict:not([hidden]) .verdict-label", timeout=60_000)
    rows = page.locator("#response-live .claim-item")
    assert rows.count() == 2
    for i in range(2):
        reason = rows.nth(i).locator(".verdict-reason .reason-text").inner_text()
        assert reason.startswith("RAG agent wrote: “Document [1] states that "), reason
    assert rows.nth(0).locator(".reason-quote .passage-text").inner_text() == "The tower was completed in 1889."
    # No line of the passage cited names Paris: nothing is quoted as what "It stands in Paris." rests on
    #, and the passage is still listed as cited.
    assert rows.nth(1).locator(".reason-quote").count() == 0
    assert rows.nth(1).locator(".deciding-evidence .passage").count() >= 1
    assert errors == []


@pytest.mark.skipif(NODE is None, reason="no Node.js to run the page's scripts")
def test_the_reason_is_read_from_each_methods_answer() -> None:
    replies = {
        "Document [2] says it opened in 1889.\nVerdict: SUPPORTS": "Document [2] says it opened in 1889.",
        '{"why": "The affirmative side cites the record.", "vote": "affirmative"}':
            "The affirmative side cites the record.",
        '{"thought": "The evidence agrees.", "answer": "True"}': "The evidence agrees.",
        "The statement says nothing the source does not.\nHallucination: No":
            "The statement says nothing the source does not.",
        "SUPPORTS": None,
        "Thought: The passages put the tower in Paris.\nAction: finish[SUPPORTS]":
            "The passages put the tower in Paris.",
    }
    got = run_module("reason.js", "data.map(m.reasonSentence)", list(replies))
    assert got == list(replies.values())
    verdict = {"claim": CLAIM, "label": "SUPPORTS", "decided_by": "judge",
               "rounds": [{"round": 1, "turns": [
                   {"agent": "rag", "label": "SUPPORTS", "response": "SUPPORTS", "evidence": [EIFFEL.model_dump()]},
                   {"agent": "search", "label": "SUPPORTS", "response": 'It "opened in 1889" says the page.\nSUPPORTS',
                    "evidence": [PARIS.model_dump(), BURJ.model_dump()]}]}],
               "judges": [{"agent": "judge", "vote": "SUPPORTS",
                           "response": "Both agents agree on the year.\nSUPPORTS"}]}
    reason = run_module("reason.js", "m.verdictReason(data)", verdict)
    # The judge's own sentence; it cited nothing, so the passage the answer it took quoted stands for it.
    assert reason["sentence"] == "Both agents agree on the year." and reason["agent"] == "judge"
    assert reason["citing"] == ["search"] and [d["id"] for d in reason["cited"]] == ["s1"]
    assert reason["quote"]["text"] == "opened in 1889"
    assert sorted(d["id"] for d in reason["read"]) == ["r1", "r2"]


@pytest.mark.skipif(NODE is None, reason="no Node.js to run the page's scripts")
def test_decisions_are_said_as_they_happened() -> None:
    # MAD: no scores, a moderator each round who named no winner.
    mad = {"label": "SUPPORTS", "decided_by": "judge", "rounds": [
        {"round": r, "turns": [{"agent": side, "label": "SUPPORTS"} for side in ("affirmative", "negative")],
         "judges": [{"agent": "moderator", "vote": None}]} for r in (1, 2)]}
    # DPD: every referee's confidence 0, so every weighted total is 0.
    tie = {"label": "NOT ENOUGH INFO", "decided_by": "panel-tie", "rounds": [{"round": 1, "turns": []}],
           "judges": [{"agent": a, "vote": "SUPPORTS", "confidence": 0} for a in ("factual", "logical", "rhetorical")]}
    factool = {"label": "REFUTES", "decided_by": "any-false", "rounds": [{"round": 1, "turns": [
        {"agent": "claim-1", "label": "SUPPORTS"}, {"agent": "claim-2", "label": "REFUTES"}]}]}
    said = run_module("why.js", "data.map(v => m.verdictSentence(v, {}))", [mad, tie, factool])
    assert said[0] == ("Both said SUPPORTS in the last round, but no round's moderator named a winner, "
                       "so the judge decided: SUPPORTS."), said[0]
    assert "scores" not in said[0]
    assert "every referee's confidence was 0, so every weighted total was 0: a tie" in said[1], said[1]
    assert said[2] == "1 of the 2 claims it was split into was found false, and one false claim makes the whole false."
    assert json.dumps(said).count("any-false") == 0


def test_the_embedded_models_caution_stands_beside_its_label(chromium: Any, live_server: Callable[..., LiveServer],
                                                             monkeypatch: pytest.MonkeyPatch) -> None:
    # The scripted model stands in for the embedded one: only the model names matter (llm/near_chance.py).
    monkeypatch.setattr(near_chance, "EMBEDDED_MODELS", (*near_chance.EMBEDDED_MODELS, "scripted:agree"))
    words = near_chance.near_chance_note(["scripted:agree"], near_chance.CLAIM, near_chance.PAGE_ADVICE,
                                         embedded=["scripted:agree"])
    with live_server(defaults={**PLAIN, "llm": "scripted:agree"}) as served:
        page, errors = watched_page(chromium, viewport={"width": 1280, "height": 900})
        sign_in(page, served.url)
        page.wait_for_selector("#method option[value=single]", state="attached")
        verify(page, "single")
        box = page.locator("#live .verdict-box")
        assert box.locator(".near-chance").first.inner_text() == words  # the service's words, not the page's own
        # Next to the label it qualifies, before the reasons.
        order = box.evaluate("b => [...b.children].map(c => c.className)")
        assert order.index("near-chance") == order.index("verdict-main") + 1, order
        # The card names the model that decided it, and the script's own caution is said too.
        assert box.locator(".verdict-model").inner_text() == "Decided with the model scripted:agree"
        assert "scripted:agree is a script, not a model" in box.locator(".near-chance").nth(1).inner_text()
        page.click("button.tab[data-mode=response]")
        page.fill("#response-text", "The Eiffel Tower was completed in 1889.")
        page.click("#submit")
        page.wait_for_selector("#response-live .response-verdict:not([hidden]) .verdict-label", timeout=60_000)
        note = page.locator("#response-live .response-verdict .near-chance").first.inner_text()
        assert "near chance" in note and "not the claims" in note
        assert page.inner_text("#response-live .response-verdict .verdict-model") == \
            "Decided with the model scripted:agree"
    with live_server(defaults={**PLAIN, "llm": "scripted:disagree"}) as served:  # not embedded: no near-chance note
        sign_in(page, served.url)
        page.wait_for_selector("#method option[value=single]", state="attached")
        verify(page, "single")
        # Only the script's caution (a scripted verdict looked like a real one).
        assert page.locator("#live .near-chance").all_inner_texts() == [
            "note: scripted:disagree is a script, not a model: its answers are written in advance, so this verdict "
            "tests the pipeline, not the claim."]
    assert errors == []


def test_the_terminal_and_the_page_share_the_cautions_words() -> None:
    views = page_views().near_chance
    assert views.models == list(near_chance.EMBEDDED_MODELS)
    cli = embedded_model_note(["llama-cpp:builtin"])
    assert cli is not None and views.claim.split("; for real verdicts")[0] == cli.split("; for real verdicts")[0]
    assert "OPENAI_BASE_URL" in cli and "operator" in views.claim and "OPENAI_BASE_URL" not in views.claim


@pytest.mark.skipif(NODE is None, reason="no Node.js to run the page's scripts")
def test_the_line_quoted_shares_the_claims_names_and_numbers_and_is_shown_once() -> None:
    """"it rests on" quoted the Paris/Champ de Mars line for "...completed in 1889." (a
    repeated "tower" counted twice), and a one-line passage was quoted above itself."""
    doc = {"id": "e", "text": "The Eiffel Tower is a wrought-iron lattice tower on the Champ de Mars in Paris. "
                              "It is named after the engineer Gustave Eiffel. The tower was completed in 1889."}
    lines = run_module("reason.js", "data.claims.map(c => m.bestLine(data.doc, c))",
                       {"doc": doc, "claims": [CLAIM, "The Burj Khalifa is in Dubai.", "Gustave Eiffel built it."]})
    assert lines == ["The tower was completed in 1889.", None, "It is named after the engineer Gustave Eiffel."]
    verdict = {"claim": CLAIM, "label": "SUPPORTS", "decided_by": "single", "rounds": [{"round": 1, "turns": [
        {"agent": "cot", "label": "SUPPORTS", "response": "Passage [1] says so.\nSUPPORTS",
         "evidence": [PARIS.model_dump()]}]}]}
    reason = run_module("reason.js", "m.verdictReason(data)", verdict)
    assert [d["id"] for d in reason["cited"]] == ["s1"]
    assert reason["quote"] is None  # the whole passage is the line: it is shown once, in the list below
    # A reason that says the line word for word is not followed by the same line again, and an
    # agent's own name starts its sentence with a capital.
    said = "Passage [1] says: the tower was completed in 1889."
    verdict["rounds"][0]["turns"][0].update(response=said + "\nSUPPORTS", evidence=[{"id": "e", **doc}])
    reason = run_module("reason.js", "m.verdictReason(data)", verdict)
    assert [d["id"] for d in reason["cited"]] == ["e"] and reason["quote"] is None, reason
    assert run_module("reason.js", "m.reasonText(data)", reason) == "Cot wrote: “" + said + "”"


@pytest.mark.skipif(NODE is None, reason="no Node.js to run the page's scripts")
def test_one_answer_methods_say_why_and_say_so_when_the_answer_gave_no_reason() -> None:
    """Cot, single, ReAct, Self-Check, HaluEval, MERMAID and WeCheck had no "why" sentence."""
    def one(response: str, decided_by: str = "single", steps: int = 0, **more: Any) -> dict[str, Any]:
        turn = {"agent": "cot", "role": "answerer", "label": "SUPPORTS", "response": response,
                "steps": [{"thought": "", "tool": "search"}] * steps}  # no thought: a bare label is all it gave
        return {"claim": CLAIM, "label": "SUPPORTS", "decided_by": decided_by,
                "rounds": [{"round": 1, "turns": [turn]}], **more}

    said = run_module(
        "why.js", "data.map(v => m.verdictSentence(v, {}))",
        [one("The passage dates it to 1889.\nSUPPORTS"), one("SUPPORTS"), one("SUPPORTS", steps=3),
         one("It is so.\nSUPPORTS", "executor", steps=2), one("SUPPORTS", "forced", steps=5),
         # MERMAID's executor records its answer as a step named "answer" (methods/mermaid/method.py), and an
         # action it was stopped from repeating ran nothing: one tool call here, as its usage's "1 search" says.
         {**one("It is so.\nSUPPORTS", "executor"), "rounds": [{"round": 1, "turns": [
             {"agent": "executor", "role": "executor", "label": "SUPPORTS", "response": "It is so.\nSUPPORTS",
              "steps": [{"thought": "", "tool": "search_local", "arguments": {"query": "Eiffel Tower"}},
                        {"thought": "", "tool": "", "observation": "no valid step was given"},
                        {"thought": "", "tool": "search_local", "arguments": {"query": "Eiffel Tower"},
                         "observation": "the same action as step 1: not repeated"},
                        {"thought": "", "tool": "answer", "arguments": {"answer": "SUPPORTS"}}]}]}]},
         # ReAct closes with "finish[LABEL]" (methods/baselines/react.py): its answer too.
         {**one("It is so.\nSUPPORTS", "single"), "rounds": [{"round": 1, "turns": [
             {"agent": "react", "role": "answerer", "label": "SUPPORTS", "response": "It is so.\nSUPPORTS",
              "steps": [{"thought": "", "tool": "search"}, {"thought": "", "tool": "search"},
                        {"thought": "", "tool": "finish", "arguments": {"label": "SUPPORTS"}}]}]}]},
         one("", "threshold", explanation="highest similarity to the evidence 0.812 (threshold 0.5)"),
         one("", "consistency", explanation="inconsistency 0.00 (0 of 3 passages do not support the claim); "
                                            "threshold 0.5")])
    assert said == [
        "The model answered once, and that answer is the verdict: SUPPORTS; its own reason is quoted below.",
        # No reason given: the reason's own line says so ("… without giving a reason."), not this one too.
        "The model answered once, and that answer is the verdict: SUPPORTS.",
        "The agent made 3 tool calls and then finished with SUPPORTS.",
        "The executor made 2 tool calls and then answered SUPPORTS; its own reason is quoted below.",
        "The executor used its 5 tool calls without answering and was then asked for a label: SUPPORTS.",
        "The executor made 1 tool call and then answered SUPPORTS; its own reason is quoted below.",
        "The agent made 2 tool calls and then finished with SUPPORTS; its own reason is quoted below.",
        "No model reasoned here: the highest similarity to the evidence 0.812 (threshold 0.5) gives SUPPORTS.",
        "Sampled passages were each asked whether they support the claim: inconsistency 0.00 (0 of 3 passages do "
        "not support the claim); threshold 0.5, so SUPPORTS."]
    assert run_module("reason.js", "m.reasonText(m.verdictReason(data))", one("SUPPORTS")) == \
        "Cot answered SUPPORTS without giving a reason."  # the one place that says it
