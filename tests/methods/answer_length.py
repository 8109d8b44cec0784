"""The longest answer a format admits, in characters: of a GBNF grammar (the subset the methods write:
literals, character classes, rule names, groups, alternatives, ``?``, ``*``, ``+`` and ``{m,n}``) and of a JSON
schema (objects, strings, enums, numbers, booleans, arrays, ``anyOf``). A part without a bound (``+``, ``*``,
a string without ``maxLength``, an array without ``maxItems``) is infinite: no token cap fits it."""

from __future__ import annotations

import json
import math
import re
from typing import Any

_TOKEN = re.compile(r'\s*(?:(?P<lit>"(?:[^"\\]|\\.)*")|(?P<cls>\[(?:[^\]\\]|\\.)*\])|(?P<name>[A-Za-z][\w-]*)'
                    r'|(?P<rep>\{\d+(?:,\d*)?\})|(?P<op>[()|?*+]))')


def _literal_length(literal: str) -> int:
    return len(json.loads(literal)) if "\\x" not in literal else len(re.sub(r"\\x[0-9A-Fa-f]{2}|\\.", "_",
                                                                            literal[1:-1]))


def grammar_longest(grammar: str) -> float:
    """The longest text ``grammar``'s ``root`` admits (``math.inf`` where nothing bounds it)."""
    rules: dict[str, list[str]] = {}
    for line in grammar.strip().splitlines():
        name, _, body = line.partition("::=")
        tokens, rest = [], body
        while rest.strip():
            found = _TOKEN.match(rest)
            assert found is not None, f"cannot read {rest!r} in {line!r}"
            tokens.append(found.group().strip())
            rest = rest[found.end():]
        rules[name.strip()] = tokens
    memo: dict[str, float] = {}

    def rule(name: str, seen: frozenset[str]) -> float:
        if name in seen:
            return math.inf  # a rule that contains itself repeats without bound
        if name not in memo:
            memo[name] = alternatives(rules[name], seen | {name})[0]
        return memo[name]

    def alternatives(tokens: list[str], seen: frozenset[str], at: int = 0) -> tuple[float, int]:
        best, total = 0.0, 0.0
        while at < len(tokens) and tokens[at] != ")":
            token = tokens[at]
            if token == "|":
                best, total, at = max(best, total), 0.0, at + 1
                continue
            if token == "(":
                length, at = alternatives(tokens, seen, at + 1)
            elif token.startswith('"'):
                length = _literal_length(token)
            elif token.startswith("["):
                length = 1
            else:
                length = rule(token, seen)
            at += 1
            if at < len(tokens) and (tokens[at] in ("?", "*", "+") or tokens[at][0] == "{"):
                mark = tokens[at]
                at += 1
                if mark in ("*", "+") or mark.endswith(",}"):
                    length = math.inf if length else 0.0
                elif mark.startswith("{"):
                    length *= int(mark[1:-1].split(",")[-1])
            total += length
        return max(best, total), at

    return rule("root", frozenset())


def schema_longest(schema: Any) -> float:
    """The longest JSON document ``schema`` admits, written compactly with ", " and ": " as Python's json
    writes it (a model's spacing may add a few characters; the caps' margin is for such things)."""
    if "anyOf" in schema:
        return max(schema_longest(option) for option in schema["anyOf"])
    if "const" in schema:
        return len(json.dumps(schema["const"]))
    if "enum" in schema:
        return max(len(json.dumps(value)) for value in schema["enum"])
    kind = schema.get("type")
    if kind == "object":
        fields = [len(json.dumps(key)) + 2 + schema_longest(value) for key, value in schema["properties"].items()]
        return 2 + sum(fields) + 2 * max(0, len(fields) - 1)
    if kind == "array":
        items = schema.get("maxItems")
        return math.inf if items is None else 2 + items * schema_longest(schema["items"]) + 2 * max(0, items - 1)
    if kind == "string":
        return 2 + schema["maxLength"] if "maxLength" in schema else math.inf
    if kind in ("number", "integer"):
        bound = max(abs(schema.get("maximum", math.inf)), abs(schema.get("minimum", 0)))
        return len(str(bound)) + 1 if bound != math.inf else math.inf
    if kind == "boolean":
        return 5
    raise AssertionError(f"a schema this file cannot measure: {schema}")
