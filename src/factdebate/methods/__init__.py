"""Verification methods: one module each, registered by name (see :mod:`factdebate.methods.base`).

Every module of this package is imported when the registry is first read, so a built-in method registers
itself by existing; a method from elsewhere registers with ``@register`` on import.
"""

from __future__ import annotations

from factdebate.methods.base import (
           Method,
           MethodSettings,
           all_methods,
           descriptions,
           get_method,
           method_class,
           register,
)
from factdebate.methods.resources import Resources

__all__ = ["Method", "MethodSettings", "Resources", "all_methods", "descriptions", "get_method", "method_class",
           "register"]
