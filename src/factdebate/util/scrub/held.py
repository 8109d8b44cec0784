"""What the process holds that no caller may see, collected where it is loaded and kept for the process's life:
the values of the environment's secret-named variables and the hosts and passwords of its URL-valued ones,
whatever settings the process loaded (MCP servers' ``env`` values and secret-looking arguments, endpoint and
database URLs), and each client's own key and endpoint when it is made."""

from __future__ import annotations

import os
import re
import threading
from collections.abc import Iterable, Mapping
from typing import Any
from urllib.parse import parse_qsl, unquote, urlsplit

from factdebate.util.scrub.vocabulary import MIN_SECRET_CHARS, secret_name

# PWD/OLDPWD are the shell's directories; *_ENV/_FILE/_PATH and the like name things rather than hold them.
_NOT_SECRET_VARIABLE = re.compile(r"(?:^|_)(?:OLD)?PWD$|_(?:ENV|FILE|PATH|DIR|NAME|ID|TYPE|URL_ENV)$", re.IGNORECASE)

_lock = threading.Lock()
# Replaced whole on each addition (copy on write): reading it costs nothing.
_held: tuple[frozenset[str], frozenset[str]] = (frozenset(), frozenset())


def held() -> tuple[frozenset[str], frozenset[str]]:
    """The secrets and endpoint addresses this process holds (remembered so far)."""
    return _held


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
    """Values no caller may see (a key the service was given in a file, say)."""
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


def remember_environment(environ: Mapping[str, str] | None = None) -> None:
    """The secrets of the environment (``os.environ``). Called where settings are loaded (a variable set later,
    by a test say, counts from the next load on)."""
    secrets: list[str] = []
    hosts: list[str] = []
    guessed: list[str] = []
    for name, value in (os.environ if environ is None else environ).items():
        if "://" in value:
            found_hosts, found_secrets = _url_parts(value)
            hosts += found_hosts
            secrets += found_secrets
        elif secret_name(name) and not _NOT_SECRET_VARIABLE.search(name):
            guessed.append(value)
    _add(secrets, hosts, guessed)


def remember_settings(data: Mapping[str, Any], secrets: Iterable[str] = ()) -> None:
    """Everything secret in a settings dump: MCP servers' ``env`` values and secret-named arguments,
    secret-named fields, and every URL's host and password; ``secrets`` too, the values the dump shows masked
    (a ``SecretStr``'s: a service's API keys)."""
    found = list(secrets)
    guessed: list[str] = []
    urls: list[str] = []
    _collect(data, found, guessed, urls, secret=False)
    _add(found, guessed=guessed)
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
                secrets += secret_arg_values([str(a) for a in item]).values()
            _collect(item, secrets, guessed, urls, secret=secret or _secret_field(named))
    elif isinstance(value, list | tuple):
        for item in value:
            _collect(item, secrets, guessed, urls, secret=secret)
    elif isinstance(value, str):
        if "://" in value:
            urls.append(value)
        elif secret:
            secrets.append(value)


def _secret_field(name: str) -> bool:
    """A settings field's last word decides (``api_keys``, ``state_dsn``); ``key_corpora`` names things, and a
    mapping's key that is data (a corpus key ``key-0123``) is no word."""
    word = name.rsplit("_", 1)[-1]
    return word.isalpha() and secret_name(word)


def secret_arg_values(args: list[str]) -> dict[int, str]:
    """Where a command line holds a secret, by position, and the secret itself: the value of ``--api-key=x``
    or ``KEY=x``, and the argument after a secret-named flag (``--token x``)."""
    found: dict[int, str] = {}
    after_flag = False
    for i, arg in enumerate(args):
        name, equals, value = arg.partition("=")
        if after_flag and not arg.startswith("-"):
            found[i] = arg
        elif equals and secret_name(name):
            found[i] = value
        after_flag = arg.startswith("-") and not equals and secret_name(arg)
    return found


def _looks_secret(value: str) -> bool:
    """A value a variable's name calls secret that could be one: not a word or two of letters (``production``,
    ``subprocess``: configuration, and masking the word everywhere would garble prose), not a number, not a path."""
    if value.isdigit() or value.startswith(("/", "~", "./")):
        return False
    return not value.replace("-", "").replace("_", "").isalpha() or len(value) >= 16


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
    secrets += [v for k, v in parse_qsl(parts.query) if secret_name(k)]
    return hosts, secrets
