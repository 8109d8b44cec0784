"""The stance step (guard_engine/stance.py): a fast-tier label stands only where the passage sentences closest to
the claim, copied by code, state or contradict it, as one constrained call says; those sentences are the quote
the reader sees."""

from __future__ import annotations

import json
from typing import Any

from factdebate.core.runtime import RunRecorder, recording
from factdebate.core.types import Document, Label
from factdebate.guard_engine.fast import FastVerdict
from factdebate.guard_engine.stance import StanceReply, ask_stance, closest_sentences, decided, settled
from factdebate.llm.base import GenParams, Message
from factdebate.llm.calls import CallInfo
from factdebate.llm.scripted import ScriptedBackend
from tests.guard.support import run_check, script
from tests.helpers import BagOfWordsEncoder

FAST_ONLY = {"tier": "fast", "max_tier": "fast"}
TOWER = Document(id="t", title="Eiffel Tower", text="The Eiffel Tower is a wrought-iron lattice tower. It stands on "
                 "the Champ de Mars in Paris, France. Gustave Eiffel's company designed and built it. Its base "
                 "is square.")
WAR = Document(id="w", title="Second Boer War", text="The Second Boer War began in 1899. It was fought in southern "
               "Africa.")


async def test_the_quote_is_the_passage_sentences_closest_to_the_claim_in_the_passage_order() -> None:
    quote = await closest_sentences("The Eiffel Tower stands in Paris.", [WAR, TOWER], BagOfWordsEncoder())
    assert quote is not None and quote.document.id == "t" and quote.index == 1
    # two sentences of the one passage, as the passage writes them: words a reader finds there
    assert quote.text in TOWER.text or all(part.strip() in TOWER.text for part in quote.text.split(". "))
    assert quote.text == "It stands on the Champ de Mars in Paris, France."
    assert await closest_sentences("Anything.", [Document(id="e", title="Empty", text="  ")],
                                   BagOfWordsEncoder()) is None


def _stance_double(answer: str) -> tuple[ScriptedBackend, list[str]]:
    asked: list[str] = []

    def respond(call: CallInfo, messages: list[Message], params: GenParams) -> str:
        assert call.prompt.startswith("guard_stance") and params.choices == ("states", "contradicts", "neither")
        asked.append(messages[0]["content"])
        return answer

    return ScriptedBackend(respond), asked


async def test_a_label_stands_only_on_the_stance_it_needs() -> None:
    from factdebate.llm.model import LLM

    claim = "The Eiffel Tower stands in Paris."
    for label, answer, stands in ((Label.SUPPORTS, "states", True), (Label.SUPPORTS, "neither", False),
                                  (Label.SUPPORTS, "contradicts", False), (Label.REFUTES, "contradicts", True),
                                  (Label.REFUTES, "states", False), (Label.SUPPORTS, "maybe so", False)):
        backend, asked = _stance_double(answer)
        verdict = FastVerdict(label, [WAR, TOWER], quote=claim, cited=False)  # the checker copied the claim
        out = await settled(claim, verdict, LLM(backend, role="debater"), BagOfWordsEncoder())
        assert len(asked) == 1 and f"Statement: {claim}" in asked[0] and "Passage (Eiffel Tower):" in asked[0]
        if stands:
            assert out.label == label and out.cited and out.documents[0].id == "t"
            assert out.quote != claim and "Champ de Mars" in out.quote  # the passage's words, not the checker's
        else:
            assert out.label is None and out.problem
            assert ("could not be read" in out.problem) == (answer == "maybe so")
    backend, asked = _stance_double("states")
    unsure = FastVerdict(Label.NOT_ENOUGH_INFO, [TOWER])
    assert await settled(claim, unsure, LLM(backend, role="debater"), BagOfWordsEncoder()) is unsure and not asked


