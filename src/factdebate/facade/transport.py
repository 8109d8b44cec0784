"""The HTTP client the guard's doors reach their upstream with, and the bounds on what they read, for the
service (see facade/__init__.py): the pooled client, its reply and failures, bounded bodies (size and time)
and a bounded fetch of raw bytes."""

from factdebate.llm.http_client import (
    BrokenReply,
    CannotConnect,
    Client,
    ConnectTimeout,
    Reply,
    UnsendableHeader,
    close_session,
)
from factdebate.util.bounded_body import (
    MIB,
    AnswerTooLarge,
    AnswerTooSlow,
    Deadline,
    decoded_async,
    read_async,
    size_words,
)
from factdebate.util.bounded_get import raw_bytes

__all__ = [
    "MIB", "AnswerTooLarge", "AnswerTooSlow", "BrokenReply", "CannotConnect", "Client", "ConnectTimeout",
    "Deadline", "Reply", "UnsendableHeader", "close_session", "decoded_async", "raw_bytes", "read_async",
    "size_words",
]
