"""One scrub for everything a caller can see: what the operator holds never reaches a caller,
whatever text carries it. A checker or gateway that answers 401 quoting the key it was sent ("Incorrect API key
provided: sk-... You can find your key at gw-node-3.corp.internal:8443") must not hand the operator's key and
internal host to the service's caller.

Two strengths, for two kinds of text:

* :func:`scrub` is for text that says what went wrong (an error, a ``degraded_reason``, an event's ``message``):
  every secret the process holds (by value, wherever it stands), key-shaped tokens, ``Bearer`` credentials, and
  every address (URLs, IPs, ``host:port``, dotted host names, the configured endpoints' own host names) are left
  out. What failed stays readable; where and with what is the server log's.
* :func:`scrub_known` is safe on anything (a verdict with its evidence, a stream, a kept check): only what is the
  operator's for certain goes (the secrets by value, key-shaped tokens, the configured endpoints' addresses,
  internal host names such as ``*.internal`` or ``*.corp``); a source's public URL stays.

The secrets are collected where they are loaded, once, and kept for the process's life: the values of the
environment's secret-named variables (``OPENAI_API_KEY``, ``PGPASSWORD``, ``FACTDEBATE_API_KEYS``, ...) and the
hosts and passwords of its URL-valued ones, whatever settings the process loaded (:func:`remember_settings`: MCP
servers' ``env`` values and secret-looking arguments, endpoint and database URLs), and each client's own key and
endpoint when it is made (a checker's, a search engine's, the guard's upstream).
A value shorter than :data:`MIN_SECRET_CHARS` is not scrubbed by value: too many ordinary words would go with it
(docs/robustness.md).

A held value goes in the forms a program writes it in too, whatever the strength: URL-encoded (upper- or
lower-case escapes, ``+`` for a space), in hex, and in base64 (standard or URL-safe, padded or not, standing alone
or inside a longer payload at any of the three byte alignments): an upstream that echoes a key through a query
string or an encoded header hands it over as surely as one that quotes it. A text that arrives in pieces (a
stream) is scrubbed over a window that spans them: util/scrub_window.py.

The redaction of URLs (:func:`redact_text`, :func:`redact_value`, :func:`redact_settings`, the log filter) is
for what the operator reads too: credentials inside URLs and arguments go, the addresses stay. A search API's
request secrets are masked in its answers by :func:`request_secrets` and :func:`without`. This module is the one
place that knows what is masked; every other module calls it."""

from __future__ import annotations

import base64
import binascii
import json
import logging
import os
import re
import threading
from collections.abc import Iterable, Mapping
from functools import lru_cache
from typing import Any, NamedTuple
from urllib.parse import parse_qsl, quote, quote_plus, unquote, urlencode, urlsplit, urlunsplit

MASK = "***"
HOST_WORDS = "the operator's host"
ENDPOINT_WORDS = "the operator's endpoint"
MIN_SECRET_CHARS = 8

# A variable whose value is a secret; PWD/OLDPWD are the shell's directories, *_ENV/_FILE/_PATH name things.
_SECRET_VARIABLE = re.compile(r"KEY|TOKEN|SECRET|PASSW|CREDENTIAL|PRIVATE|SIGNATURE|DSN", re.IGNORECASE)
_NOT_SECRET_VARIABLE = re.compile(r"(?:^|_)(?:OLD)?PWD$|_(?:ENV|FILE|PATH|DIR|NAME|ID|TYPE|URL_ENV)$", re.IGNORECASE)
# A settings field whose value is a secret (not ``key_corpora`` or ``upstream_key_env``, which name things).
_SECRET_FIELD = re.compile(r"(?:^|_)(?:api_?keys?|keys?|tokens?|secrets?|passwords?|passwd|credentials?|dsn)$",
                           re.IGNORECASE)
_SECRET_ARG = re.compile(r"key|token|secret|passw|pwd|credential|auth|cookie|signature|bearer|private",
                         re.IGNORECASE)