async def test_a_supports_the_passage_does_not_state_reaches_the_reader_unchecked_with_the_reason() -> None:
    text = "The Eiffel Tower was designed by a bridge builder."
    base = script(claims=[text], fast=lambda claim: json.dumps(
        {"label": "SUPPORTS", "passage": 1, "quote": "The Eiffel Tower is a wrought-iron lattice tower."}))

    def respond(call: CallInfo, messages: list[Message], params: GenParams) -> str:
        if call.prompt.startswith("guard_stance"):
            return "neither"  # the sentences closest to the claim say nothing of a bridge builder
        return str(base(call, messages, params))

    result, _ = await run_check(respond, text, guard=FAST_ONLY, docs=[TOWER])
    (claim,) = result.claims
    assert (claim.status, claim.label) == ("unchecked", None)
    assert claim.reason is not None and "stance step answered neither" in claim.reason
    assert result.label is None


async def test_a_flag_shows_the_sentence_that_contradicts_the_claim_and_an_unread_stance_is_counted() -> None:
    text = "The Eiffel Tower is in Rome."
    seen: dict[str, Any] = {}
    for answer in ("contradicts", "Sure! It contradicts it."):
        base = script(claims=[text])  # the fast double refutes claims naming Rome, quoting the first passage

        def respond(call: CallInfo, messages: list[Message], params: GenParams, answer: str = answer,
                    base: Any = base) -> str:
            if call.prompt.startswith("guard_stance"):
                return answer
            return str(base(call, messages, params))

        result, _ = await run_check(respond, text, guard=FAST_ONLY, docs=[TOWER], policy="annotate")
        seen[answer] = result
    flagged = seen["contradicts"]
    (claim,) = flagged.claims
    assert (claim.status, claim.label) == ("checked", "REFUTES")
    cited = [e.quote for e in claim.evidence if e.cited]
    # one sentence of the passage the checker named, as the passage writes it
    assert len(cited) == 1 and cited[0] in TOWER.text and cited[0].count(". ") == 0
    (claim,) = seen["Sure! It contradicts it."].claims
    assert (claim.status, claim.label) == ("unchecked", None) and "could not be read" in (claim.reason or "")


async def test_an_unread_stance_is_counted_lost() -> None:
    from factdebate.llm.model import LLM

    backend, _ = _stance_double("It says so.")
    recorder = RunRecorder()
    quote = await closest_sentences("The Eiffel Tower stands in Paris.", [TOWER], BagOfWordsEncoder())
    assert quote is not None
    with recording(recorder):
        assert await ask_stance("The Eiffel Tower stands in Paris.", quote, LLM(backend, role="debater")) is None
    counts = recorder.parse_counts["guard_stance"]
    assert (counts.asked, counts.lost) == (1, 1)


async def test_with_the_step_off_no_stance_is_asked() -> None:
    text = "The Eiffel Tower is in Rome."
    asked: list[str] = []
    base = script(claims=[text])

    def respond(call: CallInfo, messages: list[Message], params: GenParams) -> str:
        asked.append(call.prompt)
        return str(base(call, messages, params))

    result, _ = await run_check(respond, text, guard={**FAST_ONLY, "stance_step": False}, docs=[TOWER])
    assert result.claims[0].label == "REFUTES"
    assert not any(p.startswith("guard_stance") for p in asked)


def test_measured_thresholds_decide_a_stance_from_its_probability_not_from_the_word_written() -> None:
    thresholds = {"states": 0.8, "contradicts": 0.7}
    # Written "states" at 0.62: below the measured threshold, so no passage was shown to state the claim.
    assert decided(StanceReply("states", {"states": 0.62, "contradicts": 0.33, "neither": 0.05}),
                   thresholds) == "neither"
    assert decided(StanceReply("states", {"states": 0.85, "contradicts": 0.1, "neither": 0.05}),
                   thresholds) == "states"
    assert decided(StanceReply("contradicts", {"states": 0.2, "contradicts": 0.75, "neither": 0.05}),
                   thresholds) == "contradicts"
    # Without thresholds for the model, or without probabilities, the answer as written decides.
    assert decided(StanceReply("states", {"states": 0.62, "contradicts": 0.33, "neither": 0.05}), None) == "states"
    assert decided(StanceReply("contradicts", None), thresholds) == "contradicts"
    assert decided(StanceReply(None, None), thresholds) is None


