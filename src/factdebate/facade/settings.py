"""The settings, their options (the form's and the API's) and the layers they are read from, for the service
(see facade/__init__.py)."""

from factdebate.settings.load import settings_from, validation_problems
from factdebate.settings.model import Settings
from factdebate.settings.options import (
    Option,
    all_options,
    convert,
    option_schema,
    option_value,
    options_to_overrides,
)
from factdebate.settings.sources import Layer, NamedEnv, YamlFile

__all__ = [
    "Layer", "NamedEnv", "Option", "Settings", "YamlFile", "all_options", "convert", "option_schema",
    "option_value", "options_to_overrides", "settings_from", "validation_problems",
]
