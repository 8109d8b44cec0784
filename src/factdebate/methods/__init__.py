"""Verification methods, registered by name. Importing this package registers the built-in ones."""

from __future__ import annotations

from factdebate.methods import cot as cot  # the baselines register themselves on import
from factdebate.methods import mad as mad
from factdebate.methods import madke as madke
from factdebate.methods import react as react
from factdebate.methods import single as single
from factdebate.methods import tool_mad  # noqa: F401  (registers "tool-mad")
from factdebate.methods import vote as vote
from factdebate.methods.base import DESCRIPTIONS, METHODS, Method, Resources, get_method

__all__ = ["DESCRIPTIONS", "METHODS", "Method", "Resources", "get_method"]
