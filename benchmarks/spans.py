"""Spans on the right sentence: the hand-marked span set (tests/fixtures/span_set.jsonl,
138 replies of two to eight sentences, 305 claims) placed by ``claim_spans`` as a response check places
them, each claim's place compared with the sentence marked by hand.

Each line of the set is a reply, its claims as an extractor would write them (standalone, a pronoun
replaced by what it stands for, often reworded), and for each the index of the sentence of
``sentences(reply)`` that states it, or null when none does (the claim is invented, or gives another
number). The kinds: ``pronoun`` (the claim's subject is a pronoun in the reply), ``repeated`` (every
sentence has the same subject), ``list`` (one item a line), ``numbers`` (sentences that differ in a number),
``paraphrase``, ``mixed`` (chatter, opinions, two facts in one sentence), ``null``, and ``trap`` (a pronoun
that points elsewhere, a heading, a subject said again with other numbers).

A claim is **right** when its span lies in the marked sentence (or it has none and none was marked),
**wrong** when its span lies in another sentence (or it has one and none was marked), and **unplaced** when
it has no span but a sentence was marked (allowed: the page then lists it as "not placed" rather than mark
a sentence that does not say it). Goal: wrong ≤ 1 %. ``--old`` places them as well with the search this
replaced (its best-shared-words step, kept as the oracle in tests/response_level/test_linear_spans.py), for
the before figures.

    .venv/bin/python benchmarks/spans.py [--old] [--show-misses]
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import Counter, defaultdict
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from factdebate.core.types import Span
from factdebate.response_level.spans import claim_spans, sentences

SPAN_SET = Path(__file__).resolve().parents[1] / "tests" / "fixtures" / "span_set.jsonl"
Placer = Callable[[list[str], str], list[tuple[Span | None, str | None]]]


@dataclass
class Outcome:
    kind: str
    reply: str
    claim: str
    expected: int | None
    got: int | None
    placed: bool
    note: str | None

    @property
    def verdict(self) -> str:
        if not self.placed:
            return "right" if self.expected is None else "unplaced"
        return "right" if self.got == self.expected else "wrong"


def load(path: Path = SPAN_SET) -> list[dict]:
    with path.open(encoding="utf-8") as lines:
        rows = [json.loads(line) for line in lines if line.strip()]
    for row in rows:
        count = len(sentences(row["reply"]))
        for claim in row["claims"]:
            if claim["sentence"] is not None and not 0 <= claim["sentence"] < count:
                raise ValueError(f"{row['id']}: sentence {claim['sentence']} of {count} for {claim['claim']!r}")
    return rows


def sentence_of(span: Span, reply: str) -> int | None:
    """The index of the sentence that holds ``span`` whole (None: it runs over two, which no sentence is)."""
    for n, (start, end) in enumerate(sentences(reply)):
        if start <= span.start and span.end <= end:
            return n
    return None


def place_all(rows: list[dict], placer: Placer = claim_spans) -> list[Outcome]:
    out = []
    for row in rows:
        claims = [c["claim"] for c in row["claims"]]
        for claim, (span, note) in zip(row["claims"], placer(claims, row["reply"]), strict=True):
            got = sentence_of(span, row["reply"]) if span is not None else None
            out.append(Outcome(row["kind"], row["reply"], claim["claim"], claim["sentence"], got,
                               span is not None, note))
    return out


def rates(outcomes: list[Outcome]) -> dict[str, float]:
    counts = Counter(o.verdict for o in outcomes)
    n = len(outcomes)
    return {"claims": n, **{v: counts[v] / n if n else 0.0 for v in ("right", "wrong", "unplaced")}}


def old_placer() -> Placer:
    from tests.response_level.test_linear_spans import old_find_span

    def place(claims: list[str], text: str) -> list[tuple[Span | None, str | None]]:
        out, after = [], 0
        for claim in claims:
            found = old_find_span(claim, text, after=after)
            if found[0] is not None:
                after = found[0].start + 1
            out.append(found)
        return out

    return place


def report(title: str, outcomes: list[Outcome]) -> None:
    by_kind: defaultdict[str, list[Outcome]] = defaultdict(list)
    for o in outcomes:
        by_kind[o.kind].append(o)
    print(title)
    print(f"  {'kind':<11} {'claims':>6} {'right':>7} {'wrong':>7} {'unplaced':>9}")
    for kind, items in [*by_kind.items(), ("all", outcomes)]:
        r = rates(items)
        print(f"  {kind:<11} {r['claims']:>6} {r['right']:>7.1%} {r['wrong']:>7.1%} {r['unplaced']:>9.1%}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--old", action="store_true", help="also place the set with the replaced search")
    parser.add_argument("--show-misses", action="store_true", help="print each claim not placed right")
    args = parser.parse_args()
    rows = load()
    outcomes = place_all(rows)
    print(f"{len(rows)} replies, {len(outcomes)} claims ({SPAN_SET.relative_to(SPAN_SET.parents[2])})")
    report("claim_spans:", outcomes)
    if args.old:
        report("the replaced search (the older placer):", place_all(rows, old_placer()))
    if args.show_misses:
        for o in outcomes:
            if o.verdict != "right":
                said = [o.reply[a:b] for a, b in sentences(o.reply)]
                print(f"- {o.verdict}: {o.claim!r} expected {o.expected} got {o.got} ({o.note})\n  {said}")


if __name__ == "__main__":
    main()