# A URL with a scheme, up to whitespace or a closing quote/bracket; with the "@" that joins an endpoint to a
# model's name ("openai:x@http://...").
_URL = re.compile(r"@?\b[A-Za-z][A-Za-z0-9+.-]*://[^\s'\"<>()\[\]{}\\]+")
# Credentials by shape: well-known key prefixes (OpenAI, GitHub, GitLab, Slack, AWS, Google, Hugging Face, a JWT)
# and what follows "Bearer"/"Basic".
# A text without any of these is left alone at once (substring searches: far faster than a regex's scan).
_KEY_HINTS = ("sk-", "sk_", "rk-", "pk-", "ghp_", "gho_", "ghs_", "ghu_", "github_pat_", "glpat-", "xox", "AKIA",
              "AIza", "hf_", "eyJ", "earer ", "Basic ")
_KEY_SHAPED = re.compile(r"\b(?:sk-|sk_|rk-|pk-|ghp_|gho_|ghs_|ghu_|github_pat_|glpat-|xox[abprs]-|AKIA|AIza|hf_|eyJ)"
                         r"[A-Za-z0-9_\-.]{5,}[A-Za-z0-9_\-]"
                         r"|(?<=[Bb]earer )(?!<)(?P<bearer>[^\s'\",;`<>]+)"  # not a "<key>" placeholder, nor a backtick
                         r"|(?<=Basic )(?P<basic>[A-Za-z0-9+/=]{8,})")
# What follows "Bearer"/"Basic" is a credential only when it looks like one: "the bearer of bad news", "ring bearer
# ceremony" and "Basic principles" are prose. A bearer token has a digit or a token's punctuation, or mixed case,
# or is long; a Basic credential is the base64 of "user:password".
_TOKEN_PUNCTUATION = frozenset("-._~+/=")

# In error text only: a long run of letters and digits mixed, as keys and signed tokens are; not one of lower-case
# hex digits alone (this service's ids, checksums: a caller needs them, and a hex key it holds goes by value).
_LONG_TOKEN = re.compile(r"\b(?![0-9a-f]+(?![A-Za-z0-9_\-]))(?=[A-Za-z0-9_\-]*[0-9])(?=[A-Za-z0-9_\-]*[A-Za-z])"
                         r"[A-Za-z0-9_\-]{32,}\b")
# Domains that name no public host: the operator's network.
_INTERNAL = r"internal|intranet|intra|corp|lan|local|localdomain|home\.arpa|svc|cluster\.local|private"
_LABEL = r"[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?"
_INTERNAL_HOST = re.compile(rf"\b(?:{_LABEL}\.)+(?:{_INTERNAL})\b(?::\d{{1,5}})?", re.IGNORECASE)
_INTERNAL_HINTS = tuple(f".{d}" for d in ("internal", "intranet", "intra", "corp", "lan", "local", "home.arpa",
                                          "svc", "private"))
# In error text only: any host (an IP v4 or v6, localhost, a dotted name with a port or a common ending).
_TLDS = ("com|net|org|io|ai|dev|app|cloud|co|us|uk|de|fr|eu|info|biz|internal|local|lan|corp|intra|home|svc|"
         "cluster|localdomain|test|example|invalid")
_HOST = re.compile(r"\[[0-9A-Fa-f.]*:[0-9A-Fa-f.]*:[0-9A-Fa-f:.]*\](?::\d{1,5})?"  # [v6]:port, never a list's [0]
                   r"|\b(?:\d{1,3}\.){3}\d{1,3}(?::\d{1,5})?\b"
                   r"|(?<![\w:])(?=[0-9A-Fa-f:]*::)[0-9A-Fa-f]{0,4}(?::[0-9A-Fa-f]{0,4}){2,7}(?![\w:])"
                   r"|\blocalhost(?::\d{1,5})?\b"
                   rf"|\b(?:{_LABEL}\.)+(?:(?:{_TLDS})\b(?::\d{{1,5}})?|[A-Za-z]{{2,63}}:\d{{1,5}}\b)", re.IGNORECASE)
