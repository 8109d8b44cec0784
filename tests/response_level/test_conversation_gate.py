"""The gate and the grounding rules in a reply's context: short
answers and list items are statements, headings are read into their items, thanks and links are no claims, a
claim is a declarative sentence whose names and predicate the text (or the conversation) states, and the
uncovered-sentence fallback never invents a subject."""

from __future__ import annotations

import pytest

from factdebate.guard_engine.window import TURNS_CHARS, turns_of, window
from factdebate.response_level.grounding import grounded, is_statement, uncovered_sentences
from factdebate.response_level.worthiness import gated, layout, reason_to_skip


def worthy_text(text: str, *, asked: bool = False) -> str:
    """The check-worthy sentences of ``text``, each under its heading: what the extractor is given."""
    pieces = gated(text, asked=asked)
    return layout(text, pieces, [(start, end) for start, end, reason in pieces if reason is None])[0]


def reasons(text: str, asked: bool = False) -> list[tuple[str, str | None]]:
    return [(text[a:b], why) for a, b, why in gated(text, asked=asked)]


@pytest.mark.parametrize("reply", ["Sydney.", "Yes.", "No.", "In 1743.", "The Rhône."])
def test_a_short_answer_is_a_statement_in_its_question_s_context(reply: str) -> None:
    assert reason_to_skip(reply, asked=True) is None
    assert reason_to_skip("Okay.", asked=True) == "greeting"


def test_without_a_question_a_fragment_still_says_nothing() -> None:
    assert reason_to_skip("Sydney.") == "no content"


def test_short_list_items_are_statements_under_their_heading() -> None:
    text = "Capitals of the Nordic countries:\n- Norway: Oslo\n- Sweden: Bergen\n- 2012: London"
    assert reasons(text) == [("Capitals of the Nordic countries:", "heading"), ("- Norway: Oslo", None),
                             ("- Sweden: Bergen", None), ("- 2012: London", None)]
    assert worthy_text(text) == "Capitals of the Nordic countries:\n- Norway: Oslo\n- Sweden: Bergen\n- 2012: London"


def test_a_numbered_item_is_one_sentence_and_keeps_its_year() -> None:
    assert reasons("Largest countries by area:\n1. Russia\n2. China") == [
        ("Largest countries by area:", "heading"), ("1. Russia", None), ("2. China", None)]
    assert reasons("It was 1. Then 2.") == [("It was 1.", None), ("Then 2.", None)]


def test_markdown_and_bold_headings() -> None:
    assert reasons("## Mont Blanc\n- Height: 4,808 m")[0] == ("## Mont Blanc", "heading")
    assert reasons("**Shakespeare**\n- Born: 1564")[0] == ("**Shakespeare**", "heading")
    # A sentence after the heading that is no list item is read under it too; a later paragraph is not.
    assert worthy_text("Facts about Curie:\nShe won two Nobel Prizes.") == \
        "Facts about Curie:\nShe won two Nobel Prizes."


@pytest.mark.parametrize("sentence", ["Thanks for asking about Europe's famous landmarks.",
                                      "Great question about the Eiffel Tower!", "Thank you for your question."])
def test_thanks_and_framing_are_greetings(sentence: str) -> None:
    assert reason_to_skip(sentence) == "greeting"


@pytest.mark.parametrize("sentence", ["More at https://en.wikipedia.org/wiki/Eiffel_Tower_details_page.",
                                      "You can read more at https://example.org/Paris.",
                                      "Source: https://www.example.com/Berlin"])
def test_a_sentence_that_only_points_to_a_link_is_not_checked(sentence: str) -> None:
    assert reason_to_skip(sentence) == "link"


def test_a_url_s_words_are_no_name() -> None:
    assert reason_to_skip("The tower is in Berlin, see https://example.org/Paris.") is None
    assert reason_to_skip("Hello https://example.org/Paris/Rome") == "link"


def test_a_claim_is_a_declarative_sentence() -> None:
    for junk in ("date_published", "story_origin", "Sweden: Bergen", "## Facts about Japan - Tokyo is the capital.",
                 "Capitals of the Nordic countries:", "Is Tokyo the capital?", "Tokyo"):
        assert not is_statement(junk), junk
    for claim in ("Tokyo is the capital of Japan.", "Apollo 11 landed on the Moon in 1969.",
                  "Marie Curie won two Nobel Prizes.", "The Danube flows into the Black Sea."):
        assert is_statement(claim), claim


def test_grounding_takes_longer_names_and_refuses_a_predicate_the_text_lacks() -> None:
    source = "Facts about Curie:\n- She won two Nobel Prizes. The play was first published in 1597."
    kept, dropped = grounded(["Marie Curie won two Nobel Prizes.", "The play was banned in 1597.",
                              "date_published", "Pierre Dupont won two Nobel Prizes."], source)
    assert kept == ["Marie Curie won two Nobel Prizes."]
    assert dropped == ["The play was banned in 1597.", "date_published", "Pierre Dupont won two Nobel Prizes."]


def test_a_claim_contained_in_another_is_checked_once() -> None:
    kept, dropped = grounded(["Tokyo is the capital of Japan.", "Tokyo is the capital of Japan and its largest city."],
                             "Tokyo is the capital of Japan and its largest city.")
    assert kept == ["Tokyo is the capital of Japan and its largest city."] and dropped == []


