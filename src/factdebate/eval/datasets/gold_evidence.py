"""The gold evidence of a fact-checking benchmark, as the pages a search must find: each claim's evidence
sets, every set the pages (Wikipedia titles, or SciFact's document ids) all of which it needs.

Finding every page of any one set is what FEVER's "full evidence" asks, and how retrieval is scored
(:mod:`factdebate.eval.retrieval`). NOT ENOUGH INFO claims have none."""

from __future__ import annotations

import re
import unicodedata
from typing import Any

GoldSets = tuple[tuple[str, ...], ...]

# FEVER's page ids are Wikipedia titles of its 2017 dump with spaces as underscores and brackets and a few
# other characters written as PTB tokens.
_FEVER_ESCAPES = {"-LRB-": "(", "-RRB-": ")", "-LSB-": "[", "-RSB-": "]", "-LCB-": "{", "-RCB-": "}",
                  "-COLON-": ":"}
# FEVEROUS element ids: "<page>_<kind>_<numbers>" (sentence_0, cell_0_1_2, header_cell_0_0_1, item_0_3...)
_FEVEROUS_ELEMENT = re.compile(r"^(.+?)_(?:header_cell|table_caption|sentence|cell|item|section|title|list)(?:_\d+)*$")


def page_key(title: str) -> str:
    """A page title as compared: NFC, case folded, spaces for underscores, runs of space as one."""
    text = unicodedata.normalize("NFC", title).replace("_", " ")
    return " ".join(text.split()).casefold()


def fever_title(page_id: str) -> str:
    """A FEVER page id as the Wikipedia title it names: ``Roger_Penrose`` -> ``Roger Penrose``."""
    for token, char in _FEVER_ESCAPES.items():
        page_id = page_id.replace(token, char)
    return page_id.replace("_", " ").strip()


def _sets(found: list[list[str]]) -> GoldSets:
    """Each set sorted and de-duplicated, the sets de-duplicated in first-seen order, empty sets dropped."""
    out: list[tuple[str, ...]] = []
    for pages in found:
        key = tuple(sorted({p for p in pages if p}))
        if key and key not in out:
            out.append(key)
    return tuple(out)


def fever_sets(evidence: Any) -> GoldSets:
    """FEVER's ``evidence``: a list of evidence sets, each a list of [annotation id, evidence id, page id,
    sentence id]; a NOT ENOUGH INFO claim's page id is null."""
    if not isinstance(evidence, list):
        return ()
    found = []
    for group in evidence:
        if isinstance(group, list):
            found.append([fever_title(item[2]) for item in group
                          if isinstance(item, list) and len(item) >= 3 and isinstance(item[2], str)])
    return _sets(found)


def feverous_sets(evidence: Any) -> GoldSets:
    """FEVEROUS's ``evidence``: a list of sets ``{"content": [element ids]}`` (each id names its page), or
    FEVEROUS-S's lines ``title<TAB>sentence`` (one set)."""
    if isinstance(evidence, str):
        return _sets([[line.partition("\t")[0].strip() for line in evidence.splitlines() if "\t" in line]])
    if not isinstance(evidence, list):
        return ()
    found = []
    for group in evidence:
        content = group.get("content") if isinstance(group, dict) else None
        if isinstance(content, list):
            pages = []
            for element in content:
                match = _FEVEROUS_ELEMENT.match(element) if isinstance(element, str) else None
                if match:
                    pages.append(match.group(1).strip())
            found.append(pages)
    return _sets(found)


def hover_sets(supporting_facts: Any) -> GoldSets:
    """HoVer's ``supporting_facts``: [[title, sentence number], ...], one set (every hop is needed)."""
    if not isinstance(supporting_facts, list):
        return ()
    return _sets([[fact[0].strip() for fact in supporting_facts
                   if isinstance(fact, list) and fact and isinstance(fact[0], str)]])


def scifact_sets(evidence: Any) -> GoldSets:
    """SciFact's ``evidence``: {doc_id: [rationales]}; each cited abstract is a set of its own."""
    if not isinstance(evidence, dict):
        return ()
    return _sets([[str(doc_id)] for doc_id in evidence])
