"""Plain-text sections from the HTML that MediaWiki's parser returns.

Kept: paragraphs and list items under their h2/h3 headings. Dropped: infobox and other tables, reference
markers, edit links, navigation boxes, and the trailing reference-type sections, which are not evidence."""

from __future__ import annotations

import re
from html.parser import HTMLParser

from factdebate.toolservers.wiki_backend import Section

_SKIP_TAGS = {"style", "script", "table", "sup", "figure", "math", "noscript"}
_SKIP_CLASSES = ("navbox", "reflist", "references", "mw-editsection", "hatnote", "metadata", "thumb",
                 "mw-empty-elt", "shortdescription", "noprint", "toc")
_VOID = {"br", "img", "hr", "meta", "link", "input", "wbr", "source", "col", "area", "base", "track"}
_BLOCKS = {"p", "li", "dd", "dt", "div", "blockquote", "ul", "ol"}
DROP_HEADINGS = {"references", "external links", "see also", "notes", "further reading", "bibliography",
                 "sources", "citations", "footnotes", "notes and references"}
_BRACKETS = re.compile(r"\[(?:\d+|[a-z]|citation needed|note \d+)\]")


class _Sections(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.sections: list[tuple[str, list[str]]] = [("", [])]
        self.skip = 0
        self.heading: list[str] | None = None
        self.buffer: list[str] = []

    def _flush(self) -> None:
        text = " ".join("".join(self.buffer).split())
        if text:
            self.sections[-1][1].append(_BRACKETS.sub("", text).strip())
        self.buffer = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag in _VOID:
            return
        if self.skip:
            self.skip += 1
            return
        classes = dict(attrs).get("class") or ""
        if tag in _SKIP_TAGS or any(c in classes for c in _SKIP_CLASSES):
            self.skip = 1
        elif tag in ("h2", "h3"):
            self._flush()
            self.heading = []
        elif tag in _BLOCKS:
            self._flush()

    def handle_endtag(self, tag: str) -> None:
        if tag in _VOID:
            return
        if self.skip:
            self.skip -= 1
            return
        if tag in ("h2", "h3") and self.heading is not None:
            self.sections.append((" ".join("".join(self.heading).split()), []))
            self.heading = None
        elif tag in _BLOCKS:
            self._flush()

    def handle_data(self, data: str) -> None:
        if self.skip:
            return
        (self.heading if self.heading is not None else self.buffer).append(data)


def html_sections(html: str) -> list[Section]:
    parser = _Sections()
    parser.feed(html)
    parser.close()
    parser._flush()
    sections: list[Section] = []
    for heading, paragraphs in parser.sections:
        if heading.casefold() in DROP_HEADINGS:
            continue
        text = "\n".join(p for p in paragraphs if p)
        if text or not sections:
            sections.append(Section(len(sections), heading or "Lead", text))
    return sections
