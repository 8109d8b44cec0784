"""One scrub for everything a caller or a record can see: what the operator holds never reaches a caller,
whatever text carries it. A checker or gateway that answers 401 quoting the key it was sent ("Incorrect API key
provided: sk-... You can find your key at gw-node-3.corp.internal:8443") must not hand the operator's key and
internal host to the service's caller.

* :mod:`~factdebate.util.scrub.vocabulary`: what a URL, a secret's name and a key look like, declared once.
* :mod:`~factdebate.util.scrub.held`: the secrets and endpoints the process holds, remembered where loaded.
* :mod:`~factdebate.util.scrub.forms`: every way a held value is written (JSON-escaped, URL-encoded, hex, base64).
* :mod:`~factdebate.util.scrub.text`: the scrub for callers (:func:`scrub` for error text, :func:`scrub_known`
  for anything else; the service's answers and records pass them through server/scrub_responses.py).
* :mod:`~factdebate.util.scrub.window`: the same over a text that arrives in pieces (a stream), and
  :class:`SeenHalves`, the halves of a key an answer has shown so far (a key written in two parts).
* :mod:`~factdebate.util.scrub.redact`: the redaction for what the operator reads too (records, logs).

A value shorter than :data:`MIN_SECRET_CHARS` is not scrubbed by value (docs/robustness.md)."""

from factdebate.util.scrub.forms import StreamTerms, held_halves, stream_terms
from factdebate.util.scrub.held import (
    held,
    remember_endpoints,
    remember_environment,
    remember_secrets,
    remember_settings,
)
from factdebate.util.scrub.redact import (
    redact_args,
    redact_settings,
    redact_text,
    redact_url,
    redact_value,
    request_secrets,
    without,
)
from factdebate.util.scrub.text import (
    hide_endpoints,
    scrub,
    scrub_known,
    scrub_secrets,
)
from factdebate.util.scrub.vocabulary import ENDPOINT_WORDS, HOST_WORDS, MASK, MIN_SECRET_CHARS
from factdebate.util.scrub.window import ScrubWindow, SeenHalves

__all__ = [
    "ENDPOINT_WORDS", "HOST_WORDS", "MASK", "MIN_SECRET_CHARS", "ScrubWindow", "SeenHalves",
    "StreamTerms", "held", "held_halves", "hide_endpoints", "redact_args", "redact_settings", "redact_text",
    "redact_url", "redact_value", "remember_endpoints", "remember_environment", "remember_secrets",
    "remember_settings", "request_secrets", "scrub", "scrub_known", "scrub_secrets",
    "stream_terms", "without",
]
