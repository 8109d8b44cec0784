"""The HTTP service (``factdebate serve``), its web page and the MCP server (``factdebate mcp``).

Importing this package loads nothing heavy; FastAPI is imported by :mod:`factdebate.server.app`."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from fastapi import FastAPI

__all__ = ["create_app"]


def create_app(*args: Any, **kwargs: Any) -> FastAPI:
    """See :func:`factdebate.server.app.create_app`."""
    from factdebate.server.app import create_app as _create_app

    return _create_app(*args, **kwargs)
