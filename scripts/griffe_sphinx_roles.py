"""A Griffe extension for the Python API page (mkdocs.yml, mkdocstrings' ``extensions``): the docstrings are
written for ``help()`` and Sphinx, so their roles (``:class:`~factdebate.core.types.Verdict```, ``:func:`averify```)
and ``Example::`` blocks would show as written. A role naming a public name (``factdebate.__all__``) becomes a
link to its entry on the page; any other becomes code, so no link can point to an entry the page lacks."""

from __future__ import annotations

import re
from typing import Any

import griffe

_ROLE = re.compile(r":(?:class|func|meth|attr|mod|data|exc|obj):`(~?)([\w.]+)`")
_LITERAL_BLOCK = re.compile(r"::$", re.M)


def entry_paths() -> dict[str, str]:
    """Each public name and the path its entry is rendered from (and anchored at). The functions are read where
    api.py defines them: the package binds them lazily (its ``__getattr__``), so a static reader of the package
    finds only its ``TYPE_CHECKING`` imports there."""
    import factdebate

    paths = {}
    for name in factdebate.__all__:
        obj = getattr(factdebate, name)
        defined_in_api = (callable(obj) and not isinstance(obj, type)
                          and getattr(obj, "__module__", "") == "factdebate.api")
        paths[name] = f"factdebate.api.{name}" if defined_in_api else f"factdebate.{name}"
    return paths


def markdown(text: str, paths: dict[str, str]) -> str:
    def role(match: re.Match[str]) -> str:
        short, target = match.group(1) == "~", match.group(2)
        name = target.rsplit(".", 1)[-1]
        shown = name if short else target
        return f"[`{shown}`][{paths[name]}]" if name in paths else f"`{shown}`"

    return _LITERAL_BLOCK.sub(":", _ROLE.sub(role, text))


class SphinxRoles(griffe.Extension):
    def __init__(self) -> None:
        self.paths = entry_paths()

    def on_instance(self, *, obj: griffe.Object, **kwargs: Any) -> None:
        if obj.docstring is not None:
            obj.docstring.value = markdown(obj.docstring.value, self.paths)
