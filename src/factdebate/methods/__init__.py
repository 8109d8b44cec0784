"""Verification methods: a folder per family, each method registered by name (:mod:`factdebate.methods.base`).
Every module here is imported when the registry is first read, so a built-in method registers by existing."""

from __future__ import annotations

from factdebate.methods.base import CallProbe, Method, MethodSettings, descriptions, method_class, register
from factdebate.methods.resources import Resources

__all__ = ["CallProbe", "Method", "MethodSettings", "Resources", "descriptions", "method_class", "register"]
