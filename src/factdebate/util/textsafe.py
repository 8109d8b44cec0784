"""Text and JSON made safe once, at the edges: lone surrogates no UTF-8 file can encode, and NaN or infinite
floats strict JSON cannot hold. Input passes :func:`safe_text`; every record written passes :func:`dumps_record`."""

from __future__ import annotations

import json
import math
import re
from typing import Any

from factdebate.util.errors import InputError

REPLACEMENT = "\ufffd"
_SURROGATE = re.compile(r"[\ud800-\udfff]")
# C0 controls except tab, newline and carriage return, and DEL: they end up in terminals and filter syntax.
_CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]")
# Either of the two, in one search: what :func:`safe_value` looks for in every string of a record.
_UNSAFE = re.compile(r"[\ud800-\udfff\x00-\x08\x0b\x0c\x0e-\x1f\x7f]")
# Values of these exact types are JSON-ready as they are (a float only while finite).
_AS_IS = frozenset((int, bool, type(None)))


def unsafe_reason(text: str) -> str | None:
    """Why ``text`` is not clean text (lone surrogates or control characters), or None when it is."""
    if match := _SURROGATE.search(text):
        return (f"it holds bytes that are not valid text (a lone surrogate U+{ord(match.group()):04X} at "
                f"character {match.start()}); save the input as UTF-8")
    if match := _CONTROL.search(text):
        return (f"it holds a control character (U+{ord(match.group()):04X} at character {match.start()}); "
                "is it binary data?")
    return None


def checked_input(value: object, *, what: str, empty: str, limit: int, setting: str) -> str:
    """``value`` stripped, or an ``InputError`` naming the problem: not text, empty, unsafe, too long."""
    if not isinstance(value, str):
        raise InputError(f"the {what} must be text, not {type(value).__name__}")
    text = value.strip()
    if not text:
        raise InputError(f"the {what} is empty: {empty}")
    if reason := unsafe_reason(text):
        raise InputError(f"the {what} cannot be checked: {reason}")
    if len(text) > limit:
        raise InputError(f"the {what} is {len(text)} characters long; the limit is {limit} "
                         f"(set {setting} to change it)")
    return text


def checked_values(value: object, *, what: str, limit: int) -> None:
    """An ``InputError`` when any text in ``value`` (nested too) is unsafe or longer than ``limit``."""
    if isinstance(value, str):
        if reason := unsafe_reason(value):
            raise InputError(f"the {what} cannot be used: {reason}")
        if len(value) > limit:
            raise InputError(f"the {what} is {len(value)} characters long; the limit is {limit}")
    elif isinstance(value, list | tuple):
        for item in value:
            checked_values(item, what=what, limit=limit)
    elif isinstance(value, dict):
        for key, item in value.items():
            checked_values(key, what=what, limit=limit)
            checked_values(item, what=what, limit=limit)


MAX_NESTING = 32  # levels of lists and objects one input value may have


def nesting_depth(value: Any, stop: int = MAX_NESTING + 1) -> int:
    """How deeply ``value`` nests lists, tuples and mappings (a scalar: 0), counted without recursion and no
    further than ``stop``, so that input too deep for a recursive walk is refused where it comes in."""
    deepest = 0
    stack: list[tuple[Any, int]] = [(value, 0)]
    while stack:
        item, depth = stack.pop()
        if isinstance(item, dict):
            children: Any = item.values()
        elif isinstance(item, list | tuple):
            children = item
        else:
            continue
        deepest = max(deepest, depth + 1)
        if deepest >= stop:
            return deepest
        stack.extend((child, depth + 1) for child in children)
    return deepest


def checked_tree(value: Any, *, what: str, limit: int) -> None:
    """:func:`checked_values` of a value that came in as JSON, its nesting bounded first."""
    if nesting_depth(value) > MAX_NESTING:
        raise InputError(f"the {what} nests more than {MAX_NESTING} levels")
    checked_values(value, what=what, limit=limit)


def unencodable_reason(value: Any) -> str | None:
    """Where ``value`` (JSON as read) holds what strict JSON and UTF-8 cannot carry back out (an infinite or
    NaN number, a lone surrogate), or None; walked without recursion."""
    stack: list[tuple[Any, str]] = [(value, "")]
    while stack:
        item, path = stack.pop()
        where = f" at {path}" if path else ""
        if isinstance(item, float) and not math.isfinite(item):
            return f"a number JSON cannot hold{where} ({'NaN' if math.isnan(item) else 'too large: infinite'})"
        if isinstance(item, str) and (match := _SURROGATE.search(item)):
            return f"text that is not valid Unicode{where} (a lone surrogate U+{ord(match.group()):04X})"
        if isinstance(item, dict):
            for key, child in item.items():
                if isinstance(key, str) and _SURROGATE.search(key):
                    return f"a field name that is not valid Unicode{where}"
                stack.append((child, f"{path}.{key}" if path else str(key)))
        elif isinstance(item, list | tuple):
            stack.extend((child, f"{path}[{number}]") for number, child in enumerate(item))
    return None


def safe_text(text: str) -> str:
    """``text`` with lone surrogates replaced by U+FFFD and control characters (but tab and newlines) dropped."""
    return _CONTROL.sub("", _SURROGATE.sub(REPLACEMENT, text))


def safe_value(value: Any, nulls: dict[str, str] | None = None, path: str = "") -> Any:
    """A JSON-ready copy of ``value``: strings made safe, NaN and infinities turned into None (their path
    and the reason noted in ``nulls`` when given)."""
    if nulls is None:
        return _safe(value)
    if isinstance(value, str):
        return safe_text(value) if _UNSAFE.search(value) else value
    if isinstance(value, float) and not math.isfinite(value):
        if nulls is not None:
            nulls[path] = "not a number (nothing to compute it from)" if math.isnan(value) else "infinite"
        return None
    if isinstance(value, dict):
        return {safe_text(str(k)): safe_value(v, nulls, f"{path}.{k}" if path else str(k))
                for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [safe_value(v, nulls, f"{path}[{i}]") for i, v in enumerate(value)]
    return value


def _safe(value: Any) -> Any:
    """:func:`safe_value` with no ``nulls`` to note in, plain keys and values taken without a call each."""
    if isinstance(value, str):
        return safe_text(value) if _UNSAFE.search(value) else value
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if isinstance(value, dict):
        return {(k if type(k) is str and not _UNSAFE.search(k) else safe_text(str(k))):
                v if (kind := type(v)) in _AS_IS or (kind is str and not _UNSAFE.search(v)) else _safe(v)
                for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_safe(v) for v in value]
    return value


def dumps_record(record: Any, **kwargs: Any) -> str:
    """Strict JSON (no NaN) that always encodes as UTF-8."""
    return json.dumps(safe_value(record), ensure_ascii=False, allow_nan=False, default=str, **kwargs)