async def test_a_flag_needs_no_words_of_the_checker_s_own_but_a_copied_sentence_about_the_claim() -> None:
    text = "The Eiffel Tower is in Rome."
    for checker_quote, passage, flagged in (
            # The checker's own words are no passage's: the stance step copies one and decides on it.
            ("The tower is in Rome, not Paris.", TOWER, True),
            # The copied sentence says nothing of what the claim states: no flag, whatever the stance call says.
            ("The war began in 1899.", WAR, False)):
        base = script(claims=[text], fast=lambda claim, q=checker_quote: json.dumps(
            {"label": "REFUTES", "passage": 1, "quote": q}))

        def respond(call: CallInfo, messages: list[Message], params: GenParams, base: Any = base) -> str:
            return "contradicts" if call.prompt.startswith("guard_stance") else str(base(call, messages, params))

        result, _ = await run_check(respond, text, guard=FAST_ONLY, docs=[passage], policy="annotate")
        (claim,) = result.claims
        if flagged:
            assert (claim.status, claim.label) == ("checked", "REFUTES")
            (quote,) = [e.quote for e in claim.evidence if e.cited]
            assert quote in TOWER.text and checker_quote not in quote
        else:
            assert (claim.status, claim.label) == ("unchecked", None)
            assert "say nothing of what the claim states" in (claim.reason or "")


# Claims of real chatbot answers (benchmarks/real_answers.py, FactBench's and FELM's sets) and the built-in
# passage sentence the offline model's stance step called "states" on each.
NOT_WRITTEN = [
    ("C# is a modern, multi-paradigm programming language developed by Microsoft.",
     "C is a general-purpose programming language created in 1972 by Dennis Ritchie.", "C (programming language)"),
    ("Eise Eisinga was a Dutch amateur astronomer and clockmaker.",
     "People from the Netherlands are referred to as Dutch.", "Netherlands"),
    ("The Pilgrims first landed in Plymouth, Massachusetts in 1620.",
     "In 1620, the Pilgrims established Plymouth Colony, the second successful settlement in British America.",
     "Plymouth Colony"),
    ("The largest waterfall in the world is the Victoria Falls, located on the border of Zambia and Zimbabwe.",
     "Victoria Falls is a waterfall on the Zambezi River, located on the border between Zambia and Zimbabwe.",
     "Victoria Falls"),
    # FacTool's false answer: the sentence writes the empire and "existed" in other words, not "first"
    ("The Aztec Empire existed first.", "The Aztec Empire was a confederation of three city-states established in "
     "1427: Tenochtitlan, Tetzcoco, and Tlacopan.", "Aztec Empire"),
    ("The Titanic did not sink in 1912.", "RMS Titanic sank on 15 April 1912 after striking an iceberg.", "Titanic"),
    ("Michael Phelps has won a total of 28 Olympic medals.",
     "Phelps also holds the all-time records for Olympic gold medals (23).", "Michael Phelps"),
]
WRITTEN = [
    ("The Eiffel Tower stands in Paris.", "It stands on the Champ de Mars in Paris, France.", "Eiffel Tower"),
    ("Toni Morrison won the Nobel Prize in Literature in 1993.",
     "She was awarded the Nobel Prize in Literature in 1993.", "Toni Morrison"),
    ("The Titanic sank in 1912 after striking an iceberg.",
     "RMS Titanic sank on 15 April 1912 after striking an iceberg.", "Titanic"),
]


def test_a_quote_writes_its_claim_only_with_its_names_numbers_and_most_of_its_words() -> None:
    from factdebate.guard_engine.stance import writes_claim

    for claim, quote, title in NOT_WRITTEN:
        assert not writes_claim(claim, quote, title), claim
    for claim, quote, title in WRITTEN:
        assert writes_claim(claim, quote, title), claim