# In error text only: a bare ``name:port`` ("gw-node-3:8443", "ollama:11434", "db:5432": a compose service or a
# host in the operator's search domain). Not a word that continues a path, a key or a number ("sha256:0a1b",
# "max_tokens:256", "T12:30:45"), not a name in capitals ("PMID:10", "HTTP:11": identifiers, not hosts), not a
# one-digit count ("rounds:3"); case-sensitive, unlike _HOST.
_BARE_HOST_PORT = re.compile(r"(?<![\w.:/@\\-])(?![A-Z0-9-]*:)[A-Za-z][A-Za-z0-9-]{0,62}:\d{2,5}(?![\w:\-]|\.\d)")

_lock = threading.Lock()
# What the process holds, replaced whole on each addition (copy on write): reading it costs nothing.
_held: tuple[frozenset[str], frozenset[str]] = (frozenset(), frozenset())


def _add(secrets: Iterable[str], hosts: Iterable[str] = (), guessed: Iterable[str] = ()) -> None:
    """``guessed``: values only their variable's name calls secret, kept when they look like one."""
    global _held
    new_secrets = {p for value in secrets for p in _parts(value)}
    new_secrets |= {p for value in guessed for p in _parts(value) if _looks_secret(p)}
    new_hosts = set(hosts)
    with _lock:
        held_secrets, held_hosts = _held
        if not new_secrets <= held_secrets or not new_hosts <= held_hosts:
            _held = (held_secrets | new_secrets, held_hosts | new_hosts)


def remember_secrets(values: Iterable[str]) -> None:
    """Values no caller may see (a key the service was given in a file, say); kept for the process's life."""
    _add(values)


def remember_endpoints(urls: Iterable[str]) -> None:
    """Addresses of the operator's servers (a checker's base URL, a database's): their hosts and passwords."""
    secrets: list[str] = []
    hosts: list[str] = []
    for url in urls:
        found_hosts, found_secrets = _url_parts(url)
        hosts += found_hosts
        secrets += found_secrets
    _add(secrets, hosts)


def _looks_secret(value: str) -> bool:
    """A value a variable's name calls secret that could be one: not a word or two of letters (``production``,
    ``subprocess``: configuration, and masking the word everywhere would garble prose), not a number, not a path."""
    if value.isdigit() or value.startswith(("/", "~", "./")):
        return False
    return not value.replace("-", "").replace("_", "").isalpha() or len(value) >= 16


def remember_environment(environ: Mapping[str, str] | None = None) -> None:
    """The secrets of the environment (``os.environ``): the values of secret-named variables, each URL-valued
    variable's host and password. Called where settings are loaded (a variable set later, by a test say, counts
    from the next load on)."""
    secrets: list[str] = []
    hosts: list[str] = []
    guessed: list[str] = []
    for name, value in (os.environ if environ is None else environ).items():
        if "://" in value:
            found_hosts, found_secrets = _url_parts(value)
            hosts += found_hosts
            secrets += found_secrets
        elif _SECRET_VARIABLE.search(name) and not _NOT_SECRET_VARIABLE.search(name):
            guessed.append(value)
    _add(secrets, hosts, guessed)


def remember_settings(data: Mapping[str, Any]) -> None:
    """Everything secret in a settings dump (verification settings, the service's): MCP servers' ``env`` values
    and secret-named arguments, secret-named fields, and every URL's host and password."""
    secrets: list[str] = []
    guessed: list[str] = []
    urls: list[str] = []
    _collect(data, secrets, guessed, urls, secret=False)
    _add(secrets, guessed=guessed)
    remember_endpoints(urls)
    remember_environment()  # the keys the loaded settings will read from it


def _collect(value: Any, secrets: list[str], guessed: list[str], urls: list[str], *, secret: bool) -> None:
    if isinstance(value, Mapping):
        for name, item in value.items():
            named = str(name)
            if named == "env" and isinstance(item, Mapping):  # an MCP server's environment: every value like a secret
                guessed += [str(v) for v in item.values() if isinstance(v, str)]
                continue
            if named == "args" and isinstance(item, list):
                secrets += _secret_args([str(a) for a in item])
            _collect(item, secrets, guessed, urls, secret=secret or bool(_SECRET_FIELD.search(named)))
    elif isinstance(value, list | tuple):
        for item in value:
            _collect(item, secrets, guessed, urls, secret=secret)
    elif isinstance(value, str):
        if "://" in value:
            urls.append(value)
        elif secret:
            secrets.append(value)


