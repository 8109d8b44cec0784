"""Errors, claim and verdict types, the version and run events, for the service (see facade/__init__.py)."""

from factdebate.core.errors import (
    ConfigError,
    DataDirError,
    EndpointUnavailableError,
    FactDebateError,
    InputError,
    MissingDependencyError,
)
from factdebate.core.fields import GROUPS, offered
from factdebate.core.observe import Watcher, watched, watching
from factdebate.core.runtime import EventSink, Listener
from factdebate.core.types import (
    LABEL_ALIASES,
    ClaimCheck,
    Document,
    Label,
    ResponseVerdict,
    Span,
    Usage,
    Verdict,
    VerdictWarning,
    add_model_usage,
    add_reply_counts,
)
from factdebate.core.version import __version__

__all__ = [
    "GROUPS", "LABEL_ALIASES", "ClaimCheck", "ConfigError", "DataDirError", "Document", "EndpointUnavailableError",
    "EventSink", "FactDebateError", "InputError", "Label", "Listener", "MissingDependencyError", "ResponseVerdict",
    "Span", "Usage", "Verdict", "VerdictWarning", "Watcher", "__version__", "add_model_usage", "add_reply_counts",
    "offered", "watched", "watching",
]
