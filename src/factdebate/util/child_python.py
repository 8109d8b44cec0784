"""Every Python that factdebate starts is started here, so that none of them imports from the current folder.

``python -m pkg``, ``python -c`` and Ray's workers put the current folder first on the import path, and that
folder is the user's: a cloned repository or a folder someone sent may hold a ``factdebate/`` or ``pip/``
package that would run in place of ours. So:

- :func:`python_command` starts ``sys.executable -P``, which, unlike ``-I``, keeps ``PYTHONPATH`` and the
  user's site packages;
- :func:`python_env` sets ``PYTHONSAFEPATH=1`` (for a Python whose command line is not ours, such as
  multiprocessing's spawn) and drops ``PYTHONPATH``'s empty entries, making relative ones absolute;
- :func:`ray_runtime_env` gives Ray jobs an empty private working folder to put on their workers' path.

The operator's own MCP servers (``mcp_servers``) run the command the operator wrote, as written."""

from __future__ import annotations

import atexit
import os
import shutil
import sys
import tempfile
from collections.abc import Mapping
from typing import Any

SAFE_PATH_FLAG = "-P"
SAFE_PATH_VARIABLE = "PYTHONSAFEPATH"
_ray_folder: str | None = None


def python_command(*args: str) -> list[str]:
    """This interpreter, with the current folder kept off its import path, then ``args``."""
    return [sys.executable, SAFE_PATH_FLAG, *args]


def python_path(value: str, cwd: str | None = None) -> str:
    """``PYTHONPATH`` without its empty entries, the relative ones made absolute (against ``cwd``)."""
    here = cwd or os.getcwd()
    kept = [entry if os.path.isabs(entry) else os.path.normpath(os.path.join(here, entry))
            for entry in value.split(os.pathsep) if entry.strip()]
    return os.pathsep.join(dict.fromkeys(kept))


def python_env(env: Mapping[str, str] | None = None) -> dict[str, str]:
    """``env`` (default: this process's) for a child Python, as the module docstring says."""
    out = dict(os.environ if env is None else env)
    out[SAFE_PATH_VARIABLE] = "1"
    if "PYTHONPATH" in out:
        cleaned = python_path(out["PYTHONPATH"])
        if cleaned:
            out["PYTHONPATH"] = cleaned
        else:
            del out["PYTHONPATH"]
    return out


def protect_spawned_children() -> None:
    """Give this process's environment :func:`python_env`'s rules, for children a library starts."""
    safe = python_env()
    os.environ[SAFE_PATH_VARIABLE] = "1"
    if "PYTHONPATH" in safe:
        os.environ["PYTHONPATH"] = safe["PYTHONPATH"]
    else:
        os.environ.pop("PYTHONPATH", None)


def ray_working_dir() -> str:
    """An empty folder of this process (removed at exit), the working directory of its Ray jobs."""
    global _ray_folder
    if _ray_folder is None or not os.path.isdir(_ray_folder):
        _ray_folder = tempfile.mkdtemp(prefix="factdebate-ray-")
        atexit.register(shutil.rmtree, _ray_folder, True)
    return _ray_folder


def ray_runtime_env() -> dict[str, Any]:
    """The runtime environment for ``ray.init``; with a ``working_dir`` Ray adds no driver folder to the path."""
    return {"working_dir": ray_working_dir()}
