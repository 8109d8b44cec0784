"""Every way a held value can be written, and where a text holds one: as it is and JSON-escaped, URL-encoded
(upper- or lower-case escapes, ``+`` for a space), in hex, and in base64 (standard or URL-safe, padded or not,
standing alone or inside a longer payload at any of the three byte alignments). An upstream that echoes a key
through a query string or an encoded header hands it over as surely as one that quotes it. A secret (not a
host) is also sought reversed, in upper and in lower case, and in two halves (:class:`Halves`: a model told to
write the key in two parts, with text between them). A half is masked only where the other half of the same
value is in the same text, or, for a text that arrives in pieces, came earlier in the same answer: a half alone
(a test key's run of hex digits in a digest, a path's ``/tmp/...``) turns up in ordinary text and logs, and
masking it there hides what a caller needs to read."""

from __future__ import annotations

import base64
import json
import re
from collections.abc import Iterable, Mapping
from functools import lru_cache
from typing import NamedTuple
from urllib.parse import quote, quote_plus

from factdebate.util.scrub.held import held
from factdebate.util.scrub.vocabulary import MIN_SECRET_CHARS


def holds_any(text: str, parts: tuple[str, ...]) -> bool:
    return any(map(text.__contains__, parts))  # no generator: this runs on every piece of every answer


# A hex or base64 form shorter than this is not scrubbed. Inside a longer base64 payload only the middle of a
# secret's encoding is known (the characters that depend on its bytes alone, not on those around it), and a short
# middle turns up by chance: 4 characters are 24 bits, met in ordinary words and ids; 8 are 48 bits, met by chance
# about once in 3 x 10^14 characters of random text. Every value long enough to be held (MIN_SECRET_CHARS) has
# middles this long at all three alignments, so the limit only spares the encodings of short host names.
MIN_FRAGMENT_CHARS = 8
_URL_SAFE = str.maketrans("+/", "-_")
_ESCAPE = re.compile(r"%[0-9A-F]{2}")


class _Forms(NamedTuple):
    """How one held value can be written. ``plain``: as it is, and as JSON escapes it (a quote or a backslash
    in a password is escaped in a body), a secret also turned (:func:`_turned`). ``url``: URL-encoded (each
    holds a "%" or a "+"). ``coded``: hex and base64. ``probes``: the fewest of ``coded`` that each of ``coded``
    holds one of (a padded base64 holds its unpadded self, which holds its first middle), and ``folded`` the
    fewest of ``plain`` case-folded (a key's upper and lower case fold to one), so
    that a text is searched for few strings."""

    plain: tuple[str, ...]
    url: tuple[str, ...]
    coded: tuple[str, ...]
    probes: tuple[str, ...]
    folded: tuple[str, ...]


def _url_forms(value: str) -> set[str]:
    """``value`` URL-encoded: every character escaped (``quote(v, safe="")``), ``/`` left as it is (``quote``'s
    default), JavaScript's ``encodeURIComponent`` set left alone; each with ``%20`` or ``+`` for a space and
    upper- or lower-case escapes."""
    out: set[str] = set()
    for safe in ("", "/", "!'()*"):
        for encoded in (quote(value, safe=safe), quote_plus(value, safe=safe)):
            out |= {encoded, _ESCAPE.sub(lambda m: m.group().lower(), encoded)}
    return out


