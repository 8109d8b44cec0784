"""``factdebate eval --method a,b,c``: several methods on one seeded draw, so their results can be paired.

Each method runs in ``OUT/<method>/`` as a single evaluation would; an option of a method's settings goes to
that method's run only, every other option to every run."""

from __future__ import annotations

from typing import Any

from factdebate.methods.base import Method
from factdebate.settings.options import all_options
from factdebate.util.errors import InputError


def parse_methods(value: str) -> list[str]:
    """``tool-mad,mermaid`` -> the method names, each checked, in the order given, without repeats."""
    names = list(dict.fromkeys(part.strip() for part in value.split(",") if part.strip()))
    if not names:
        raise InputError("--method: name at least one method (see `factdebate methods`)")
    for name in names:
        Method.named(name)  # an unknown name fails here, before any dataset is read
    return names


def owners(option: str) -> set[str]:
    """The methods whose settings an option sets; empty for a shared option."""
    known = all_options().get(option)
    if known is None:
        return set()
    return {path[1] for path in known.paths if len(path) > 2 and path[0] == "methods"}


def route_options(options: dict[str, Any], methods: list[str]) -> tuple[dict[str, dict[str, Any]], list[str]]:
    """Each method's options (shared plus its own) and the shared names; an option no method reads is refused."""
    routed: dict[str, dict[str, Any]] = {method: {} for method in methods}
    shared: list[str] = []
    for name, value in options.items():
        owned = owners(name)
        if not owned:
            shared.append(name)
            for method in methods:
                routed[method][name] = value
            continue
        targets = [method for method in methods if method in owned]
        if not targets:
            flag = "--" + name.replace("_", "-")
            raise InputError(f"{flag} belongs to {', '.join(sorted(owned))}, which --method does not name "
                             f"({', '.join(methods)})")
        for method in targets:
            routed[method][name] = value
    return routed, sorted(shared)
