"""The service's log lines as the operator reads them: each record's message and traceback pass the library's
redaction (``redact_value``: credentials go, addresses stay) before any handler formats it, on the loggers the
app names (its own, the library's and uvicorn's)."""

from __future__ import annotations

import logging

from factdebate.util.scrub import redact_value


class RedactingFilter(logging.Filter):
    """Redacts a log record's message and traceback (:func:`redact_value`) before any handler formats it."""

    def filter(self, record: logging.LogRecord) -> bool:
        message = record.getMessage()
        redacted = redact_value(message)
        if redacted != message:
            record.msg, record.args = redacted, None
        if record.exc_info and not record.exc_text:
            record.exc_text = redact_value(logging.Formatter().formatException(record.exc_info))
        elif record.exc_text:
            record.exc_text = redact_value(record.exc_text)
        return True


def redact_logs(*names: str) -> None:
    """Attach the filter to these loggers (once each); a filter applies to records logged on that logger."""
    for name in names:
        logger = logging.getLogger(name)
        if not any(isinstance(f, RedactingFilter) for f in logger.filters):
            logger.addFilter(RedactingFilter())
