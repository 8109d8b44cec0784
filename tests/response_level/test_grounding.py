"""Claim extraction keeps only claims taken from the text (issues 30 and 39): every name and number a claim
writes appears in the text (numbers in words too; a sentence's first word is no name by position), the
prompt's worked example is never kept for a text that does not state it, an opinion is no fact to check
with or without "I", and the text's sentences that state what no kept claim covers are added. Words are
compared by their lemmas: a claim that writes another form of the text's verb is kept."""

from __future__ import annotations

from factdebate.response_level.extract import grounded
from factdebate.response_level.grounding import (
    clauses,
    example_claims,
    is_opinion,
    numbers,
    uncovered_sentences,
)

TEXT = ("The Brandenburg Gate stands in Berlin. It is 26 metres tall, 3.5 km from the Spree, and was finished "
        "in 1,791 days. I think it is the most beautiful building.")


def test_claims_with_the_texts_names_and_numbers_are_kept() -> None:
    claims = ["The Brandenburg Gate stands in Berlin.", "The Brandenburg Gate is 26 metres tall.",
              "The Brandenburg Gate is 3.5 km from the Spree.", "It took 1791 days to finish the Brandenburg Gate."]
    assert grounded(claims, TEXT) == (claims, [])


def test_invented_names_numbers_the_prompt_example_and_opinions_are_dropped() -> None:
    invented = "The Brandenburg Gate was founded in 1788 by Captain James Cook."
    example = "The Quorvel Bridge opened in 1874."
    opinion = "I think the Brandenburg Gate is the most beautiful building."
    assert grounded([invented, example, opinion], TEXT) == ([], [invented, example, opinion])
    # A text that shares the example's words does not keep its claim: it is one of the example's, whole.
    assert grounded([example], "The bridge opened in 1874.") == ([], [example])


# What the embedded and served SmolLM2 got wrong on a text about the Berlin TV Tower.
TOWER = ("The Berlin TV Tower stands in Berlin. It was constructed between 1965 and 1969 and is 368 m tall. "
         "Its sphere holds a restaurant that turns once every 30 minutes. Honestly, nothing compares to it at night. "
         "Everyone should see it once.")


def test_opinions_without_a_pronoun_are_not_facts() -> None:
    opinions = ["Honestly, nothing compares to it at night.", "Everyone should see it once.",
                "The Berlin TV Tower is a stunning sight.", "You should visit the Berlin TV Tower."]
    assert grounded(opinions, TOWER) == ([], opinions)
    assert not is_opinion("World War I ended in 1918.") and not is_opinion("The Great Wall of China is long.")


def test_the_worked_examples_claims_are_caught_whole_and_their_words_are_free() -> None:
    leak = "The Berlin TV Tower last erupted in 1969."  # a word the text does not write: the predicate rule
    assert grounded([leak], TOWER) == ([], [leak])
    # Read from the prompt itself, so a new example is covered too.
    assert "the quorvel bridge opened in 1874" in example_claims()
    # No word is banned: a real claim that writes "Mount" (an old example's word) is kept.
    everest = "Mount Everest is 9,500 m tall."
    assert grounded([everest], "How tall is Everest? It is 9,500 m tall.") == ([everest], [])


def test_grounding_is_on_names_and_numbers_not_the_first_word() -> None:
    faithful = ["Construction of the Berlin TV Tower began in 1965.", "Located in Berlin, the TV Tower is 368 m tall."]
    assert grounded(faithful, TOWER) == (faithful, [])
    invented = ["The tower is three hundred metres tall.", "The Berlin TV Tower was built in nineteen fifty.",
                "The Berlin TV Tower stands in Hamburg."]
    assert grounded(invented, TOWER) == ([], invented)
    assert grounded(["The sphere turns once every thirty minutes."], TOWER)[0]  # 30 in words is the text's 30


def test_numbers_in_words_are_read_as_numbers() -> None:
    assert numbers("twenty-six metres, three hundred and five days, 1,791 steps, 3.5 km") == \
        {"26", "305", "1791", "3.5"}
    assert numbers("one of the largest") == set()


def test_years_in_two_halves_and_dates_are_read_as_values() -> None:
    assert numbers("nineteen twelve") == {"1912"} and numbers("nineteen ninety-one") == {"1991"}
    assert numbers("twenty-one") == {"21"} and numbers("one of the largest") == set()
    # A month named in a date is its number, as an ISO date writes it; a word that only starts as one is not.
    assert numbers("on April 15, 1912") == numbers("on 15 April 1912") == numbers("on 1912-04-15") == \
        {"1912", "4", "15"}
    assert numbers("Maybe 5 of them marched 3 km.") == {"5", "3"}


