"""The base of every error a user can act on, in the lowest layer so that ``util`` raises it too;
:mod:`factdebate.core.errors` holds the rest."""

from __future__ import annotations

from factdebate.util.scrub import redact_text


class FactDebateError(Exception):
    """Base class: the message is meant for the user as-is. URLs in it lose their credentials here, so no
    error can carry a password from an endpoint URL to a log, a record or an API caller."""

    __module__ = "factdebate.core.errors"  # where callers import it from, and where tracebacks say it is

    def __init__(self, *args: object) -> None:
        super().__init__(*(redact_text(a) if isinstance(a, str) else a for a in args))