def _secret_arg_values(args: list[str]) -> dict[int, str]:
    """Where a command line holds a secret, by position, and the secret itself: the value of ``--api-key=x``
    or ``KEY=x``, and the argument after a secret-named flag (``--token x``). The one reading both the
    secrets remembered from a command and :func:`redact_args` use."""
    found: dict[int, str] = {}
    after_flag = False
    for i, arg in enumerate(args):
        name, equals, value = arg.partition("=")
        if after_flag and not arg.startswith("-"):
            found[i] = arg
        elif equals and _SECRET_ARG_NAME.search(name):
            found[i] = value
        after_flag = arg.startswith("-") and not equals and bool(_SECRET_ARG_NAME.search(arg))
    return found


def _secret_args(args: list[str]) -> list[str]:
    """The values of ``--api-key=x``, ``KEY=x`` and ``--token x`` in a command line."""
    return list(_secret_arg_values(args).values())


def _parts(value: str) -> list[str]:
    """A secret's value and, for a list of them (``FACTDEBATE_API_KEYS=a,b``), each one; the short ones left out."""
    value = value.strip()
    pieces = [value, *(p.strip() for p in value.split(",") if "," in value)]
    # "**********": what pydantic shows of a SecretStr, not the secret
    return [p for p in pieces if len(p) >= MIN_SECRET_CHARS and set(p) != {"*"}]


def _url_parts(url: str) -> tuple[list[str], list[str]]:
    """A URL's addresses (``host:port`` and the host) and secrets (its password, secret query values)."""
    try:
        parts = urlsplit(url.strip())
        host, port = parts.hostname, parts.port
    except ValueError:
        return [], []
    hosts = [f"{host}:{port}", f"[{host}]:{port}"] if host and port else []
    if host and not host.startswith("/"):
        hosts.append(host)
    secrets = [unquote(parts.password)] if parts.password else []
    secrets += [v for k, v in parse_qsl(parts.query) if _SECRET_ARG.search(k) or k.lower() in ("password", "sig")]
    return hosts, secrets


def held() -> tuple[frozenset[str], frozenset[str]]:
    """The secrets and endpoint addresses this process holds (remembered so far)."""
    return _held


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
    in a password is escaped in a body). ``url``: URL-encoded (each holds a "%" or a "+"). ``coded``: hex and
    base64. ``probes``: the fewest of ``coded`` that each of ``coded`` holds one of (a padded base64 holds its
    unpadded self, which holds its first middle), so that a text is searched for few strings."""

    plain: tuple[str, ...]
    url: tuple[str, ...]
    coded: tuple[str, ...]
    probes: tuple[str, ...]


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


def _forms_of(value: str) -> _Forms:
    plain = tuple(dict.fromkeys((value, json.dumps(value, ensure_ascii=False)[1:-1])))
    url = tuple(sorted(_url_forms(value) - set(plain)))
    raw = value.encode("utf-8")
    coded = {raw.hex(), raw.hex().upper(), *_base64_forms(raw)}
    kept = sorted((c for c in coded - set(plain) - set(url) if len(c) >= MIN_FRAGMENT_CHARS), key=len)
    probes: list[str] = []
    for form in kept:  # shortest first: a form holding a probe already needs no search of its own
        if not any(probe in form for probe in probes):
            probes.append(form)
    return _Forms(plain, url, tuple(kept), tuple(probes))


class _HeldForms(NamedTuple):
    forms: tuple[_Forms, ...]
    probes: tuple[str, ...]  # every value's plain forms and probes: a text holding none holds no value, bar URL ones
    url: tuple[str, ...]  # every value's URL-encoded forms, sought in a text with a "%" or a "+" only


@lru_cache(maxsize=64)
def _forms(values: frozenset[str]) -> _HeldForms:
    """Every way the values may be written; computed once per set of values held."""
    forms = tuple(_forms_of(v) for v in sorted(values))
    probes = tuple(dict.fromkeys(p for f in forms for p in (*f.plain, *f.probes)))
    return _HeldForms(forms, probes, tuple(dict.fromkeys(u for f in forms for u in f.url)))


def _present(values: frozenset[str], text: str) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """The forms of ``values`` that ``text`` holds: (plain, encoded). Substring tests first, which are far faster
    than a pattern's scan: most texts hold none."""
    if not values:
        return (), ()
    known = _forms(values)
    coded = _holds_any(text, known.probes)
    url = bool(known.url) and ("%" in text or "+" in text) and _holds_any(text, known.url)
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
def _pattern(forms: frozenset[str], bounded: bool) -> re.Pattern[str]:
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


