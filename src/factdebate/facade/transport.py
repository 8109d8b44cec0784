"""The HTTP client the guard's doors reach their upstream with, and the bounds on what they read, for the
service (see facade/__init__.py): the pooled client, its reply and failures, and the size limits' words."""

from factdebate.util.bounded_body import MIB, AnswerTooLarge, AnswerTooSlow, size_words
from factdebate.util.http_client import (
    BrokenReply,
    CannotConnect,
    Client,
    ConnectTimeout,
    Reply,
    UnsendableHeader,
    close_session,
)

__all__ = [
    "MIB", "AnswerTooLarge", "AnswerTooSlow", "BrokenReply", "CannotConnect", "Client", "ConnectTimeout",
    "Reply", "UnsendableHeader", "close_session", "size_words",
]