# Claim and passage sentence pairs where the sentence writes something in the claim's place, and where it does
# not (the offline model answered contradicts on the first of NOT_AGAINST, FactBench's pork chop answer).
AGAINST = [
    ("The Eiffel Tower opened in 1920.", "It opened to the public in 1889.", "Eiffel Tower"),
    ("The Eiffel Tower is located in Rome.", "It stands on the Champ de Mars in Paris, France.", "Eiffel Tower"),
    ("Sydney is the capital of Australia.", "Canberra is the capital city of Australia.", "Australia"),
    ("The Titanic did not sink after striking an iceberg.", "RMS Titanic sank after striking an iceberg.",
     "Titanic"),
]
NOT_AGAINST = [
    ("There are no chromosomes in a pork chop, as it is a piece of meat.",
     "Pork is the culinary name for the meat of the pig.", "Pork"),
    ("The Eiffel Tower stands in Paris.", "It stands on the Champ de Mars in Paris, France.", "Eiffel Tower"),
    ("The Eiffel Tower opened in 1889.", "Gustave Eiffel's company designed and built it.", "Eiffel Tower"),
    ("Toni Morrison won the Nobel Prize in Literature in 1993.",
     "Her first novel, The Bluest Eye, was published in 1970.", "Toni Morrison"),
]


def test_a_quote_writes_against_its_claim_only_with_another_number_name_or_negation_in_its_place() -> None:
    from factdebate.guard_engine.stance import writes_against

    for claim, quote, title in AGAINST:
        assert writes_against(claim, quote, title), claim
    for claim, quote, title in NOT_AGAINST:
        assert not writes_against(claim, quote, title), claim


async def test_an_in_process_model_s_contradicts_on_a_sentence_that_writes_nothing_against_the_claim_is_no_flag(
) -> None:
    from factdebate.llm.model import LLM

    claim, quote, title = NOT_AGAINST[0]
    passage = Document(id="p", title=title, text=quote)
    for name, flagged in (("llama-cpp:qwen2.5-coder-1.5b-instruct-q4_k_m.gguf", False), ("openai:gpt-4o", True)):
        backend, asked = _stance_double("contradicts")
        backend.name = name
        out = await settled(claim, FastVerdict(Label.REFUTES, [passage]), LLM(backend, role="debater"),
                            BagOfWordsEncoder())
        assert len(asked) == 1
        if flagged:
            assert out.label == Label.REFUTES and out.quote == quote
        else:
            assert out.label is None and out.problem is not None and "writes no other number, name" in out.problem
    # where a sentence of the passage writes another year, the flag stands on it
    backend, _ = _stance_double("contradicts")
    backend.name = "llama-cpp:qwen2.5-coder-1.5b-instruct-q4_k_m.gguf"
    tower = Document(id="t", title="Eiffel Tower", text="The Eiffel Tower is a lattice tower in Paris. It opened to "
                     "the public in 1889.")
    out = await settled("The Eiffel Tower opened in 1920.", FastVerdict(Label.REFUTES, [tower]),
                        LLM(backend, role="debater"), BagOfWordsEncoder())
    assert out.label == Label.REFUTES and out.quote == "It opened to the public in 1889."


async def test_of_the_closest_sentences_the_quote_is_one_that_writes_the_claim_for_an_in_process_model() -> None:
    from factdebate.llm.model import LLM

    # The closer sentence by words is the Pulitzer's; the one that writes the Nobel Prize and the year is the
    # quote, for an in-process model whose states needs it. A served model's states stands on the closer one.
    nobel = "In 1993 she was also awarded the Nobel Prize in Literature by the Swedish Academy in Stockholm."
    morrison = Document(id="m", title="Toni Morrison", text=f"Toni Morrison won the Pulitzer Prize in Literature "
                        f"in 1988. {nobel}")
    claim = "Toni Morrison won the Nobel Prize in Literature in 1993."
    quotes = {}
    for name in ("llama-cpp:qwen2.5-coder-1.5b-instruct-q4_k_m.gguf", "openai:gpt-4o"):
        backend, _ = _stance_double("states")
        backend.name = name
        out = await settled(claim, FastVerdict(Label.SUPPORTS, [morrison]), LLM(backend, role="debater"),
                            BagOfWordsEncoder())
        assert out.label == Label.SUPPORTS
        quotes[name] = out.quote
    assert quotes == {"llama-cpp:qwen2.5-coder-1.5b-instruct-q4_k_m.gguf": nobel,
                      "openai:gpt-4o": "Toni Morrison won the Pulitzer Prize in Literature in 1988."}


