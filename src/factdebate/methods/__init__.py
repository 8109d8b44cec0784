"""Verification methods: a folder per family (the method, its prompts, its events, its scripted replies),
each method registered by name (see :mod:`factdebate.methods.base`; docs/architecture.md, "Adding a
method: one folder").

Every module of this package is imported when the registry is first read, so a built-in method registers
itself by existing; a method from elsewhere registers with ``@register`` on import.
"""

from __future__ import annotations

from factdebate.methods.base import (
           CallProbe,
           Method,
           MethodSettings,
           all_methods,
           descriptions,
           get_method,
           method_class,
           register,
)
from factdebate.methods.resources import Resources

__all__ = ["CallProbe", "Method", "MethodSettings", "Resources", "all_methods", "descriptions", "get_method",
           "method_class", "register"]
