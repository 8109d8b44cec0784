"""Registers the commands that live in other packages (service, evaluation) on the main CLI app.
Each block imports lazily inside its command so `factdebate --help` stays fast."""

from __future__ import annotations
