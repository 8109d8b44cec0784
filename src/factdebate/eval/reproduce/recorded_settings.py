"""What a rerun takes from a run folder's recorded settings, and what it never takes.

A run folder may come from anyone: applying its commands, endpoints and paths would run its command and send
the user's key to its server. So it gives the method's settings and the longest claim only; commands,
endpoints, the other limits and paths outside it come from the user (a path inside it moves to the new
folder). :func:`split_recorded` names each recorded setting not used, never its value."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from factdebate.settings.operator_paths import SettingPath, model_files, path_settings, value_at
from factdebate.settings.operator_paths import operator_paths as marked_operator_paths
from factdebate.settings.options import all_options

# operator_paths (settings/operator_paths.py): always the user's; a factdebate.yaml found in the current
# folder is held to the same rule for those of them that start programs or receive keys. Settings that hold
# a file path: path_settings and model_files, there too.

# The operator limit that decides which claims a run checks (a longer one is refused; a summarisation claim
# carries its article): a rerun with the user's default would refuse what the original checked, so it takes
# the recorded value. The other limits set how much runs at once, which changes no verdict.
RECORDED_LIMITS: tuple[SettingPath, ...] = (("max_claim_chars",),)


def operator_paths() -> list[SettingPath]:
    """The settings marked as reaching outside, and every operator-only limit any method declares but
    :data:`RECORDED_LIMITS`."""
    limits = [path for option in all_options().values() if not option.public and option.group == "limits"
              for path in option.paths if tuple(path) not in RECORDED_LIMITS]
    return list(dict.fromkeys([*marked_operator_paths(), *limits]))


def _pop(data: dict[str, Any], path: SettingPath) -> Any:
    target: Any = data
    for part in path[:-1]:
        target = target.get(part) if isinstance(target, dict) else None
    return target.pop(path[-1], None) if isinstance(target, dict) else None


def _put(data: dict[str, Any], path: SettingPath, value: Any) -> None:
    target = data
    for part in path[:-1]:
        target = target.setdefault(part, {})
    target[path[-1]] = value


def _inside(path: str, folder: Path) -> bool:
    try:
        Path(path).expanduser().resolve().relative_to(folder.resolve())
    except (ValueError, OSError, RuntimeError):
        return False
    return True


def _shown(value: Any) -> str:
    text = json.dumps(value, default=str)
    return text if len(text) <= 80 else text[:77] + "..."


def split_recorded(recorded: dict[str, Any], own: dict[str, Any], original: Path, output: Path,
                   flagged: dict[str, Any] | None = None) -> tuple[dict[str, Any], list[str]]:
    """The recorded settings with the operator's part from ``own``, and a line per recorded value not used
    (none for what ``flagged`` sets)."""
    flagged = flagged or {}
    data = json.loads(json.dumps(recorded, default=str))
    notes: list[str] = []
    for path in operator_paths():
        theirs, mine = _pop(data, path), value_at(own, path)
        if mine is not None:
            _put(data, path, mine)
        if theirs not in (None, [], {}) and theirs != mine and value_at(flagged, path) is None:
            name = ".".join(path)
            if path == ("mcp_servers",):
                notes.append(f"the run folder names MCP server(s) {', '.join(sorted(theirs))}; this rerun starts "
                             "only the servers of your own settings")
            else:  # "yours" only for a value there is: a default or nothing is said as such
                used = (f"uses {_shown(mine)}, from your settings or the default" if mine not in (None, [], {})
                        else "leaves it unset (your settings give none)")
                notes.append(f"the run folder recorded {name} = {_shown(theirs)}; this rerun {used}")
    for path in path_settings():
        theirs = value_at(data, path)
        if not isinstance(theirs, str) or not theirs:
            continue
        if _inside(theirs, original):  # the run's own file: the rerun's own file, in the new folder
            relative = Path(theirs).expanduser().resolve().relative_to(original.resolve())
            _put(data, path, str(output.resolve() / relative))
            continue
        _pop(data, path)
        mine = value_at(own, path)
        if mine is not None:
            _put(data, path, mine)
        flag = "--" + path[-1].replace("_", "-")
        notes.append(f"the run folder recorded {'.'.join(path)} = {theirs} (a path outside it, not taken from a "
                     f"folder); give {flag} to use it")
    for setting, spec in model_files(data.get("llm") or {}, "llm.") + model_files(data.get("methods") or {},
                                                                                   "methods."):
        replacement = (own.get("llm") or {}).get("debater", "llama-cpp:builtin")
        _set_at(data, setting, replacement)
        notes.append(f"the run folder recorded the model file {spec} for {setting} (a path, not taken from a "
                     f"folder); this rerun uses {replacement}: give --llm to choose")
    return data, notes


def _set_at(data: dict[str, Any], setting: str, value: str) -> None:
    """Set ``llm.roles.judge`` or ``methods.dpd.judge_llms.1`` (a list item) to ``value``."""
    *parents, last = setting.split(".")
    if last.isdigit():
        items = value_at(data, tuple(parents))
        if isinstance(items, list):
            items[int(last)] = value
    else:
        _put(data, (*parents, last), value)