def test_the_fallback_never_makes_a_subject_of_i_hi_or_a_heading() -> None:
    assert uncovered_sentences("I looked into this for you. It is located in Paris, the capital of France.", [],
                               5) == []
    assert uncovered_sentences("Hi there. It is in Berlin since 1990.", [], 5) == []
    assert uncovered_sentences("Facts about Curie:\n- She won three Nobel Prizes.", [], 5) == []
    assert uncovered_sentences("The Eiffel Tower is in Paris. It is in Berlin.", ["The Eiffel Tower is in Paris."],
                               5) == ["The Eiffel Tower is in Berlin."]


def test_the_window_holds_the_turns_before_the_question_most_recent_first() -> None:
    messages = [{"role": "user", "content": f"Question {n}? " + "Some words. " * 20} if n % 2 == 0 else
                {"role": "assistant", "content": f"Answer {n}. " + "More words. " * 20} for n in range(21)]
    messages.insert(3, {"role": "tool", "tool_call_id": "t", "content": "a tool's result"})
    question = messages[-1]["content"]
    shown = window(turns_of(messages), question)
    assert shown.turns is not None and shown.turns.splitlines()[-1].startswith("Assistant: Answer 19.")
    assert "Question 20?" not in shown.turns and "tool" not in shown.turns
    assert len(shown.turns) <= TURNS_CHARS and shown.total == 20 and 0 < shown.shown < 20
    assert shown.note is not None and f"{20 - shown.shown} earlier turn(s)" in shown.note
    assert window(turns_of(messages[:1]), messages[0]["content"]).text is None


@pytest.mark.parametrize("faq", ["Q: When did the Titanic sink?\nA: In 1912.",
                                 "**Q:** When did the Titanic sink?\n**A:** In 1912.",
                                 "Question: When did the Titanic sink?\nAnswer: In 1912."])
def test_an_faq_answer_line_is_read_with_its_question_line(faq: str) -> None:
    # "A: In 1912." says nothing without the question above it: the extractor is given both, as one statement.
    assert reasons(faq + "\n\n" + faq.replace("Titanic sink", "Berlin Wall fall").replace("1912", "1989")) == [
        (faq, None), (faq.replace("Titanic sink", "Berlin Wall fall").replace("1912", "1989"), None)]
    assert worthy_text(faq) == faq
    assert reasons("When did the Titanic sink?\nIn 1912.") == [("When did the Titanic sink?", "question"),
                                                                ("In 1912.", None)]  # no FAQ's labels: as before


def test_citations_references_and_a_hedge_state_nothing() -> None:
    text = ("The RMS Titanic sank in 1912. [1][2]\n\nYou may want to double-check this.\n\nReferences:\n"
            "[1] https://en.wikipedia.org/wiki/RMS_Titanic\n[2] \"RMS Titanic\". Encyclopaedia Britannica. Retrieved "
            "12 March 2024.\n\n**Sources:**\n1. Encyclopaedia Britannica\n\nThe Berlin Wall fell in 1989.")
    assert reasons(text, asked=True) == [
        ("The RMS Titanic sank in 1912.", None), ("[1][2]", "reference"),
        ("You may want to double-check this.", "instruction"), ("References:", "heading"),
        ("[1] https://en.wikipedia.org/wiki/RMS_Titanic", "reference"), ('[2] "RMS Titanic".', "reference"),
        ("Encyclopaedia Britannica.", "reference"), ("Retrieved 12 March 2024.", "reference"),
        ("**Sources:**", "heading"), ("1. Encyclopaedia Britannica", "reference"),
        ("The Berlin Wall fell in 1989.", None)]  # the block ends at a paragraph that is no item
    # A question in Arabic or Japanese ends with its own question mark.
    assert reason_to_skip("هل غرقت تايتانيك عام ١٩١٢؟") == "question"
    assert reason_to_skip("タイタニック号はいつ沈没しましたか？") == "question"
    # A hedge that states something is checked for it.
    assert reason_to_skip("You may want to check that the Eiffel Tower is in Berlin.") is None


def test_a_block_of_references_goes_on_across_the_parts_a_stream_gates() -> None:
    from factdebate.guard_engine.gate import gate, sources_after_sentences

    head = gate("The Titanic sank in 1912.\n\nSources:\n")
    assert sources_after_sentences(head)
    assert [s.reason for s in gate("1. Encyclopaedia Britannica", sources=True)] == ["reference"]
    assert [s.reason for s in gate("1. Encyclopaedia Britannica")] == [None]  # no heading: an item as any
    assert not sources_after_sentences(gate("The Berlin Wall fell in 1989.", sources=True), True)
    # A reference's line cut into sentences by its stops goes on in the next part (the whitespace before it
    # says so); after a blank line, or where that is not known, only an item of the block is one.
    line = "Encyclopaedia Britannica."
    assert [s.reason for s in gate(line, sources=True, before=" ")] == ["reference"]
    assert [s.reason for s in gate(line, asked=True, sources=True, before="\n\n")] == [None]
    assert [s.reason for s in gate(line, asked=True, sources=True)] == [None]
