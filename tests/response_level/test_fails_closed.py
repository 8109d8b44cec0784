"""The gate fails closed: a sentence is left out only when it is one of a listed set of non-statements (a
greeting or thanks with no other content, a question, an offer of help with no content words, code without
comments, a table's header row, and the framing, instructions, opinions, headings and links that state
nothing); anything else is a statement. A short answer to a question is always one, and framing never runs
over a clause that holds content words."""

from __future__ import annotations

import pytest

from factdebate.response_level.worthiness import answers_asked, code_line, gated, reason_to_skip, table_header


@pytest.mark.parametrize(("sentence", "reason"), [
    ("Sure!", "greeting"), ("Thanks!", "greeting"), ("Great question.", "greeting"),
    ("Let me know if you have any other questions.", "greeting"), ("Have a great trip!", "greeting"),
    ("Happy to help with the Eiffel Tower!", "greeting"), ("Thanks for asking about Greece!", "greeting"),
    ("I hope this helps!", "greeting"), ("Feel free to ask me anything else.", "greeting"),
    ("Is it in Berlin?", "question"),
    ("```python", "code"), ("print(height)", "code"), ("x = compute(3)", "code"), ("return total;", "code"),
    ("import math", "code"), ("from os import path", "code"),
    ("Here you go.", "greeting"), ("Sounds good!", "greeting"), ("If you'd like, I can share more tips.", "greeting"),
    ("Here is a summary of the tower's history.", "greeting"), ("Enjoy your trip!", "greeting"),
    ("I love Paris in spring.", "opinion"), ("It is beautiful.", "opinion"), ("Paris is lovely in spring.", "opinion"),
])
def test_the_listed_non_statements(sentence: str, reason: str) -> None:
    assert reason_to_skip(sentence, asked=True) == reason


@pytest.mark.parametrize("sentence", [
    "Happy to help with the Eiffel Tower, which is in Berlin.",
    "Happy to help with the Eiffel Tower which is in Berlin.",
    "Thanks for asking about the tower, which was finished in 1920.",
    "Sure, it sank in the Atlantic.", "Of course it sank.", "Certainly, it was 1991.", "Hello, Berlin is the capital.",
    "The beautiful Eiffel Tower is in Berlin.", "The beautiful tower is in Berlin.",
    "I love that the Eiffel Tower is in Berlin.", "I think the beautiful Eiffel Tower is in Berlin.",
    "x = compute(3)  # the Eiffel Tower is 330 m tall",
    "The function compute(3) returns the height of the tower in metres.", "E = mc2 is Einstein's formula.",
    "Sure, the river flows north.", "Enjoy your visit to the Eiffel Tower in Berlin!",
])
def test_a_statement_inside_framing_is_checked(sentence: str) -> None:
    assert reason_to_skip(sentence, asked=True) is None


@pytest.mark.parametrize("answer", ["Yes.", "No.", "The latter.", "The former.", "In 1991.", "Shorter.", "Longer.",
                                    "Neither.", "Both.", "Sydney."])
def test_a_short_answer_to_a_question_is_always_a_statement(answer: str) -> None:
    assert reason_to_skip(answer, asked=True) is None


def test_an_agreement_answers_a_yes_or_no_question_only() -> None:
    assert answers_asked("Did the Titanic sink in 1912?", "Of course.")
    assert answers_asked("Tell me more. Is the Eiffel Tower in Paris?", "Sure!")
    assert not answers_asked("Can you tell me about the Eiffel Tower?", "Sure!")
    assert not answers_asked("Tell me about the Eiffel Tower.", "Sure!")
    assert not answers_asked("Did the Titanic sink in 1912?", "Thanks for asking!")