def test_numbers_are_read_as_values() -> None:
    # A decimal is one value, written once; thousands are grouped by a comma (as English writes them) or by a
    # thin, narrow, no-break or plain space, the decimal mark after them the other mark.
    assert numbers("1.50 m") == numbers("1.5 m") == {"1.5"} and numbers("0.25 l") == {"0.25"}
    assert numbers("1,788 steps") == numbers("1788 steps") == {"1788"} and numbers("2.0") == {"2"}
    assert numbers("1,234.5 and 1.234,5 and 3,5 km") == {"1234.5", "3.5"}
    assert numbers("Everest is 8\u2009849 m high.") == numbers("Everest is 8\u00a0849 m high.") == {"8849"}
    assert numbers("\u0663\u066b\u0665 \u0661\u0669\u0668\u0669") == {"3.5", "1989"}  # Eastern Arabic: 3.5 1989
    assert numbers("\u0661\u066c\u0667\u0668\u0668") == {"1788"} and numbers("8 8490") == {"8", "8490"}
    assert numbers("on 15.04.1912, at 192.168.0.1") == {"15", "4", "1912", "192", "168", "0", "1"}
    # A scale word multiplies the digits before it; alone in the plural it is no amount.
    assert numbers("1.5 million people") == numbers("1,500,000 people") == {"1500000"}
    assert numbers("a million people") == {"1000000"} and numbers("hundreds of people") == set()
    assert numbers("the fifth largest") == set() and numbers("Sources [1, 2]") == set()


def test_numbers_in_french_spanish_and_german_words_are_read() -> None:
    assert numbers("La tour mesure trois cent trente mètres et a été finie en mil huit cent quatre-vingt-neuf.") \
        == {"330", "1889"}
    assert numbers("La torre mide trescientos treinta metros y fue terminada en mil ochocientos ochenta y nueve.") \
        == {"330", "1889"}
    assert numbers("Die Mauer fiel neunzehnhundertneunundachtzig und ist dreiundvierzig Kilometer lang.") == \
        {"1989", "43"}
    assert numbers("Il y a deux millions de personnes.") == {"2000000"}
    # An English text is read in English only: "fire" is 4 in Danish, "once" 11 in Spanish, "elf" 11 in German.
    assert numbers("Once the fire was out, an elf and Otto sang.") == set()


def test_years_said_in_halves_are_one_year() -> None:
    assert numbers("in nineteen eighty-nine and nineteen ninety") == {"1989", "1990"}
    assert numbers("twenty twenty-one") == {"2021"} and numbers("'Square Two' is an album.") == {"2"}
    assert numbers("nineteen hundred and five") == {"1905"} and numbers("two thousand and five") == {"2005"}
    assert numbers("nineteen, twenty") == {"19", "20"}  # two numbers said apart are two


def test_a_claim_writing_an_iso_date_or_a_measure_in_words_is_the_texts() -> None:
    iso = "The Titanic sank on 1912-04-15."
    assert grounded(["The RMS Titanic sank on April 15, 1912."], iso)[0]
    assert not grounded(["The RMS Titanic sank on May 15, 1912."], iso)[0]  # another month is not the text's
    row = "| | Empire State Building |\n|---|---|\n| Height | 443 m |"
    assert grounded(["The Empire State Building is 443 m tall."], row)[0]
    assert not grounded(["The Empire State Building is 443 m wide."], row)[0]
    assert grounded(["Marie Curie died after 1950."], "Curie died after 1950.")[0]  # a bound, after its verb
    assert grounded(["The Titanic sank in 1912."], "The Titanic sank in nineteen twelve.")[0]


def test_the_texts_plain_facts_are_added_when_no_claim_covers_them() -> None:
    kept = ["The Berlin TV Tower stands in Berlin."]
    added = uncovered_sentences(TOWER, kept, 5)
    # "Its sphere ..." is not added: whose sphere is not resolved here (no guessed subject; the
    # guard and a response check list it as unchecked, said why).
    assert added == ["The Berlin TV Tower was constructed between 1965 and 1969 and is 368 m tall."]
    assert uncovered_sentences(TOWER, kept, 1) == added[:1]  # never past the claim limit
    assert uncovered_sentences(TOWER, kept, 0) == []
    covering = [*kept, "The Berlin TV Tower was constructed between 1965 and 1969.", "The tower is 368 m tall.",
                "Its sphere holds a restaurant that turns once every 30 minutes."]
    assert uncovered_sentences(TOWER, covering, 5) == []