class StreamTerms(NamedTuple):
    """What a window over a stream (util/scrub_window.py) must know of what is held: the longest form of any
    value, the forms that hold whitespace (a password with a space is cut at no space of it), and the characters
    beyond printable ASCII that some value holds (a word of them may still become a value)."""

    longest: int
    spaced: tuple[str, ...]
    letters: str


def stream_terms() -> StreamTerms:
    secrets, hosts = held()
    return _stream_terms(secrets | hosts)


@lru_cache(maxsize=16)
def _stream_terms(values: frozenset[str]) -> StreamTerms:
    every = [f for forms in _forms(values).forms for f in (*forms.plain, *forms.url, *forms.coded)]
    spaced = tuple(f for f in every if any(c.isspace() for c in f))
    letters = "".join(sorted({c for v in values for c in v if not c.isspace() and not "!" <= c <= "~"}))
    return StreamTerms(max(map(len, every), default=0), spaced, letters)


def _private_host(host: str) -> bool:
    """An address whose mention says something of the operator's network, and no ordinary word: one with a
    port, a private IP, a dotted internal name. Not api.openai.com (anyone could name it), not localhost or
    127.0.0.1 (they say nothing), not a single label such as ``ollama`` (a claim may name it)."""
    bare = host.strip("[]").lower()
    if ":" in host and not bare.replace(":", "").isalnum():
        return True  # host:port
    loopback = bare in ("localhost", "::1") or bare.startswith("127.")
    if loopback or "." not in bare:
        return False
    return bare.replace(".", "").isdigit() or bare.endswith(_INTERNAL_HINTS)


@lru_cache(maxsize=16)
def _address_like(hosts: frozenset[str]) -> frozenset[str]:
    """The configured hosts that error text loses by value: every one but a single label of letters alone. A word
    is no address: a checker at ``http://a/v1`` or ``http://model:8000`` must not turn "a valid integer" or "the
    model failed" into nonsense (its ``host:port`` form still goes, as every bare ``name:port`` does)."""
    return frozenset(h for h in hosts if not h.isalpha())


def _holds_any(text: str, parts: tuple[str, ...]) -> bool:
    return any(map(text.__contains__, parts))  # no generator: this runs on every piece of every answer


@lru_cache(maxsize=16)
def _private_hosts(hosts: frozenset[str]) -> frozenset[str]:
    return frozenset(h for h in hosts if _private_host(h))


def _without_values(text: str, secrets: frozenset[str], hosts: frozenset[str]) -> str:
    plain, encoded = _present(secrets, text)
    if plain or encoded:
        text = _pattern(frozenset((*plain, *encoded)), False).sub(MASK, text)
    plain, encoded = _present(hosts, text)
    if encoded:  # first: a host URL-encoded holds its name as written ("gw.corp.internal%3A8443")
        text = _pattern(frozenset(encoded), False).sub(MASK, text)
        plain = tuple(p for p in plain if p in text)
    if plain:
        text = _pattern(frozenset(plain), True).sub(HOST_WORDS, text)
    return text


def _masked_key(match: re.Match[str]) -> str:
    if (token := match.group("bearer")) is not None and not _bearer_token(token):
        return token
    if (token := match.group("basic")) is not None and not _basic_credential(token):
        return token
    return MASK


def _bearer_token(token: str) -> bool:
    if len(token) >= 20 or any(c.isdigit() for c in token):
        return True
    if len(token) < 8:
        return False
    mixed = any(c.islower() for c in token) and any(c.isupper() for c in token[1:])
    return mixed or any(c in _TOKEN_PUNCTUATION for c in token)


