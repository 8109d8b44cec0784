"""The settings only the operator gives, in one place for every reader of a settings file the user may not
have written: a run folder's ``run.json`` (eval/reproduce/recorded_settings.py, issue 27) and a
``factdebate.yaml`` that happens to lie in the current folder (settings/config_file.py). A folder someone
sent you, or a cloned repository, is data: it may choose the method's settings, never a command to start
or a server to send the user's keys and claims to."""

from __future__ import annotations

from typing import Any

SettingPath = tuple[str, ...]

# What starts a program, or receives the user's API keys and claims: MCP servers (a stdio server's command,
# an HTTP server's address), OpenAI-compatible endpoints, a Milvus server, a Ray cluster to join.
COMMANDS_AND_ENDPOINTS: tuple[SettingPath, ...] = (
    ("mcp_servers",), ("llm", "base_urls"), ("retrieval", "milvus_uri"), ("scale", "ray_address"),
)
# Always the user's in a rerun: the above, where the work runs, and how long and how often calls are tried.
OPERATOR_PATHS: tuple[SettingPath, ...] = (
    ("mcp_servers",), ("llm", "base_urls"), ("retrieval", "milvus_uri"), ("scale",),
    ("llm", "timeout"), ("llm", "retries"), ("llm", "retry_budget"), ("llm", "concurrency"),
)


def value_at(data: dict[str, Any], path: SettingPath) -> Any:
    """The value at ``path`` in nested settings data (None where any part is missing)."""
    value: Any = data
    for part in path:
        if not isinstance(value, dict) or part not in value:
            return None
        value = value[part]
    return value


def set_in(data: dict[str, Any], paths: tuple[SettingPath, ...]) -> list[str]:
    """The dotted names of ``paths`` that ``data`` gives a value (an empty list or mapping is no value)."""
    return [".".join(path) for path in paths if value_at(data, path) not in (None, "", [], {})]