async def test_an_in_process_model_s_states_on_a_sentence_that_does_not_write_the_claim_leaves_it_unchecked() -> None:
    from factdebate.llm.model import LLM

    claim, quote, title = NOT_WRITTEN[0]
    passage = Document(id="c", title=title, text=quote)
    for name, stands in (("llama-cpp:qwen2.5-coder-1.5b-instruct-q4_k_m.gguf", False), ("openai:gpt-4o", True)):
        backend, asked = _stance_double("states")
        backend.name = name
        out = await settled(claim, FastVerdict(Label.SUPPORTS, [passage]), LLM(backend, role="debater"),
                            BagOfWordsEncoder())
        assert len(asked) == 1
        if stands:  # a served model's stance is taken as it answers (benchmarks/stance_step.py measures it)
            assert out.label == Label.SUPPORTS and out.quote == quote
        else:
            assert out.label is None and out.problem is not None and "does not write its names" in out.problem
    # the same model's states on a sentence that writes the claim stands, with that sentence as its quote
    claim, quote, title = WRITTEN[0]
    backend, _ = _stance_double("states")
    backend.name = "llama-cpp:qwen2.5-coder-1.5b-instruct-q4_k_m.gguf"
    out = await settled(claim, FastVerdict(Label.SUPPORTS, [TOWER]), LLM(backend, role="debater"), BagOfWordsEncoder())
    assert out.label == Label.SUPPORTS and out.quote == quote


async def test_what_a_guard_caller_reads_when_an_in_process_checker_says_states_of_a_sentence_about_c() -> None:
    from factdebate.llm.scripted import ScriptedBackend

    reply = "C# is a programming language developed by Microsoft."
    c_doc = Document(id="c", title="C (programming language)", text="C is a general-purpose programming language "
                     "created in 1972 by Dennis Ritchie. It is used on computers from supercomputers to embedded "
                     "systems.")
    base = script(claims=["C# is a programming language developed by Microsoft."])

    def respond(call: CallInfo, messages: list[Message], params: GenParams) -> str:
        if call.prompt.startswith("guard_stance"):
            return "states"  # as the offline model answered on this very pair
        return str(base(call, messages, params))

    for name, checked in (("llama-cpp:qwen2.5-coder-1.5b-instruct-q4_k_m.gguf", False), ("scripted", True)):
        result, _ = await run_check(respond, reply, guard=FAST_ONLY, docs=[c_doc],
                                    backend=ScriptedBackend(respond, name=name), policy="flag")
        (claim,) = result.claims
        if checked:
            assert (claim.status, claim.label) == ("checked", "SUPPORTS")
            assert result.text == reply  # nothing added under a checked claim
        else:
            assert (claim.status, claim.label) == ("unchecked", None)
            assert claim.reason is not None and "does not write its names, numbers" in claim.reason
            assert result.label is None
            # what the reader gets: the sentence, and under it that it could not be checked, and why
            assert result.text.startswith(reply) and f'"{reply}" could not be checked' in result.text
            assert "does not write its names, numbers and most of its words" in result.text


IN_PROCESS = "llama-cpp:qwen2.5-coder-1.5b-instruct-q4_k_m.gguf"  # a name llama.cpp in this process answers to


