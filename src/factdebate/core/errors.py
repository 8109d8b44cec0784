"""The library's own errors a user can act on. The CLI prints their message and exits non-zero, without a
traceback. The base, :class:`~factdebate.util.errors.FactDebateError`, and the generic ones (bad settings, bad
input, a missing package) are util's: import them from :mod:`factdebate.util.errors`."""

from __future__ import annotations

from factdebate.util.errors import ConfigError, FactDebateError
from factdebate.util.paths import DataDirError as DataDirError  # the data folder cannot be made or written
from factdebate.util.scrub import redact_url


class EventLoopError(FactDebateError, RuntimeError):
    """A blocking API call (``factdebate.verify``) made where an event loop already runs (a notebook)."""

    def __init__(self, name: str) -> None:
        super().__init__(f"factdebate.{name}() runs an event loop of its own, and one is already running here (a "
                         f"Jupyter notebook, or async code): use `await factdebate.a{name}(...)` instead")


class MissingKeyError(ConfigError):
    def __init__(self, variable: str, what: str) -> None:
        super().__init__(f"{what} needs an API key: set the environment variable {variable}")
        self.variable = variable


class EndpointUnavailableError(FactDebateError):
    """A remote service could not be reached after the allowed retries."""

    http_status = 502  # a server the run needed did not answer

    def __init__(self, url: str, attempts: int, last_error: str) -> None:
        super().__init__(f"could not reach {url} after {attempts} attempt(s): {last_error}")
        self.url = redact_url(url)
        self.attempts = attempts


class EndpointSlowError(EndpointUnavailableError):
    """A remote service that took every request but answered none in time: slow, not unreachable."""

    def __init__(self, url: str, attempts: int, last_error: str) -> None:
        super().__init__(url, attempts, last_error)
        self.args = (f"{redact_url(url)} was reached but did not answer in time after {attempts} attempt(s), "
                     f"so it is slow or busy, not unreachable: {last_error}",)


class ModelAnswerUnusable(EndpointUnavailableError):
    """A model server answered with something no try can use: as unavailable as an unreachable one."""

    def __init__(self, message: str) -> None:
        FactDebateError.__init__(self, message)
        self.url = ""
        self.attempts = 1


class SearchIndexError(FactDebateError):
    """A search index is missing or unreadable."""


IndexError_ = SearchIndexError  # the name most modules import; tracebacks show SearchIndexError