def _basic_credential(token: str) -> bool:
    try:
        decoded = base64.b64decode(token + "=" * (-len(token) % 4), validate=True)
    except (binascii.Error, ValueError):
        return False
    return b":" in decoded


def _without_keys(text: str) -> str:
    """``text`` without key-shaped tokens and the credentials after "Bearer"/"Basic"."""
    return _KEY_SHAPED.sub(_masked_key, text)


def scrub_secrets(text: str) -> str:
    """``text`` without the secrets held (by value) and key-shaped tokens; addresses stay. For the terminal of
    the operator who set those addresses (the CLI's error lines), where saying which server failed is the help."""
    secrets, _ = held()
    text = _without_values(text, secrets, frozenset())
    if _holds_any(text, _KEY_HINTS):
        text = _without_keys(text)
    return text


def scrub_known(text: str) -> str:
    """``text`` without what is the operator's for certain: the secrets held (by value), key-shaped tokens, the
    configured endpoints' addresses (those that name something private) and internal host names. Safe on a
    verdict: the public URLs of its sources stay."""
    secrets, hosts = held()
    text = _without_values(text, secrets, _private_hosts(hosts))
    if _holds_any(text, _KEY_HINTS):
        text = _without_keys(text)
    if _holds_any(text.lower(), _INTERNAL_HINTS):
        text = _INTERNAL_HOST.sub(HOST_WORDS, text)
    return text


def scrub(text: str) -> str:
    """Text that says what went wrong, as a caller reads it: no secret the process holds, no key-shaped token,
    no address of any kind (the server's log keeps them)."""
    secrets, hosts = held()
    if len(text) <= _REMEMBERED_CHARS:
        return _scrubbed_short(text, secrets, hosts)
    return _scrubbed(text, secrets, hosts)


# A short text is scrubbed once for what the process holds then: a model's name or a checker's endpoint is
# scrubbed again on every model call (each kept call's ``model``, each call's metrics label), which costs CPU
# per guarded reply. Keyed by the secrets and hosts too, so a secret remembered later is never missed.
_REMEMBERED_CHARS = 200


@lru_cache(maxsize=1024)
def _scrubbed_short(text: str, secrets: frozenset[str], hosts: frozenset[str]) -> str:
    return _scrubbed(text, secrets, hosts)


def _scrubbed(text: str, secrets: frozenset[str], hosts: frozenset[str]) -> str:
    text = _without_values(text, secrets, frozenset())
    text = _URL.sub(_hidden_url, text)
    text = _without_values(text, frozenset(), _address_like(hosts))
    text = _without_keys(text)
    text = _LONG_TOKEN.sub(MASK, text)
    return _BARE_HOST_PORT.sub(HOST_WORDS, _HOST.sub(HOST_WORDS, text))


def _hidden_url(match: re.Match[str]) -> str:
    address = match.group()
    tail = address[len(address.rstrip(".,:;!?")):]  # the sentence's punctuation, not the address's
    return ("" if address.startswith("@") else ENDPOINT_WORDS) + tail


