"""Credentials never leave the process: userinfo (``http://user:pw@host``) and secret-looking query
parameters are masked in every URL that reaches a message, a trace event, a record or a log line; an MCP
server's ``env`` values and secret-looking command-line arguments are masked wherever settings are written.

Operators put credentials in endpoint URLs (``OPENAI_BASE_URL``, a Milvus URI, a proxied search API);
callers of the service must not see them. :class:`~factdebate.core.errors.FactDebateError` runs its message
through :func:`redact_text`, so every user-facing error is covered at the source."""

from __future__ import annotations

import logging
import re
from typing import Any
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

from factdebate.util.scrub import scrub

MASK = "***"
# Query parameter names whose values are secrets (compared lower-case, "-" read as "_").
SECRET_PARAMS = frozenset({"api_key", "apikey", "key", "token", "access_token", "auth", "password", "pw",
                           "secret", "client_secret", "signature", "sig", "mailto", "email", "private_token"})
# A URL with a scheme, up to whitespace or a closing quote/bracket.
_URL = re.compile(r"\b[A-Za-z][A-Za-z0-9+.-]*://[^\s'\"<>()\[\]{}]+")
# An argument or variable name that says its value is a secret (--api-key, GITHUB_TOKEN, --password...).
_SECRET_NAME = re.compile(r"key|token|secret|passw|pwd|credential|auth|cookie|session|signature|bearer|private",
                          re.IGNORECASE)
# A bare value shaped like a well-known credential (OpenAI, GitHub, GitLab, Slack, AWS, Google, Hugging Face,
# a JWT): masked even when no flag names it.
_TOKEN_SHAPE = re.compile(r"^(sk-|sk_|ghp_|gho_|ghs_|ghu_|github_pat_|glpat-|xox[abprs]-|AKIA|AIza|hf_|eyJ)"
                          r"[A-Za-z0-9_\-.]{8,}$")


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


def hide_endpoints(text: str) -> str:
    """``text`` as a service's caller reads what went wrong: where the operator's servers are (a model server's
    URL, a search API's) and what they hold is the operator's to know, so each address, key and secret is left
    out (util/scrub.py's :func:`~factdebate.util.scrub.scrub`); the server's log keeps them."""
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
    out: list[str] = []
    after_secret_flag = False
    for arg in args:
        name, equals, _ = arg.partition("=")
        if after_secret_flag and not arg.startswith("-"):
            out.append(MASK)
        elif equals and _SECRET_NAME.search(name):
            out.append(f"{name}={MASK}")
        elif _TOKEN_SHAPE.match(arg):
            out.append(MASK)
        else:
            out.append(redact_text(arg))
        after_secret_flag = arg.startswith("-") and not equals and bool(_SECRET_NAME.search(arg))
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
