"""Settings of one MCP server that factdebate connects to as a client (``mcp_servers`` in the config)."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field, model_validator


class MCPServerConfig(BaseModel):
    """Either a stdio server started as ``command args`` (with ``env`` added to a safe default
    environment), or a streamable-HTTP server at ``url``."""

    model_config = ConfigDict(extra="forbid")

    command: str | None = Field(default=None, description="Program that starts a stdio server.")
    args: list[str] = Field(default_factory=list, description="Its arguments.")
    env: dict[str, str] = Field(default_factory=dict, description="Variables added to the safe default "
                                "environment it starts with.")
    cwd: str | None = Field(default=None, description="Folder it starts in.")
    url: str | None = Field(default=None, description="Address of a streamable-HTTP server.")
    timeout: float = Field(default=30.0, gt=0, le=86_400, description="Seconds per tool call.")
    connect_timeout: float = Field(default=60.0, gt=0, le=86_400, description="Seconds to start and initialise "
                                   "the session.")
    tools: list[str] | None = Field(default=None, description="Only these of its tools are offered (to MERMAID's "
                                    "executor, to agents); default: every tool it lists. The service narrows it to "
                                    "what its allow-list lets callers reach.")

    @model_validator(mode="after")
    def _one_transport(self) -> MCPServerConfig:
        if (self.command is None) == (self.url is None):
            raise ValueError("an MCP server needs either 'command' (stdio) or 'url' (streamable HTTP)")
        return self
