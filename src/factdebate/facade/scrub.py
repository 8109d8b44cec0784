"""What keeps secrets, endpoints and unsafe text out of what the service writes: the scrub (secrets and
endpoints it has been told of), the redaction of URLs, logs and values, and the checks of text and records
read from outside, for the service (see facade/__init__.py)."""

from factdebate.core.textsafe import checked_tree, checked_values, dumps_record, safe_value, unsafe_reason
from factdebate.util.scrub import (
    hide_endpoints,
    redact_logs,
    redact_text,
    redact_url,
    redact_value,
    remember_endpoints,
    remember_secrets,
    remember_settings,
    scrub,
    scrub_json_text,
    scrub_value,
)

__all__ = [
    "checked_tree", "checked_values", "dumps_record", "hide_endpoints", "redact_logs", "redact_text",
    "redact_url", "redact_value", "remember_endpoints", "remember_secrets", "remember_settings", "safe_value",
    "scrub", "scrub_json_text", "scrub_value", "unsafe_reason",
]
