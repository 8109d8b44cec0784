"""Errors a user can act on. The CLI prints their message and exits non-zero, without a traceback."""

from __future__ import annotations

from factdebate.util.redact import redact_text, redact_url


class FactDebateError(Exception):
    """Base class: the message is meant for the user as-is. URLs in it lose their credentials here, so no
    error can carry a password from an endpoint URL to a log, a record or an API caller."""

    def __init__(self, *args: object) -> None:
        super().__init__(*(redact_text(a) if isinstance(a, str) else a for a in args))


class ConfigError(FactDebateError):
    """Bad settings, unknown method/tool, missing key."""


class InputError(FactDebateError):
    """A claim or input file the tool cannot work on."""


class MissingDependencyError(FactDebateError):
    def __init__(self, package: str, extra: str) -> None:
        super().__init__(
            f"this feature needs the Python package '{package}'; install it with "
            f"`pip install 'factdebate[{extra}]'` (or run scripts/setup.sh)"
        )


class MissingKeyError(ConfigError):
    def __init__(self, variable: str, what: str) -> None:
        super().__init__(f"{what} needs an API key: set the environment variable {variable}")
        self.variable = variable


class EndpointUnavailableError(FactDebateError):
    """A remote service could not be reached after the allowed retries."""

    def __init__(self, url: str, attempts: int, last_error: str) -> None:
        super().__init__(f"could not reach {url} after {attempts} attempt(s): {last_error}")
        self.url = redact_url(url)
        self.attempts = attempts


class IndexError_(FactDebateError):
    """A search index is missing or unreadable."""
