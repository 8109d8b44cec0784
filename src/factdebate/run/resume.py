"""Resuming a run is only honest with the settings it started with: otherwise one results file would mix
two experiments. Settings that change how fast a run goes, not what it computes, may change."""

from __future__ import annotations

import contextlib
import json
from collections.abc import Iterable
from typing import Any

from factdebate.util.scrub import redact_settings

VOLATILE = {("concurrency",), ("llm", "concurrency"), ("llm", "retries"), ("llm", "timeout"), ("llm", "cache"),
            ("llm", "retry_budget"), ("llm", "base_urls"), ("llm", "max_in_flight"), ("scale",)}


def stable(settings: dict[str, Any]) -> dict[str, Any]:
    """``settings`` without the volatile ones."""
    out = json.loads(json.dumps(settings))
    for path in VOLATILE:
        target = out
        for part in path[:-1]:
            target = target.get(part, {})
        target.pop(path[-1], None)
    return out


def differences(old: Any, new: Any, prefix: str = "") -> list[str]:
    """``path: old -> new`` for every leaf that differs."""
    if isinstance(old, dict) and isinstance(new, dict):
        return [d for key in sorted(set(old) | set(new))
                for d in differences(old.get(key), new.get(key), f"{prefix}{key}.")]
    return [] if old == new else [f"{prefix.rstrip('.')}: {old!r} -> {new!r}"]


def only_sections(settings: dict[str, Any], sections: Iterable[str] | None) -> dict[str, Any]:
    """``settings`` with only the named method sections under ``methods`` (all of them for ``None``)."""
    if sections is None or not isinstance(settings.get("methods"), dict):
        return settings
    keep = set(sections)
    return {**settings, "methods": {name: value for name, value in settings["methods"].items() if name in keep}}


def settings_changes(before: dict[str, Any], now: dict[str, Any],
                     sections: Iterable[str] | None = None) -> list[str]:
    """What changed between two settings dumps, ignoring volatile settings and secrets; an old dump is read
    through the new names first. Only the method ``sections`` the run's method reads are compared."""
    if "methods" not in before and ("toolmad" in before or "baselines" in before):
        from factdebate.settings.model import Settings

        with contextlib.suppress(ValueError):  # unreadable: every difference is reported as it stands
            before = Settings.model_validate(before).model_dump(mode="json")
    # Both masked: a file written before secrets were masked resumes, and no message repeats a secret.
    before, now = only_sections(before, sections), only_sections(now, sections)
    return [f"settings.{d}" for d in differences(stable(redact_settings(before)), stable(redact_settings(now)))]
