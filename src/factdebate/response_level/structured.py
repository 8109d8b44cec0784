"""Lines of structured text in a reply (table rows, JSON members, YAML mappings): statements to check, never
code or "no content", each cell or member a fact of its own for the extractor's room."""

from __future__ import annotations

import json
import re

_TABLE_ROW = re.compile(r"^\s*\|(?:[^|\n]*\|){2,}\s*$")
_TABLE_RULE = re.compile(r"^\s*\|(?:\s*:?-{2,}:?\s*\|)+\s*$")
# A JSON object's member on a line of its own, or the line that opens an object with one ('"city": "London",',
# '{"landmark": "Big Ben",', '"completed": 1859}'), and a YAML mapping's ("city: London", "- completed: 1859").
_JSON_MEMBER = re.compile(r'^\s*[\[{]*\s*"[^"\n]{1,80}"\s*:\s*(?:"|-?\d|true\b|false\b|null\b|\[|\{)')
_YAML_MEMBER = re.compile(r"^\s*(?:-\s+)?[A-Za-z_][\w -]{0,40}:\s+\S")
# The members of a JSON object on one line: each '"key":' after an opening brace or a comma.
_OPENS = re.compile(r'^\s*"[^"\n]{1,80}"\s*:\s*[\[{]\s*$')
_PUNCTUATION = re.compile(r"^\s*[\[\]{},]+\s*$")
_KEY = re.compile(r'(?:^|[{,])\s*"[^"\n]{1,80}"\s*:')
_LONGEST_JSON = 20_000  # characters: a longer line is not parsed (what it states is read as prose)


def table_row(line: str) -> bool:
    """Whether ``line`` is a Markdown table's row of cells (its rule, "|---|---|", too)."""
    return _TABLE_ROW.match(line) is not None


def table_rule(line: str) -> bool:
    """Whether ``line`` is the rule under a Markdown table's header row ("|---|:---:|")."""
    return _TABLE_RULE.match(line) is not None


def cells(row: str) -> list[str]:
    """The cells of a table row that hold something, in order."""
    return [cell.strip() for cell in row.strip().strip("|").split("|") if cell.strip()]


def json_value(line: str) -> bool:
    """Whether ``line`` (a trailing comma aside) is a whole JSON object or array: data, not a program."""
    text = line.strip().rstrip(",")
    if text[:1] not in ("{", "[") or len(text) > _LONGEST_JSON:
        return False
    try:
        json.loads(text)
    except (json.JSONDecodeError, RecursionError):
        return False
    return True


def opens_container(line: str) -> bool:
    """Whether ``line`` is a JSON key that opens an object or array ('"landmarks": ['): a heading."""
    return _OPENS.match(line) is not None


def punctuation(line: str) -> bool:
    """Whether ``line`` is only JSON's brackets and commas ("{", "},", "]")."""
    return _PUNCTUATION.match(line) is not None


def json_line(line: str) -> bool:
    """Whether ``line`` is JSON: a whole object or array, or an object's member on a line of its own."""
    return _JSON_MEMBER.match(line) is not None or json_value(line)


def member(line: str) -> bool:
    """Whether ``line`` states a key's value: a JSON member (or one-line object) or a YAML mapping's entry."""
    return json_line(line) or _YAML_MEMBER.match(line) is not None


def members(line: str) -> int:
    """How many keys' values ``line`` states, as JSON writes them (0 for a line that is no JSON)."""
    return len(_KEY.findall(line.strip()))


def structured(line: str) -> bool:
    """Whether ``line`` is a table row or a line of JSON or YAML (shown to the extractor on its own line)."""
    text = line.strip()
    return table_row(text) or member(text)
