"""The scrub of what a caller can see, at two strengths for two kinds of text.

* :func:`scrub` is for text that says what went wrong (an error, a ``degraded_reason``, an event's ``message``):
  every secret the process holds (by value, wherever it stands), key-shaped tokens, ``Bearer`` credentials, and
  every address (URLs, IPs, ``host:port``, dotted host names, the configured endpoints' own host names) are left
  out. What failed stays readable; where and with what is the server log's.
* :func:`scrub_known` is safe on anything (a verdict with its evidence, a stream, a kept check): only what is the
  operator's for certain goes (the secrets by value, key-shaped tokens, the configured endpoints' addresses,
  internal host names such as ``*.internal`` or ``*.corp``); a source's public URL stays."""

from __future__ import annotations

import base64
import binascii
import re
from functools import lru_cache

from factdebate.util.scrub.forms import holds_any, paired_in, pattern, present, secret_halves
from factdebate.util.scrub.held import held
from factdebate.util.scrub.vocabulary import (
    BARE_HOST_PORT,
    ENDPOINT_WORDS,
    HOST,
    HOST_WORDS,
    INTERNAL_HINTS,
    INTERNAL_HOST,
    KEY_HINTS,
    KEY_SHAPED,
    LONG_TOKEN,
    MASK,
    TOKEN_PUNCTUATION,
    URL,
)

_URL_OR_MODEL_ENDPOINT = re.compile(f"@?{URL}")  # with the "@" that joins an endpoint to a model ("openai:x@http://")


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
    return bare.replace(".", "").isdigit() or bare.endswith(INTERNAL_HINTS)


@lru_cache(maxsize=16)
def _address_like(hosts: frozenset[str]) -> frozenset[str]:
    """The configured hosts that error text loses by value: every one but a single label of letters alone. A word
    is no address: a checker at ``http://a/v1`` or ``http://model:8000`` must not turn "a valid integer" or "the
    model failed" into nonsense (its ``host:port`` form still goes, as every bare ``name:port`` does)."""
    return frozenset(h for h in hosts if not h.isalpha())


@lru_cache(maxsize=16)
def _private_hosts(hosts: frozenset[str]) -> frozenset[str]:
    return frozenset(h for h in hosts if _private_host(h))


def _without_values(text: str, secrets: frozenset[str], hosts: frozenset[str]) -> str:
    plain, encoded = present(secrets, text, secret=True)
    # Sought before any mask: a key written whole and a half of it apart from it give the half away too.
    halves = paired_in(text, secret_halves(secrets))
    if plain or encoded or halves:  # longest first: a value written whole goes whole, not as two halves
        text = pattern(frozenset((*plain, *encoded, *halves)), False).sub(MASK, text)
    plain, encoded = present(hosts, text, secret=False)
    if encoded:  # first: a host URL-encoded holds its name as written ("gw.corp.internal%3A8443")
        text = pattern(frozenset(encoded), False).sub(MASK, text)
        plain = tuple(p for p in plain if p in text)
    if plain:
        text = pattern(frozenset(plain), True).sub(HOST_WORDS, text)
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
    return mixed or any(c in TOKEN_PUNCTUATION for c in token)


def _basic_credential(token: str) -> bool:
    try:
        decoded = base64.b64decode(token + "=" * (-len(token) % 4), validate=True)
    except (binascii.Error, ValueError):
        return False
    return b":" in decoded


def without_keys(text: str) -> str:
    """``text`` without key-shaped tokens and the credentials after "Bearer"/"Basic"."""
    return KEY_SHAPED.sub(_masked_key, text) if holds_any(text, KEY_HINTS) else text


def scrub_secrets(text: str) -> str:
    """``text`` without the secrets held (by value) and key-shaped tokens; addresses stay. For the terminal of
    the operator who set those addresses (the CLI's error lines), where saying which server failed is the help."""
    secrets, _ = held()
    text = _without_values(text, secrets, frozenset())
    text = without_keys(text)
    return text


def scrub_known(text: str) -> str:
    """``text`` without what is the operator's for certain: the secrets held (by value), key-shaped tokens, the
    configured endpoints' addresses (those that name something private) and internal host names. Safe on a
    verdict: the public URLs of its sources stay."""
    secrets, hosts = held()
    text = _without_values(text, secrets, _private_hosts(hosts))
    text = without_keys(text)
    if holds_any(text.lower(), INTERNAL_HINTS):
        text = INTERNAL_HOST.sub(HOST_WORDS, text)
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
    text = _URL_OR_MODEL_ENDPOINT.sub(_hidden_url, text)
    text = _without_values(text, frozenset(), _address_like(hosts))
    text = without_keys(text)
    text = LONG_TOKEN.sub(MASK, text)
    return BARE_HOST_PORT.sub(HOST_WORDS, HOST.sub(HOST_WORDS, text))


def _hidden_url(match: re.Match[str]) -> str:
    address = match.group()
    tail = address[len(address.rstrip(".,:;!?")):]  # the sentence's punctuation, not the address's
    return ("" if address.startswith("@") else ENDPOINT_WORDS) + tail


def hide_endpoints(text: str) -> str:
    """``text`` as a service's caller reads what went wrong (:func:`scrub`): where the operator's servers are and
    what they hold is the operator's to know; the server's log keeps them."""
    return scrub(text)
