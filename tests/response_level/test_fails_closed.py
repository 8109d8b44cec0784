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