def scrub_value(value: Any, *, strong: bool = False) -> Any:
    """A copy of a JSON-like value with every string scrubbed: :func:`scrub` for the fields that say what went
    wrong (:data:`ERROR_FIELDS`) and everything in them, :func:`scrub_json_text` for the others (a text that
    holds serialized JSON, as an MCP tool's answer does, has its error fields scrubbed too)."""
    if isinstance(value, str):
        return scrub(value) if strong else scrub_json_text(value)
    if isinstance(value, Mapping):
        return {k: scrub_value(v, strong=strong or k in ERROR_FIELDS) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [scrub_value(v, strong=strong) for v in value]
    return value


# The JSON fields that say what went wrong, on every face: the API's "detail", OpenAI's "error"/"message", an
# event's "error", the guard's "degraded_reason", a batch line's "error".
ERROR_FIELDS = frozenset({"error", "detail", "message", "degraded_reason", "warnings", "start_error"})
_ERROR_FIELD = re.compile(r'"(?:error|detail|message|degraded_reason|start_error)"\s*:\s*"((?:[^"\\]|\\.)*)"')


def scrub_json_text(text: str) -> str:
    """Serialized JSON (a body, an SSE frame, JSON lines) as it leaves the process: :func:`scrub_known` over all
    of it, and :func:`scrub` on the string value of each field that says what went wrong. Works on the text, so
    a body is neither parsed nor rewritten when nothing in it is the operator's."""
    text = scrub_known(text)
    return _ERROR_FIELD.sub(_scrubbed_field, text)


def _scrubbed_field(match: re.Match[str]) -> str:
    inner = match.group(1)
    cleaned = scrub(inner)
    if cleaned == inner:
        return match.group()
    start, end = match.span(1)
    whole = match.group()
    offset = match.start()
    return whole[:start - offset] + cleaned + whole[end - offset:]


# URLs with their credentials masked, for what the operator reads too (messages, trace events, records, log lines):
# userinfo (``http://user:pw@host``) and secret-looking query parameters in every URL, an MCP server's ``env``
# values and secret-looking command-line arguments wherever settings are written. Operators put credentials in
# endpoint URLs (``OPENAI_BASE_URL``, a Milvus URI, a proxied search API); callers of the service must not see
# them. :class:`~factdebate.core.errors.FactDebateError` runs its message through :func:`redact_text`, so every
# user-facing error is covered at the source.

# Query parameter names whose values are secrets (compared lower-case, "-" read as "_").
SECRET_PARAMS = frozenset({"api_key", "apikey", "key", "token", "access_token", "auth", "password", "pw",
                           "secret", "client_secret", "signature", "sig", "mailto", "email", "private_token"})
# A URL with a scheme, up to whitespace or a closing quote/bracket.
_URL_IN_TEXT = re.compile(r"\b[A-Za-z][A-Za-z0-9+.-]*://[^\s'\"<>()\[\]{}]+")
# An argument or variable name that says its value is a secret (--api-key, GITHUB_TOKEN, --password...).
_SECRET_ARG_NAME = re.compile(r"key|token|secret|passw|pwd|credential|auth|cookie|session|signature|bearer|private",
                          re.IGNORECASE)
# A bare value shaped like a well-known credential (OpenAI, GitHub, GitLab, Slack, AWS, Google, Hugging Face,
# a JWT): masked even when no flag names it.
_TOKEN_SHAPE = re.compile(r"^(sk-|sk_|ghp_|gho_|ghs_|ghu_|github_pat_|glpat-|xox[abprs]-|AKIA|AIza|hf_|eyJ)"
                          r"[A-Za-z0-9_\-.]{8,}$")


def _secret_param(name: str) -> bool:
    return name.lower().replace("-", "_") in SECRET_PARAMS


def redact_url(url: str) -> str:
    """``url`` with its userinfo and secret query values replaced by ``***``; other parts kept."""
    try:
        parts = urlsplit(url)
        netloc = parts.netloc
        if "@" in netloc:
            netloc = MASK + "@" + netloc.rsplit("@", 1)[1]
        query = parts.query
        if query:
            pairs = parse_qsl(query, keep_blank_values=True)
            if any(_secret_param(k) for k, _ in pairs):
                query = urlencode([(k, MASK if _secret_param(k) else v) for k, v in pairs], safe="*")
        if netloc == parts.netloc and query == parts.query:
            return url  # nothing secret; urlunsplit would also turn sqlite:///path into sqlite:/path
        return urlunsplit((parts.scheme, netloc, parts.path, query, parts.fragment))
    except ValueError:  # not parseable as a URL (a bad port, say): hide everything after the scheme
        scheme = url.split("://", 1)[0]
        return f"{scheme}://{MASK}"


def redact_text(text: str) -> str:
    """``text`` with every URL in it redacted."""
    if "://" not in text:
        return text
    return _URL_IN_TEXT.sub(lambda m: redact_url(m.group()), text)


def hide_endpoints(text: str) -> str:
    """``text`` as a service's caller reads what went wrong: where the operator's servers are (a model server's
    URL, a search API's) and what they hold is the operator's to know, so each address, key and secret is left
    out (:func:`scrub`); the server's log keeps them."""
    return scrub(text)


# Values of these exact types hold no URL: a copy keeps them as they are.
_NO_TEXT = frozenset((int, float, bool, type(None)))


def redact_value(value: Any) -> Any:
    """A copy of a JSON-like value with every string redacted (verdict ``config``, trace events)."""
    if isinstance(value, str):
        return redact_text(value)
    if isinstance(value, dict):
        # A number, a flag or a plain string without "://" is taken as it is, not through a call each: a
        # check's every model call and claim's settings are copied here, so a call each costs CPU per reply.
        return {k: v if (kind := type(v)) in _NO_TEXT or (kind is str and "://" not in v) else redact_value(v)
                for k, v in value.items()}
    if isinstance(value, list):
        return [redact_value(v) for v in value]
    return value


def redact_args(args: list[str]) -> list[str]:
    """Command-line arguments with secret values masked: ``--api-key=x``, ``KEY=x``, the value after a
    secret-named flag (``--token x``), and bare values shaped like a known credential."""
    secret = _secret_arg_values(args)
    out: list[str] = []
    for i, arg in enumerate(args):
        if i in secret:
            out.append(f"{arg.partition('=')[0]}={MASK}" if "=" in arg and secret[i] != arg else MASK)
        elif _TOKEN_SHAPE.match(arg):
            out.append(MASK)
        else:
            out.append(redact_text(arg))
    return out


def redact_settings(data: dict[str, Any]) -> dict[str, Any]:
    """A settings dump as records show it: URLs without credentials, every MCP server's ``env`` value and
    secret-looking argument masked (the names stay, so a reader sees what was set)."""
    out = dict(redact_value(data))
    servers = out.get("mcp_servers")
    if isinstance(servers, dict):
        out["mcp_servers"] = {name: _masked_server(server) for name, server in servers.items()}
    return out


def _masked_server(server: Any) -> Any:
    if not isinstance(server, dict):
        return server
    masked = dict(server)
    if isinstance(server.get("env"), dict):
        masked["env"] = {name: MASK for name in server["env"]}
    if isinstance(server.get("args"), list):
        masked["args"] = redact_args([str(arg) for arg in server["args"]])
    return masked


class RedactingFilter(logging.Filter):
    """Masks URL credentials in a log record's message and traceback before any handler formats it."""

    def filter(self, record: logging.LogRecord) -> bool:
        message = record.getMessage()
        if "://" in message:
            record.msg, record.args = redact_text(message), None
        if record.exc_info and not record.exc_text:
            record.exc_text = redact_text(logging.Formatter().formatException(record.exc_info))
        elif record.exc_text:
            record.exc_text = redact_text(record.exc_text)
        return True


def redact_logs(*names: str) -> None:
    """Attach the filter to these loggers (once each); a filter applies to records logged on that logger."""
    for name in names:
        logger = logging.getLogger(name)
        if not any(isinstance(f, RedactingFilter) for f in logger.filters):
            logger.addFilter(RedactingFilter())


# A search API's request: the values of its secret-named parameters, headers and body fields, masked in whatever
# its server sends back (an error body that quotes the key it was sent).
REQUEST_SECRET_NAMES = frozenset({"api_key", "apikey", "key", "token", "access_token", "authorization",
                                  "x-api-key", "mailto", "email"})


def request_secrets(*mappings: Mapping[str, Any] | None) -> list[str]:
    """The values of the secret-named entries of a request's ``mappings`` (parameters, headers, a JSON body),
    the bare key of a ``Bearer <key>`` too, longest first so that a key holding another is masked whole."""
    found: list[str] = []
    for mapping in mappings:
        for name, value in (mapping or {}).items():
            if str(name).lower() in REQUEST_SECRET_NAMES and value not in (None, ""):
                text = str(value)
                found.append(text)
                # "Bearer <key>": the bare key may be echoed back without the scheme.
                if " " in text:
                    found.append(text.split(" ", 1)[1])
    return sorted({s for s in found if len(s) >= 4}, key=len, reverse=True)


def without(text: str, secrets: Iterable[str]) -> str:
    """``text`` with each of ``secrets`` (as :func:`request_secrets` orders them) replaced by ``***``."""
    for secret in secrets:
        text = text.replace(secret, MASK)
    return text
