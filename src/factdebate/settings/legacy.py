"""Users' settings written before the method plug-ins still load: old names are moved to their new places
before validation, in each layer on its own, so that the layers keep their order across old and new names.

- ``toolmad.<key>`` -> ``methods.tool-mad.<key>``, except ``k`` and ``max_doc_chars`` -> ``retrieval``
  (every method that retrieves shares them);
- ``baselines.react_max_steps`` -> ``methods.react.max_steps``; ``baselines.mad_rounds`` -> the ``rounds``
  of both ``mad`` and ``madke`` (it used to set both); ``baselines.madke_tools`` -> ``methods.madke.tools``;
  ``baselines.vote_samples`` / ``vote_temperature`` -> ``methods.vote.samples`` / ``temperature``.
"""

from __future__ import annotations

import copy
from typing import Any

from factdebate.util.errors import ConfigError

RETRIEVAL_KEYS = ("k", "max_doc_chars")
BASELINE_KEYS: dict[str, tuple[tuple[str, str], ...]] = {
    "react_max_steps": (("react", "max_steps"),),
    "mad_rounds": (("mad", "rounds"), ("madke", "rounds")),
    "madke_tools": (("madke", "tools"),),
    "vote_samples": (("vote", "samples"),),
    "vote_temperature": (("vote", "temperature"),),
}


def upgrade_settings_data(data: dict[str, Any]) -> dict[str, Any]:
    """A copy of ``data`` with old names moved; values already under a new name win over old ones."""
    if not any(key in data for key in ("toolmad", "baselines")):
        return data
    out = copy.deepcopy(data)
    methods = dict(out.pop("methods", None) or {})
    moved: dict[str, dict[str, Any]] = {}
    toolmad = out.pop("toolmad", None)
    if isinstance(toolmad, dict):
        for key, value in toolmad.items():
            if key in RETRIEVAL_KEYS:
                out.setdefault("retrieval", {}).setdefault(key, value)
            else:
                moved.setdefault("tool-mad", {})[key] = value
    elif toolmad is not None:
        out["toolmad"] = toolmad  # not a mapping: let validation report it
    baselines = out.pop("baselines", None)
    if isinstance(baselines, dict):
        for key, value in baselines.items():
            if key not in BASELINE_KEYS:
                raise_unknown(key)
            for method, field in BASELINE_KEYS[key]:
                moved.setdefault(method, {})[field] = value
    elif baselines is not None:
        out["baselines"] = baselines
    for method, values in moved.items():
        section = methods.get(method)
        methods[method] = {**values, **section} if isinstance(section, dict) else section or values
    if methods:
        out["methods"] = methods
    return out


def raise_unknown(key: str) -> None:
    raise ConfigError(f"baselines.{key} is not a setting; the method settings now live under methods.<name> "
                     "(factdebate docs configuration)")