def test_a_reference_states_nothing_and_is_not_added() -> None:
    # A ChatGPT answer's reference list (Factcheck-Bench): without a verb it names a work, it does not state a
    # fact, so it is not checked as a claim (the guard lists it as unchecked, said why).
    text = ("Water boils at 100 degrees. Fang, H., et al. (2010). Structural memory in water. "
            "Physical Review Letters, 105(3), 035502.")
    assert uncovered_sentences(text, [], 5) == ["Water boils at 100 degrees."]


def test_a_sentence_joining_two_statements_is_added_as_two_and_a_he_is_left_out() -> None:
    text = ("Paris is the capital of France, and Berlin is the capital of Germany; Rome is in Italy. "
            "He was born in 1901.")
    # "He" is not resolved here: not added as a claim, so the check lists it as unchecked.
    assert uncovered_sentences(text, [], 5) == ["Paris is the capital of France.", "Berlin is the capital of Germany.",
                                                "Rome is in Italy."]
    assert clauses("It was constructed between 1965 and 1969 and is 368 m tall.") == \
        ["It was constructed between 1965 and 1969 and is 368 m tall."]


def test_a_sentence_is_covered_only_by_claims_placed_on_it_holding_its_names_and_numbers() -> None:
    # A claim about another sentence used to cover one that shared most of its words, or a
    # number written in some other claim; the sentence that differs only by a number or a name was then
    # neither checked nor added.
    text = ("The tower was repainted in 1889. The tower was repainted in 1900. The tower has 1900 steps. "
            "The Eiffel Tower is in Paris. The Eiffel Tower is in Berlin.")
    claims = ["The tower was repainted in 1889.", "The tower has 1900 steps.", "The Eiffel Tower is in Paris."]
    assert uncovered_sentences(text, claims, 5) == ["The tower was repainted in 1900.",
                                                    "The Eiffel Tower is in Berlin."]


def test_a_sentence_said_again_word_for_word_is_not_added_twice() -> None:
    text = "The Louvre is a museum in Paris. Rome is in Italy. The Louvre is a museum in Paris."
    assert uncovered_sentences(text, ["The Louvre is a museum in Paris."], 5) == ["Rome is in Italy."]


def test_a_claim_drawn_from_another_language_is_held_to_its_digits_and_names() -> None:
    from factdebate.response_level.grounding import in_english

    german = "Die Berliner Mauer fiel im Jahr 1991."
    french = "Jesse Owens a remporté quatre médailles d'or olympiques en 1948."
    assert not in_english(german) and not in_english(french)
    assert in_english("The Berlin Wall fell in 1989.") and in_english("Yes, in 1931.")
    wall, owens = "The Berlin Wall fell in 1991.", "Jesse Owens won four Olympic gold medals in 1948."
    # Read as English text, the translation's words are not the source's: dropped.
    assert grounded([wall], german) == ([], [wall])
    # Drawn from a sentence in another language: kept (checked), its digits and names the source's ("Berlin"
    # meets "Berliner", "Olympic" meets "olympiques").
    assert grounded([wall], german, translated={wall}) == ([wall], [])
    assert grounded([owens], french, translated={owens}) == ([owens], [])
    invented = "The Berlin Wall fell in 1961."
    assert grounded([invented], german, translated={invented}) == ([], [invented])
    # A name the text does not write, in letters it could have written it in: dropped, as a wrong number is.
    elsewhere = "The Statue of Liberty is in Rome."
    assert grounded([elsewhere], "La tour Eiffel est à Rome.", translated={elsewhere}) == ([], [elsewhere])
    tower = "The Eiffel Tower is in Rome."
    assert grounded([tower], "La tour Eiffel est à Rome.", translated={tower}) == ([tower], [])
    # A name written in another script ("富士山") is the translation's: held to the text's digits there.
    fuji = "Mount Fuji is 3,776 m tall."
    assert grounded([fuji], "富士山の高さは3,776メートルです。", translated={fuji}) == ([fuji], [])
    wrong = "Mount Fuji is 4,776 m tall."
    assert grounded([wrong], "富士山の高さは3,776メートルです。", translated={wrong}) == ([], [wrong])


def test_a_recommended_amount_and_a_language_named_with_a_hash_are_facts() -> None:
    """Two shapes of real chatbot answers (Factcheck-Bench) whose claims, copied word for word, were dropped as
    ungrounded: "recommended" read as advice, and the "#" of "C#" read as markup."""
    text = ("The recommended daily allowance of magnesium for adult women is 310 mg. F# is a functional language "
            "developed by Microsoft. We recommend visiting in spring. It is recommended to book early.")
    claims = ["The recommended daily allowance of magnesium for adult women is 310 mg.",
              "F# is a functional language developed by Microsoft.", "We recommend visiting in spring.",
              "It is recommended to book early."]
    kept, dropped = grounded(claims, text)
    assert kept == claims[:2] and dropped == claims[2:]
