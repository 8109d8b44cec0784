"""Tolerant, tested parsers for model output. A failed parse returns ``None``: the caller decides whether
to re-ask and records the failure. Nothing here ever guesses a label."""

from __future__ import annotations

import re

from factdebate.core.claim_context import four_label_task
from factdebate.core.types import Label

# Accepted spellings, most specific first so "NOT ENOUGH INFO" is never read as a bare keyword.
_LABEL_PATTERNS: list[tuple[re.Pattern[str], Label]] = [
    (re.compile(r"\bnot\s+enough\s+info(?:rmation)?\b|\bNEI\b|\binsufficient\s+(?:evidence|information)\b",
                re.I), Label.NOT_ENOUGH_INFO),
    (re.compile(r"\bsupport(?:s|ed)?\b", re.I), Label.SUPPORTS),
    (re.compile(r"\brefute(?:s|d)?\b", re.I), Label.REFUTES),
]
# AVeriTeC's fourth label, read only on a four-label task (core/claim_context.py): elsewhere a line naming it
# names no label the task has, and the answer is re-asked. First, so that its "evidence" is never read apart.
_CONFLICTING = (re.compile(r"\bconflicting\s+evidence(?:\s*/\s*cherry-?\s*picking)?\b|\bcherry-?\s*picking\b",
                           re.I), Label.CONFLICTING)


def _patterns() -> list[tuple[re.Pattern[str], Label]]:
    return [_CONFLICTING, *_LABEL_PATTERNS] if four_label_task() else _LABEL_PATTERNS

_NEGATED = re.compile(r"\b(?:not|doesn't|does\s+not|cannot|can't|neither|nor)\s+(?:\w+\s+)?$", re.I)


def _labels_in(line: str) -> set[Label]:
    found: set[Label] = set()
    rest = line
    for pattern, label in _patterns():
        for match in pattern.finditer(rest):
            # "does not support" is prose, not a verdict; NEI is matched first so its "not" is fine.
            if label not in (Label.NOT_ENOUGH_INFO, Label.CONFLICTING) and _NEGATED.search(rest[: match.start()]):
                continue
            found.add(label)
        rest = pattern.sub(" ", rest)
    return found


_WORDS = re.compile(r"[A-Za-z0-9']+")


def _is_verdict_line(line: str, max_other_words: int) -> bool:
    """A verdict line is mostly the label ("**REFUTES**"); a sentence that merely uses the word is prose."""
    rest = line
    for pattern, _ in _patterns():
        rest = pattern.sub(" ", rest)
    return len(_WORDS.findall(rest)) <= max_other_words


# Quoted material: fenced code, inline code, paired straight or curly double quotes (across lines too).
_QUOTED = re.compile(r"```.*?```|`[^`\n]*`|\"[^\"]*\"|“[^”]*”|«[^»]*»", re.S)
# "Verdict: "REFUTES"" quotes the model's own label: a quote right after a verdict keyword is kept.
_INTRODUCER = re.compile(r"(?:final\s+)?(?:answer|verdict|label|conclusion|decision)\s*[:=-]?\s*\**\s*$", re.I)
# A line citing evidence ("Document [2]: ...", "[3] ...", "Evidence: ...") reports what a source says.
_CITATION = re.compile(r"^\s*(?:[-*]\s*)?(?:\[\d+\]|(?:quote|quoted|evidence|excerpt|source|document|doc|passage|"
                       r"snippet|context)\b[^:\n]{0,24}:)", re.I)


def _unquote(text: str) -> str:
    """``text`` without what it quotes: fenced and inline code, spans in double quotes, ``>`` block quotes and
    lines citing a document. What remains is the model's own words."""

    def drop(match: re.Match[str]) -> str:
        before = text[text.rfind("\n", 0, match.start()) + 1 : match.start()]
        if _INTRODUCER.search(before) and "\n" not in match.group():
            return match.group()[1:-1]  # Verdict: "REFUTES" is the model's own label, quoted
        return "\n" * match.group().count("\n")  # keep the line structure

    lines = _QUOTED.sub(drop, text).splitlines()
    return "\n".join(ln for ln in lines if not ln.lstrip().startswith(">") and not _CITATION.match(ln))


def parse_label(text: str, *, lines_from_end: int = 3, max_other_words: int = 4) -> Label | None:
    """The label of the model's own last line (at most ``lines_from_end`` up) naming exactly one label; quoted
    material (:func:`_unquote`) and a line naming two labels are skipped."""
    lines = [ln.strip() for ln in _unquote(text.strip()).splitlines() if ln.strip()]
    for line in reversed(lines[-lines_from_end:]):
        labels = _labels_in(line)
        if len(labels) == 1 and _is_verdict_line(line, max_other_words):
            return labels.pop()
    return None


def parse_choice(text: str, choices: list[str]) -> str | None:
    """A multiple-choice or yes/no answer on the last lines, e.g. ``**B**`` or ``Answer: maybe``."""
    lines = [ln.strip() for ln in text.strip().splitlines() if ln.strip()]
    alternatives = "|".join(re.escape(c) for c in sorted(choices, key=len, reverse=True))
    pattern = re.compile(rf"(?<![A-Za-z])({alternatives})(?![A-Za-z])", re.I)
    for line in reversed(lines[-3:]):
        hits = {m.group(1).lower() for m in pattern.finditer(line)}
        if len(hits) == 1:
            hit = hits.pop()
            return next(c for c in choices if c.lower() == hit)
    return None


_BRACKETED = re.compile(r"\[([^\[\]]+)\]")


def parse_query(text: str) -> str | None:
    """The search query in square brackets (the last bracketed span if there are several)."""
    spans = [s.strip().strip("\"'") for s in _BRACKETED.findall(text)]
    spans = [s for s in spans if s and s.lower() not in {"your query here", "query"}]
    return spans[-1] if spans else None


_ENUM_PREFIX = re.compile(r"^\s*(?:[-*•]|\(?\d{1,3}[.):]|statement\s*\d+\s*[:.)-]?|q\d+[:.)])\s*", re.I)


def parse_list(text: str, *, max_items: int = 50) -> list[str]:
    """Items of a numbered or bulleted list, one per line; headings ending with ':' are dropped."""
    items: list[str] = []
    for raw in text.splitlines():
        line = raw.strip()
        if not line or (line.endswith(":") and not _ENUM_PREFIX.match(line)):
            continue
        item = _ENUM_PREFIX.sub("", line).strip().strip("\"'").strip()
        if len(item) >= 3:
            items.append(item)
    return items[:max_items]


_VERDICT_LINE = re.compile(
    r"^\s*(?:statement\s*)?\(?(\d{1,3})[.):\]]?\s*[-:=]?\s*(?:\*\*)?\s*(yes|no|supported|unsupported|"
    r"not\s+supported|true|false|1|0)\b", re.I)
_POSITIVE = {"yes", "supported", "true", "1"}


def parse_verdicts(text: str, n: int) -> list[bool] | None:
    """``n`` yes/no judgements written as ``1: yes`` lines. ``None`` unless every statement got one."""
    verdicts: dict[int, bool] = {}
    for line in text.splitlines():
        match = _VERDICT_LINE.match(line)
        if match:
            index = int(match.group(1))
            if 1 <= index <= n and index not in verdicts:
                verdicts[index] = match.group(2).lower() in _POSITIVE
    if len(verdicts) != n:
        return None
    return [verdicts[i] for i in range(1, n + 1)]