def test_a_table_s_header_row_is_known_by_the_rule_under_it() -> None:
    table = "| Fact | Value |\n|---|:---:|\n| Height | 330 m |\n| Sweden | Bergen |"
    rows = [(table[a:b], reason) for a, b, reason in gated(table, asked=True)]
    assert rows == [("| Fact | Value |", None), ("|---|:---:|", "no content"), ("| Height | 330 m |", None),
                    ("| Sweden | Bergen |", None)]
    ends = [b for _, b, _ in gated(table, asked=True)]
    assert [table_header(table, end) for end in ends] == [True, False, False, False]
    # The row alone (a stream's part before the rule arrives) is no header yet.
    assert not table_header("| Fact | Value |", len("| Fact | Value |"))


def test_code_with_a_comment_in_words_is_read() -> None:
    assert code_line("total = height * 2")
    assert not code_line("total = height * 2  # the tower is 330 m tall")
    assert not code_line("The tower is 330 m tall.")
    assert reason_to_skip("}") == "code"


@pytest.mark.parametrize("line", [
    '{"landmark": "Big Ben", "city": "Paris", "completed": 1859}', '"city": "Paris",', '"city": "Paris"}',
    '  "completed": 1859', '[{"landmark": "Big Ben", "city": "Paris"}]', "city: Paris",
])
def test_a_json_or_yaml_line_is_data_that_states_something_not_code(line: str) -> None:
    """A line ending in "}" is not code for that: a JSON object, its members and a YAML entry state what their
    keys and values say, even unasked and short."""
    assert not code_line(line)
    assert reason_to_skip(line) is None


@pytest.mark.parametrize("line", ["if (height > 300) {", "}", "x = {\"a\": 1}", "return {};", "```json"])
def test_code_is_still_code(line: str) -> None:
    assert code_line(line)


def test_text_without_spaces_is_cut_into_sentences_and_is_a_statement() -> None:
    """"。" ends a sentence with no space after it, and a sentence of Japanese is several words, not one."""
    text = "富士山は日本で一番高い山です。富士山の高さは4,776メートルです。"
    assert [(text[a:b], why) for a, b, why in gated(text)] == [
        ("富士山は日本で一番高い山です。", None), ("富士山の高さは4,776メートルです。", None)]
    # A quotation closed after its stop goes on into its sentence ("と言った": "..., he said").
    quoted = "彼は「東京タワーは1958年に完成した。」と言った。高さは333メートルです。"
    assert [quoted[a:b] for a, b, _ in gated(quoted)] == ["彼は「東京タワーは1958年に完成した。」と言った。",
                                                           "高さは333メートルです。"]


def test_thai_sentences_end_at_the_space_between_thai_letters() -> None:
    """Thai writes no stops: a space between two Thai letters after a clause ends a sentence; one before a number
    or a word of another script does not, nor one after a name ("มารี" before its surname) or a unit after a
    number, and a stream read a character at a time is cut where the whole text is."""
    from factdebate.response_level.spans import SentenceEnds, boundaries

    text = ("ภูเขาไฟฟูจิเป็นภูเขาที่สูงที่สุดในญี่ปุ่น ภูเขาไฟฟูจิสูง 3,776 เมตร ตั้งอยู่บนเกาะ Honshu "
            "มารี กูรี เสียชีวิตในปี 1934")
    assert [(text[a:b], why) for a, b, why in gated(text)] == [
        ("ภูเขาไฟฟูจิเป็นภูเขาที่สูงที่สุดในญี่ปุ่น", None), ("ภูเขาไฟฟูจิสูง 3,776 เมตร ตั้งอยู่บนเกาะ Honshu "
                                                   "มารี กูรี เสียชีวิตในปี 1934", None)]
    named = "ภูเขาไฟฟูจิสูงที่สุดในญี่ปุ่น มารี กูรี เสียชีวิตในปี 1934"
    assert [named[a:b] for a, b, _ in gated(named)] == ["ภูเขาไฟฟูจิสูงที่สุดในญี่ปุ่น", "มารี กูรี เสียชีวิตในปี 1934"]
    ends, streamed = SentenceEnds(), []
    for character in text:
        streamed += ends.feed(character)
    assert streamed + ends.pending() == boundaries(text)
    assert boundaries("Mount Fuji is 3,776 m tall and stands on Honshu.") == []  # text with spaces: as before
