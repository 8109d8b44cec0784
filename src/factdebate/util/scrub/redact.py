"""The redaction of what the operator reads too (messages, trace events, records, log lines): credentials go,
addresses stay. Operators put credentials in endpoint URLs (``OPENAI_BASE_URL``, a Milvus URI, a proxied search
API), in MCP servers' ``env`` and arguments, and providers quote keys in their errors; a record or a log line
keeps what failed and where, never with what. :class:`~factdebate.util.errors.FactDebateError` runs its message
through :func:`redact_text`, so every user-facing error is covered at the source."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any, overload
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

from factdebate.util.scrub.held import secret_arg_values
from factdebate.util.scrub.text import without_keys
from factdebate.util.scrub.vocabulary import MASK, URL_PATTERN, key_shaped, secret_name


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
            if any(secret_name(k) for k, _ in pairs):
                query = urlencode([(k, MASK if secret_name(k) else v) for k, v in pairs], safe="*")
        if netloc == parts.netloc and query == parts.query:
            return url  # nothing secret; urlunsplit would also turn sqlite:///path into sqlite:/path
        return urlunsplit((parts.scheme, netloc, parts.path, query, parts.fragment))
    except ValueError:  # not parseable as a URL (a bad port, say): hide everything after the scheme
        scheme = url.split("://", 1)[0]
        return f"{scheme}://{MASK}"


def redact_text(text: str) -> str:
    """``text`` with every URL in it redacted and every credential by its shape masked (a key, what
    follows ``Bearer``)."""
    if "://" in text:
        text = URL_PATTERN.sub(lambda m: redact_url(m.group()), text)
    return without_keys(text)


# Values of these exact types hold no text: a copy keeps them as they are.
_NO_TEXT = frozenset((int, float, bool, type(None)))


@overload
def redact_value(value: str) -> str: ...


@overload
def redact_value(value: Any) -> Any: ...


def redact_value(value: Any) -> Any:
    """A copy of a JSON-like value with every string redacted (verdict ``config``, trace events); a text is
    redacted as :func:`redact_text` redacts it (a log line, a URL)."""
    if isinstance(value, str):
        return redact_text(value)
    if isinstance(value, dict):
        # A number or a flag is taken as it is, not through a call each: a check's every model call and claim's
        # settings are copied here, so a call each costs CPU per reply.
        return {k: v if type(v) in _NO_TEXT else redact_value(v) for k, v in value.items()}
    if isinstance(value, list):
        return [redact_value(v) for v in value]
    return value


def redact_args(args: list[str]) -> list[str]:
    """Command-line arguments with secret values masked: ``--api-key=x``, ``KEY=x``, the value after a
    secret-named flag (``--token x``), and bare values shaped like a known credential."""
    secret = secret_arg_values(args)
    out: list[str] = []
    for i, arg in enumerate(args):
        if i in secret:
            out.append(f"{arg.partition('=')[0]}={MASK}" if "=" in arg and secret[i] != arg else MASK)
        elif key_shaped(arg):
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


def request_secrets(*mappings: Mapping[str, Any] | None) -> list[str]:
    """The values of the secret-named entries of a request's ``mappings`` (parameters, headers, a JSON body),
    the bare key of a ``Bearer <key>`` too, longest first so that a key holding another is masked whole: a
    search API's server may quote them back in an error body."""
    found: list[str] = []
    for mapping in mappings:
        for name, value in (mapping or {}).items():
            if secret_name(str(name)) and value not in (None, ""):
                text = str(value)
                found.append(text)
                if " " in text:  # "Bearer <key>": the bare key may be echoed back without the scheme
                    found.append(text.split(" ", 1)[1])
    return sorted({s for s in found if len(s) >= 4}, key=len, reverse=True)


def without(text: str, secrets: Iterable[str]) -> str:
    """``text`` with each of ``secrets`` (as :func:`request_secrets` orders them) replaced by ``***``."""
    for secret in secrets:
        text = text.replace(secret, MASK)
    return text