def _base64_forms(raw: bytes) -> set[str]:
    """The base64 of ``raw`` standing alone (padded or not), and the middles of its base64 at the three byte
    alignments it can have inside a longer payload: for ``k`` bytes before it, the characters of the base64
    of ``k`` bytes and ``raw`` whose six bits lie within ``raw``; each in the standard and URL-safe alphabets."""
    whole = base64.b64encode(raw).decode("ascii")
    out = {whole, whole.rstrip("=")}
    for k in range(3):
        encoded = base64.b64encode(bytes(k) + raw).decode("ascii")
        first = -(-8 * k // 6)  # the first character whose bits all come after the k bytes before
        out.add(encoded[first:8 * (k + len(raw)) // 6])  # up to the last whose bits all come from raw
    return out | {form.translate(_URL_SAFE) for form in out}


def _turned(value: str) -> tuple[str, ...]:
    """A secret as a model asked to give it away may write it: reversed, in upper or lower case."""
    return (value[::-1], value.upper(), value.lower())


def _forms_of(value: str, secret: bool) -> _Forms:
    written = (value, *_turned(value)) if secret else (value,)
    plain = tuple(dict.fromkeys(form for w in written for form in (w, json.dumps(w, ensure_ascii=False)[1:-1])))
    url = tuple(sorted(_url_forms(value) - set(plain)))
    raw = value.encode("utf-8")
    coded = {raw.hex(), raw.hex().upper(), *_base64_forms(raw)}
    kept = sorted((c for c in coded - set(plain) - set(url) if len(c) >= MIN_FRAGMENT_CHARS), key=len)
    # str.casefold maps each character on its own, so a form in a text is in the text case-folded.
    return _Forms(plain, url, tuple(kept), _fewest(kept), _fewest({f.casefold() for f in plain}))


def _fewest(forms: Iterable[str]) -> tuple[str, ...]:
    """The fewest of ``forms`` that each of them holds one of: shortest first, a form holding a probe already
    needs no search of its own."""
    probes: list[str] = []
    for form in sorted(forms, key=lambda f: (len(f), f)):
        if not any(probe in form for probe in probes):
            probes.append(form)
    return tuple(probes)


class _HeldForms(NamedTuple):
    forms: tuple[_Forms, ...]
    probes: tuple[str, ...]  # every value's encoded probes, and (``folded``) its plain ones case-folded: a text
    folded: tuple[str, ...]  # holding none of either holds no value, bar URL-encoded ones
    url: tuple[str, ...]  # every value's URL-encoded forms, sought in a text with a "%" or a "+" only


@lru_cache(maxsize=64)
def _forms(values: frozenset[str], secret: bool) -> _HeldForms:
    """Every way the values (``secret``: secrets, else hosts) may be written; computed once per set held."""
    forms = tuple(_forms_of(v, secret) for v in sorted(values))
    probes = tuple(dict.fromkeys(p for f in forms for p in f.probes))
    folded = tuple(dict.fromkeys(p for f in forms for p in f.folded))
    return _HeldForms(forms, probes, folded, tuple(dict.fromkeys(u for f in forms for u in f.url)))


def present(values: frozenset[str], text: str, *, secret: bool) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """The forms of ``values`` (``secret``: secrets, else hosts) that ``text`` holds: (plain, encoded). Substring
    tests first, which are far faster than a pattern's scan: most texts hold none."""
    if not values:
        return (), ()
    known = _forms(values, secret)
    coded = holds_any(text, known.probes) or holds_any(text.casefold(), known.folded)
    url = bool(known.url) and ("%" in text or "+" in text) and holds_any(text, known.url)
    if not coded and not url:
        return (), ()
    plain: list[str] = []
    encoded: list[str] = []
    for forms in known.forms:
        plain += [p for p in forms.plain if p in text]
        if coded:
            encoded += [c for c in forms.coded if c in text]
        if url:
            encoded += [u for u in forms.url if u in text]
    return tuple(plain), tuple(encoded)


@lru_cache(maxsize=256)
def pattern(forms: frozenset[str], bounded: bool) -> re.Pattern[str]:
    """One pattern for all of them, longest first (a key that holds another is taken whole, a padded base64 with
    its padding). ``bounded`` (hosts as written): a form that starts or ends with a letter or digit only where
    that is a word's edge (a host "db.lan" is not cut out of "db.lanes"), with the port that follows it; a
    secret, or an encoded form, goes wherever it stands (inside a longer base64 payload, say)."""
    ordered = sorted(forms, key=lambda f: (-len(f), f))
    if not bounded:
        return re.compile("|".join(re.escape(v) for v in ordered))
    # A host's port goes with it: "10.0.0.5:19530" must not become "the operator's host:19530" when only the
    # host is held (a checker at http://10.0.0.5:8000, an error naming another of its ports).
    return re.compile("|".join((r"(?<![\w.-])" if v[0].isalnum() else "") + re.escape(v) + r"(?::\d{1,5})?"
                               + (r"(?![\w-])" if v[-1].isalnum() else "") for v in ordered))


class Halves(NamedTuple):
    """The halves of the held secrets that are cut in two: each secret of ``2 * MIN_SECRET_CHARS`` characters
    or more, as written, in upper and in lower case, cut in the middle, each half also JSON-escaped.
    ``partners``: for each half, the halves it makes a secret with; ``every``: all of them. ``folded`` and
    ``firsts``: the fewest of them, and of the first halves, case-folded (a half in upper and in lower case
    folds to one), so that a text holding none, as most do, is searched for few strings (a pair is found only
    where a first half is)."""

    partners: Mapping[str, frozenset[str]]
    every: tuple[str, ...]
    folded: tuple[str, ...]
    firsts: tuple[str, ...]


def _halves_of(value: str) -> list[tuple[str, str]]:
    """The pairs of halves of one secret's written forms (not reversed: each half is one more string every
    text is searched for). A value with whitespace (a pass phrase) has none: its halves are words ("correct
    horse" | "battery staple") that prose writes apart."""
    if len(value) < 2 * MIN_SECRET_CHARS or any(c.isspace() for c in value):
        return []
    pairs: list[tuple[str, str]] = []
    for form in dict.fromkeys((value, value.upper(), value.lower())):
        middle = len(form) // 2
        first, second = form[:middle], form[middle:]
        pairs += [(first, second), (_json_escaped(first), _json_escaped(second))]
    return list(dict.fromkeys(pairs))


def _json_escaped(text: str) -> str:
    return json.dumps(text, ensure_ascii=False)[1:-1]


@lru_cache(maxsize=16)
def secret_halves(secrets: frozenset[str]) -> Halves:
    """The halves of ``secrets``; computed once per set held."""
    partners: dict[str, set[str]] = {}
    firsts: set[str] = set()
    for value in sorted(secrets):
        for first, second in _halves_of(value):
            partners.setdefault(first, set()).add(second)
            partners.setdefault(second, set()).add(first)
            firsts.add(first.casefold())
    return Halves({h: frozenset(p) for h, p in partners.items()}, tuple(partners),
                  _fewest({h.casefold() for h in partners}), _fewest(firsts))


def held_halves() -> Halves:
    """The halves of the secrets the process holds now."""
    return secret_halves(held()[0])


def halves_in(text: str, halves: Halves) -> set[str]:
    """The halves that ``text`` holds."""
    if not halves.folded or not holds_any(text.casefold(), halves.folded):
        return set()
    return {half for half in halves.every if half in text}


def paired_in(text: str, halves: Halves) -> tuple[str, ...]:
    """The halves ``text`` holds whose other half it holds too: the ones to mask."""
    if not halves.firsts or not holds_any(text.casefold(), halves.firsts):
        return ()
    found = halves_in(text, halves)
    return tuple(half for half in found if halves.partners[half] & found)


class StreamTerms(NamedTuple):
    """What a window over a stream (:mod:`~factdebate.util.scrub.window`) must know of what is held: the
    longest form of any value, the forms that hold whitespace (a password with a space is cut at no space of
    it), the characters beyond printable ASCII that some value holds (a word of them may become a value), and
    the secrets' halves (a half waits in the window for the other one, which may come in a later piece)."""

    longest: int
    spaced: tuple[str, ...]
    letters: str
    halves: Halves


def stream_terms() -> StreamTerms:
    secrets, hosts = held()
    return _stream_terms(secrets, hosts)


@lru_cache(maxsize=16)
def _stream_terms(secrets: frozenset[str], hosts: frozenset[str]) -> StreamTerms:
    held_forms = (*_forms(secrets, True).forms, *_forms(hosts, False).forms)
    every = [f for forms in held_forms for f in (*forms.plain, *forms.url, *forms.coded)]
    spaced = tuple(f for f in every if any(c.isspace() for c in f))
    written = {c for forms in held_forms for f in forms.plain for c in f}  # a secret's upper case too
    letters = "".join(sorted(c for c in written if not c.isspace() and not "!" <= c <= "~"))
    return StreamTerms(max(map(len, every), default=0), spaced, letters, secret_halves(secrets))
