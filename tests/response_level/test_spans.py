"""Where each claim is said: offsets that slice the text to the claim's words, the sentence a reworded claim
came from, or no span and a reason, never a place that does not say it."""

from __future__ import annotations

import itertools

from hypothesis import given, settings
from hypothesis import strategies as st

from factdebate.response_level.spans import SentenceEnds, boundaries, claim_spans, find_span, sentences

TEXT = ("Dr. Smith was born in 1950.  The Eiffel   tower is in Rome. It costs 3.5 euros!\n"
        "Paris is the capital of France. Paris is the capital of France.")


def _slice(claim: str, after: int = 0) -> str | None:
    span, _ = find_span(claim, TEXT, after=after)
    return None if span is None else TEXT[span.start:span.end]


def test_sentences_end_at_punctuation_and_line_breaks_not_at_abbreviations_or_decimals() -> None:
    assert [TEXT[a:b] for a, b in sentences(TEXT)] == [
        "Dr. Smith was born in 1950.", "The Eiffel   tower is in Rome.", "It costs 3.5 euros!",
        "Paris is the capital of France.", "Paris is the capital of France."]


def test_exact_then_case_and_spacing_aside_then_the_sentence_it_was_reworded_from() -> None:
    assert _slice("Dr. Smith was born in 1950.") == "Dr. Smith was born in 1950."
    assert _slice("The Eiffel Tower is in Rome") == "The Eiffel   tower is in Rome"
    span, note = find_span("Rome is where the Eiffel Tower stands.", TEXT)
    assert span is not None and TEXT[span.start:span.end] == "The Eiffel   tower is in Rome."
    assert "approximate" in (note or "")
    span, note = find_span("Berlin hosts the Olympics.", TEXT)
    assert span is None and note


def test_claims_in_order_take_the_next_occurrence() -> None:
    claim = "Paris is the capital of France."
    first, second = claim_spans([claim, claim], TEXT)
    assert first[0] is not None and second[0] is not None and second[0].start > first[0].start
    assert TEXT[second[0].start:second[0].end] == claim


def test_abbreviations_inside_a_sentence_do_not_end_it_and_one_that_ends_it_does() -> None:
    # Written as chatbots write them: a degree, a city's initials, a month before its year, "et al." and "etc.".
    cases = {
        "He earned a Ph.D. in physics. He then taught.": ["He earned a Ph.D. in physics.", "He then taught."],
        "Washington, D.C. is the capital.": ["Washington, D.C. is the capital."],
        "The wall fell in Nov. 1989 after weeks of protest.": ["The wall fell in Nov. 1989 after weeks of protest."],
        "The treaty was signed in Jan. 1990.": ["The treaty was signed in Jan. 1990."],
        "She holds a Ph.D. Her thesis was on tides.": ["She holds a Ph.D.", "Her thesis was on tides."],
        "Smith et al. found the same. Apples, pears, etc. are fruit. It rains.":
            ["Smith et al. found the same.", "Apples, pears, etc. are fruit.", "It rains."],
        "The shop opens at 9 a.m. and closes at 5 p.m. It is small.":
            ["The shop opens at 9 a.m. and closes at 5 p.m.", "It is small."],
    }
    for text, expected in cases.items():
        assert [text[a:b] for a, b in sentences(text)] == expected, text


def test_a_stream_cut_after_an_abbreviation_waits_for_the_next_word() -> None:
    from factdebate.response_level.spans import SentenceEnds

    ends = SentenceEnds()
    assert ends.feed("He earned a Ph.D. ") == [] and ends.pending() == []  # "in" may follow: not an end yet
    text = "He earned a Ph.D. in physics. "
    assert ends.feed("in physics. ") == [] and ends.pending() == [(text.index(". ", 20) + 1, len(text))]


def test_a_bracket_before_or_after_an_abbreviation_keeps_it_in_its_sentence() -> None:
    for text, expected in {
        "The album came out on Friday (Sept. 16). It sold well.": ["The album came out on Friday (Sept. 16).",
                                                                    "It sold well."],
        "Smith et al. (2020) found the same.": ["Smith et al. (2020) found the same."],
    }.items():
        assert [text[a:b] for a, b in sentences(text)] == expected, text


def test_on_real_answers_no_abbreviation_ends_a_sentence_the_next_word_goes_on() -> None:
    """The benchmarks' answers and passages (read from ../shared/datasets at run time): wherever one of the
    abbreviations is followed by a word in lower case or a bracket, the sentence goes on past it."""
    import re
    from pathlib import Path

    import pytest

    root = Path(__file__).resolve().parents[3] / "shared" / "datasets"
    files = sorted(root.glob("**/*.jsonl"))
    if not files:
        pytest.skip("no ../shared/datasets here")
    mid = re.compile(r"\b(?:Ph\.D\.|D\.C\.|M\.D\.|a\.m\.|p\.m\.|et al\.|etc\.|"
                     r"(?:Jan|Feb|Mar|Apr|Jun|Jul|Aug|Sep|Sept|Oct|Nov|Dec)\.) (?=[a-z(\[])")
    checked = 0
    for path in files:
        for line in path.read_text(encoding="utf-8", errors="replace").splitlines():
            for match in mid.finditer(line):
                piece = line[max(0, match.start() - 80):match.end() + 40]
                stop = match.end() - 2 - max(0, match.start() - 80)  # the abbreviation's full stop in ``piece``
                assert all(end - 1 != stop for _, end in sentences(piece)), piece
                checked += 1
    assert checked >= 20  # the sets hold dozens: a pattern that finds none tests nothing


def test_a_citation_marker_after_a_stop_ends_the_sentence_with_it() -> None:
    text = "The Titanic sank in 1912.[1] The wall fell in 1989.[^2][3] U.S.[4] troops left. It is 3.6 m [5]. Next."
    assert [text[a:b] for a, b in sentences(text)] == [
        "The Titanic sank in 1912.[1]", "The wall fell in 1989.[^2][3]", "U.S.[4] troops left.", "It is 3.6 m [5].",
        "Next."]
    hindi = "टाइटैनिक जहाज़ १९१२ में डूबा था। बर्लिन की दीवार १९८९ में गिरी थी।"  # a danda ends a sentence
    assert [hindi[a:b] for a, b in sentences(hindi)] == ["टाइटैनिक जहाज़ १९१२ में डूबा था।",
                                                         "बर्लिन की दीवार १९८९ में गिरी थी।"]


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from(["It sank", ".", "[1]", "[", "^", "2", "]", "\"", " ", "\n", "in 1912", "U.S",
                                 "[^3]", "!"]), max_size=30).map("".join),
       st.lists(st.integers(min_value=0, max_value=120), max_size=10))
def test_markers_read_in_pieces_end_sentences_where_the_whole_text_does(text: str, cuts: list[int]) -> None:
    points = sorted({min(c, len(text)) for c in cuts} | {0, len(text)})
    ends = SentenceEnds()
    gaps = [gap for a, b in itertools.pairwise(points) for gap in ends.feed(text[a:b])] + ends.pending()
    assert gaps == boundaries(text)
