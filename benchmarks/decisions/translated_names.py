"""A claim written in English of a sentence in another language, held to the text's names as well as its digits
(response_level/translated.py), and Thai's sentence ends (response_level/spans.py), on the generated
conformance world's statements (tests/guard/conformance/test_generated.py: nine dated facts, each in German,
French, Japanese, Chinese and Thai):

* kept: each fact's own claim of its sentence (a name rule that drops it leaves a true sentence unchecked);
* dropped: in German and French, each other fact's claim of the sentence, with the sentence's own year (a claim
  naming what the text does not: digits alone kept every one);
* Thai: each fact's sentence read as one sentence (a name spaced from its surname does not end it).

    .venv/bin/python benchmarks/decisions/translated_names.py

Last line: ``kept=…/45 invented_dropped=…/144 thai_one_sentence=…/9``.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from factdebate.response_level.grounding import grounded
from factdebate.response_level.spans import sentences
from tests.guard.conformance.test_generated import FACTS, OTHER_LANGUAGES


def main() -> None:
    argparse.ArgumentParser(description=__doc__.split("\n\n")[0]).parse_args()
    facts = {fact.full: fact for fact in FACTS}
    kept = invented = dropped = whole = 0
    for language, forms in OTHER_LANGUAGES.items():
        for name, form in forms.items():
            fact = facts[name]
            text, claim = form.format(fact.year), fact.said(fact.year)
            kept += bool(grounded([claim], text, translated={claim})[0])
            if language == "Thai":
                whole += len(sentences(text)) == 1
            if language not in ("German", "French"):
                continue
            for other in (f for f in FACTS if f is not fact):
                wrong = other.said(fact.year)
                invented += 1
                dropped += not grounded([wrong], text, translated={wrong})[0]
    total = sum(len(forms) for forms in OTHER_LANGUAGES.values())
    print(f"kept={kept}/{total} invented_dropped={dropped}/{invented} thai_one_sentence={whole}/"
          f"{len(OTHER_LANGUAGES['Thai'])}")


if __name__ == "__main__":
    main()