async def streamed_by_each_checker(reply: str, claim: str, doc: Document, stance: str, question: str
                                   ) -> dict[str, str]:
    """The text a streamed ``reply`` (word by word, under ``flag``, with the user's ``question``) shows, by checker
    name: one that runs in this process and a served one, each answering ``stance`` of ``claim`` over ``doc``."""
    from collections.abc import AsyncIterator

    from factdebate.guard_engine.options import GuardOptions
    from factdebate.guard_engine.stream_policy import guard_stream
    from factdebate.llm.scripted import ScriptedBackend
    from factdebate.run.build import build_resources
    from tests.helpers import StaticTool, resources_for

    base = script(claims=[claim])

    def respond(call: CallInfo, messages: list[Message], params: GenParams) -> str:
        return stance if call.prompt.startswith("guard_stance") else str(base(call, messages, params))

    async def words() -> AsyncIterator[str]:
        for word in reply.split(" "):
            yield word + " "

    tools = {"rag": StaticTool("rag", [doc]), "search": StaticTool("local", [doc])}
    shown: dict[str, str] = {}
    for name in (IN_PROCESS, "scripted"):
        settings = resources_for(respond, method="single", tools=tools, guard=FAST_ONLY)[0].settings
        resources = build_resources(settings, backends={"debater": ScriptedBackend(respond, name=name)},
                                    tool_factory=lambda kind: tools[kind], encoder_factory=BagOfWordsEncoder)
        async with resources:
            shown[name] = "".join([out.text async for out in guard_stream(
                words(), settings, resources, options=GuardOptions(policy="flag"), question=question)
                if out.kind == "text"])
    return shown


async def test_what_a_streamed_reply_shows_when_an_in_process_checker_says_states_of_a_sentence_about_c() -> None:
    c_doc = Document(id="c", title="C (programming language)", text="C is a general-purpose programming language "
                     "created in 1972 by Dennis Ritchie.")
    shown = await streamed_by_each_checker(
        "Sure. C# is a programming language developed by Microsoft.",
        "C# is a programming language developed by Microsoft.", c_doc, "states",
        "Which company made C#? I was asked this at work earlier today.")
    offline = shown[IN_PROCESS]
    assert offline.startswith("Sure. C# is a programming language developed by Microsoft.")
    assert "could not be checked" in offline and "does not write its names, numbers" in offline
    assert "could not be checked" not in shown["scripted"] and "Fact check" not in shown["scripted"]


async def test_what_a_guard_caller_reads_when_an_in_process_checker_flags_on_a_sentence_that_writes_nothing_against(
) -> None:
    from factdebate.llm.scripted import ScriptedBackend

    reply = "The Eiffel Tower is located in Rome."
    tower = Document(id="t", title="Eiffel Tower", text="The Eiffel Tower is a wrought-iron lattice tower. Its base "
                     "is square.")
    base = script(claims=[reply])

    def respond(call: CallInfo, messages: list[Message], params: GenParams) -> str:
        if call.prompt.startswith("guard_stance"):
            return "contradicts"
        return str(base(call, messages, params))

    for name, flagged in (("llama-cpp:qwen2.5-coder-1.5b-instruct-q4_k_m.gguf", False), ("scripted", True)):
        result, _ = await run_check(respond, reply, guard=FAST_ONLY, docs=[tower],
                                    backend=ScriptedBackend(respond, name=name), policy="flag")
        (claim,) = result.claims
        if flagged:  # a served model's contradicts is taken as it answers
            assert (claim.status, claim.label) == ("checked", "REFUTES")
        else:
            assert (claim.status, claim.label) == ("unchecked", None)
            assert claim.reason is not None and "writes no other number, name or negation" in claim.reason
            # what the reader gets: the sentence, not marked false, and that it could not be checked, and why
            assert result.text.startswith(reply) and f'"{reply}" could not be checked' in result.text
            assert "writes no other number, name or negation" in result.text


async def test_what_a_streamed_reply_shows_when_an_in_process_checker_flags_on_a_sentence_that_writes_nothing_against(
) -> None:
    reply = "Sure. The Eiffel Tower is located in Rome."
    tower = Document(id="t", title="Eiffel Tower", text="The Eiffel Tower is a wrought-iron lattice tower.")
    shown = await streamed_by_each_checker(reply, "The Eiffel Tower is located in Rome.", tower, "contradicts",
                                           "Where is the Eiffel Tower? My friend says it is in Italy.")
    offline = shown[IN_PROCESS]
    assert offline.startswith(reply)
    assert "could not be checked" in offline and "writes no other number, name or negation" in offline
    assert "could not be checked" not in shown["scripted"]  # a served checker's flag is shown as a flag
