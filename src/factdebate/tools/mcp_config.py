"""Settings of one MCP server that factdebate connects to as a client (``mcp_servers`` in the config)."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field, model_validator


class MCPServerConfig(BaseModel):
    """Either a stdio server started as ``command args`` (with ``env`` added to a safe default
    environment), or a streamable-HTTP server at ``url``."""

    model_config = ConfigDict(extra="forbid")

    command: str | None = None
    args: list[str] = Field(default_factory=list)
    env: dict[str, str] = Field(default_factory=dict)
    cwd: str | None = None
    url: str | None = None
    timeout: float = Field(default=30.0, gt=0)  # seconds per tool call
    connect_timeout: float = Field(default=60.0, gt=0)  # seconds to start and initialise the session

    @model_validator(mode="after")
    def _one_transport(self) -> MCPServerConfig:
        if (self.command is None) == (self.url is None):
            raise ValueError("an MCP server needs either 'command' (stdio) or 'url' (streamable HTTP)")
        return self
