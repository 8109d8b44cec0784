"""Verification methods, registered by name. Importing this package registers the built-in ones."""

from __future__ import annotations

from factdebate.methods import tool_mad  # noqa: F401  (registers "tool-mad")
from factdebate.methods.base import DESCRIPTIONS, METHODS, Method, Resources, get_method

__all__ = ["DESCRIPTIONS", "METHODS", "Method", "Resources", "get_method"]
