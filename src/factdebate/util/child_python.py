"""Every Python that factdebate starts is started here, so that none of them imports from the current folder.

``python -m pkg`` and ``python -c`` put the current folder first on the new interpreter's import path, and
Ray puts its driver's current folder on every worker's. That folder is the user's: a cloned repository, a
downloaded dataset or a folder someone sent may hold a ``factdebate/`` or ``pip/`` package, which would then
run in place of ours. So:

- :func:`python_command` starts ``sys.executable -P``. ``-P`` (Python 3.11+) leaves the folder out of the path
  and, unlike ``-I``, keeps ``PYTHONPATH`` (a checkout run without installing it) and the user's site
  packages (``pip install --user``), which the children need as much as we do;
- :func:`python_env` is the environment to give them: ``PYTHONSAFEPATH=1`` (the same rule for a Python whose
  command line is not ours, such as multiprocessing's spawn under ``serve --workers``) and ``PYTHONPATH``
  without empty entries (an empty entry means "the current folder"; relative ones are made absolute so they
  keep naming what they named for us);
- :func:`ray_runtime_env` is a Ray job's runtime environment whose working directory is an empty private
  folder: Ray then puts that folder on its workers' path instead of the driver's current one.

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
    """``env`` (default: this process's environment) for a child Python: safe path on, ``PYTHONPATH``
    cleaned of what names the current folder."""
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
    """Give this process's own environment :func:`python_env`'s rules, for the children that a library
    starts with its own command line and our environment (uvicorn's worker processes)."""
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
    """The job-level runtime environment for ``ray.init``: with a ``working_dir`` set, Ray adds neither the
    driver's current folder nor its script's folder to the workers' import path."""
    return {"working_dir": ray_working_dir()}
