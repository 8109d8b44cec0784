"""Credentials never leave the process: userinfo (``http://user:pw@host``) and secret-looking query
parameters are masked in every URL that reaches a message, a trace event, a record or a log line.

Operators put credentials in endpoint URLs (``OPENAI_BASE_URL``, a Milvus URI, a proxied search API);
callers of the service must not see them. :class:`~factdebate.core.errors.FactDebateError` runs its message
through :func:`redact_text`, so every user-facing error is covered at the source."""

from __future__ import annotations

import logging
import re
from typing import Any
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

MASK = "***"
# Query parameter names whose values are secrets (compared lower-case, "-" read as "_").
SECRET_PARAMS = frozenset({"api_key", "apikey", "key", "token", "access_token", "auth", "password", "pw",
                           "secret", "client_secret", "signature", "sig", "mailto", "email", "private_token"})
# A URL with a scheme, up to whitespace or a closing quote/bracket.
_URL = re.compile(r"\b[A-Za-z][A-Za-z0-9+.-]*://[^\s'\"<>()\[\]{}]+")


def _secret(name: str) -> bool:
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
            if any(_secret(k) for k, _ in pairs):
                query = urlencode([(k, MASK if _secret(k) else v) for k, v in pairs], safe="*")
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
    return _URL.sub(lambda m: redact_url(m.group()), text)


def redact_value(value: Any) -> Any:
    """A copy of a JSON-like value with every string redacted (verdict ``config``, trace events)."""
    if isinstance(value, str):
        return redact_text(value)
    if isinstance(value, dict):
        return {k: redact_value(v) for k, v in value.items()}
    if isinstance(value, list):
        return [redact_value(v) for v in value]
    return value


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
